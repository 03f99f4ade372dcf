"""``nbg status``: where grading stands, per assignment.

For every assignment in ``source/``: how many submissions are in
``submitted/``, how many are *graded* (graded by ``nbg autograde`` and
unchanged since), *pending* (never graded, or changed since: the next
``nbg autograde`` grades them), *need attention* (graded, but a notebook's
status was not ``ok``: a timeout, a dead kernel, a flag...), and *await
manual grading* (graded, with written answers still to grade in nbgrader's
formgrader). Read only: nothing is graded or written.

Exit code 0 when everything submitted is graded and fine, 1 when something
is pending or needs attention.
"""

from __future__ import annotations

import dataclasses
import json


@dataclasses.dataclass
class AssignmentStatus:
    """Counts (and names) of one assignment's submissions."""

    assignment: str
    submitted: list = dataclasses.field(default_factory=list)
    graded: list = dataclasses.field(default_factory=list)
    pending: list = dataclasses.field(default_factory=list)
    attention: dict = dataclasses.field(default_factory=dict)  # student -> "notebook: status"
    manual: list = dataclasses.field(default_factory=list)


def course_status(course) -> list:
    """One :class:`AssignmentStatus` per assignment in ``source/``."""
    from nbgrader.api import MissingEntry

    from grading.autograde import _is_up_to_date, _state_path, _submission_hash

    statuses = []
    db_exists = not course.db_url.startswith("sqlite:///") or course.root.joinpath("gradebook.db").is_file()
    for assignment in course.source_assignments():
        status = AssignmentStatus(assignment, submitted=course.submitted_students(assignment))
        for student in status.submitted:
            content_hash = _submission_hash(course.submitted_dir(student, assignment))
            if not _is_up_to_date(course, student, assignment, content_hash):
                status.pending.append(student)
                continue
            status.graded.append(student)
            state = json.loads(_state_path(course, student, assignment).read_text())
            problems = [f"{nb}: {s}" for nb, s in sorted(state.get("statuses", {}).items()) if s != "ok"]
            if problems:
                status.attention[student] = "; ".join(problems)
        if status.graded and db_exists:
            with course.gradebook() as gradebook:
                for student in status.graded:
                    try:
                        if gradebook.find_submission(assignment, student).needs_manual_grade:
                            status.manual.append(student)
                    except MissingEntry:
                        status.pending.append(student)
        statuses.append(status)
    return statuses


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
    from grading.core.course import Course

    course = Course(args.course, db_url=args.db)
    if not course.source_assignments():
        raise ValueError(f"no assignment in {course.source_root}: check --course")
    statuses = course_status(course)
    print(format_status(statuses))
    return 1 if any(s.pending or s.attention for s in statuses) else 0
