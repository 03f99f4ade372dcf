"""``nbg status``: per assignment, what is graded, pending, needs attention or awaits a hand grade."""

from __future__ import annotations

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.grades.read import not_in_source, not_in_source_notice
from grading.status import course_status, gradebook_assignments


def format_status(statuses) -> str:
    """The table printed by ``nbg status``, then who is pending or needs attention."""
    header = ("assignment", "submitted", "graded", "pending", "need attention", "await manual grading")
    rows = [(s.assignment, len(s.submitted), len(s.graded), len(s.pending), len(s.attention), len(s.manual))
            for s in statuses]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                       for i, (v, w) in enumerate(zip(row, widths))) for row in [header, *rows]]
    for s in statuses:
        if s.pending:
            lines.append(f"  {s.assignment}: pending (run `nbg autograde {s.assignment}`): {', '.join(s.pending)}")
        for student, why in s.attention.items():
            lines.append(f"  {s.assignment}: ATTENTION {student}: {why}")
        if s.manual:
            lines.append(f"  {s.assignment}: written answers to grade in the formgrader: {', '.join(s.manual)}")
    return "\n".join(lines)


def add_arguments(parser) -> None:
    """``nbg status`` has no options of its own."""


def run(args) -> int:
    """Entry point of ``nbg status``; returns the exit code."""
    course = Course(args.course, db_url=args.db)
    if not course.source_assignments():
        raise NbgError(f"no assignment in {course.source_root}: check --course")
    statuses = course_status(course)
    print(format_status(statuses))
    unknown = not_in_source(course, gradebook_assignments(course))
    if unknown:
        print(f"ATTENTION {not_in_source_notice(unknown)}")
    return 1 if unknown or any(s.pending or s.attention for s in statuses) else 0
