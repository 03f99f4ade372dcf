"""``nbg autograde``: grade submissions in parallel, with nbgrader's scoring.

Per submission the grading process runs nbgrader's own sanitizing steps
(:mod:`grading.autograde.nbgrader_steps`), a process pool executes each notebook in its
own kernel (:mod:`grading.execution.kernel`), and the grading process then runs
nbgrader's post-processing (which writes the gradebook), so only this
process ever writes the gradebook.

Crash safety and idempotency, in this order per submission:

1. the autograded folder is assembled in a staging folder and swapped in;
2. the gradebook is updated (nbgrader's upserts: re-running overwrites the
   same grades, never adds to them);
3. a state file records the content hash of what was graded.

A submission is graded again when its hash differs from the recorded one,
when its autograded folder is missing, or with ``force``; a run killed at
any point therefore leaves nothing half-counted, and the next run finishes it.

Untrusted code: kernels run in the bubblewrap sandbox (:mod:`grading.execution.sandbox.bubblewrap`)
unless ``sandboxed=False`` (``--unsafe-no-sandbox``), which every record of
the grading log then shows. Before execution the grading process also
refuses symbolic links in a submission, drops submitted files that would
shadow a module the tests import (``numpy.py``), and scans the answers
(:mod:`grading.autograde.scan`), and puts test cells the student moved back in the source
notebook's order; after nbgrader has scored a notebook, the test cells the student deleted are set
to 0, and so are the test cells of a graded function that breaks the rule on ready-made libraries
(unless the instructor overruled it: ``nbg overrule``); the scan's other findings are flagged for
review.

The stages, one module each: :mod:`~grading.autograde.jobs` (select),
:mod:`~grading.autograde.prepare`, :mod:`grading.execution.runners` (run, in
workers) and :mod:`~grading.autograde.record`. This module only orchestrates.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from pathlib import Path

from grading.autograde.budget import Budgets
from grading.autograde.jobs import SubmissionJob, select_submissions
from grading.autograde.nbgrader_steps import NbgraderSteps
from grading.autograde.prepare import Preparer
from grading.autograde.record import Recorder
from grading.autograde.seeds import course_secret
from grading.core import state
from grading.core.course import Course
from grading.core.errors import NbgError
from grading.core.lock import autograde_lock
from grading.core.text import describe_error
from grading.execution.limits import Limits
from grading.execution.runners import TaskRunner
from grading.execution.runners import dask as cluster
from grading.execution.sandbox import get_sandbox, sandbox_name
from grading.execution.sandbox.bubblewrap import build_matplotlib_cache
from grading.grades.late import apply_late_policy

__all__ = ["AutogradeSummary", "SubmissionJob", "autograde"]


@dataclasses.dataclass
class AutogradeSummary:
    """The outcome of one ``autograde`` run."""

    records: list = dataclasses.field(default_factory=list)
    skipped: list = dataclasses.field(default_factory=list)  # (student, assignment) unchanged
    seconds: float = 0.0

    @property
    def needs_attention(self) -> list:
        return [record for record in self.records if record.needs_attention]

    @property
    def exit_code(self) -> int:
        """1 when something needs the instructor's attention, else 0."""
        return 1 if self.needs_attention else 0


