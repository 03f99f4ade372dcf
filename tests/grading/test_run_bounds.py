"""Issue 20: incidents from the grader's own observations, a time budget in proportion to the
assignment's honest run time, and per-student seeds of the hidden tests' inputs.

One small course (``ps_bounds``: an ``echo`` function whose hidden test draws its input from
``nbkit.testing.hidden_rng`` and prints it, so the input each student got is in the autograded
notebook) is graded once, sandboxed, with 2 workers, then partly again:

=========  ==================================================================  =====================
student    what the notebook does                                              expected
=========  ==================================================================  =====================
alice      echo right                                                          ok, 3
bob        the same notebook as alice's, byte for byte                         ok, 3, other inputs
replay     echo looks its input up in a table harvested from an unseeded run   ok, 1 (hidden fails)
forged     raises MemoryError, PermissionError, ConnectionRefusedError,        ok, 3, no incident
           SystemExit and an exception named CellTimeoutError itself
hog        allocates memory until the sandbox's limit (1 GiB) refuses          blocked, "out of memory"
slow       7 cells of sleep(2): far over the honest time, within the budget    flagged, slowest cells
slower     7 cells of sleep(4): past the time budget                           timeout, the budget
=========  ==================================================================  =====================

Runtime: about 60-90 s on 2 loaded cores.
"""

import dataclasses
import json
import os
import shutil
import stat
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import fixtures
from grading.autograde import autograde
from grading.autograde.budget import Budgets, cache_path, slow_note, slowest
from grading.autograde.seeds import grading_seed, secret_path
from grading.core.course import Course
from grading.core.records import latest_records, read_grading_log
from grading.execution.kernel import ExecutionResult
from grading.execution.limits import Limits

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the module's class is graded in the first test

ASSIGNMENT = "ps_bounds"
BASE_SEED = 11
ECHO = '''
def echo(x):
    """Return x."""
    ### BEGIN SOLUTION
    return x
    ### END SOLUTION
'''
TEST_ECHO = '''
"""echo: returns its argument."""
assert echo(3) == 3, "echo(3) should be 3"
'''
TEST_ECHO_HIDDEN = f'''
"""echo: hidden test on a random input."""
### BEGIN HIDDEN TESTS
from nbkit.testing import hidden_rng
_x = int(hidden_rng({BASE_SEED}).integers(0, 10**9))
print("hidden input", _x)
assert echo(_x) == _x, "echo should return its argument"
### END HIDDEN TESTS
'''
CONFIG = """c = get_config()
c.Execute.timeout = 6
c.Nbg.time_floor = 20
c.Nbg.time_factor = 3
"""
UNSEEDED_INPUT = int(np.random.default_rng(BASE_SEED).integers(0, 10**9))  # what an earlier, unseeded run drew
FORGED = [
    "raise MemoryError('forged')",
    "raise PermissionError(13, 'Permission denied', '/gradebook.db')",
    "raise ConnectionRefusedError(111, 'Connection refused')",
    "import sys\nsys.exit(3)",
    "class CellTimeoutError(Exception):\n    pass\nraise CellTimeoutError('no reply from the kernel within 6 s')",
]
PROBE = ("import os\nseen = []\nfor top in ('.', '..', '/tmp', '{root}', '{root}/.nbg'):\n"
         "    for folder, _, files in os.walk(top):\n"
         "        seen += [os.path.join(folder, f) for f in files]\n"
         "print('FILES', sorted(seen)[:200])\n"
         "for path in ('{root}/.nbg/test_secret', '../.nbg/test_secret', '.nbg/test_secret'):\n"
         "    try:\n        print('SECRET_GOT', open(path).read())\n    except OSError as error:\n        print('SECRET_NONE', error)")
