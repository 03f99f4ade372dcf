"""Late policy and extensions: nbgrader's late-submission plugin, through the real gradebook.

The fixture class (graded_class.py) has ``late_perfect``: 6 of 6 points,
submitted 2026-10-03 09:00 for a due date of 2026-10-01 12:00, i.e. 1 day
21 hours late: 2 started days. Expected penalties below are worked by hand
from the policy (10% of the 6 points possible per started day, floor 50%).
"""

import csv
import datetime as dt
import html
import re

import fixtures
import pytest
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.export import export_grades
from grading.grades.read import read_class_grades
from grading.grades.late import LatePolicy, apply_late_policy, read_extensions
from grading.report import write_report

POLICY = """
c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"
c.LatePolicy.percent_per_interval = 10
c.LatePolicy.interval_hours = 24
c.LatePolicy.lowest_score_percent = 50
"""


@pytest.fixture
def course(tmp_path_factory, tmp_path):
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path)
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(POLICY)
    return Course(root)


def late_perfect(course):
    return read_class_grades(course).submissions[("late_perfect", "ps_fixture")]


def write_extensions(course, *rows):
    lines = ["student_id,assignment,due", *(",".join(row) for row in rows)]
    (course.root / "extensions.csv").write_text("\n".join(lines) + "\n")


def test_penalty_per_started_day_from_the_configured_plugin(course):
    penalties = apply_late_policy(course)
    assert [(p.student, p.penalty) for p in penalties] == [("late_perfect", pytest.approx(1.2))]
    assert penalties[0].late_by == "1 d 21 h 0 min"
    grade = late_perfect(course)
    assert (grade.raw_score, grade.late_penalty) == (6.0, pytest.approx(1.2))  # 2 days x 10% x 6
    assert grade.score == pytest.approx(4.8)
    assert read_class_grades(course).score("perfect", "ps_fixture") == 6.0  # on time: untouched


def test_extension_changes_and_removal_recompute_the_penalty(course):
    write_extensions(course, ("late_perfect", "ps_fixture", "2026-10-02 12:00"))
    apply_late_policy(course)
    assert late_perfect(course).late_penalty == pytest.approx(0.6)  # 21 h late: one started day
    write_extensions(course, ("late_perfect", "ps_fixture", "2026-10-04 12:00"))
    (penalty,) = apply_late_policy(course)
    assert late_perfect(course).late_penalty == 0 and penalty.extended and penalty.late_by == "on time"
    write_extensions(course)  # the extension withdrawn: back to 2 days late
    apply_late_policy(course)
    assert late_perfect(course).late_penalty == pytest.approx(1.2)


def test_changing_the_due_date_recomputes_and_the_floor_holds(course):
    with course.gradebook() as gradebook:
        gradebook.update_or_create_assignment("ps_fixture", duedate=dt.datetime(2026, 9, 1, 12, 0))
    apply_late_policy(course)
    # 32 started days x 10% would take everything; the floor keeps 50% of 6.
    assert late_perfect(course).score == pytest.approx(3.0)
    # perfect (6/6, submitted 2026-09-30 09:00) is now late too: 29 started days, same floor
    assert read_class_grades(course).score("perfect", "ps_fixture") == pytest.approx(3.0)
    # blank scored 0, under the floor: lateness takes nothing
    assert read_class_grades(course).submissions[("blank", "ps_fixture")].late_penalty == 0


def test_recomputing_can_be_limited_to_some_assignments(course):
    """nbg autograde recomputes only the assignments it graded (a MOOC's gradebook is large)."""
    apply_late_policy(course)
    assert late_perfect(course).late_penalty == pytest.approx(1.2)
    write_extensions(course, ("late_perfect", "ps_fixture", "2026-10-04 12:00"))
    assert apply_late_policy(course, assignments=["another_assignment"]) == []
    assert late_perfect(course).late_penalty == pytest.approx(1.2)  # not this assignment: untouched
    apply_late_policy(course, assignments=["ps_fixture"])
    assert late_perfect(course).late_penalty == 0


