"""``nbg export``: the gradebook as CSV files an LMS (and a spreadsheet) can read.

Two files are written:

``grades.csv``
    One row per student, one column per assignment (sorted by id), then
    ``total``. A cell holds the assignment's score after nbgrader's late
    penalty (``score - late_submission_penalty``). A student with no
    submission for an assignment gets an *empty* cell, so the LMS can tell
    "did not submit" from "scored 0"; ``total`` counts a missing submission
    as 0.
``cells.csv``
    One row per graded cell of every submission: ``student, assignment,
    notebook, grade_id, score, max_score, passed`` (``passed`` is ``1`` when
    the cell earned all its points, else ``0``). Scores here are the raw cell
    scores, before any late penalty: they say which questions went wrong. A
    written answer still waiting for the instructor's grade has empty
    ``score`` and ``passed``.

Only the assignments that have grades (someone submitted) are columns,
unless ``all_assignments``: a released assignment nobody handed in yet would
be an empty column, which an LMS import creates or overwrites.

A submission that still needs attention (a notebook that could not be read
and scored 0, a dead kernel, a flag...) is listed by
:func:`grading.core.records.needing_attention` so that ``nbg export`` warns before writing it.

With ``--format canvas`` or ``--format moodle`` and a ``--roster``, a third
file, ``canvas.csv`` or ``moodle.csv``, is laid out for that LMS's gradebook
import (:mod:`grading.lms`). Late penalties are recomputed first
(:func:`grading.grades.late.apply_late_policy`).

Every text cell is made safe to open in a spreadsheet (:mod:`grading.core.csvfile`: a
leading ``=``, ``+``, ``-`` or ``@`` gets a ``'``); numbers, negative ones too, stay numbers.

Everything is read through nbgrader's :class:`nbgrader.api.Gradebook`, so a
server database (``--db``) works the same as the default SQLite file.
"""

from __future__ import annotations

from pathlib import Path

from grading.core.csvfile import write_csv
from grading.core.errors import NbgError
from grading.core.text import format_points
from grading.grades.late import apply_late_policy
from grading.grades.read import ClassGrades, read_class_grades

GRADES_FILENAME = "grades.csv"
CELLS_FILENAME = "cells.csv"
CELLS_COLUMNS = ("student", "assignment", "notebook", "grade_id", "score", "max_score", "passed")


def write_grades_csv(grades: ClassGrades, path) -> Path:
    """Write ``grades.csv`` (one row per student) and return its path."""
    rows = [["student", *grades.assignments, "total"]]
    for student in grades.students:
        scores = [format_points(grades.score(student, a)) for a in grades.assignments]
        rows.append([student, *scores, format_points(grades.total(student))])
    return write_csv(path, rows)


def write_cells_csv(grades: ClassGrades, path) -> Path:
    """Write ``cells.csv`` (one row per graded cell per submission) and return its path."""
    rows = [CELLS_COLUMNS]
    for cell in grades.cells:
        rows.append(
            [
                cell.student,
                cell.assignment,
                cell.notebook,
                cell.grade_id,
                "" if cell.passed is None else format_points(cell.score),
                format_points(cell.max_score),
                "" if cell.passed is None else int(cell.passed),
            ]
        )
    return write_csv(path, rows)


def class_grades(course, all_assignments=False) -> ClassGrades:
    """The gradebook's grades after recomputing late penalties, without ungraded assignments
    unless ``all_assignments``."""
    apply_late_policy(course)  # due dates, extensions or manual grades may have changed
    grades = read_class_grades(course)
    return grades if all_assignments else grades.only_graded()


def export_grades(course, out_dir, all_assignments=False, grades=None) -> tuple[Path, Path]:
    """Write ``grades.csv`` and ``cells.csv`` for the whole class into ``out_dir``.

    Parameters
    ----------
    course : grading.Course
    out_dir : str or Path
        Created if missing.
    all_assignments : bool
        Also the assignments nobody submitted (empty columns).
    grades : ClassGrades, optional
        Already read by :func:`class_grades` (default: read here).

    Returns
    -------
    (Path, Path)
        The paths of ``grades.csv`` and ``cells.csv``.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise NbgError(f"--out {out_dir} is a file; give a folder for grades.csv and cells.csv")
    grades = grades if grades is not None else class_grades(course, all_assignments)
    out_dir.mkdir(parents=True, exist_ok=True)
    return (
        write_grades_csv(grades, out_dir / GRADES_FILENAME),
        write_cells_csv(grades, out_dir / CELLS_FILENAME),
    )
