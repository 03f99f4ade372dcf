"""Which submissions a run grades, and what the run knows about each one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from grading.core import state
from grading.core.errors import NbgError


@dataclasses.dataclass(eq=False)  # hashed by identity: a key of the task runner
class SubmissionJob:
    """One student's submission of one assignment, from selection to its records."""

    student: str
    assignment: str
    submitted: Path
    content_hash: str
    notebook_ids: list
    staging: Path | None = None
    info: dict = dataclasses.field(default_factory=dict)
    records: dict = dataclasses.field(default_factory=dict)  # notebook id -> GradingRecord (no execution)
    notes: dict = dataclasses.field(default_factory=dict)  # notebook id -> ScanResult, [removed files]
    results: dict = dataclasses.field(default_factory=dict)  # notebook id -> ExecutionResult
    seeds: dict = dataclasses.field(default_factory=dict)  # notebook id -> its hidden tests' grading seed
    waiting: set = dataclasses.field(default_factory=set)
    failed: bool = False  # the grader failed on it as a whole: nothing recorded, graded next run
    grader_failed: bool = False  # the grader failed on one of its notebooks: graded again next run

    def is_complete(self) -> bool:
        return self.waiting.issubset(self.results)


def selected_pairs(course, assignments, students):
    """(student, assignment) pairs to consider, validating the selection."""
    known = course.source_assignments()
    if assignments is None:
        assignments = known
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise NbgError(
            f"unknown assignment(s) {unknown}: the course's source/ folder has {known}"
        )
    pairs = []
    for assignment in assignments:
        submitted = course.submitted_students(assignment)
        chosen = submitted if students is None else [s for s in students if s in submitted]
        pairs.extend((student, assignment) for student in chosen)
    missing = sorted(set(students or []) - {student for student, _ in pairs})
    if missing:
        raise NbgError(f"no submission in submitted/ from {missing} for {list(assignments)}: check the ids")
    return pairs



def select_submissions(course, steps, assignments=None, students=None, force=False):
    """(jobs to grade, (student, assignment) pairs skipped as unchanged)."""
    jobs, skipped = [], []
    for student, assignment in selected_pairs(course, assignments, students):
        notebook_ids = steps.known_notebooks(assignment)
        if not notebook_ids:
            raise NbgError(f"assignment {assignment!r} is not in the gradebook: run `nbg release {assignment}` first")
        submitted = course.submitted_dir(student, assignment)
        content_hash = state.submission_hash(submitted)
        if not force and state.is_up_to_date(course, student, assignment, content_hash):
            skipped.append((student, assignment))
            continue
        jobs.append(SubmissionJob(student, assignment, submitted, content_hash, notebook_ids))
    return jobs, skipped
