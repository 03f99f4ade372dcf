"""A three-student fixture class for the cluster and PostgreSQL tests, and its scores.

Small on purpose (these tests start servers and grade several times): a
perfect submission, one that fails a hidden test, and an infinite loop (a
long task, ~5 s: the one that is still running when a worker or a grader is
killed). Hand-derived cell scores: ``fixtures.EXPECTED_CELL_SCORES``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import fixtures

STUDENTS = {"infinite_loop": "infinite_loop", "perfect": "perfect", "wrong_hidden": "wrong_hidden"}

_SOURCE = {}


def fresh_copy(tmp_path_factory, name) -> Path:
    """A private copy of the released, ungraded class (built once per session)."""
    if "root" not in _SOURCE:
        root = tmp_path_factory.mktemp("small_class_source")
        fixtures.make_class(root, STUDENTS)
        _SOURCE["root"] = root
    destination = tmp_path_factory.mktemp(name) / "course"
    shutil.copytree(_SOURCE["root"], destination)
    return destination


def cell_scores(course) -> dict:
    """(student, grade id) -> auto score, for every graded cell in the gradebook."""
    scores = {}
    with course.gradebook() as gradebook:
        for submission in gradebook.assignment_submissions(fixtures.FIXTURE_ASSIGNMENT):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    scores[(submission.student.id, grade.name)] = grade.auto_score
    return scores


def hand_derived_scores() -> dict:
    """The same mapping from ``fixtures.EXPECTED_CELL_SCORES`` (not from any grader)."""
    return {(student, cell): score
            for student, kind in STUDENTS.items()
            for cell, score in zip(fixtures.GRADE_CELLS, fixtures.EXPECTED_CELL_SCORES[kind])}