STUDENTS = {
    "alice": ("def echo(x):\n    return x", []),
    "bob": ("def echo(x):\n    return x", []),
    "replay": (f"TABLE = {{3: 3, {UNSEEDED_INPUT}: {UNSEEDED_INPUT}}}\ndef echo(x):\n    return TABLE.get(x, -1)", [PROBE]),
    "forged": ("def echo(x):\n    return x", FORGED),
    "hog": ("def echo(x):\n    return x", ["hog = []\ntry:\n    while True:\n        hog.append(bytearray(50_000_000))\n"
                                            "except MemoryError:\n    hog = None\n    raise"]),
    "slow": ("def echo(x):\n    return x", ["import time\ntime.sleep(2)"] * 7),
    "slower": ("def echo(x):\n    return x", ["import time\ntime.sleep(4)"] * 7),
}


def _source():
    cells = [fixtures._markdown("# Bounds", "intro"),
             fixtures._code(ECHO, "echo_solution", solution=True),
             fixtures._code(TEST_ECHO, "test_echo", grade=True, locked=True, points=1),
             fixtures._code(TEST_ECHO_HIDDEN, "test_echo_hidden", grade=True, locked=True, points=2)]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def _write_course(root: Path) -> Path:
    source = root / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    nbformat.write(_source(), source / f"{ASSIGNMENT}.ipynb")
    (root / "nbgrader_config.py").write_text(CONFIG)
    shutil.copy(fixtures._empty_gradebook(), root / "gradebook.db")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{(root / 'gradebook.db').resolve()}") as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=fixtures.DUEDATE)
    fixtures.stock_generate_assignment(root, ASSIGNMENT)
    return root


def _write_submission(root: Path, student, answer, extra):
    release = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    cells = []
    for cell in release.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "echo_solution":
            cell.source = answer
            cells.append(cell)
            cells.extend(new_code_cell(code.format(root=root.resolve()), id=f"extra{i}") for i, code in enumerate(extra))
        else:
            cells.append(cell)
    release.cells = cells
    folder = root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(fixtures.format_timestamp(fixtures.ON_TIME))
    nbformat.write(release, folder / f"{ASSIGNMENT}.ipynb")


def _hidden_input(course, student) -> int:
    path = course.autograded_dir(student, ASSIGNMENT) / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_echo_hidden")
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
    return int(text.split("hidden input")[1].split()[0])


def _log(course) -> dict:
    return {student: record for (student, _, _), record in latest_records(read_grading_log(course.grading_log_path)).items()}


LIMITS = Limits(memory_bytes=2**30)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = _write_course(tmp_path_factory.mktemp("bounds") / "course")
    for student, (answer, extra) in STUDENTS.items():
        _write_submission(root, student, answer, extra)
    course = Course(root)
    summary = autograde(course, workers=2, limits=LIMITS)
    return course, {r.student: r for r in summary.records}


def test_the_honest_time_is_measured_once_and_cached(graded):
    course, records = graded
    cache = json.loads(cache_path(course).read_text())
    entry = cache[f"{ASSIGNMENT}/{ASSIGNMENT}"]
    print(f"honest time of {ASSIGNMENT}: {entry['seconds']} s, runs {entry['runs']}")
    assert set(entry["runs"]) == {"source", "release"}  # the longer of the two honest runs
    assert entry["seconds"] == max(run["seconds"] for run in entry["runs"].values())
    assert 0 < entry["seconds"] < 6
    budgets = Budgets(course, dataclasses.replace(LIMITS, cell_timeout=6), "bubblewrap")
    assert budgets.honest(ASSIGNMENT, ASSIGNMENT) == entry["seconds"]  # the key matches: no new measurement
    assert records["alice"].honest_seconds == entry["seconds"] and records["alice"].budget_seconds == 20


def test_identical_notebooks_of_two_students_get_different_hidden_inputs(graded):
    course, records = graded
    assert records["alice"].score == records["bob"].score == 3 and records["alice"].status == "ok"
    assert records["alice"].grading_seed != records["bob"].grading_seed
    alice, bob = _hidden_input(course, "alice"), _hidden_input(course, "bob")
    assert alice != bob
    for student, drawn in (("alice", alice), ("bob", bob)):  # the recorded seed reproduces the input
        expected = int(np.random.default_rng([BASE_SEED, records[student].grading_seed]).integers(0, 10**9))
        assert drawn == expected
    assert UNSEEDED_INPUT not in (alice, bob)


