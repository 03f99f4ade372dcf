"""Diagnosis at grading time, through the real pipeline (sandboxed kernels, the judge, nbgrader).

One small class of 05_gaussian_nb is graded twice, with the course's catalogue of
known mistakes (``course/mistakes/``) and without it: a student whose answer is a
catalogued mistake gets the mistake's words in the failed cell's feedback, a right
answer and an answer with two mistakes get none, every score is the same in both runs,
and the catalogue is nowhere the student's kernel can see.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from grading.autograde import autograde
from grading.core.course import Course
from grading.feedback import generate_feedback
from grading.release import build_release
from tests import honest_times
from tests.mutation.course_class import CASES, solution_cells, submission

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the module's class is graded in the first test

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "05_gaussian_nb"
MISTAKE = "n_minus_1_where_n_belongs"
WORDS = CASES[ASSIGNMENT]["gaussian_mean_var"]["explanations"][MISTAKE]

# Looks for the catalogue wherever the kernel can read, and prints what it finds.
PROBE = '''
def _probe():
    import os
    found = []
    for top in {os.getcwd(), "/tmp", os.path.expanduser("~"), "/work", "/home", "/root", "/srv"}:
        for folder, _, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    with open(path, "rb") as handle:
                        text = handle.read(2_000_000)
                except OSError:
                    continue
                if b"nbg_mistakes" in name.encode() or b"n_minus_1_where_n_belongs" in text:
                    found.append(path)
    print("PROBE FOUND:", found)
_probe()
'''


def _course(tmp_path, with_catalogue):
    root = tmp_path / ("with" if with_catalogue else "without") / "course"
    root.mkdir(parents=True)
    shutil.copy(ROOT / "course" / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(ROOT / "course" / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    if with_catalogue:
        (root / "mistakes").mkdir()
        shutil.copy(ROOT / "course" / "mistakes" / f"{ASSIGNMENT}.py", root / "mistakes")
    course = Course(root)
    build_release(course, [ASSIGNMENT])
    source = nbformat.read(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    where = solution_cells(source)
    mutants = CASES[ASSIGNMENT]["gaussian_mean_var"]["mutants"]
    two = mutants["standard_deviation_not_variance"].replace("(n_c - ddof)", "(n_c - 1)")  # both at once
    assert two != mutants["standard_deviation_not_variance"]
    students = {
        "right": {},
        "mistake": {where["gaussian_mean_var"]: {"gaussian_mean_var": mutants[MISTAKE]}},
        "two_mistakes": {where["gaussian_mean_var"]: {"gaussian_mean_var": two}},
    }
    for student, replacements in students.items():
        notebook = submission(source, replacements)
        if student == "right":
            probe = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")
                         and c.cell_type == "code")
            probe.source += "\n" + PROBE
        folder = course.submitted_dir(student, ASSIGNMENT)
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{ASSIGNMENT}.ipynb"))
    unreadable = course.submitted_dir("unreadable", ASSIGNMENT)
    unreadable.mkdir(parents=True)
    (unreadable / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [ this is not JSON')
    honest_times.share(root)
    autograde(course, workers=2)
    return course


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("diagnosis")
    return _course(tmp_path, True), _course(tmp_path, False)


def _cells(course, student):
    return nbformat.read(course.autograded_dir(student, ASSIGNMENT) / f"{ASSIGNMENT}.ipynb", as_version=4).cells


def _scores(course, student):
    with course.gradebook() as gradebook:
        notebook = gradebook.find_submission(ASSIGNMENT, student).notebooks[0]
        return {g.name: g.auto_score for g in notebook.grades if g.cell_type == "code"}


def test_a_catalogued_mistake_is_named_in_the_failed_cell(graded):
    course, _ = graded
    diagnosed = {c.metadata["nbgrader"]["grade_id"]: c for c in _cells(course, "mistake")
                 if c.metadata.get("nbg_diagnosis")}
    assert "test_gaussian_mean_var_core" in diagnosed, sorted(diagnosed)
    for cell in diagnosed.values():
        assert cell.metadata["nbg_diagnosis"] == [f"gaussian_mean_var/{MISTAKE}"]
        error = next(o for o in cell.outputs if o.output_type == "error")
        assert f"Your answer behaves like a known mistake: {WORDS}" in error.evalue


def test_a_right_answer_and_two_mistakes_at_once_get_no_diagnosis(graded):
    course, _ = graded
    for student in ("right", "two_mistakes"):
        assert not [c for c in _cells(course, student) if c.metadata.get("nbg_diagnosis")], student
    assert any(v == 0 for v in _scores(course, "two_mistakes").values())  # it did fail


def test_the_diagnosis_changes_no_score(graded):
    with_catalogue, without = graded
    for student in ("right", "mistake", "two_mistakes"):
        assert _scores(with_catalogue, student) == _scores(without, student), student
    assert not [c for c in _cells(without, "mistake") if c.metadata.get("nbg_diagnosis")]


def test_the_catalogue_is_not_in_the_kernels_reach(graded):
    course, _ = graded
    printed = "".join(o.get("text", "") for c in _cells(course, "right") for o in c.get("outputs", []))
    assert "PROBE FOUND: []" in printed, printed[-2000:]


def test_the_feedback_page_shows_the_words(graded):
    course, _ = graded
    pages = generate_feedback(course, students=["mistake"])
    text = html.unescape("".join(page.read_text() for page in pages))
    assert f"Your answer behaves like a known mistake: {WORDS}" in text
    # each test cell named by what it tests, in the contents and in its heading
    assert '">gaussian_mean_var: hidden test of the core computation</a>' in text
    assert '">gaussian_mean_var: hidden test of the edge cases</a>' in text
    assert '">gaussian_mean_var: visible test</a>' in text
    # three hidden cells (core, edges, inputs), each named in the contents and in its heading
    assert ">Test cell<" not in text and text.count("gaussian_mean_var: hidden test") == 6


def test_the_report_counts_the_class_mistakes_and_writes_them_as_csv(graded, tmp_path):
    import csv

    from grading.report import write_report

    course, _ = graded
    page = html.unescape(write_report(course, tmp_path / "report.html").read_text())
    assert "The class's mistakes" in page and "Item analysis of the test cells" in page
    assert WORDS in page
    with (course.root / "exports" / "mistakes.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["function"] == "gaussian_mean_var"]
    # three students failed gaussian_mean_var's tests (two mistaken, one unreadable); one is the known mistake
    assert [(r["students_failed"], r["failures_diagnosed"], r["mistake"], r["students"]) for r in rows] == [
        ("3", "1", MISTAKE, "1")]
    assert rows[0]["explanation"] == WORDS


def test_the_catalogue_is_not_released(graded):
    """Neither the release nor the hand-out nor the LMS zips carry the catalogue (it is the
    reference with one change each: the answer could be read from it)."""
    import zipfile

    course, _ = graded
    assert (course.root / "mistakes" / f"{ASSIGNMENT}.py").is_file()
    marks = [MISTAKE.encode(), WORDS.encode(), b"EXPLANATIONS", b"nbg_mistakes"]
    blobs = {}
    for path in (course.root / "release").rglob("*"):
        if path.is_file():
            blobs[str(path)] = path.read_bytes()
    for path in (course.root / "release_zips").glob("*.zip"):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                blobs[f"{path.name}:{name}"] = archive.read(name)
                if name.endswith((".whl", ".zip")):
                    import io

                    with zipfile.ZipFile(io.BytesIO(blobs[f"{path.name}:{name}"])) as inner:
                        blobs.update({f"{path.name}:{name}:{n}": inner.read(n) for n in inner.namelist()})
    assert blobs, "nothing was released"
    assert any(name.endswith(".ipynb") for name in blobs)
    leaks = [name for name, data in blobs.items() if "mistakes" in Path(name).name or any(m in data for m in marks)]
    assert not leaks, leaks


def test_an_unreadable_submission_gets_a_page_that_says_why_and_what_to_do(graded):
    course, _ = graded
    pages = generate_feedback(course, students=["unreadable"])
    assert pages == [course.feedback_dir("unreadable", ASSIGNMENT) / f"{ASSIGNMENT}.html"]
    text = html.unescape(pages[0].read_text())
    assert "could not be read" in text and "What to do:" in text and "scored 0" in text


def _chromium(*args, timeout=120):
    import subprocess

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium (make browser installs it)")
    return subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--host-resolver-rules=MAP * ~NOTFOUND", *args],  # no network: what ships must do
                          capture_output=True, text=True, timeout=timeout)


def test_a_browser_shows_the_feedback_page_and_the_report(graded, tmp_path):
    """Headless Chromium, offline: screenshots of a diagnosed student's page and of the report, and the
    rendered DOM holds the diagnosis, the named test cells and the report's new sections."""
    from grading.report import write_report

    course, _ = graded
    page = generate_feedback(course, students=["mistake"])[0]
    report = write_report(course, tmp_path / "report.html")
    for path, must in ((page, [f"Your answer behaves like a known mistake: {WORDS}", "gaussian_mean_var: hidden test"]),
                       (report, ["The class's mistakes", "Item analysis of the test cells", WORDS])):
        shot = tmp_path / f"{path.stem}.png"
        _chromium(f"--screenshot={shot}", "--window-size=1280,3000", path.as_uri())
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000, path
        dom = html.unescape(_chromium("--dump-dom", path.as_uri()).stdout)
        for text in must:
            assert text in dom, (path.name, text)
    source = page.read_text()
    # maths drawn as MathML, no script from the network
    assert "<math" in source and not re.search(r"<script[^>]*src=\"https?://", source), "a script from the network"