def test_export_report_and_nbgrader_export_show_the_same_number(course, tmp_path):
    grades_csv, _ = export_grades(course, tmp_path / "exports")
    with grades_csv.open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert rows["late_perfect"]["ps_fixture"] == "4.8"
    page = write_report(course, tmp_path / "report.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "late_perfect 4.8 4.8" in text  # the score table
    section = text.split("Late submissions")[1]
    assert "10% of the points possible per started day late" in section
    assert "late_perfect ps_fixture 2026-10-03 09:00 2026-10-01 12:00 1 d 21 h 0 min 6 / 6 -1.2 4.8" in section
    # nbgrader's own CSV export (what `nbgrader export` writes) reads the same gradebook
    from nbgrader.plugins.export import CsvExportPlugin

    with course.gradebook() as gradebook:
        CsvExportPlugin(to=str(tmp_path / "nbgrader.csv")).export(gradebook)
    with (tmp_path / "nbgrader.csv").open(newline="") as handle:
        stock = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(stock["late_perfect"]["late_submission_penalty"]) == pytest.approx(1.2)
    assert float(stock["late_perfect"]["score"]) == pytest.approx(4.8)


@pytest.mark.parametrize("text, message", [
    ("student,assignment,due\n", "missing column"),
    ("student_id,assignment,due\nalice,ps_fixture,next week\n", "line 2: cannot read the due date"),
    ("student_id,assignment,due\nalice,ps_fixture,2026-10-02\nalice,ps_fixture,2026-10-03\n",
     "line 3: a second extension"),
])
def test_bad_extensions_file_says_what_to_fix(tmp_path, text, message):
    (tmp_path / "extensions.csv").write_text(text)
    with pytest.raises(ValueError, match=message):
        read_extensions(tmp_path / "extensions.csv")


def test_extension_for_an_unknown_assignment_is_refused(course):
    write_extensions(course, ("late_perfect", "ps_fixtrue", "2026-10-02 12:00"))
    with pytest.raises(ValueError, match=r"unknown assignment\(s\) \['ps_fixtrue'\]"):
        apply_late_policy(course)


def test_policy_arithmetic():
    policy = LatePolicy(percent_per_interval=10, interval_hours=1, max_penalty_percent=30)
    assert policy.intervals_late(1) == 1 and policy.intervals_late(3600) == 1
    assert policy.intervals_late(3601) == 2
    assert policy.penalty(10, 10, 5 * 3600) == pytest.approx(3.0)  # capped at 30%


@pytest.mark.slow
def test_autograde_and_stock_nbgrader_apply_the_plugin_and_the_extension(tmp_path):
    """Grading itself (nbg's and stock nbgrader's, as the formgrader runs it) uses the plugin."""
    from grading.autograde import autograde

    students = {"late": "perfect", "extended": "perfect"}
    fixtures.make_class(tmp_path, students, late=("late", "extended"))
    with (tmp_path / "nbgrader_config.py").open("a") as config:
        config.write(POLICY)
    (tmp_path / "extensions.csv").write_text("student_id,assignment,due\nextended,ps_fixture,2026-10-05 12:00\n")
    summary = autograde(tmp_path, workers=2, sandboxed=False)
    assert {r.status for r in summary.records} == {"ok"}
    course = Course(tmp_path)
    grades = read_class_grades(course)  # as autograde left them, before any re-application
    assert grades.submissions[("late", "ps_fixture")].late_penalty == pytest.approx(1.2)
    assert grades.submissions[("extended", "ps_fixture")].late_penalty == 0
    fixtures.write_submission(tmp_path, "stock", "perfect", timestamp=fixtures.LATE)
    result = fixtures.stock_autograde(tmp_path, "stock")
    assert result["success"], result.get("log")
    assert read_class_grades(course).submissions[("stock", "ps_fixture")].late_penalty == pytest.approx(1.2)
