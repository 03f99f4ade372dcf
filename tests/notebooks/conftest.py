"""Shared helpers and fixtures for the tests of the course notebooks.

The tests are generic: they cover every ``course/source/<id>/<id>.ipynb``,
so a notebook added later is checked without touching this folder.

The end-to-end fixtures work in a temporary copy of the course root (the
repository never gets ``release/``, ``submitted/`` or ``gradebook.db``) and
run nbgrader through its command line, as an instructor would: one
``generate_assignment`` for all assignments, then one ``autograde`` per
student folder.
"""

import os
import re
import shutil
import concurrent.futures
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
COURSE_ROOT = REPO_ROOT / "course"

#: The student ids of the two end-to-end submissions.
SOLUTION_STUDENT = "instructor_solution"
BLANK_STUDENT = "untouched_release"

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
MARKERS = (
    "BEGIN SOLUTION",
    "END SOLUTION",
    "BEGIN HIDDEN TESTS",
    "END HIDDEN TESTS",
    "BEGIN MARK SCHEME",
    "END MARK SCHEME",
)


def source_notebooks(course_root=COURSE_ROOT):
    """Return ``[(assignment_id, path), ...]`` of every source notebook, sorted."""
    found = []
    for path in sorted((Path(course_root) / "source").glob("*/*.ipynb")):
        if ".ipynb_checkpoints" not in path.parts:
            found.append((path.parent.name, path))
    return found


def notebook_params():
    """``pytest.param`` per source notebook, with the assignment id as test id."""
    return [pytest.param(path, id=assignment) for assignment, path in source_notebooks()]


def read_notebook(path):
    return nbformat.read(str(path), as_version=4)


def nbgrader_meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_cells(nb):
    """Cells that nbgrader knows about (any nbgrader role), in notebook order."""
    return [cell for cell in nb.cells if nbgrader_meta(cell).get("grade_id")]


def is_autograded_test(cell):
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")


def autograded_points(nb):
    """Points of the code cells nbgrader scores automatically."""
    return sum(
        float(nbgrader_meta(cell).get("points", 0))
        for cell in nb.cells
        if cell.cell_type == "code" and nbgrader_meta(cell).get("grade")
    )


def delimited_blocks(text, begin, end):
    """The text between each ``begin`` marker line and the next ``end`` line."""
    blocks, current = [], None
    for line in text.splitlines():
        if begin in line:
            current = []
        elif end in line and current is not None:
            blocks.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def leaked_lines(source_cell_text, release_cell_text, begin, end):
    """Lines of the source's delimited blocks that survive in the release cell.

    A line that the source cell also has *outside* its blocks (e.g. a
    ``return`` line of the skeleton) is legitimately in the release.
    """
    blocks = delimited_blocks(source_cell_text, begin, end)
    hidden = {line.strip() for block in blocks for line in block.splitlines()}
    outside = source_cell_text
    for block in blocks:
        outside = outside.replace(block, "")
    visible = {line.strip() for line in outside.splitlines()}
    release_lines = {line.strip() for line in release_cell_text.splitlines()}
    return sorted(line for line in (hidden - visible) & release_lines if line)


def run_nbgrader(course_root, *args):
    """Run an nbgrader subcommand in ``course_root``; return the completed process."""
    cmd = [sys.executable, "-m", "nbgrader", *args]
    # nbgrader runs the `alembic` command of its environment: put this
    # interpreter's bin folder first on PATH even when the venv is not active.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        cmd, cwd=course_root, env=env, capture_output=True, text=True, timeout=1800
    )


def nbgrader_errors(process):
    """Problems a finished nbgrader run reports: exit status and ERROR log lines."""
    problems = []
    if process.returncode != 0:
        problems.append(f"exit status {process.returncode}")
    log = process.stdout + process.stderr
    problems += [line for line in log.splitlines() if re.search(r"\|\s*(ERROR|CRITICAL)\]", line)]
    return problems


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory):
    """A scratch copy of the course root: the config and ``source/`` only."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(COURSE_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(
        COURSE_ROOT / "source",
        root / "source",
        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
    )
    return root


@pytest.fixture(scope="session")
def released_course(course_copy):
    """The scratch course after one ``generate_assignment`` of every assignment."""
    assert source_notebooks(course_copy), "course/source holds no notebooks"
    process = run_nbgrader(course_copy, "generate_assignment", "*", "--force")
    problems = nbgrader_errors(process)
    assert not problems, (
        "nbgrader generate_assignment failed: " + "; ".join(problems) + "\n" + process.stderr[-3000:]
    )
    return course_copy


@pytest.fixture(scope="session")
def autograded_course(released_course, tmp_path_factory):
    """Submit each source notebook as is and each release notebook untouched,
    autograde both students; return ``({student: course_root}, {student: process})``.

    Each student is graded in a copy of the released course with its own
    gradebook, so the two ``nbgrader autograde`` runs go in parallel.
    """
    roots = {}
    for student in (SOLUTION_STUDENT, BLANK_STUDENT):
        root = tmp_path_factory.mktemp(f"graded-{student}") / "course"
        shutil.copytree(released_course, root)
        for assignment, path in source_notebooks(root):
            origin = path if student == SOLUTION_STUDENT else root / "release" / assignment / path.name
            dest = root / "submitted" / student / assignment
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy(origin, dest / path.name)
        roots[student] = root
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(roots)) as pool:
        futures = {
            student: pool.submit(run_nbgrader, root, "autograde", "*", f"--student={student}", "--force")
            for student, root in roots.items()
        }
        runs = {student: future.result() for student, future in futures.items()}
    return roots, runs
