"""``nbg export``: grades.csv, cells.csv and an LMS's grade import file."""

from __future__ import annotations

from pathlib import Path

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.core.lock import warn_if_unfinished
from grading.core.records import Status, needing_attention
from grading.core.text import format_points
from grading.lms import FORMATS, lms_rows, write_rows

SCORED_ZERO = (Status.INVALID, Status.MISSING, Status.ERROR)


def add_arguments(parser) -> None:
    """Options of ``nbg export``."""
    parser.add_argument(
        "--out",
        default=None,
        help="folder for grades.csv and cells.csv (default: <course root>/exports)",
    )
    parser.add_argument(
        "--format", choices=("csv", *FORMATS), default="csv", dest="lms",
        help="also write <format>.csv for that LMS's gradebook import (needs --roster)",
    )
    parser.add_argument("--roster", default=None, metavar="CSV",
                        help="one row per student with the LMS's ids (e.g. the LMS's gradebook export)")
    parser.add_argument("--roster-id", default="student_id", metavar="COLUMN",
                        help="the roster's column holding nbgrader's student ids, the ids `nbg collect` "
                             "printed (Canvas download: ID; default: student_id)")
    parser.add_argument("--all-assignments", action="store_true",
                        help="also write the assignments nobody submitted yet (empty columns; an LMS import "
                             "creates or overwrites them)")


def run(args) -> int:
    """Entry point of ``nbg export``; returns the exit code (1: a submission exported needs attention, or
    the gradebook has an assignment that is not in ``source/``)."""
    from grading.export import class_grades, export_grades  # nbgrader's gradebook: only when it runs
    from grading.grades.read import not_in_source, not_in_source_notice

    course = Course(args.course, db_url=args.db)
    warn_if_unfinished(course, "export")  # nbgrader commits cell by cell: a run under way shows half
    out_dir = Path(args.out) if args.out else course.root / "exports"
    lms = getattr(args, "lms", "csv")
    if lms != "csv" and not args.roster:
        raise NbgError(f"--format {lms} needs --roster: the LMS's student ids come from it")
    every = class_grades(course, all_assignments=True)
    grades = every if args.all_assignments else every.only_graded()
    # The roster is checked before anything is written: a wrong --roster-id leaves no files.
    rows = lms_rows(grades, lms, args.roster, args.roster_id) if lms != "csv" else None
    attention = needing_attention(course)
    for record in attention:
        what = ("it counts 0 (its feedback page tells the student why)" if record["status"] in SCORED_ZERO
                else "its score is exported as graded")
        print(f"WARNING {record['student']}/{record['assignment']}/{record['notebook']}: {record['status']}: "
              f"{record.get('reason') or ''} -- {what}; review it (nbg status, the report) before importing")
    grades_csv, cells_csv = export_grades(course, out_dir, grades=grades)
    print(f"grades (one row per student): {grades_csv}")
    print(f"per test cell:                {cells_csv}")
    unknown = not_in_source(course, every.assignments)
    if unknown:  # an empty column (--all-assignments) or a silent gap: say why
        print(f"WARNING {not_in_source_notice(unknown)}")
    skipped = sorted(set(every.assignments) - set(grades.assignments) - set(unknown))
    if skipped:
        print(f"not written (nobody submitted yet; --all-assignments writes them): {', '.join(skipped)}")
    if lms != "csv":
        path = write_rows(rows, out_dir / f"{lms}.csv")
        points = ", ".join(f"{a} {format_points(grades.max_scores[a])}" for a in grades.assignments)
        print(f"for {lms.title()}'s gradebook import: {path} (points possible: {points})")
    manual = sorted({(c.student, c.assignment) for c in grades.cells if c.needs_manual_grade})
    if manual:
        print(f"NOTE: {len(manual)} submission(s) have written answers not graded yet (the formgrader's Manual "
              f"Grading); their scores above leave those points out: "
              + ", ".join(f"{s}/{a}" for s, a in manual))
    if attention:
        print(f"{len(attention)} notebook(s) need attention (listed above)")
    return 1 if attention or unknown else 0

