"""Every attack or accident of ``adversarial_fixtures.CASES``, graded in ONE sandboxed run.

One class (a correct student plus one student per case) goes through the real
pipeline: ``autograde`` (sandboxed, 2 workers) into a real gradebook, then
``generate_feedback`` and ``write_report``. Per student: the hand-derived
score, the status and reason in the grading log, the reason in the feedback
page and in the report; for the class: the correct student is graded
normally and the gradebook is intact (nothing rewrote it from a kernel).

A class of its own (graded once per test run, in this module's fixture): its
assignment ``ps_adv`` is built for the attacks (a data file, an answers server,
the cases' extra cells) and its notebooks are hostile by design; no other test
reads it.

Runtime: about 4 min on 2 idle cores (92 notebooks; 11 of them, the timeouts and dead
kernels, are graded again alone at the end, about 100 s one after another: the 5 s cell
timeout and the 20 s notebook limit keep those waits short).
"""

import html
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import adversarial_fixtures as adv  # noqa: E402

from grading.autograde import autograde  # noqa: E402
from grading.core.course import Course  # noqa: E402
from grading.execution.limits import Limits  # noqa: E402

# No skip without the sandbox: `make test` installs bubblewrap, and grading
# without it fails with the install hint.
pytestmark = [pytest.mark.slow]

# Cases with no gradable notebook: nothing to give feedback on, the report says why.
NO_FEEDBACK = {"symlink_notebook", "not_json", "empty_file", "wrong_name", "missing_notebook", "source_not_string"}
SECRET = "nbg-secret-7f3a9c"
GOOD_CELLS = {"test_posterior": 2.0, "test_count_rows": 1.0, "test_add": 1.0, "test_add_hidden": 2.0}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = adv.write_course(tmp_path_factory.mktemp("adversarial") / "course")
    server, port = adv.answers_server()
    try:
        for student, case in adv.CASES.items():
            adv.write_submission(root, student, case, port=port)
        course = Course(root)
        # A secret in the grader's environment that no kernel may see (reads_environ).
        os.environ["NBG_ADVERSARIAL_SECRET"] = SECRET
        summary = autograde(course, workers=2, max_output_bytes=2_000_000,
                            limits=Limits(memory_bytes=2**30, notebook_timeout=20))
    finally:
        server.shutdown()
    from grading.feedback import generate_feedback
    from grading.report import write_report

    generate_feedback(course)
    report = html.unescape(write_report(course, root / "report.html").read_text())
    records = {r.student: r for r in summary.records}
    return course, records, report


def _feedback_text(course, student):
    page = course.feedback_dir(student, adv.ASSIGNMENT) / f"{adv.ASSIGNMENT}.html"
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))


@pytest.mark.parametrize("student", sorted(adv.CASES))
def test_case_gets_its_score_status_and_reason(graded_class, student):
    course, records, report = graded_class
    case = adv.CASES[student]
    record = records[student]
    assert record.sandboxed
    assert (record.score, record.max_score) == (case.score, adv.MAX_SCORE), (case.what, record.reason)
    assert record.status in case.status.split("|"), (case.what, record.reason)
    for words in case.reason:
        assert any(w.lower() in record.reason.lower() for w in words.split("|")), (case.what, record.reason)
    if case.status == "ok":
        return
    # The reason reaches the instructor's report and the student's feedback; the feedback leaves
    # out what is for the instructor only (a notebook graded again alone, on a loaded machine,
    # says so first in its reason: seen for output_flood when the suite ran on two workers).
    assert record.reason in report, student
    if student not in NO_FEEDBACK and record.reason:  # "ok|blocked" cases may end ok, with no reason
        from grading.feedback import for_the_student

        shown = " ".join(_feedback_text(course, student).split())
        assert " ".join(for_the_student(record.reason).split()[:6]) in shown, student
        assert not record.graded_alone or "graded again alone" not in shown, student


def test_the_correct_student_is_graded_normally(graded_class):
    course, records, _ = graded_class
    assert records["good"].status == "ok" and records["good"].reason == ""
    assert adv.gradebook_rows(course.root)["good"] == GOOD_CELLS
    assert "Grading note" not in _feedback_text(course, "good")