def autograde(
    course,
    assignments=None,
    students=None,
    workers=None,
    cell_timeout=None,
    force=False,
    sandboxed=True,
    max_output_bytes=None,
    on_progress=None,
    limits=None,
    scheduler=None,
    security=None,
) -> AutogradeSummary:
    """Grade submissions in parallel and record the grades in nbgrader's gradebook.

    Parameters
    ----------
    course : Course or path
    assignments, students : list of str, optional
        Restrict to these (default: every assignment in ``source/``, every
        student with a submission).
    workers : int, optional
        Parallel kernels (default: the number of cores). 1 grades serially.
    cell_timeout : float, optional
        Seconds per cell (default: the course config's ``Execute.timeout``).
    force : bool
        Grade again even the submissions that did not change.
    sandboxed : bool
        Run kernels in the sandbox (see :mod:`grading.execution.sandbox.bubblewrap`; the default).
        Where it is not available this raises, saying how to install it;
        ``False`` runs student code with the grader's permissions.
    max_output_bytes : int, optional
        Output one notebook may print before its kernel is stopped (default:
        ``limits``', else ``c.Nbg.max_output_bytes`` of the course config).
    on_progress : callable, optional
        Called as ``on_progress(done, total, label)`` each time notebooks are
        recorded (``label`` names the last one, e.g. ``alice/ps1``).
    limits : Limits, optional
        Memory, process, CPU and file-size limits of the sandbox (default:
        the course config's ``c.Nbg``, see :mod:`grading.core.settings`); its
        ``cell_timeout`` is replaced by the argument above.
    scheduler : str, optional
        Address of a Dask scheduler to execute the notebooks on (default: the
        course config's ``c.Nbg.scheduler``; ``"local"`` or none: the local
        pool). See :mod:`grading.execution.runners.dask`.
    security : dict, optional
        TLS files for the scheduler: ``tls_ca_file``, ``tls_cert``, ``tls_key``.

    Returns
    -------
    AutogradeSummary
    """
    start = time.monotonic()
    course = course if isinstance(course, Course) else Course(course)
    dask_cluster = cluster.cluster_settings(course, scheduler, **(security or {}))  # None: the local pool
    sandbox = get_sandbox(sandbox_name(sandboxed))
    if sandbox.confined and dask_cluster is None:  # on a cluster, each worker's sandbox is checked instead
        available, why = sandbox.available()
        if not available:
            raise NbgError(f"cannot grade sandboxed: {why}")
        exposed = [p for p in sandbox.readable_paths() if p == course.root or p in course.root.parents]
        if exposed:
            raise NbgError(
                f"the course root {course.root} is inside {exposed[0]}, which the sandbox must let kernels "
                "read (the Python environment): move the course or the environment apart"
            )
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise NbgError(f"workers must be at least 1, got {workers}")
    steps = NbgraderSteps(course)
    if cell_timeout is None:
        cell_timeout = steps.converter.config.Execute.get("timeout", 30)
    limits = limits or Limits(**course.settings.limits())
    limits = dataclasses.replace(limits, cell_timeout=cell_timeout,
                                 max_output_bytes=max_output_bytes or limits.max_output_bytes)

    summary = AutogradeSummary()
    jobs, summary.skipped = select_submissions(course, steps, assignments, students, force)

    recorder = Recorder(course, steps, sandbox)
    preparer = Preparer(course, steps, limits, sandbox.name, recorder)
    total = sum(len(job.notebook_ids) for job in jobs)
    done = 0

    def advance(steps_done, label=""):
        nonlocal done
        done += steps_done
        if on_progress is not None:
            on_progress(done, total, label)

    with autograde_lock(course), tempfile.TemporaryDirectory(prefix="nbg-") as scratch_root:
        state.clean_stale_folders(course)  # under the lock: no other run owns them
        if sandbox.confined and jobs:
            preparer.matplotlib_cache = build_matplotlib_cache(Path(scratch_root) / "matplotlib")
        # A Dask cluster instead of the local pool (checks every worker first).
        runner = TaskRunner(workers, cluster.connect(dask_cluster, sandbox=sandbox.name) if dask_cluster else None)
        try:
            if jobs:
                preparer.secret = course_secret(course)
                preparer.budgets = recorder.budgets = Budgets(course, limits, sandbox.name)
            # The honest runs go first into the pool; a submission is prepared and queued as soon as
            # its notebooks' honest times are known (its budget needs them), so one notebook's
            # submissions run while another's honest runs still do.
            timing = _submit_honest_runs(preparer.budgets, jobs, preparer, runner, Path(scratch_root)) if jobs else {}
            if timing:
                advance(0, f"timing the honest runs of {len(timing)} notebook(s) first")
            queued = set()  # ids of the jobs prepared and queued

            def queue_ready():
                for job in [j for j in jobs if id(j) not in queued
                            and not any((j.assignment, n) in timing for n in j.notebook_ids)]:
                    queued.add(id(job))
                    try:
                        for notebook_id, task in preparer.prepare(job, Path(scratch_root)):
                            if task is not None:
                                runner.submit((job, notebook_id), task)
                    except Exception as error:  # one broken submission never stops the others
                        summary.records.extend(recorder.fail_job(job, f"the grader could not prepare it: {describe_error(error)}"))
                    if job.is_complete() and not job.failed:  # nothing to run (e.g. every notebook missing)
                        summary.records.extend(recorder.finish_safely(job))
                        advance(len(job.notebook_ids))

            queue_ready()
            while True:
                for key, result in runner.results():
                    if key[0] == HONEST:
                        if _store_honest_run(preparer.budgets, timing, key, result):
                            queue_ready()
                        continue
                    job, notebook_id = key
                    if job.failed:
                        continue
                    job.results[notebook_id] = result
                    advance(1, f"{job.student}/{notebook_id}")
                    if job.is_complete():
                        summary.records.extend(recorder.finish_safely(job))
                if runner.has_work():  # queued after an honest run that was run again alone at the end
                    continue
                if len(queued) == len(jobs):
                    break
                timing.clear()  # cannot happen (every honest run yields a result); never leave one ungraded
                queue_ready()
            if jobs:  # a changed due date or extension also reaches the unchanged submissions
                apply_late_policy(course, assignments={job.assignment for job in jobs})
        finally:
            runner.shutdown()
    summary.seconds = time.monotonic() - start
    return summary


HONEST = "honest"  # the first item of an honest run's key in the runner


def _submit_honest_runs(budgets, jobs, preparer, runner, scratch_root) -> dict:
    """Queue the honest runs of the notebooks not timed yet for these limits, ahead of any submission.

    Returns {(assignment, notebook): {"kinds": set of the kinds queued, "results": {}}}: the notebooks
    whose submissions wait for their honest times."""
    pairs = {(job.assignment, notebook_id) for job in jobs for notebook_id in job.notebook_ids}
    timing = {}
    for assignment, notebook_id in budgets.missing(pairs):
        try:
            tasks = budgets.measuring_tasks(assignment, notebook_id, scratch_root, preparer.base_task(assignment))
        except Exception as error:  # no budget then: the notebook limit alone
            budgets.failed[(assignment, notebook_id)] = describe_error(error)
            continue
        timing[(assignment, notebook_id)] = {"kinds": set(tasks), "results": {}}
        for kind, task in tasks.items():
            runner.submit((HONEST, assignment, notebook_id, kind), task)
    return timing


def _store_honest_run(budgets, timing, key, result) -> bool:
    """Keep one honest run's result; True when it was its notebook's last (its budget is known now)."""
    _, assignment, notebook_id, kind = key
    waiting = timing.get((assignment, notebook_id))
    if waiting is None:
        return False
    waiting["results"][kind] = result
    if set(waiting["results"]) != waiting["kinds"]:
        return False
    budgets.store(assignment, notebook_id, waiting["results"])
    del timing[(assignment, notebook_id)]
    return True
