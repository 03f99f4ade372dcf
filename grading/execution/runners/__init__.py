"""Where notebooks are executed: a local process pool, inline, or a Dask cluster.

:class:`TaskRunner` runs execution tasks (:func:`grading.execution.kernel.execute_task`)
on a ``concurrent.futures.Executor``: the local pool it makes itself, or one given to
it (:class:`grading.execution.runners.dask.DaskExecutor`). It owns retries, pool
replacement and grading again alone; it never touches the gradebook.
"""

from __future__ import annotations

import concurrent.futures
from concurrent.futures.process import BrokenProcessPool

from grading.core.records import Status
from grading.core.text import describe_error
from grading.execution.judge_client import close_judge_servers
from grading.execution.kernel import ExecutionResult, execute_task
from grading.execution.process import make_pool, own_memory_limit_kept

GRADER_RETRIES = 1  # a notebook the grader failed on (not the student) is run once more


class TaskRunner:
    """Runs execution tasks on a process pool (or inline with one worker).

    A task that fails because of the grader (a lost worker, an executor error)
    is run once more (:data:`GRADER_RETRIES`); a pool that broke because a
    worker died is replaced, and the tasks it held are submitted again.

    A notebook that timed out or whose kernel died while other notebooks ran on
    the same machine is not trusted to have failed on its own: it is run again,
    alone, once everything else is done, and that run's result is the one kept
    (its ``graded_alone`` says so).
    """

    RERUN_ALONE = (Status.TIMEOUT, Status.KERNEL_DIED)

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
            with own_memory_limit_kept():
                return self.function(self.tasks[key])
        except Exception as error:
            return ExecutionResult("", Status.ERROR, f"the grader failed: {describe_error(error)}", 0.0)

    def _outcome(self, future):
        """A finished future's result; (result, whether the pool broke)."""
        try:
            return future.result(), False
        except BrokenProcessPool as error:
            return ExecutionResult("", Status.ERROR, f"its grading worker was lost ({error})", 0.0), True
        except Exception as error:
            return ExecutionResult("", Status.ERROR, f"the grader failed: {describe_error(error)}", 0.0), False

    def _retry(self, key, result) -> bool:
        """Whether to run ``key`` again: the grader failed on it, and it has retries left."""
        if result.status == Status.ERROR and self.attempts[key] < self.retries:
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

    def has_work(self) -> bool:
        """Whether tasks were submitted that :meth:`results` has not yielded yet."""
        return bool(self.pending or self.inline or self.held)

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
            what = "timed out" if first.status == Status.TIMEOUT else "its kernel died"
            # Over the notebook's whole run, not at once: -j 2 runs one other at a time.
            others = f"{beside} other notebook{'s' if beside > 1 else ''} overlapped its run"
            if result.status == Status.ERROR:  # the grader failed on the run alone: never a grade
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
        elif self.function is execute_task:
            # Inline, the judge server lives in this process: a library caller (a test run, a
            # service) would otherwise keep one per run until it exits.
            close_judge_servers()



