"""One autograded fixture class, built once per test session and shared.

The tests of autograde's outcomes and of what is done with the grades (feedback,
export, report, status, LMS files) only read a graded course, so they share one:
the first call of :func:`graded_class_root` grades the fixture class with
``grading.autograde.autograde`` (2 workers, sandboxed, ~15 s; the fixture's
infinite loop costs its 5 s timeout), later calls return the same folder, and
:func:`graded_class_summary` the run's summary. Tests that change the course
copy it first (:func:`copy_course`).

The class holds one student per submission kind of ``fixtures``, plus:

* ``late_perfect``: a perfect submission two days after the due date; the
  course config sets nbgrader's ``LateSubmissionPlugin.penalty_method =
  "zero"``, so its score is 6 - 6 = 0 after the penalty;
* ``absent``: a student in the gradebook who submitted nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import fixtures

STUDENTS = {kind: kind for kind in fixtures.SUBMISSION_KINDS}
STUDENTS["late_perfect"] = "perfect"
LATE_STUDENTS = ("late_perfect",)
ABSENT_STUDENT = "absent"
LATE_POLICY = (
    "\n# Late work scores 0 (nbgrader's only built-in penalty).\n"
    'c.LateSubmissionPlugin.penalty_method = "zero"\n'
)

_BUILT = {}


def graded_class_root(tmp_path_factory) -> Path:
    """The course root of the graded fixture class (built on first use)."""
    if "root" not in _BUILT:
        root = tmp_path_factory.mktemp("graded_class")
        fixtures.make_class(root, STUDENTS, late=LATE_STUDENTS)
        with (root / "nbgrader_config.py").open("a") as config:
            config.write(LATE_POLICY)
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{root.resolve() / 'gradebook.db'}") as gradebook:
            gradebook.add_student(ABSENT_STUDENT)
        from grading.autograde import autograde

        summary = autograde(root, workers=2)
        graded = sorted(record.student for record in summary.records)
        if graded != sorted(STUDENTS):
            raise RuntimeError(f"autograde graded {graded}, expected {sorted(STUDENTS)}")
        problems = {r.student: r.status for r in summary.records if r.status != "ok"}
        expected = {"kernel_dies": "kernel_died", "infinite_loop": "timeout",
                    "edits_test_cell": "flagged"}
        if problems != expected:
            raise RuntimeError(f"autograde went wrong, the tests below would mislead: {problems}")
        _BUILT["root"], _BUILT["summary"] = root, summary
    return _BUILT["root"]


def graded_class_summary(tmp_path_factory):
    """The ``AutogradeSummary`` of the run that graded the shared class."""
    graded_class_root(tmp_path_factory)
    return _BUILT["summary"]


def copy_course(root, destination) -> Path:
    """A private copy of a course root (gradebook included) that a test may change."""
    destination = Path(destination) / "course"
    shutil.copytree(root, destination)
    return destination
