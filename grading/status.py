"""``nbg status``: where grading stands, per assignment.

For every assignment in ``source/``: how many submissions are in
``submitted/``, how many are *graded* (graded by ``nbg autograde`` and
unchanged since), *pending* (never graded, or changed since: the next
``nbg autograde`` grades them), *need attention* (graded, but a notebook's
status was not ``ok``: a timeout, a dead kernel, a flag...), and *await
manual grading* (graded, with written answers still to grade in nbgrader's
formgrader). Read only: nothing is graded or written.

A notebook that needs attention is listed with its status and the reason the
grading log (and the report) gives. An assignment of the gradebook with no
folder in ``source/`` (a typo in ``nbgrader db assignment add``) is named.

Exit code 0 when everything submitted is graded and fine, 1 when something
is pending or needs attention.
"""

from __future__ import annotations

import dataclasses
import json

from grading.core import state
from grading.core.records import Status, latest_records, read_grading_log


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

    statuses = []
    db_exists = course.gradebook_exists()
    logged = latest_records(read_grading_log(course.grading_log_path))
    for assignment in course.source_assignments():
        status = AssignmentStatus(assignment, submitted=course.submitted_students(assignment))
        for student in status.submitted:
            content_hash = state.submission_hash(course.submitted_dir(student, assignment))
            if not state.is_up_to_date(course, student, assignment, content_hash):
                status.pending.append(student)
                continue
            status.graded.append(student)
            saved = json.loads(state.state_path(course, student, assignment).read_text())
            problems = [_problem(logged.get((student, assignment, nb), {}), nb, s)
                        for nb, s in sorted(saved.get("statuses", {}).items()) if s != Status.OK]
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


def _problem(record, notebook, status) -> str:
    """``notebook: status``, with the reason the grading log gives for it (the report's words)."""
    reason = record.get("reason") if record.get("status") == status else ""
    return f"{notebook}: {status} ({reason})" if reason else f"{notebook}: {status}"


def gradebook_assignments(course) -> list:
    """The assignments in nbgrader's gradebook, sorted ([] without a gradebook)."""
    if not course.gradebook_exists():
        return []
    with course.gradebook() as gradebook:
        return sorted(assignment.name for assignment in gradebook.assignments)
