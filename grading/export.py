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

With ``--format canvas`` or ``--format moodle`` and a ``--roster``, a third
file, ``canvas.csv`` or ``moodle.csv``, is laid out for that LMS's gradebook
import (:mod:`grading.lms`). Late penalties are recomputed first
(:func:`grading.grades.late.apply_late_policy`).

Everything is read through nbgrader's :class:`nbgrader.api.Gradebook`, so a
server database (``--db``) works the same as the default SQLite file.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

GRADES_FILENAME = "grades.csv"
CELLS_FILENAME = "cells.csv"
CELLS_COLUMNS = ("student", "assignment", "notebook", "grade_id", "score", "max_score", "passed")


def format_points(value) -> str:
    """Write a score without float noise: ``3.0 -> '3'``, ``2.5 -> '2.5'``, ``None -> ''``.

    Examples
    --------
    >>> format_points(3.0), format_points(2.5), format_points(None), format_points(1 / 3)
    ('3', '2.5', '', '0.333333')
    """
    if value is None:
        return ""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    return f"{value:.6g}"


@dataclass(frozen=True)
class CellGrade:
    """The score of one graded cell in one student's notebook."""

    student: str
    assignment: str
    notebook: str
    grade_id: str
    score: float
    max_score: float
    needs_manual_grade: bool = False
    cell_type: str = "code"  # "markdown" for a written answer

    @property
    def passed(self):
        """True when the cell earned all its points; None while awaiting a manual grade."""
        if self.needs_manual_grade:
            return None
        # Scores are sums of small decimals; a tolerance avoids 0.1+0.2 surprises.
        return self.score >= self.max_score - 1e-9


@dataclass(frozen=True)
class SubmissionGrade:
    """One student's score on one assignment, as nbgrader stores it."""

    student: str
    assignment: str
    raw_score: float
    late_penalty: float
    max_score: float
    seconds_late: float

    @property
    def score(self) -> float:
        """The score after the late penalty (what goes to the LMS)."""
        return self.raw_score - self.late_penalty


@dataclass
class ClassGrades:
    """Everything the exports and the report need from the gradebook.

    Attributes
    ----------
    students : list of str
        Every student in the gradebook, sorted.
    assignments : list of str
        Every assignment in the gradebook, sorted.
    max_scores : dict of str to float
        Assignment id -> maximum score.
    submissions : dict of (str, str) to SubmissionGrade
        (student, assignment) -> grade, only for submitted assignments.
    cells : list of CellGrade
        Every graded cell of every submission, sorted.
    """

    students: list
    assignments: list
    max_scores: dict
    submissions: dict
    cells: list

    def score(self, student, assignment):
        """The penalised score, or None when the student did not submit."""
        grade = self.submissions.get((student, assignment))
        return None if grade is None else grade.score

    def total(self, student) -> float:
        """Sum over assignments, a missing submission counting 0."""
        return sum(self.score(student, a) or 0.0 for a in self.assignments)


def _require_gradebook(course) -> None:
    # nbgrader would silently create an empty SQLite gradebook; an export of
    # nothing hides a wrong --course, so say what is missing instead.
    url = course.db_url
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).is_file():
        raise ValueError(
            f"no gradebook at {url[len('sqlite:///'):]}: check --course (or --db), "
            "and run `nbg release` and `nbg autograde` first"
        )