def test_a_table_of_harvested_inputs_earns_nothing(graded):
    _, records = graded
    record = records["replay"]
    assert (record.score, record.status) == (1, "ok"), record.reason


def test_the_secret_is_0600_and_never_in_the_kernels_folder(graded):
    course, _ = graded
    path = secret_path(course)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    secret = path.read_text().strip()
    assert len(secret) == 64
    notebook = nbformat.read(course.autograded_dir("replay", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb", as_version=4)
    text = " ".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "FILES" in text and "SECRET_NONE" in text and "SECRET_GOT" not in text  # the probe ran; read nothing
    assert "test_secret" not in text.split("FILES", 1)[1].split("\n")[0]
    for folder in course.autograded_root.rglob("*"):
        assert secret not in (folder.read_text(errors="replace") if folder.is_file() else "")


def test_forged_errors_are_no_incident_of_the_graders(graded):
    _, records = graded
    record = records["forged"]
    assert (record.score, record.status) == (3, "ok"), record.reason
    reason = record.reason.lower()
    for claim in ("ran out of memory", "outside its own folder", "network", "tried to stop", "timed out",
                  "more processes"):
        assert claim not in reason, record.reason
    for ename in ("MemoryError", "PermissionError", "ConnectionRefusedError", "SystemExit"):
        assert f"raised {ename}" in record.reason  # shown, as what the notebook's output says
    assert "the notebook's own output says" in record.reason


def test_a_real_memory_hog_is_observed_by_the_grader(graded):
    _, records = graded
    record = records["hog"]
    assert (record.score, record.status) == (3, "blocked"), record.reason
    assert "ran out of memory: the grader measured" in record.reason and "of the 1024 mib" in record.reason.lower()


def test_a_notebook_far_over_the_honest_time_is_flagged_with_its_slowest_cells(graded):
    _, records = graded
    record = records["slow"]
    assert (record.score, record.status) == (3, "flagged"), record.reason
    assert "times the" in record.reason and "slowest cells: cell" in record.reason
    assert len(record.slowest_cells) == 3 and all(seconds >= 1.9 for _, seconds in record.slowest_cells)


def test_a_notebook_past_its_budget_is_stopped(graded):
    _, records = graded
    record = records["slower"]
    assert record.status == "timeout" and record.score == 0, record.reason  # the tests come after the sleeps
    assert "time budget of 20 s" in record.reason and "floor of 20 s" in record.reason, record.reason
    assert record.budget_seconds == 20


def test_the_report_and_the_feedback_say_the_same(graded):
    import html
    import re

    from grading.feedback import generate_feedback
    from grading.report import write_report

    course, records = graded
    report = html.unescape(write_report(course, course.root / "report.html").read_text())
    section = report.split("<h2>Run time</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<td>slow</td>" in section and "<td>slower</td>" in section and "<td>alice</td>" not in section
    assert records["slow"].reason in report and records["hog"].reason in report
    assert "ran out of memory" not in report.split("<td>forged</td>")[1].split("</tr>")[0] if "<td>forged</td>" in report \
        else True
    generate_feedback(course, students=["slower", "forged"])
    page = (course.feedback_dir("slower", ASSIGNMENT) / f"{ASSIGNMENT}.html").read_text()
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "time budget of 20 s" in text and "The notebook was stopped there" in text
    forged = (course.feedback_dir("forged", ASSIGNMENT) / f"{ASSIGNMENT}.html").read_text()
    assert "Grading note" not in forged and "ran out of memory" not in forged


def test_a_regrade_reuses_the_seed_and_a_changed_submission_gets_new_inputs(graded):
    course, records = graded
    again = {r.student: r for r in autograde(course, students=["alice"], force=True, workers=1, limits=LIMITS).records}
    assert again["alice"].grading_seed == records["alice"].grading_seed
    assert _hidden_input(course, "alice") == int(
        np.random.default_rng([BASE_SEED, records["alice"].grading_seed]).integers(0, 10**9))
    measured = json.loads(cache_path(course).read_text())[f"{ASSIGNMENT}/{ASSIGNMENT}"]["measured_at"]
    path = course.submitted_dir("alice", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(new_code_cell("# one more comment", id="comment"))
    nbformat.write(notebook, path)
    changed = {r.student: r for r in autograde(course, students=["alice"], workers=1, limits=LIMITS).records}
    assert changed["alice"].grading_seed != records["alice"].grading_seed and changed["alice"].score == 3
    assert _log(course)["alice"]["grading_seed"] == changed["alice"].grading_seed
    assert json.loads(cache_path(course).read_text())[f"{ASSIGNMENT}/{ASSIGNMENT}"]["measured_at"] == measured


def test_seed_and_budget_rules():
    assert grading_seed(b"k", "a", "s", b"nb") == grading_seed(b"k", "a", "s", b"nb") < 2**63
    assert len({grading_seed(b"k", "a", "s", b"nb"), grading_seed(b"k2", "a", "s", b"nb"),
                grading_seed(b"k", "b", "s", b"nb"), grading_seed(b"k", "a", "t", b"nb"),
                grading_seed(b"k", "a", "s", b"nb2")}) == 5
    result = ExecutionResult("", "ok", "", 0.0, run_seconds=15.0, unloaded_seconds=12.0,
                             cell_seconds=[[1, "cell 1", 0.1], [2, "cell 2", 6.0], [3, "cell 3", 5.9]])
    assert slowest(result.cell_seconds, 2) == [["cell 2", 6.0], ["cell 3", 5.9]]
    assert "it ran 15.0 s (12.0 s without waiting for a busy CPU), 4.0 times the 3.0 s" in slow_note(result, 3.0, 3)
    assert slow_note(result, 5.0, 3) == "" and slow_note(result, None, 3) == ""
    result.unloaded_seconds = 9.0  # below REVIEW_MIN_SECONDS: never slow
    assert slow_note(result, 1.0, 3) == ""


def test_budget_formula(tmp_path):
    root = _write_course(tmp_path / "course")
    course = Course(root)
    budgets = Budgets(course, Limits(notebook_timeout=900), "bubblewrap")
    key = f"{ASSIGNMENT}/{ASSIGNMENT}"
    assert budgets.budget(ASSIGNMENT, ASSIGNMENT) is None and budgets.missing([(ASSIGNMENT, ASSIGNMENT)])
    budgets.cache[key] = {"key": budgets._key(ASSIGNMENT, ASSIGNMENT), "seconds": 2.0}
    assert budgets.budget(ASSIGNMENT, ASSIGNMENT)["seconds"] == 20  # the course's floor, more than 3 x 2 s
    budgets.cache[key]["seconds"] = 10.0
    assert budgets.budget(ASSIGNMENT, ASSIGNMENT) == {"seconds": 30.0, "why": "3 x the 10.0 s an honest run takes", "honest": 10.0}
    capped = Budgets(course, Limits(notebook_timeout=25), "bubblewrap")
    assert capped.honest(ASSIGNMENT, ASSIGNMENT) is None  # other limits: measured again
    capped.cache[key] = {"key": capped._key(ASSIGNMENT, ASSIGNMENT), "seconds": 10.0}
    assert capped.budget(ASSIGNMENT, ASSIGNMENT)["seconds"] == 25
    assert capped.budget(ASSIGNMENT, ASSIGNMENT)["why"].startswith("the notebook limit")
    os.utime(course.source_dir(ASSIGNMENT) / f"{ASSIGNMENT}.ipynb")  # same bytes: same key
    assert capped.honest(ASSIGNMENT, ASSIGNMENT) == 10.0
