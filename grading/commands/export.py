"""``nbg export``: grades.csv, cells.csv and an LMS's grade import file."""

from __future__ import annotations

from pathlib import Path

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.core.lock import warn_if_unfinished
from grading.core.text import format_points
from grading.export import export_grades
from grading.grades.read import read_class_grades
from grading.lms import FORMATS, write_lms_csv


def add_arguments(parser) -> None:
    """Options of ``nbg export``."""
    parser.add_argument(
        "--out",
        default=None,
        help="folder for grades.csv and cells.csv (default: <course root>/exports)",
    )
    parser.add_argument(
        "--format", choices=("csv", *FORMATS), default="csv", dest="lms",
        help="also write canvas.csv or moodle.csv for the LMS's gradebook import (needs --roster)",
    )
    parser.add_argument("--roster", default=None, metavar="CSV",
                        help="one row per student with the LMS's ids (e.g. the LMS's gradebook export)")
    parser.add_argument("--roster-id", default="student_id", metavar="COLUMN",
                        help="the roster's column holding nbgrader's student ids (default: student_id)")


def run(args) -> int:
    """Entry point of ``nbg export``; returns the exit code."""
    course = Course(args.course, db_url=args.db)
    warn_if_unfinished(course, "export")  # nbgrader commits cell by cell: a run under way shows half
    out_dir = Path(args.out) if args.out else course.root / "exports"
    lms = getattr(args, "lms", "csv")
    if lms != "csv" and not args.roster:
        raise NbgError(f"--format {lms} needs --roster: the LMS's student ids come from it")
    grades_csv, cells_csv = export_grades(course, out_dir)
    print(f"grades (one row per student): {grades_csv}")
    print(f"per test cell:                {cells_csv}")
    if lms != "csv":
        grades = read_class_grades(course)
        path = write_lms_csv(grades, lms, args.roster, args.roster_id, out_dir / f"{lms}.csv")
        points = ", ".join(f"{a} {format_points(grades.max_scores[a])}" for a in grades.assignments)
        print(f"for {lms.title()}'s gradebook import: {path} (points possible: {points})")
    return 0
