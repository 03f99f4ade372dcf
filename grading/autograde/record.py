"""Record: executed notebooks into the gradebook, the autograded folder, the state and the log.

Post-processing runs nbgrader's own steps (which write the gradebook), so only
the grading process writes grades. A notebook the grader could not run is
not graded (the next run grades it); a notebook whose scores could not be
recorded gets 0, never unchecked points.
"""

from __future__ import annotations

import json
import shutil

import nbformat

from grading.autograde.budget import slow_note, slowest
from grading.autograde.jobs import SubmissionJob
from grading.autograde.scan import ScanResult
from grading.core import state
from grading.core.records import GradingRecord, Status, append_records, now
from grading.core.text import describe_error


class Recorder:
    """The grading process's second half: results into grades and records."""

    def __init__(self, course, steps, sandbox):
        self.course, self.steps, self.sandbox = course, steps, sandbox  # a backend
        self.permissions = int(str(steps.converter.permissions), 8)
        self.budgets = None  # budget.Budgets of the run: honest times, the review factor

    def fail_job(self, job: SubmissionJob, reason: str) -> list:
        """Records for a submission the grader failed on as a whole: ungraded, graded next run."""
        job.failed = True
        if job.staging is not None:
            shutil.rmtree(job.staging, ignore_errors=True)
        records = [GradingRecord(student=job.student, assignment=job.assignment, notebook=notebook_id,
                                 status=Status.ERROR, reason=f"{reason}; not graded, the next run tries again",
                                 sandbox=self.sandbox.name, sandboxed=self.sandbox.confined, graded_at=now())
                   for notebook_id in job.notebook_ids]
        self._log(records)
        return records

    def finish_safely(self, job: SubmissionJob) -> list:
        """:meth:`finish`, with any failure of the grader turned into that submission's error records."""
        try:
            return self.finish(job)
        except Exception as error:
            return self.fail_job(job, f"the grader could not record it: {describe_error(error)}")

    def finish(self, job: SubmissionJob) -> list:
        """Post-process executed notebooks, write the outputs and the gradebook, mark done.

        A notebook the grader could not run is not graded (its gradebook rows are left
        alone, and the submission's state is not saved, so the next run grades it); a
        notebook whose scores could not be recorded gets 0 (never unchecked points).
        """
        records = []
        for notebook_id in job.notebook_ids:
            if notebook_id in job.records:
                records.append(job.records[notebook_id])
                continue
            result = job.results[notebook_id]
            if result.status == Status.ERROR:
                # Never a grade: not in the gradebook, the log or the state; the next run grades it.
                job.grader_failed = True
                records.append(GradingRecord(
                    student=job.student, assignment=job.assignment, notebook=notebook_id,
                    status=Status.UNGRADED, sandbox=self.sandbox.name, sandboxed=self.sandbox.confined, graded_at=now(),
                    reason=f"the grader could not run it ({result.reason}); the submission is left "
                           "ungraded: the next run grades it"))
                continue
            try:
                notebook = nbformat.reads(result.notebook_json, as_version=4)
                notebook = self.steps.post_process(notebook, job.student, job.assignment, notebook_id)
            except Exception as error:
                job.grader_failed = True
                try:  # fail closed: whatever nbgrader had written of it is replaced by 0
                    self.steps.zero_notebook(job.student, job.assignment, notebook_id)
                except Exception:
                    pass
                records.append(self.record(job, notebook_id, Status.ERROR,
                                            f"nbgrader could not score it ({describe_error(error)}); it counts 0 "
                                            "until the next run grades it again", result.seconds))
                continue
            _annotate(notebook, job.notes.get(notebook_id))
            state.write_atomic(job.staging / f"{notebook_id}.ipynb", nbformat.writes(notebook))
            status, reason = self._apply_notes(job, notebook_id, result)
            record = self.record(job, notebook_id, status, reason, result.seconds)
            record.graded_alone = bool(result.graded_alone)
            record.budget_seconds = result.budget
            record.honest_seconds = self._honest(job, notebook_id)
            record.slowest_cells = slowest(result.cell_seconds)
            record.run_seconds = result.run_seconds
            record.unloaded_seconds = result.unloaded_seconds
            record.honest_unloaded_seconds = self.budgets.honest_unloaded(job.assignment, notebook_id) \
                if self.budgets is not None else None
            records.append(record)
        state.set_read_only(job.staging, self.permissions)
        state.swap_in(job.staging, self.course.autograded_dir(job.student, job.assignment))
        saved_at = state.state_path(self.course, job.student, job.assignment)
        if job.grader_failed:
            saved_at.unlink(missing_ok=True)  # graded again by the next run
        else:
            saved = {"hash": job.content_hash, "graded_at": now(),
                     "statuses": {r.notebook: r.status for r in records}}
            state.write_atomic(saved_at, json.dumps(saved, indent=1))
        self._log([r for r in records if r.status != Status.UNGRADED])
        return records

    def _log(self, records):
        append_records(self.course.grading_log_path, records)

    def _apply_notes(self, job, notebook_id, result):
        """Zero the deleted test cells; the record's status and reason."""
        scan, ignored, deleted, edited, moved = job.notes.get(notebook_id, (ScanResult(), [], {}, [], []))
        if deleted.get("tests"):  # deleted test cells get 0
            self.steps.zero_cells(job.student, job.assignment, notebook_id, deleted["tests"])
        if scan.zero_tests:  # the rule on ready-made libraries; the scan's other findings only flag
            self.steps.zero_cells(job.student, job.assignment, notebook_id, sorted(scan.zero_tests))
        reasons = [result.reason] if result.reason else []
        if result.graded_alone:
            reasons.append(result.graded_alone)
        if scan.flagged:
            reasons.append(scan.reason())
        if deleted.get("tests"):
            reasons.append(f"the test cell(s) {', '.join(deleted['tests'])} were deleted from the notebook, "
                           "so they get no points")
        if deleted.get("answers"):
            reasons.append(f"the answer cell(s) {', '.join(deleted['answers'])} were deleted from the notebook")
        if edited:
            reasons.append(f"the test cell(s) {', '.join(edited)} were edited; the original tests were used")
        if moved:
            reasons.append(f"the cell(s) {', '.join(moved)} were moved; they were graded in the source "
                           "notebook's order")
        if scan.overruled_note():
            reasons.append(scan.overruled_note())
        reasons += ignored + result.incidents  # incidents: the grader's own observations (execution.observed)
        slow = slow_note(result, self.budgets.honest_unloaded(job.assignment, notebook_id), self.budgets.review) \
            if self.budgets is not None and result.status == Status.OK else ""
        if slow:
            reasons.append(slow)
        reasons += [f"the notebook's own output says {line}" for line in getattr(result, "reported", [])]  # never a status
        status = result.status
        if status == Status.OK and (scan.flagged or deleted or edited or moved or slow):
            status = Status.FLAGGED
        elif status == Status.OK and (ignored or result.incidents):
            status = Status.BLOCKED
        return status, "; ".join(reasons)

    def _honest(self, job, notebook_id):
        return self.budgets.honest(job.assignment, notebook_id) if self.budgets is not None else None

    def record(self, job, notebook_id, status, reason, seconds=0.0):
        score = max_score = None
        try:
            score, max_score, _ = self.steps.notebook_score(job.student, job.assignment, notebook_id)
        except Exception:
            pass  # e.g. the submission row could not be created; the status says why
        return GradingRecord(
            student=job.student, assignment=job.assignment, notebook=notebook_id, status=status,
            reason=reason, seconds=round(seconds, 3), sandbox=self.sandbox.name, sandboxed=self.sandbox.confined, score=score,
            max_score=max_score, late=job.info.get("seconds_late", 0) > 0, graded_at=now(),
            grading_seed=job.seeds.get(notebook_id),
        )


def _annotate(notebook, notes):
    """The library rule's findings in the autograded notebook's metadata (``nbg_library``), which the
    feedback page and the report read; written by the grading process, never taken from a submission."""
    notebook.metadata.pop("nbg_library", None)
    scan = notes[0] if notes else None
    if scan is not None and scan.library:
        notebook.metadata["nbg_library"] = scan.library
