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
(:mod:`grading.autograde.scan`); after nbgrader has scored a notebook, the test cells
the scan distrusts and test cells the student deleted are set to 0 here.
"""

from __future__ import annotations

import concurrent.futures
import copy
import dataclasses
import datetime as dt
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import nbformat

from grading.execution.runners import dask as cluster
from grading.core.course import Course
from grading.execution.kernel import (
    STATUS_ERROR, STATUS_KERNEL_DIED, STATUS_OK, STATUS_TIMEOUT, ExecutionResult, clean_text, execute_task,
)
from grading.execution.judge_runtime import die_with_parent
from grading.core.lock import autograde_lock
from grading.autograde.nbgrader_steps import NbgraderSteps, read_notebook
from grading.commands._progress import ProgressBar
from grading.execution.sandbox.bubblewrap import Limits, build_matplotlib_cache, readable_paths, sandbox_available
from grading.autograde.scan import ScanResult, scan_notebook
from grading.autograde.checks import (
    deleted_cells, edited_tests, notebook_problem, shadowing_files, symlinked_folder,
)

STATUS_INVALID = "invalid_notebook"
STATUS_MISSING = "missing"
STATUS_FLAGGED = "flagged"  # the answer scan distrusts some tests, or test cells were deleted
STATUS_BLOCKED = "blocked"  # the sandbox or a limit stopped something (see execute.incidents)
STATUSES = (STATUS_OK, STATUS_KERNEL_DIED, STATUS_TIMEOUT, STATUS_INVALID, STATUS_MISSING, STATUS_ERROR,
            STATUS_FLAGGED, STATUS_BLOCKED, cluster.STATUS_UNGRADED)
STATE_DIRNAME = ".nbg_state"
JUDGE_FILES_BYTES = 50 * 2**20
MAX_SUBMISSION_BYTES = 200 * 2**20  # a submission's folder, copied once per notebook
GRADER_RETRIES = 1  # a notebook the grader failed on (not the student) is run once more


@dataclasses.dataclass
class GradingRecord:
    """How one submitted notebook was graded (one line of ``grading_log.jsonl``)."""

    student: str
    assignment: str
    notebook: str
    status: str
    reason: str = ""
    seconds: float = 0.0
    sandboxed: bool = False
    score: float | None = None
    max_score: float | None = None
    late: bool = False
    graded_at: str = ""
    graded_alone: bool = False  # it failed while other notebooks ran, and was graded again alone

    @property
    def needs_attention(self) -> bool:
        return self.status != STATUS_OK

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["needs_attention"] = self.needs_attention
        return json.dumps(data, sort_keys=True)


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

    def format_table(self) -> str:
        """A plain-text table: one row per graded notebook, then totals."""
        header = ("student", "assignment", "notebook", "score", "status", "seconds")
        rows = [
            (
                r.student, r.assignment, r.notebook,
                "-" if r.score is None else f"{r.score:g}/{r.max_score:g}",
                r.status + (" (late)" if r.late else ""), f"{r.seconds:.1f}",
            )
            for r in self.records
        ]
        widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in [header, *rows]]
        lines.append(
            f"{len(self.records)} notebook(s) graded, {len(self.skipped)} submission(s) unchanged "
            f"and skipped, {len(self.needs_attention)} need attention, {self.seconds:.1f} s"
        )
        for record in self.needs_attention:
            lines.append(f"  ATTENTION {record.student}/{record.assignment}/{record.notebook}: "
                         f"{record.status}: {record.reason}")
        for record in self.records:
            if record.graded_alone and not record.needs_attention:
                lines.append(f"  GRADED AGAIN ALONE {record.student}/{record.assignment}/{record.notebook}: "
                             f"{record.reason}")
        return "\n".join(lines)


def _submission_hash(submitted_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in submitted_dir.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(str(path.relative_to(submitted_dir)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _state_path(course: Course, student: str, assignment: str) -> Path:
    return course.root / STATE_DIRNAME / "autograde" / assignment / f"{student}.json"


def _write_atomic(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8", errors="replace")  # text from submissions may hold lone surrogates
    os.replace(tmp, path)


def _is_up_to_date(course, student, assignment, content_hash) -> bool:
    state = _state_path(course, student, assignment)
    if not state.exists() or not course.autograded_dir(student, assignment).is_dir():
        return False
    try:
        return json.loads(state.read_text()).get("hash") == content_hash
    except ValueError:
        return False


def _swap_in(staging: Path, final: Path):
    """Replace ``final`` by ``staging`` (two renames; a crash in between leaves no
    folder, which the next run regrades)."""
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    if old.exists():
        shutil.rmtree(old)


def _set_read_only(folder: Path, permissions: int):
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(permissions)


def _select(course, assignments, students):
    """(student, assignment) pairs to consider, validating the selection."""
    known = course.source_assignments()
    if assignments is None:
        assignments = known
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise ValueError(
            f"unknown assignment(s) {unknown}: the course's source/ folder has {known}"
        )
    pairs = []
    for assignment in assignments:
        submitted = course.submitted_students(assignment)
        chosen = submitted if students is None else [s for s in students if s in submitted]
        pairs.extend((student, assignment) for student in chosen)
    missing = sorted(set(students or []) - {student for student, _ in pairs})
    if missing:
        raise ValueError(f"no submission in submitted/ from {missing} for {list(assignments)}: check the ids")
    return pairs


def autograde(
    course,
    assignments=None,
    students=None,
    workers=None,
    cell_timeout=None,
    force=False,
    sandboxed=True,
    max_output_bytes=Limits.max_output_bytes,
    progress=False,
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
    max_output_bytes : int
        Output one notebook may print before its kernel is stopped.
    progress : bool
        Draw a progress bar on stderr (only if stderr is a terminal).
    limits : Limits, optional
        Memory, process, CPU and file-size limits of the sandbox (default
        :class:`Limits`'s); its ``cell_timeout`` and ``max_output_bytes``
        are replaced by the arguments above.
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
    if sandboxed and dask_cluster is None:  # on a cluster, each worker's sandbox is checked instead
        available, why = sandbox_available()
        if not available:
            raise ValueError(f"cannot grade sandboxed: {why}")
        exposed = [p for p in readable_paths() if p == course.root or p in course.root.parents]
        if exposed:
            raise ValueError(
                f"the course root {course.root} is inside {exposed[0]}, which the sandbox must let kernels "
                "read (the Python environment): move the course or the environment apart"
            )
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    steps = NbgraderSteps(course)
    if cell_timeout is None:
        cell_timeout = steps.converter.config.Execute.get("timeout", 30)
    limits = dataclasses.replace(limits or Limits(), cell_timeout=cell_timeout, max_output_bytes=max_output_bytes)

    summary = AutogradeSummary()
    jobs = []
    for student, assignment in _select(course, assignments, students):
        notebook_ids = steps.known_notebooks(assignment)
        if not notebook_ids:
            raise ValueError(f"assignment {assignment!r} is not in the gradebook: run `nbg release {assignment}` first")
        submitted = course.submitted_dir(student, assignment)
        content_hash = _submission_hash(submitted)
        if not force and _is_up_to_date(course, student, assignment, content_hash):
            summary.skipped.append((student, assignment))
            continue
        jobs.append(_SubmissionJob(student, assignment, submitted, content_hash, notebook_ids))

    grader = _Grader(course, steps, limits, sandboxed)
    total = sum(len(job.notebook_ids) for job in jobs)
    bar = ProgressBar(total, enabled=progress)
    with autograde_lock(course), tempfile.TemporaryDirectory(prefix="nbg-") as scratch_root:
        clean_stale_folders(course)  # under the lock: no other run owns them
        if sandboxed and jobs:
            grader.matplotlib_cache = build_matplotlib_cache(Path(scratch_root) / "matplotlib")
        # A Dask cluster instead of the local pool (checks every worker first).
        runner = _TaskRunner(workers, cluster.connect(dask_cluster, sandboxed=sandboxed) if dask_cluster else None)
        try:
            for job in jobs:
                try:
                    for notebook_id, task in grader.prepare(job, Path(scratch_root)):
                        if task is not None:
                            runner.submit((job, notebook_id), task)
                except Exception as error:  # one broken submission never stops the others
                    summary.records.extend(grader.fail_job(job, f"the grader could not prepare it: {_describe(error)}"))
            for job in [j for j in jobs if j.is_complete() and not j.failed]:
                summary.records.extend(grader.finish_safely(job))
                bar.advance(len(job.notebook_ids))
            for (job, notebook_id), result in runner.results():
                if job.failed:
                    continue
                job.results[notebook_id] = result
                bar.advance(1, f"{job.student}/{notebook_id}")
                if job.is_complete():
                    summary.records.extend(grader.finish_safely(job))
            if jobs:  # a changed due date or extension also reaches the unchanged submissions
                from grading.grades.late import apply_late_policy

                apply_late_policy(course, assignments={job.assignment for job in jobs})
        finally:
            runner.shutdown()
            bar.close()
    summary.seconds = time.monotonic() - start
    return summary


def _scan(notebook, source_cells) -> ScanResult:
    """The answer scan; an answer too deeply nested to parse is itself a finding to review."""
    try:
        return scan_notebook(notebook, source_cells)
    except (RecursionError, MemoryError, ValueError) as error:
        result = ScanResult()
        result.flagged_tests = {"(all)": f"the answers could not be scanned ({type(error).__name__})"}
        return result


def _describe(error: BaseException) -> str:
    return clean_text(f"{type(error).__name__}: {error}")[:2000]


class _TaskRunner:
    """Runs execution tasks on a process pool (or inline with one worker).

    A task that fails because of the grader (a lost worker, an executor error)
    is run once more (:data:`GRADER_RETRIES`); a pool that broke because a
    worker died is replaced, and the tasks it held are submitted again.

    A notebook that timed out or whose kernel died while other notebooks ran on
    the same machine is not trusted to have failed on its own: it is run again,
    alone, once everything else is done, and that run's result is the one kept
    (its ``graded_alone`` says so).
    """

    RERUN_ALONE = (STATUS_TIMEOUT, STATUS_KERNEL_DIED)

    def __init__(self, workers, executor=None, function=execute_task):
        self.workers, self.function = workers, function
        # A cluster's executor reschedules lost tasks itself; a local pool is replaced when it breaks.
        self.pool = executor if executor is not None else make_pool(workers) if workers > 1 else None
        # Dask retries a task whose worker died (distributed.scheduler.allowed-failures); the
        # local pool gets one retry here.
        self.retries = 0 if executor is not None else GRADER_RETRIES
        self.pending = {}  # future -> key
        self.tasks = {}  # key -> task
        self.attempts = {}
        self.inline = []  # keys run inline, one after the other
        self.ran = {}  # key -> (host, started, ended) of its last run
        self.held = []  # (key, result): to run again alone at the end

    def submit(self, key, task):
        self.tasks[key] = task
        self.attempts.setdefault(key, 0)
        if self.pool is None:
            self.inline.append(key)
        else:
            self._submit(key)

    def _submit(self, key):
        try:
            self.pending[self.pool.submit(self.function, self.tasks[key])] = key
        except BrokenProcessPool:  # a worker died meanwhile: a new pool takes everything again
            self._replace_pool()
            self.pending[self.pool.submit(self.function, self.tasks[key])] = key

    def _replace_pool(self):
        keys = list(self.pending.values())
        self.pending.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = make_pool(self.workers)
        for key in keys:
            self.pending[self.pool.submit(self.function, self.tasks[key])] = key

    def _run_inline(self, key):
        try:
            return self.function(self.tasks[key])
        except Exception as error:
            return ExecutionResult("", STATUS_ERROR, f"the grader failed: {_describe(error)}", 0.0)

    def _outcome(self, future):
        """A finished future's result; (result, whether the pool broke)."""
        try:
            return future.result(), False
        except BrokenProcessPool as error:
            return ExecutionResult("", STATUS_ERROR, f"its grading worker was lost ({error})", 0.0), True
        except Exception as error:
            return ExecutionResult("", STATUS_ERROR, f"the grader failed: {_describe(error)}", 0.0), False

    def _retry(self, key, result) -> bool:
        """Whether to run ``key`` again: the grader failed on it, and it has retries left."""
        if result.status == STATUS_ERROR and self.attempts[key] < self.retries:
            self.attempts[key] += 1
            return True
        return False

    def results(self):
        """Yield (key, ExecutionResult) as tasks finish, retries and runs alone included."""
        while self.inline:  # one at a time: nothing ran beside them
            key = self.inline.pop(0)
            result = self._run_inline(key)
            if self._retry(key, result):
                self.inline.append(key)
                continue
            yield key, result
        while self.pending:
            done, _ = concurrent.futures.wait(self.pending, return_when=concurrent.futures.FIRST_COMPLETED)
            broken, retry = False, []
            for future in done:
                key = self.pending.pop(future)
                result, lost = self._outcome(future)
                broken = broken or lost
                if self._retry(key, result):
                    retry.append(key)
                    continue
                if result.ended:
                    self.ran[key] = (result.host, result.started, result.ended)
                if result.status in self.RERUN_ALONE:
                    self.held.append((key, result))
                    continue
                yield key, result
            if broken:  # every task still in the dead pool must run again
                self._replace_pool()
            for key in retry:
                self._submit(key)
        yield from self._run_held_alone()

    def _beside(self, key) -> int:
        """How many other notebooks ran on the same machine while ``key`` last ran."""
        host, started, ended = self.ran.get(key, ("", 0.0, 0.0))
        return sum(1 for other, (other_host, other_start, other_end) in self.ran.items()
                   if other != key and other_host == host and other_start < ended and started < other_end)

    def _run_held_alone(self):
        held, self.held = self.held, []
        for key, first in held:
            beside = self._beside(key)
            if not beside:
                yield key, first
                continue
            future = self.pool.submit(self.function, self.tasks[key])  # nothing else is running now
            concurrent.futures.wait([future])
            result, lost = self._outcome(future)
            if lost:
                self._replace_pool()
            what = "timed out" if first.status == STATUS_TIMEOUT else "its kernel died"
            # Over the notebook's whole run, not at once: -j 2 runs one other at a time.
            others = f"{beside} other notebook{'s' if beside > 1 else ''} overlapped its run"
            if result.status == STATUS_ERROR:  # the grader failed on the run alone: never a grade
                result.reason = (f"{what} while other notebooks ran on the same machine ({others}), and "
                                 f"the grader could not run it again alone ({result.reason})")
            else:
                outcome = ("the same happened" if result.status == first.status
                           else f"that run's status: {result.status}")
                result.graded_alone = (f"{what} while other notebooks ran on the same machine ({others}); "
                                       f"graded again alone at the end of the run ({outcome}), and that "
                                       "result was kept")
            yield key, result

    def shutdown(self):
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def clean_stale_folders(course):
    """Remove staging folders left by a grader that was killed (their process is gone)."""
    root = course.root / "autograded"
    for staging in root.glob("*/*/.*.staging-*") if root.is_dir() else []:
        pid = staging.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(staging, ignore_errors=True)
    for old in root.glob("*/*/.*.old-*") if root.is_dir() else []:
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    scratch_parent = Path(tempfile.gettempdir())
    for scratch in scratch_parent.glob("nbg-*"):  # scratch roots of killed graders (owner pid unknown)
        try:
            if scratch.is_dir() and time.time() - scratch.stat().st_mtime > 24 * 3600:
                shutil.rmtree(scratch, ignore_errors=True)
        except OSError:
            pass


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make_pool(workers):
    """A process pool for notebook execution.

    On Linux the workers are forked: importing nbgrader (through jupyter_server)
    takes seconds per process, and a fork inherits it. The grading process holds
    no threads or open gradebook sessions when the pool starts, and workers never
    touch the gradebook, so forking is safe here.
    """
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux" else "spawn"
    context = multiprocessing.get_context(method)
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                                  initializer=die_with_parent, initargs=(os.getpid(),))