def test_gradebook_is_intact_and_written_only_by_the_grader(graded_class):
    course, records, report = graded_class
    rows = adv.gradebook_rows(course.root)  # opens with plain sqlite3: not corrupted
    # One submission per student who has a folder, four grades each, none above its points.
    assert set(rows) == set(adv.CASES)
    for student, cells in rows.items():
        assert set(cells) == set(GOOD_CELLS), student
        assert all(score is None or score <= GOOD_CELLS[name] for name, score in cells.items()), student
    with course.gradebook() as gradebook:
        assert len(gradebook.find_assignment(adv.ASSIGNMENT).submissions) == len(adv.CASES)
    assert "WITHOUT the sandbox" not in report


def test_the_assignment_data_wins_over_submitted_files(graded_class):
    course, _, _ = graded_class
    autograded = course.autograded_dir("overwrites_data", adv.ASSIGNMENT)
    assert (autograded / "data.csv").read_text() == adv.DATA_CSV
    assert not (course.autograded_dir("symlink_gradebook", adv.ASSIGNMENT) / "gradebook.db").exists()


def _autograded_text(course, student) -> str:
    return (course.autograded_dir(student, adv.ASSIGNMENT) / f"{adv.ASSIGNMENT}.ipynb").read_text()


def test_no_hidden_test_source_reaches_outputs_or_feedback(graded_class):
    """A hook printing every cell it sees never sees a test cell: tests run in the judge."""
    course, _, _ = graded_class
    assert "assert add(-1, 1) == 0" not in _autograded_text(course, "prints_cell_sources").split('"source"')[0]
    notebook = __import__("nbformat").reads(_autograded_text(course, "prints_cell_sources"), as_version=4)
    outputs = " ".join(str(o) for c in notebook.cells for o in c.get("outputs", []))
    assert "assert add(-1, 1)" not in outputs and "SOURCE:" in outputs  # the hook ran, on other cells
    assert "assert add(-1, 1)" not in _feedback_text(course, "prints_cell_sources")


def test_no_kernel_sees_the_graders_environment(graded_class):
    course, records, _ = graded_class
    assert records["reads_environ"].score == adv.MAX_SCORE
    assert SECRET not in _autograded_text(course, "reads_environ")


def test_a_long_student_id_is_graded(graded_class):
    _, records, _ = graded_class
    assert records["x" * 51].score == adv.MAX_SCORE and records["x" * 51].status == "ok"


def test_the_course_secret_and_the_honest_times_stay_the_instructors(graded_class):
    """reads_course_secret (cases_secrets.py) tried to read the seeds' secret and to write the
    honest-time cache: its outputs show the attempts failed, the secret is in no output of its
    notebook or feedback, and the cache holds only the measurement of the source notebook."""
    import json

    from grading.autograde.budget import cache_path
    from grading.autograde.seeds import secret_path

    course, records, report = graded_class
    secret = secret_path(course).read_text().strip()
    notebook = _autograded_text(course, "reads_course_secret")
    cells = __import__("nbformat").reads(notebook, as_version=4).cells
    printed = "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "secret: FileNotFoundError" in printed and "found: []" in printed  # the attempts ran, and failed
    assert "cache: written" not in printed and "cache: FileNotFoundError" in printed
    assert secret not in notebook and secret not in _feedback_text(course, "reads_course_secret")
    assert secret not in report
    cache_text = cache_path(course).read_text()
    assert "NBG-FORGED" not in cache_text
    cache = json.loads(cache_text)
    source = course.root / "source" / adv.ASSIGNMENT / f"{adv.ASSIGNMENT}.ipynb"
    assert set(cache) == {f"{adv.ASSIGNMENT}/{adv.ASSIGNMENT}"}
    entry = cache[f"{adv.ASSIGNMENT}/{adv.ASSIGNMENT}"]
    assert entry["key"].startswith(__import__("hashlib").sha256(source.read_bytes()).hexdigest())
    assert set(entry["runs"]) <= {"source", "release"} and entry["seconds"] < 60
