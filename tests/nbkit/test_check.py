"""``python -m nbkit check``: the student's pre-submission check, on notebooks built here.

The fixture notebooks are small nbgrader release notebooks made with
nbformat, their checksums computed by nbgrader itself
(``nbgrader.utils.compute_checksum``), and they run in real Jupyter kernels
(about 2 s each). The real course's release notebooks are checked in the
student's fresh environment by tests/notebooks/test_handout.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.utils import compute_checksum

from nbkit.check import CELL_TIMEOUT, NOTEBOOK_TIMEOUT, check_notebook
from nbkit.check.cells import cell_checksum, load_manifest, read_notebook
from nbkit.check.findings import OK, PROBLEM, SKIPPED, WARNING
from nbkit.check.scan import uses_of_ready_made
from tests.nbkit.check_manifest import build_manifest

ROOT = Path(__file__).resolve().parents[2]
NAME = "99_check_fixture"
MANIFEST = {NAME: {"add": ["code", "answer", 0.0],
                   "test_add_visible": ["code", "test", 1.0],
                   "test_add_hidden": ["code", "test", 2.0],
                   "written": ["markdown", "answer", 1.0]}}
ANSWER = "def add(a, b):\n    return a + b"
STUB = "def add(a, b):\n    # YOUR CODE HERE\n    raise NotImplementedError()"


def _graded(cell, grade_id, *, grade=False, solution=False, locked=False, points=None):
    cell.metadata["nbgrader"] = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
                                 "solution": solution, "task": False}
    if points is not None:
        cell.metadata.nbgrader["points"] = points
    cell.metadata.nbgrader["checksum"] = compute_checksum(cell)  # as nbgrader's release writes it
    return cell


def release_notebook():
    """A release notebook as nbgrader writes it: given, answer, visible and hidden test, written answer."""
    cells = [
        _graded(new_markdown_cell("# A fixture assignment"), "intro", locked=True),
        _graded(new_code_cell("import time\n\nimport numpy as np"), "setup", locked=True),
        _graded(new_code_cell(STUB), "add", solution=True),
        _graded(new_code_cell('"""add: small numbers."""\nassert add(1, 2) == 3, "add(1, 2) should be 3"'),
                "test_add_visible", grade=True, locked=True, points=1),
        _graded(new_code_cell('"""add: random numbers; catches a - b."""'), "test_add_hidden", grade=True,
                locked=True, points=2),
        _graded(new_markdown_cell("YOUR ANSWER HERE"), "written", grade=True, solution=True, points=1),
    ]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def answered(notebook=None):
    notebook = notebook or release_notebook()
    notebook.cells[2].source = ANSWER
    notebook.cells[5].source = "Because addition is commutative."
    return notebook


def write(notebook, folder: Path, name=f"{NAME}.ipynb") -> Path:
    path = folder / name
    nbformat.write(notebook, path)
    return path


def check(path, **kwargs):
    kwargs.setdefault("manifest", MANIFEST)
    return check_notebook(path, **kwargs)


def levels(report) -> dict:
    """{check name: [levels]} of a report."""
    found = {}
    for finding in report.findings:
        found.setdefault(finding.check, []).append(finding.level)
    return found


def only(report, name):
    (finding,) = [f for f in report.findings if f.check == name]
    return finding


# --- the good notebook ---------------------------------------------------------------------

def test_an_answered_notebook_will_grade_and_is_not_changed(tmp_path):
    path = write(answered(), tmp_path)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    report = check(path)
    assert report.will_grade and report.exit_code == 0, report.format()
    assert set(levels(report)) == {"readable", "file name", "grade cells", "test cells", "time", "runs",
                                   "visible tests", "own code"}
    assert only(report, "visible tests").message.startswith("all 1 pass")
    assert "this notebook will grade" in report.format()
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # nothing written beside it


def test_the_release_as_given_needs_its_answers(tmp_path):
    report = check(write(release_notebook(), tmp_path))
    assert report.exit_code == 1
    answers = only(report, "answers")
    assert answers.level == WARNING and answers.details == ["add, written"]
    tests = only(report, "visible tests")
    assert tests.level == PROBLEM and "0 of 1 pass" in tests.message
    assert "NotImplementedError (the function is not written yet)" in tests.details[0]
    assert "(test_add_visible)" in tests.details[0]


# --- readable --------------------------------------------------------------------------------

@pytest.mark.parametrize("cut", [0.5, 0.99])
def test_a_truncated_notebook_is_a_problem_and_is_not_run(tmp_path, cut):
    path = write(answered(), tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * cut)])
    report = check(path)
    readable = report.findings[0]
    assert (readable.check, readable.level) == ("readable", PROBLEM)
    assert readable.message.startswith("the file is not complete notebook JSON: it stops in the middle")
    assert "save it again" in readable.advice
    assert [f.level for f in report.findings[1:]] == [SKIPPED]
    assert report.exit_code == 1


def test_an_unreadable_notebook_points_at_its_checkpoint(tmp_path):
    path = write(answered(), tmp_path)
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / f"{NAME}-checkpoint.ipynb").write_bytes(path.read_bytes())
    path.write_text("")
    (finding, _) = check(path).findings
    assert finding.message == "the file is empty."
    assert f"{NAME}-checkpoint.ipynb" in finding.advice


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe not text", "not UTF-8"),
    (b'{"just": "json"}', "not a notebook"),
    (b'{"cells": [], "nbformat": 4,, "metadata": {}}', "not valid notebook JSON (Expecting property name"),
    (b'{"cells": [{"cell_type": "code", "source": "1"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
     "does not follow the notebook format"),
])
def test_files_that_are_not_notebooks(tmp_path, content, words):
    path = tmp_path / f"{NAME}.ipynb"
    path.write_bytes(content)
    _, finding = read_notebook(path)
    assert finding.level == PROBLEM and words in finding.message, finding.message


# --- the grader's cells ----------------------------------------------------------------------

def test_an_edited_test_cell_is_a_problem(tmp_path):
    notebook = answered()
    notebook.cells[3].source = '"""add: small numbers."""\nassert True'  # a test made to pass
    report = check(write(notebook, tmp_path), run=False)
    edited = only(report, "test cells")
    assert edited.level == PROBLEM and edited.details == ["cell 4 of 6 (test_add_visible)"]
    assert "puts back the original" in edited.message
    assert report.exit_code == 1


def test_a_test_cell_turned_into_markdown_is_edited(tmp_path):
    notebook = answered()
    cell = notebook.cells[3]
    notebook.cells[3] = new_markdown_cell(cell.source, metadata=cell.metadata)
    assert only(check(write(notebook, tmp_path), run=False), "test cells").level == PROBLEM


def test_an_edited_given_cell_is_a_warning(tmp_path):
    notebook = answered()
    notebook.cells[1].source += "\nimport pandas as pd"
    report = check(write(notebook, tmp_path), run=False)
    assert only(report, "given cells").level == WARNING
    assert only(report, "test cells").level == OK


def test_a_deleted_test_cell_and_a_lost_answer_are_problems(tmp_path):
    notebook = answered()
    del notebook.cells[4]  # the hidden test
    del notebook.cells[2].metadata["nbgrader"]  # the answer, its metadata lost
    finding = only(check(write(notebook, tmp_path), run=False), "grade cells")
    assert finding.level == PROBLEM and "2 of the grader's 4 cells are missing" in finding.message
    assert finding.details == ["test cells (each scores 0): test_add_hidden",
                               "answer cells (the grader cannot find your answer): add"]


def test_a_notebook_without_metadata_is_not_the_release(tmp_path):
    notebook = answered()
    for cell in notebook.cells:
        del cell.metadata["nbgrader"]
    report = check(write(notebook, tmp_path), run=False)
    assert only(report, "file name").level == OK  # found by its name
    assert "none of the grader's cells" in only(report, "grade cells").message


def test_a_copied_grade_cell_is_a_problem(tmp_path):
    notebook = answered()
    copied = json.loads(json.dumps(notebook.cells[3]))
    copied["id"] = "a-copy"  # JupyterLab gives a pasted cell a new id, and keeps its metadata
    notebook.cells.append(nbformat.from_dict(copied))
    findings = [f for f in check(write(notebook, tmp_path), run=False).findings if f.check == "grade cells"]
    assert [f.level for f in findings] == [OK, PROBLEM]
    assert findings[1].details == ["cell 4 of 7 (test_add_visible) and cell 7 of 7 (test_add_visible)"]


def test_metadata_of_the_wrong_type_is_no_crash(tmp_path):
    notebook = answered()
    notebook.cells[3].metadata.nbgrader["points"] = "one"  # a test cell's points edited by hand
    notebook.cells.append(new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": ["not", "a", "string"]}}))
    report = check(write(notebook, tmp_path), run=False)
    assert only(report, "test cells").details == ["cell 4 of 7 (test_add_visible)"]
    assert only(report, "grade cells").level == OK


def test_a_renamed_notebook_is_found_by_its_cells_and_told_its_name(tmp_path):
    report = check(write(answered(), tmp_path, name=f"{NAME} (1).ipynb"), run=False)
    name = only(report, "file name")
    assert name.level == PROBLEM and f"Rename it to {NAME}.ipynb" in name.advice
    assert only(report, "grade cells").level == OK


def test_an_unknown_notebook_cannot_be_checked_for_missing_cells(tmp_path):
    report = check(write(answered(), tmp_path), run=False, manifest={})
    assert only(report, "file name").level == WARNING
    assert only(report, "grade cells").level == SKIPPED


def test_the_checksum_is_nbgraders_on_every_cell_of_the_course():
    count = 0
    for path in sorted((ROOT / "course" / "source").glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id"):
                assert cell_checksum(cell) == compute_checksum(cell), (path.name, cell.metadata.nbgrader)
                count += 1
    assert count > 200


def test_the_manifest_lists_the_course_as_it_is():
    assert load_manifest() == build_manifest(), (
        "nbkit/check/assignments.json is out of date: run .venv/bin/python -m tests.nbkit.check_manifest")
    assert len(load_manifest()) == 7


# --- running ---------------------------------------------------------------------------------

def test_a_failing_visible_test_says_why(tmp_path):
    notebook = answered()
    notebook.cells[2].source = "def add(a, b):\n    return a - b"
    tests = only(check(write(notebook, tmp_path)), "visible tests")
    assert tests.level == PROBLEM
    assert tests.details == ["cell 4 of 6 (test_add_visible): AssertionError: add(1, 2) should be 3"]


def test_a_cell_that_only_worked_in_the_session_is_a_problem(tmp_path):
    notebook = answered()
    notebook.cells.insert(3, new_code_cell("total = add(1, helper)"))  # `helper` was defined, then deleted
    runs = only(check(write(notebook, tmp_path)), "runs")
    assert runs.level == PROBLEM
    assert runs.details == ["cell 4 of 7 ('total = add(1, helper)') raised NameError: name 'helper' is not defined"]


def test_a_cell_that_takes_too_long_is_interrupted_and_the_run_goes_on(tmp_path):
    notebook = answered()
    notebook.cells.insert(3, new_code_cell("time.sleep(60)"))
    report = check(write(notebook, tmp_path), cell_timeout=2)
    time_finding = only(report, "time")
    assert time_finding.level == PROBLEM and "does not run within the time limit" in time_finding.message
    assert time_finding.details == ["cell 4 of 7 ('time.sleep(60)') ran longer than 2 s: the grader interrupts "
                                    "it there, so what it computes is missing for the cells after it"]
    assert only(report, "visible tests").level == OK  # run after the interrupt, as the grader does
    assert report.exit_code == 1


def test_a_slow_answer_times_out_its_test(tmp_path):
    notebook = answered()
    notebook.cells[2].source = "def add(a, b):\n    time.sleep(60)\n    return a + b"
    report = check(write(notebook, tmp_path), cell_timeout=2)
    assert only(report, "time").level == PROBLEM
    tests = only(report, "visible tests")
    assert tests.details == ["cell 4 of 6 (test_add_visible): ran longer than 2 s"]


def test_a_notebook_that_takes_too_long_in_all_is_stopped(tmp_path):
    notebook = answered()
    notebook.cells[3:3] = [new_code_cell("time.sleep(1.5)"), new_code_cell("time.sleep(1.5)  # again")]
    report = check(write(notebook, tmp_path), cell_timeout=10, notebook_timeout=2)
    assert only(report, "time").details == [
        "the notebook ran longer than 2 s in all: the grader stops before cell 6 of 8 (test_add_visible), and "
        "the tests from there on score 0"]
    assert only(report, "visible tests").details == ["1 not run (the run stopped before them)"]


def test_a_slow_cell_near_the_limit_is_a_warning(tmp_path):
    notebook = answered()
    notebook.cells.insert(3, new_code_cell("time.sleep(1.5)"))
    time_finding = only(check(write(notebook, tmp_path), cell_timeout=2.5), "time")
    assert time_finding.level == WARNING and "close to the limit" in time_finding.message
    assert time_finding.details[0].startswith("cell 4 of 7 ('time.sleep(1.5)') took")


def test_a_dying_kernel_is_a_problem(tmp_path):
    notebook = answered()
    notebook.cells.insert(3, new_code_cell("import os\nos._exit(1)"))
    finding = only(check(write(notebook, tmp_path)), "runs")
    assert finding.level == PROBLEM and finding.message.startswith("the kernel died in cell 4 of 7")


def test_the_data_files_beside_the_notebook_are_copied(tmp_path):
    notebook = answered()
    notebook.cells.insert(2, new_code_cell("values = np.loadtxt('values.csv')"))
    path = write(notebook, tmp_path)
    assert only(check(path), "runs").level == PROBLEM  # no values.csv yet: FileNotFoundError
    (tmp_path / "values.csv").write_text("1\n2\n")
    report = check(path)
    assert only(report, "runs").level == OK, report.format()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, "values.csv"]


# --- ready-made naive Bayes ------------------------------------------------------------------

@pytest.mark.parametrize("source, expected", [
    ("from sklearn.naive_bayes import GaussianNB", [(None, "sklearn.naive_bayes")]),
    ("import sklearn.naive_bayes as nb", [(None, "sklearn.naive_bayes")]),
    ("from sklearn import naive_bayes", [(None, "sklearn.naive_bayes")]),
    ("def f(X):\n    import nbcore.models.gaussian\n    return 1", [("f", "nbcore.models.gaussian")]),
    ("import sklearn\ndef f(X, y):\n    return sklearn.naive_bayes.GaussianNB().fit(X, y)",
     [("f", "sklearn.naive_bayes.GaussianNB")]),
    ("import importlib\ndef g():\n    return importlib.import_module('nbcore')", [("g", "nbcore")]),
    ("m = __import__('sklearn.naive_bayes')", [(None, "sklearn.naive_bayes")]),
    ("import numpy as np\nfrom sklearn.metrics import accuracy_score\nnbcore = 3", []),
])
def test_uses_of_a_ready_made_naive_bayes(source, expected):
    import ast

    assert uses_of_ready_made(ast.parse(source)) == expected


def test_answers_and_added_cells_are_scanned_not_given_cells(tmp_path):
    notebook = answered()
    notebook.cells[2].source = ("from sklearn.naive_bayes import GaussianNB\n\n"
                                "def add(a, b):\n    return a + b")
    notebook.cells.insert(2, _graded(new_code_cell("import sklearn.naive_bayes  # a given comparison"),
                                     "given_comparison", locked=True))
    notebook.cells.append(new_code_cell("%time x = 1\nimport nbcore"))
    finding = only(check(write(notebook, tmp_path), run=False), "own code")
    assert finding.level == WARNING and "the grader flags this" in finding.message
    assert finding.details == ["cell 4 of 8 (add) uses sklearn.naive_bayes at the top of the cell",
                               "cell 8 of 8 ('%time x = 1') uses nbcore at the top of the cell"]


# --- the command line ------------------------------------------------------------------------

def run_cli(*args, cwd):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "nbkit", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["check", "missing.ipynb"], "missing.ipynb does not exist"),
    (["check", "."], "is not a file"),
    (["check", "notes.txt"], "notes.txt is not a notebook"),
    (["check"], "the following arguments are required: notebook"),
    (["check", "x.ipynb", "--timeout", "soon"], "'soon' is not a number of seconds"),
    (["check", "x.ipynb", "--timeout", "0"], "give a positive number of seconds"),
    ([], "the following arguments are required: COMMAND"),
    (["grade", "x.ipynb"], "invalid choice: 'grade'"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    (tmp_path / "notes.txt").write_text("not a notebook")
    run = run_cli(*args, cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr, run.stderr


def test_the_command_line_reports_and_exits_1_for_a_problem(tmp_path):
    path = write(answered(), tmp_path)
    path.write_bytes(path.read_bytes()[:100])
    run = run_cli("check", path.name, cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"^PROBLEM +readable: the file is not complete notebook JSON", run.stdout, re.M), run.stdout
    assert "Result: needs attention (1 problem)" in run.stdout


def test_the_limits_are_the_graders():
    from grading.execution.limits import Limits

    config = (ROOT / "course" / "nbgrader_config.py").read_text()
    assert re.search(rf"^c\.Execute\.timeout = {CELL_TIMEOUT}$", config, re.M), "course cell timeout changed"
    assert Limits().notebook_timeout == NOTEBOOK_TIMEOUT