@dataclasses.dataclass(eq=False)  # hashed by identity: a key of the task runner
class _SubmissionJob:
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
    waiting: set = dataclasses.field(default_factory=set)
    failed: bool = False  # the grader failed on it as a whole: nothing recorded, graded next run
    grader_failed: bool = False  # the grader failed on one of its notebooks: graded again next run

    def is_complete(self) -> bool:
        return self.waiting.issubset(self.results)


class _Grader:
    """The grading process's half: prepare tasks, then post-process and commit."""

    def __init__(self, course, steps, limits, sandboxed):
        self.course, self.steps, self.limits, self.sandboxed = course, steps, limits, sandboxed
        self.permissions = int(str(steps.converter.permissions), 8)
        self.matplotlib_cache = None
        self._sources = {}
        self._data_files = {}

    def prepare(self, job: _SubmissionJob, scratch_root: Path):
        """Yield (notebook id, execution task or None) for one submission."""
        final = self.course.autograded_dir(job.student, job.assignment)
        job.staging = final.with_name(f".{final.name}.staging-{os.getpid()}")
        if job.staging.exists():
            shutil.rmtree(job.staging)
        size = sum(p.stat().st_size for p in job.submitted.rglob("*") if p.is_file() and not p.is_symlink())
        if size > MAX_SUBMISSION_BYTES:
            raise ValueError(f"the submission holds {size} bytes of files, more than the "
                             f"{MAX_SUBMISSION_BYTES} the grader copies for each notebook")
        job.info = self.steps.init_submission(job.student, job.assignment, job.submitted, job.staging)
        linked = symlinked_folder(self.course, job.student, job.assignment)
        links = sorted(str(p.relative_to(job.submitted)) for p in job.submitted.rglob("*") if p.is_symlink())
        for notebook_id in job.notebook_ids:
            path = job.submitted / f"{notebook_id}.ipynb"
            problem = linked or notebook_problem(path, job.submitted)
            if problem:
                self.steps.zero_notebook(job.student, job.assignment, notebook_id)
                status = STATUS_MISSING if not (path.exists() or path.is_symlink()) and not linked else STATUS_INVALID
                job.records[notebook_id] = self._record(job, notebook_id, status, problem)
                yield notebook_id, None
                continue
            try:
                raw = read_notebook(path)
                not_text = [i for i, c in enumerate(raw.get("cells", [])) if not isinstance(c.get("source", ""), (str, list))
                            or isinstance(c.get("source"), list) and not all(isinstance(x, str) for x in c["source"])]
                if not_text:
                    raise ValueError(f"cell {not_text[0]}'s source is not text: not a readable notebook")
                notebook = self.steps.sanitize(nbformat.from_dict(copy.deepcopy(raw)), job.student,
                                               job.assignment, notebook_id)
            except Exception as error:
                self.steps.zero_notebook(job.student, job.assignment, notebook_id)
                job.records[notebook_id] = self._record(job, notebook_id, STATUS_INVALID, str(error))
                yield notebook_id, None
                continue
            source_cells = self._source_cells(job.assignment, notebook_id)
            # Short and free of the student's id: the kernel's sockets live in it (107-byte limit).
            scratch = Path(tempfile.mkdtemp(prefix="s", dir=scratch_root))
            shutil.copytree(job.staging, scratch, dirs_exist_ok=True)
            removed = shadowing_files(scratch)
            for name in removed:  # e.g. a numpy.py that would replace numpy for the tests
                target = scratch / name
                shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
            ignored = [f"ignored the symbolic link(s) {', '.join(links)} in the submission"] if links else []
            if removed:
                ignored.append(f"removed {', '.join(removed)} from the submission: a module name the "
                               "tests import, or kernel settings that would run before the notebook")
            for cell in notebook.cells:  # hostile Unicode (lone surrogates) cannot travel to a kernel
                if isinstance(cell.get("source"), str):
                    cell.source = clean_text(cell.source)
            job.notes[notebook_id] = (_scan(notebook, source_cells), ignored,
                                      deleted_cells(notebook, source_cells), edited_tests(raw, source_cells))
            job.waiting.add(notebook_id)
            yield notebook_id, {
                "notebook_json": nbformat.writes(notebook),
                "scratch_dir": str(scratch),
                "config": self.steps.converter.config,
                "limits": self.limits,
                "sandboxed": self.sandboxed,
                "matplotlib_cache": self.matplotlib_cache,
                "judge_files": self._assignment_files(job.assignment),
            }

    def _assignment_files(self, assignment) -> dict:
        """The assignment's own data files (from source/, never a submission), for the judge."""
        if assignment not in self._data_files:
            folder = self.course.root / "source" / assignment
            files, total = {}, 0
            for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
                if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb" \
                        and ".ipynb_checkpoints" not in path.parts:
                    total += path.stat().st_size
                    if total > JUDGE_FILES_BYTES:
                        raise ValueError(f"source/{assignment} holds more than {JUDGE_FILES_BYTES} bytes of data "
                                         "files; the judge gets a copy of them for every notebook")
                    files[str(path.relative_to(folder))] = path.read_bytes()
            self._data_files[assignment] = files
        return self._data_files[assignment]

    def _source_cells(self, assignment, notebook_id) -> list:
        """The gradebook's source cells of a notebook (what the scan trusts), cached."""
        key = (assignment, notebook_id)
        if key not in self._sources:
            with self.course.gradebook() as gradebook:
                notebook = gradebook.find_notebook(notebook_id, assignment)
                graded = {cell.name for cell in notebook.grade_cells}
                solution = {cell.name for cell in notebook.solution_cells}
                self._sources[key] = [
                    {"name": cell.name, "source": cell.source or "", "locked": bool(cell.locked),
                     "grade": cell.name in graded, "solution": cell.name in solution,
                     "cell_type": cell.cell_type}
                    for cell in notebook.source_cells
                ]
        return self._sources[key]

    def fail_job(self, job: _SubmissionJob, reason: str) -> list:
        """Records for a submission the grader failed on as a whole: ungraded, graded next run."""
        job.failed = True
        if job.staging is not None:
            shutil.rmtree(job.staging, ignore_errors=True)
        records = [GradingRecord(student=job.student, assignment=job.assignment, notebook=notebook_id,
                                 status=STATUS_ERROR, reason=f"{reason}; not graded, the next run tries again",
                                 sandboxed=self.sandboxed, graded_at=_now())
                   for notebook_id in job.notebook_ids]
        self._log(records)
        return records

    def finish_safely(self, job: _SubmissionJob) -> list:
        """:meth:`finish`, with any failure of the grader turned into that submission's error records."""
        try:
            return self.finish(job)
        except Exception as error:
            return self.fail_job(job, f"the grader could not record it: {_describe(error)}")

    def finish(self, job: _SubmissionJob) -> list:
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
            if result.status == STATUS_ERROR:
                # Never a grade: not in the gradebook, the log or the state; the next run grades it.
                job.grader_failed = True
                records.append(GradingRecord(
                    student=job.student, assignment=job.assignment, notebook=notebook_id,
                    status=cluster.STATUS_UNGRADED, sandboxed=self.sandboxed, graded_at=_now(),
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
                records.append(self._record(job, notebook_id, STATUS_ERROR,
                                            f"nbgrader could not score it ({_describe(error)}); it counts 0 "
                                            "until the next run grades it again", result.seconds))
                continue
            _write_atomic(job.staging / f"{notebook_id}.ipynb", nbformat.writes(notebook))
            status, reason = self._apply_notes(job, notebook_id, result)
            record = self._record(job, notebook_id, status, reason, result.seconds)
            record.graded_alone = bool(result.graded_alone)
            records.append(record)
        _set_read_only(job.staging, self.permissions)
        _swap_in(job.staging, self.course.autograded_dir(job.student, job.assignment))
        state_path = _state_path(self.course, job.student, job.assignment)
        if job.grader_failed:
            state_path.unlink(missing_ok=True)  # graded again by the next run
        else:
            state = {"hash": job.content_hash, "graded_at": _now(),
                     "statuses": {r.notebook: r.status for r in records}}
            _write_atomic(state_path, json.dumps(state, indent=1))
        self._log([r for r in records if r.status != cluster.STATUS_UNGRADED])
        return records

    def _log(self, records):
        with open(self.course.grading_log_path, "a") as log:
            for record in records:
                log.write(record.to_json() + "\n")

    def _apply_notes(self, job, notebook_id, result):
        """Zero the distrusted and deleted test cells; the record's status and reason."""
        scan, ignored, deleted, edited = job.notes.get(notebook_id, (ScanResult(), [], {}, []))
        zero = {grade_id: "deleted" for grade_id in deleted.get("tests", [])}  # the scan only flags
        if zero:
            with self.course.gradebook() as gradebook:
                submission = gradebook.find_submission_notebook(notebook_id, job.assignment, job.student)
                for grade in submission.grades:
                    if grade.name in zero:
                        grade.auto_score = 0
                        grade.needs_manual_grade = False
                gradebook.db.commit()
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
        reasons += ignored + result.incidents
        status = result.status
        if status == STATUS_OK and (scan.flagged or deleted or edited):
            status = STATUS_FLAGGED
        elif status == STATUS_OK and (ignored or result.incidents):
            status = STATUS_BLOCKED
        return status, "; ".join(reasons)

    def _record(self, job, notebook_id, status, reason, seconds=0.0):
        score = max_score = None
        try:
            score, max_score, _ = self.steps.notebook_score(job.student, job.assignment, notebook_id)
        except Exception:
            pass  # e.g. the submission row could not be created; the status says why
        return GradingRecord(
            student=job.student, assignment=job.assignment, notebook=notebook_id, status=status,
            reason=reason, seconds=round(seconds, 3), sandboxed=self.sandboxed, score=score,
            max_score=max_score, late=job.info.get("seconds_late", 0) > 0, graded_at=_now(),
        )


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


# -- command line -------------------------------------------------------------------


def add_arguments(parser):
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all in source/)")
    parser.add_argument("--student", action="append", dest="students", metavar="ID",
                        help="grade only this student (repeatable)")
    parser.add_argument("-j", "--workers", type=int, default=None,
                        help="parallel kernels (default: the number of cores)")
    parser.add_argument("--timeout", type=float, default=None, dest="cell_timeout",
                        help="seconds per cell (default: Execute.timeout of the config, 30)")
    parser.add_argument("--force", action="store_true", help="grade again submissions that did not change")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run student code WITHOUT the bubblewrap sandbox, with your permissions "
                             "(only for trusted submissions; the report shows a banner)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the notebooks on this Dask scheduler (tcp://host:8786, tls://host:8786), "
                             "one at a time per worker, -j unused; default: c.Nbg.scheduler of the course "
                             "config; 'local': the local pool")
    parser.add_argument("--tls-ca-file", metavar="PEM", help="TLS: CA certificate of the Dask cluster")
    parser.add_argument("--tls-cert", metavar="PEM", help="TLS: this grader's certificate")
    parser.add_argument("--tls-key", metavar="PEM", help="TLS: this grader's private key")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--verbose", action="store_true", help="show nbgrader's log messages")


def run(args) -> int:
    import logging

    if not args.verbose:
        # nbgrader warns for every restored cell of every submission; the summary
        # table says what matters.
        logging.getLogger("traitlets").setLevel(logging.ERROR)
    course = Course(args.course, db_url=args.db)
    summary = autograde(
        course, assignments=args.assignments or None, students=args.students,
        workers=args.workers, cell_timeout=args.cell_timeout, force=args.force,
        sandboxed=not args.unsafe_no_sandbox, progress=not args.quiet, scheduler=args.scheduler,
        security={"tls_ca_file": args.tls_ca_file, "tls_cert": args.tls_cert, "tls_key": args.tls_key},
    )
    print(summary.format_table())
    return summary.exit_code