def read_class_grades(course) -> ClassGrades:
    """Read every student's and every cell's grade from the course's gradebook.

    Parameters
    ----------
    course : grading.Course
        The course whose gradebook (``course.gradebook()``) is read.

    Returns
    -------
    ClassGrades
    """
    _require_gradebook(course)
    with course.gradebook() as gradebook:
        students = sorted(student.id for student in gradebook.students)
        assignments = sorted(assignment.name for assignment in gradebook.assignments)
        max_scores = {a.name: float(a.max_score or 0.0) for a in gradebook.assignments}
        submissions = {}
        cells = []
        for assignment in assignments:
            for submission in gradebook.assignment_submissions(assignment):
                student = submission.student.id
                submissions[(student, assignment)] = SubmissionGrade(
                    student=student,
                    assignment=assignment,
                    raw_score=float(submission.score or 0.0),
                    late_penalty=float(submission.late_submission_penalty or 0.0),
                    max_score=float(submission.max_score or 0.0),
                    seconds_late=float(submission.total_seconds_late or 0.0),
                )
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        cells.append(
                            CellGrade(
                                student=student,
                                assignment=assignment,
                                notebook=notebook.name,
                                grade_id=grade.name,
                                score=float(grade.score or 0.0),
                                max_score=float(grade.max_score or 0.0),
                                needs_manual_grade=bool(grade.needs_manual_grade),
                                cell_type=grade.cell.cell_type,
                            )
                        )
    cells.sort(key=lambda c: (c.student, c.assignment, c.notebook, c.grade_id))
    return ClassGrades(students, assignments, max_scores, submissions, cells)


def write_grades_csv(grades: ClassGrades, path) -> Path:
    """Write ``grades.csv`` (one row per student) and return its path."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *grades.assignments, "total"])
        for student in grades.students:
            scores = [format_points(grades.score(student, a)) for a in grades.assignments]
            writer.writerow([student, *scores, format_points(grades.total(student))])
    return path


def write_cells_csv(grades: ClassGrades, path) -> Path:
    """Write ``cells.csv`` (one row per graded cell per submission) and return its path."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CELLS_COLUMNS)
        for cell in grades.cells:
            writer.writerow(
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
    return path


def export_grades(course, out_dir) -> tuple[Path, Path]:
    """Write ``grades.csv`` and ``cells.csv`` for the whole class into ``out_dir``.

    Parameters
    ----------
    course : grading.Course
    out_dir : str or Path
        Created if missing.

    Returns
    -------
    (Path, Path)
        The paths of ``grades.csv`` and ``cells.csv``.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {out_dir} is a file; give a folder for grades.csv and cells.csv")
    out_dir.mkdir(parents=True, exist_ok=True)
    from grading.grades.late import apply_late_policy

    apply_late_policy(course)  # due dates, extensions or manual grades may have changed
    grades = read_class_grades(course)
    return (
        write_grades_csv(grades, out_dir / GRADES_FILENAME),
        write_cells_csv(grades, out_dir / CELLS_FILENAME),
    )


def add_arguments(parser) -> None:
    """Options of ``nbg export``."""
    parser.add_argument(
        "--out",
        default=None,
        help="folder for grades.csv and cells.csv (default: <course root>/exports)",
    )
    parser.add_argument(
        "--format", choices=("csv", "canvas", "moodle"), default="csv", dest="lms",
        help="also write canvas.csv or moodle.csv for the LMS's gradebook import (needs --roster)",
    )
    parser.add_argument("--roster", default=None, metavar="CSV",
                        help="one row per student with the LMS's ids (e.g. the LMS's gradebook export)")
    parser.add_argument("--roster-id", default="student_id", metavar="COLUMN",
                        help="the roster's column holding nbgrader's student ids (default: student_id)")


def run(args) -> int:
    """Entry point of ``nbg export``; returns the exit code."""
    from grading.core.course import Course

    from grading.core.lock import warn_if_unfinished

    course = Course(args.course, db_url=args.db)
    warn_if_unfinished(course, "export")  # nbgrader commits cell by cell: a run under way shows half
    out_dir = Path(args.out) if args.out else course.root / "exports"
    lms = getattr(args, "lms", "csv")
    if lms != "csv" and not args.roster:
        raise ValueError(f"--format {lms} needs --roster: the LMS's student ids come from it")
    grades_csv, cells_csv = export_grades(course, out_dir)
    print(f"grades (one row per student): {grades_csv}")
    print(f"per test cell:                {cells_csv}")
    if lms != "csv":
        from grading.lms import write_lms_csv

        grades = read_class_grades(course)
        path = write_lms_csv(grades, lms, args.roster, args.roster_id, out_dir / f"{lms}.csv")
        points = ", ".join(f"{a} {format_points(grades.max_scores[a])}" for a in grades.assignments)
        print(f"for {lms.title()}'s gradebook import: {path} (points possible: {points})")
    return 0
