"""What no file of the student hand-out may hold: the course's answers.

Shared by tests/grading/test_handout.py (the kit and environment files) and
tests/notebooks/test_handout.py (the whole released course).
"""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import nbformat

from tests.notebooks.conftest import MARKERS, delimited_blocks, read_notebook, source_notebooks

ROOT = Path(__file__).resolve().parents[1]
# Lines of a solution or hidden test that are generic NumPy idioms the kit also
# uses for its own input checks: not an answer. Every other line is a secret.
# Lines that reveal nothing whoever writes them (Python keywords alone, common conversions).
GENERIC_LINES = {"y = np.asarray(y)", "classes = np.asarray(classes)", "continue", "return", "break",
                 "finally:", "except ValueError:", "return None", "raise", "return result"}
MIN_SECRET_LINE_LENGTH = 6  # shorter lines ("else:", ")") say nothing


def course_secrets(course_root=ROOT / "course"):
    """What must never reach a student: every solution and hidden-test block of
    the source notebooks (whole), and each of their lines that appears nowhere
    outside such a block in the course (the release shows those anyway)."""
    blocks, lines, public = [], set(), set()
    for _, path in source_notebooks(course_root):
        for cell in read_notebook(path).cells:
            outside = cell.source
            for begin, end in (("BEGIN SOLUTION", "END SOLUTION"), ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")):
                for block in delimited_blocks(cell.source, begin, end):
                    outside = outside.replace(block, "")
                    if block.strip():
                        blocks.append(block)
                    lines |= {line.strip() for line in block.splitlines()}
            public |= {line.strip() for line in outside.splitlines()}
    lines = {line for line in lines - public - GENERIC_LINES if len(line) >= MIN_SECRET_LINE_LENGTH}
    # A block made only of public, generic or short lines reveals nothing.
    blocks = [block for block in blocks if {line.strip() for line in block.splitlines()} & lines]
    return blocks, lines


def texts_of(path: Path, data: bytes = None):
    """(name, text) of a hand-out file, recursing into zips and wheels; a
    notebook's text is its cells' sources and outputs."""
    data = path.read_bytes() if data is None else data
    if path.suffix in (".zip", ".whl"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for name in archive.namelist():
                yield from ((f"{path.name}!{inner}", text)
                            for inner, text in texts_of(Path(name), archive.read(name)))
        return
    if path.suffix == ".gz":  # a compressed data file of the kit: its text
        data = gzip.decompress(data)
    text = data.decode("utf-8")
    if path.suffix == ".ipynb":
        notebook = nbformat.reads(text, as_version=4)
        text = "\n".join(cell.source for cell in notebook.cells) + "\n" + str(
            [cell.get("outputs", []) for cell in notebook.cells])
    yield str(path), text


def assert_no_answers(files):
    """No file holds a marker, a solution or hidden-test block, or a secret line."""
    blocks, secret_lines = course_secrets()
    assert len(blocks) > 50 and len(secret_lines) > 500  # the course's answers were found
    checked = 0
    for path in files:
        for name, text in texts_of(path):
            checked += 1
            for marker in MARKERS:
                assert marker not in text, f"{name} contains {marker!r}"
            for block in blocks:
                assert block not in text, f"{name} contains a solution or hidden-test block:\n{block}"
            leaked = {line.strip() for line in text.splitlines()} & secret_lines
            assert not leaked, f"{name} contains lines of solutions or hidden tests: {sorted(leaked)}"
    return checked


