"""``nbg status`` on the graded fixture class (hand-counted from graded_class.py)."""

import subprocess
import sys

import fixtures
import pytest
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.status import course_status


@pytest.fixture
def course(tmp_path_factory, tmp_path):
    return Course(copy_course(graded_class_root(tmp_path_factory), tmp_path))


def test_counts_of_the_graded_class(course):
    (status,) = course_status(course)
    assert status.assignment == "ps_fixture"
    assert len(status.submitted) == len(status.graded) == 9 and status.pending == []
    # graded_class.py: these three were not graded "ok"
    assert set(status.attention) == {"kernel_dies", "infinite_loop", "edits_test_cell"}
    assert status.attention["infinite_loop"].startswith("ps_fixture: timeout (")  # with the log's reason
    assert status.manual == []  # the fixture notebook has no written answer


def test_a_changed_and_a_new_submission_are_pending(course):
    fixtures.write_submission(course.root, "perfect", "wrong_hidden")  # resubmitted
    fixtures.write_submission(course.root, "newcomer", "perfect")
    (status,) = course_status(course)
    assert sorted(status.pending) == ["newcomer", "perfect"]
    assert len(status.graded) == 8


def test_written_answers_awaiting_a_grade(course):
    with course.gradebook() as gradebook:
        grade = gradebook.find_grade("test_add_hidden", "ps_fixture", "ps_fixture", "perfect")
        grade.needs_manual_grade = True  # as a written answer before the formgrader
        gradebook.db.commit()
    (status,) = course_status(course)
    assert status.manual == ["perfect"]


def test_cli_status(course):
    done = subprocess.run([sys.executable, "-m", "grading", "--course", str(course.root), "status"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # three need attention
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["assignment", "submitted", "graded", "pending", "need", "attention",
                                "await", "manual", "grading"]
    assert lines[1].split() == ["ps_fixture", "9", "9", "0", "3", "0"]
    assert "ATTENTION kernel_dies: ps_fixture: kernel_died" in done.stdout
