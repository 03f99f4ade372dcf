"""Execute one sanitized notebook in its own kernel (runs in a worker process).

The executor is nbgrader's own ``Execute`` preprocessor (same timeout,
interrupt and error handling as ``nbgrader autograde``, so scores match),
with four differences that matter when grading hundreds of submissions:

* when the kernel dies, the cells already run keep their outputs; the cell
  that killed it gets an error output saying so (and the exit code or
  signal), and every later code cell an error saying it was not run, so its
  tests score 0 instead of the whole submission being dropped;
* the output a notebook may produce is capped: past the cap the grader kills
  the kernel, so an output flood cannot exhaust the grader's memory;
* a cell that times out is interrupted; a kernel that then does not answer
  within :data:`INTERRUPT_GRACE` seconds (student code that ignores SIGINT)
  is killed, so no notebook runs unbounded (an interrupt reaches only the
  notebook's code: :func:`kernel_runtime.guard_interrupts`);
* the kernel comes from a sandbox backend (:mod:`grading.execution.sandbox`), in a
  scratch directory, and nothing here touches the gradebook.

:mod:`grading.execution.observed` says what the grader itself observed (the
kernel's memory and processes against the limits); a timed-out cell is one the
grader timed out, never one whose output says so. The notebook runs within a
time budget (the assignment's honest time, :mod:`grading.autograde.budget`) and
each code cell's seconds are kept for the report.
"""

from __future__ import annotations

import copy
import json
import signal
import socket
import subprocess
import time

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbgrader.preprocessors import Execute
from traitlets.config import Config

from grading.core.cells import is_test_cell
from grading.core.records import Status
from grading.core.text import clean_text
from grading.execution.bridge import install_interrupt_guard
from grading.execution.channels import bounded_client_class, max_message_bytes, watch_channels
from grading.execution.diagnosis_runtime import wording
from grading.execution.evidence.behaviour import cell_metadata
from grading.execution.frames import CallbackStuck, JudgeProtocolError
from grading.execution.judge_client import CallFailed, JudgeProcess, KernelBridge
from grading.execution.limits import Limits
from grading.execution.observed import KernelWatch, cell_label, reported_errors, run_delays
from grading.execution.process import environment_variable, limit_own_memory
from grading.execution.results import ExecutionResult
from grading.execution.sandbox import get_sandbox

TIMEOUT_ENAME = "CellTimeoutError"  # nbgrader's Execute.error_on_timeout
INTERRUPT_GRACE = 10  # seconds a kernel has to answer after a timed-out cell is interrupted


class OutputLimitExceeded(Exception):
    """The notebook produced more output than the grader accepts."""


class GraderFailure(Exception):
    """The grader itself could not judge the notebook (never a grade: it is retried)."""


def _output_size(msg) -> int:
    content = msg.get("content", {})
    if msg.get("msg_type") == "stream":
        return len(content.get("text", ""))
    data = content.get("data")
    if data is not None:
        return sum(len(value) if isinstance(value, str) else len(json.dumps(value)) for value in data.values())
    return len(json.dumps(content, default=str))


def _error_output(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class GradingExecutor(Execute):
    """nbgrader's ``Execute``, cell by cell, surviving kernel death and output floods."""

    def __init__(self, *args, max_output_bytes=20_000_000, judge=None, notebook_timeout=None,
                 max_code_cells=None, time_budget=None, watch=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.time_budget = time_budget or {}  # {"seconds": ..., "why": ...}: the notebook's time budget
        self.watch = watch  # a KernelWatch, or None (no limits enforced: nothing to compare with)
        self.cell_seconds, self.run_seconds, self.unloaded_seconds = [], 0.0, 0.0
        self._grader_timeouts = set()  # ids of the cells the grader timed out (never read from outputs)
        self.max_output_bytes = max_output_bytes
        self.judge = judge  # a JudgeProcess: test cells run there, never in the kernel
        self.notebook_timeout = notebook_timeout
        self.max_code_cells = max_code_cells
        self.bridge = None
        self._output_bytes = 0
        self._output_limit_hit = False
        self._message_error = ""
        self._channel_watch = None  # channels.ChannelWatch of the running kernel

    async def _async_cleanup_kernel(self) -> None:
        if self._channel_watch is not None:  # it ends before nbclient closes the channels (ChannelWatch)
            self._channel_watch.stop()
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)  # nbclient binds its own at class creation

    def output(self, outs, msg, display_id, cell_index):
        if self._output_limit_hit:
            return None
        self._output_bytes += _output_size(msg)
        if self._output_bytes > self.max_output_bytes:
            self._output_limit_hit = True
            self._kill_kernel()
            return None
        return super().output(outs, msg, display_id, cell_index)

    def _kill_kernel(self):
        # Called from nbclient's message loop, which is synchronous here: signal the
        # process directly; the liveness poll then raises DeadKernelError.
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL)

    def _exit_description(self) -> str:
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is None:
            return ""
        for _ in range(20):  # the process may need a moment to be reaped
            code = process.poll()
            if code is not None:
                break
            time.sleep(0.05)
        else:
            return ""
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            hint = " (killed: out of memory or a resource limit?)" if -code == signal.SIGKILL else ""
            return f"killed by {name}{hint}"
        return f"exit code {code}"

    def preprocess(self, nb, resources=None, km=None):
        """Run every cell; return (nb, resources, status, reason, failed_cell)."""
        from nbclient import NotebookClient

        NotebookClient.__init__(self, nb, km)
        # Kill the kernel once the last cell has replied: its state is thrown away,
        # and a graceful shutdown sometimes waits seconds for an idle kernel to exit.
        self.shutdown_kernel = "immediate"
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        status, reason, failed = Status.OK, "", None
        # The kernel's own stdout/stderr (fd 1 and 2, not the notebook's outputs,
        # which travel over ZMQ) are dropped: a flood written straight to the
        # file descriptors must not reach the grader's terminal.
        with self.setup_kernel(cleanup_kc=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            info_msg = self.wait_for_reply(self.kc.kernel_info())
            self.nb.metadata["language_info"] = info_msg["content"]["language_info"]
            install_interrupt_guard(self)  # a late interrupt must not stop the kernel's own machinery
            self._channel_watch = watch_channels(self, self.kc)  # a kernel whose message ZMQ refused is stopped
            if self.judge is not None:
                self.bridge = KernelBridge(self, call_timeout=self.timeout or 30,
                                           max_answer_bytes=self.judge.limits.max_answer_bytes,
                                           max_callbacks=self.judge.limits.max_callbacks)
                try:
                    self.bridge.setup()
                except CallFailed as error:  # the kernel does not run code: nothing can be graded
                    reason = (f"the kernel did not run the grader's set-up code before the first cell ({error})")
                    if self.nb.cells:
                        self.nb.cells[0].outputs = [_error_output("KernelDied", reason)]
                        self._mark_not_executed(0, reason)
                    return self.nb, self.resources, Status.KERNEL_DIED, reason, 0
            if self.judge is not None:  # the judge's start-up is not the notebook's time
                self.judge.wait_ready()
            started, code_cells = time.monotonic(), 0
            self.cell_timeout, delays = self.timeout, self._run_delays()
            try:
                for index, cell in enumerate(self.nb.cells):
                    if cell.cell_type != "code":
                        continue
                    code_cells += 1
                    stop = self._over_budget(started, code_cells)
                    if stop:
                        cell.outputs = [_error_output("NotExecuted", f"not run because {stop}")]
                        self._mark_not_executed(index, stop)
                        return self.nb, self.resources, Status.TIMEOUT, stop, index
                    self.timeout = self._cell_deadline(started)
                    cell_started = time.monotonic()
                    try:
                        ended = self._run_cell(cell, index, resources)
                    finally:
                        self.cell_seconds.append([index, cell_label(cell, index),
                                                  round(time.monotonic() - cell_started, 3)])
                    if ended:
                        return ended
                    if self.watch is not None:
                        self.watch.sample(self._kernel_pid(), cell_label(cell, index),
                                          [o.get("ename", "") for o in cell.get("outputs", [])
                                           if o.get("output_type") == "error"])
                    if self._timed_out(cell) and self.timeout < (self.cell_timeout or float("inf")):
                        reason = f"{self._budget_reason()} (stopped during {cell_label(cell, index)})"
                        self._mark_not_executed(index, reason)
                        return self.nb, self.resources, Status.TIMEOUT, reason, index
                    if status == Status.OK and self._timed_out(cell):
                        status = Status.TIMEOUT
                        reason = f"{cell_label(cell, index)} timed out after {self.timeout} s"
                        failed = index
            finally:
                self.run_seconds = time.monotonic() - started
                self.timeout = self.cell_timeout
                after = self._run_delays()
                waited = sum(after[pid] - delays[pid] for pid in delays if pid in after)
                self.unloaded_seconds = max(0.0, self.run_seconds - waited)
        self.set_widgets_metadata()
        return self.nb, self.resources, status, reason, failed

    def _run_cell(self, cell, index, resources):
        """Run one code cell, a test cell in the judge; the preprocess() result if the notebook ends."""
        if self.judge is not None and is_test_cell(cell):
            return self._judge_cell(cell, index)
        if self.bridge is not None:
            # The kernel may still be serving the judge (consecutive test cells share one
            # serve loop): stop it before the notebook's own code runs again.
            self.bridge.end_cell()
        try:
            self.preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            # Raised after the interrupt when no IOPub output follows (raise_on_iopub_timeout):
            # the kernel may still be stuck; the check below decides.
            self._grader_timeouts.add(id(cell))
            cell.outputs.append(_error_output(TIMEOUT_ENAME, f"no reply from the kernel within {self.timeout} s"))
        except DeadKernelError:
            return self._after_death(cell, index)
        except ValueError as error:
            # A message that fails jupyter_client's checks ("Invalid Signature"),
            # seen under load from kernels flooding their output: stop the kernel
            # and keep the scores of the cells before, like any kernel death.
            if not self._output_limit_hit:
                self._message_error = f"{error} after {self._output_bytes} bytes of output"
                self._kill_kernel()
            return self._after_death(cell, index)
        if self._timed_out(cell) and not self._answers_within(INTERRUPT_GRACE):
            if not self._kernel_alive():  # it died meanwhile (e.g. os._exit under load)
                return self._after_death(cell, index)
            reason = (f"{cell_label(cell, index)} timed out after {self.timeout} s and its "
                      f"kernel did not stop when interrupted, so the grader stopped it")
            self._kill_kernel()
            self._mark_not_executed(index, reason)
            return self.nb, self.resources, Status.KERNEL_DIED, reason, index
        return None

    async def _async_handle_timeout(self, timeout, cell=None):
        if cell is not None:  # the grader's own observation: a cell's output cannot forge it
            self._grader_timeouts.add(id(cell))
        return await super()._async_handle_timeout(timeout, cell)

    def _timed_out(self, cell) -> bool:
        return id(cell) in self._grader_timeouts

    def _run_delays(self) -> dict:
        judge = getattr(getattr(self.judge, "server", None), "process", None)
        return run_delays(self._kernel_pid(), getattr(judge, "pid", None))

    def _kernel_pid(self):
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        return getattr(process, "pid", None)

    def _budget(self):
        """The seconds the whole notebook may run (its budget, within the notebook limit), or None."""
        limits = [x for x in (self.notebook_timeout, self.time_budget.get("seconds")) if x is not None]
        return min(limits) if limits else None

    def _budget_reason(self) -> str:
        budget = self._budget()
        if self.time_budget.get("seconds") is not None and self.time_budget["seconds"] <= budget:
            return (f"the notebook ran longer than its time budget of {budget:g} s in total "
                    f"({self.time_budget.get('why', 'set by the grader')})")
        return f"the notebook ran longer than {budget:g} s in total"

    def _cell_deadline(self, started):
        """The next cell's timeout: the cell timeout, or less when the budget ends sooner."""
        budget = self._budget()
        if budget is None:
            return self.cell_timeout
        left = max(1, int(budget - (time.monotonic() - started) + 0.999))
        return left if not self.cell_timeout or left < self.cell_timeout else self.cell_timeout

    def _over_budget(self, started, code_cells) -> str:
        """Why the notebook must stop before its next code cell, or ''."""
        if self.max_code_cells is not None and code_cells > self.max_code_cells:
            return f"the notebook has more than {self.max_code_cells} code cells"
        budget = self._budget()
        if budget is not None and time.monotonic() - started > budget:
            return self._budget_reason()
        return ""

    def _judge_cell(self, cell, index):
        """Run a test cell in the judge; its outputs are the judge's verdict.

        Returns the ``preprocess`` result when the kernel died meanwhile, else None.
        Raises GraderFailure when the judge itself fails.
        """
        label = cell_label(cell, index)
        try:
            self.judge.wait_ready()  # its start-up (imports) is not the student's time
            self.bridge.start_cell(time.monotonic() + (self.timeout or 30))
            # The cell's calls end by its deadline, or after an interrupt's grace: a judge silent
            # past that is stuck in the test itself.
            verdict = self.judge.run_cell(cell.source, label, self.bridge,
                                          timeout=(self.timeout or 30) + INTERRUPT_GRACE + 5)
        except CallbackStuck as error:  # the student's arguments kept the test's own function busy
            reason = f"{label} timed out: {error}; the notebook was stopped there"
            cell.outputs = [_error_output(TIMEOUT_ENAME, reason)]
            self._mark_not_executed(index, reason)
            return self.nb, self.resources, Status.TIMEOUT, reason, index
        except (JudgeProtocolError, OSError, ValueError) as error:
            raise GraderFailure(f"the judge failed on {label}: {error}") from None
        finally:
            self.bridge.start_cell(None)
        self.code_cells_executed += 1
        cell.execution_count = self.code_cells_executed
        outputs = []
        if verdict.get("stdout"):
            outputs.append(nbformat.v4.new_output("stream", name="stdout", text=clean_text(verdict["stdout"])))
        if not verdict.get("passed"):
            ename, evalue = clean_text(str(verdict.get("ename") or "Error")), clean_text(str(verdict.get("evalue", "")))
            found = verdict.get("diagnosis") if isinstance(verdict.get("diagnosis"), list) else []
            cell.metadata.update(cell_metadata(verdict))  # the mistakes named and the counterexample, for the report
            if found:  # words for the student; the verdict stays a failure
                evalue = f"{evalue}\n\n{clean_text(wording(found))}"
            outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"]))
        cell.outputs = outputs
        if self.bridge.broken and not self._kernel_alive():
            reason = f"{self.bridge.broken} while {label} called the notebook's functions"
            self._mark_not_executed(index, reason)
            status = Status.TIMEOUT if "longer than" in self.bridge.broken else Status.KERNEL_DIED
            return self.nb, self.resources, status, reason, index
        return None

    def _after_death(self, cell, index):
        """Record why the kernel died in ``cell``; the preprocess() return value."""
        if self._output_limit_hit:
            why = (f"the notebook printed more than {self.max_output_bytes} bytes of "
                   "output, so the grader stopped its kernel")
        elif self._message_error:
            why = f"the grader stopped the kernel: one of its messages failed verification ({self._message_error})"
        else:
            exit_info = self._exit_description()
            why = "the kernel died" + (f" ({exit_info})" if exit_info else "")
        reason = f"{why} while running {cell_label(cell, index)}"
        cell.outputs.append(_error_output("KernelDied", reason))
        self._mark_not_executed(index, reason)
        return self.nb, self.resources, Status.KERNEL_DIED, reason, index

    def _kernel_alive(self) -> bool:
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        return process is not None and process.poll() is None

    def _answers_within(self, seconds) -> bool:
        """Whether the kernel replies to a kernel_info request within ``seconds``
        (a kernel still stuck in the interrupted cell does not)."""
        from jupyter_core.utils import run_sync

        try:
            msg_id = self.kc.kernel_info()
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                msg = run_sync(self.kc.shell_channel.get_msg)(timeout=left)
                if msg.get("parent_header", {}).get("msg_id") == msg_id:
                    return True
        except Exception:  # Empty (no reply), or the channels of a dead kernel
            return False
        return False

    def _mark_not_executed(self, crashed_index, reason):
        # An unexecuted test cell has no outputs, which nbgrader scores as a pass:
        # give every later code cell an error so its tests score 0.
        for cell in self.nb.cells[crashed_index + 1 :]:
            if cell.cell_type == "code":
                cell.outputs = [
                    _error_output("NotExecuted", f"not run because {reason}")
                ]
                cell.execution_count = None


def execute_notebook(
    notebook_json: str,
    scratch_dir,
    *,
    config=None,
    limits: Limits = Limits(),
    sandbox: str = "none",
    matplotlib_cache=None,
    judged: bool = True,
    judge_files=None,
    time_budget=None,
    grading_seed=None,
) -> ExecutionResult:
    """Execute a sanitized notebook: its cells in a fresh kernel, its tests in the judge.

    Parameters
    ----------
    notebook_json : str
        The notebook (nbformat v4 JSON), already sanitized by nbgrader.
    scratch_dir : str or Path
        A throw-away copy of the submission's folder; the kernel's working directory.
    config : traitlets.config.Config, optional
        The course's nbgrader config (``Execute.*`` options apply).
    limits : Limits
        ``cell_timeout`` overrides ``Execute.timeout`` from the config when set.
    sandbox : str
        The backend that confines the kernel and the judge (:mod:`grading.execution.sandbox`);
        ``"none"`` runs them with the grader's permissions.
    matplotlib_cache
        Passed to the backend's ``kernel_manager``.
    judged : bool
        Run the test cells in a judge process (:mod:`grading.execution.judge_runtime`) instead of
        the kernel. False runs everything in the kernel, as stock nbgrader does.
    judge_files : dict of str to bytes, optional
        The assignment's data files for the judge's folder (tests that read them).
    time_budget : dict, optional
        ``{"seconds": s, "why": words}``: the notebook stops once it has run ``s`` seconds
        (within ``limits.notebook_timeout``), and its reason quotes ``why``.
    grading_seed : int, optional
        The seed the judge mixes into the hidden tests' inputs (``nbkit.testing.hidden_rng``).

    Returns
    -------
    ExecutionResult
        Never raises for problems of the student's code; a failure of the
        grader itself (the judge, the executor) is reported with status
        ``"error"``, which is never recorded as a grade.
    """
    start, started = time.monotonic(), time.time()
    notebook = nbformat.reads(notebook_json, as_version=4)
    judge = None
    try:
        config = copy.deepcopy(config) if config is not None else Config()
        if limits.cell_timeout is not None:
            # Through the config: nbclient re-reads it when execution starts.
            config.Execute.timeout = int(max(1, round(limits.cell_timeout)))
        if judged:  # started first: its imports overlap the kernel's start
            judge = JudgeProcess(sandbox=sandbox, limits=limits, files=judge_files, seed=grading_seed)
        # Memory and processes are compared with the limits only where a sandbox enforces them.
        watch = KernelWatch(limits) if get_sandbox(sandbox).confined else None
        executor = GradingExecutor(config=config, max_output_bytes=limits.max_output_bytes, judge=judge,
                                   notebook_timeout=limits.notebook_timeout, max_code_cells=limits.max_code_cells,
                                   time_budget=time_budget, watch=watch)
        kernel_name = notebook.metadata.get("kernelspec", {}).get("name") or executor.kernel_name or "python3"
        km = get_sandbox(sandbox).kernel_manager(scratch_dir, limits=limits, kernel_name=kernel_name,
                                                 matplotlib_cache=matplotlib_cache)
        km.client_factory = bounded_client_class(max_message_bytes(limits))  # before nbclient connects
        # Student code can ask whether it runs under the autograder, as with nbgrader: set while the
        # kernel starts, not left to an inline run's caller (its later subprocesses would inherit it).
        with environment_variable("NBGRADER_EXECUTION", "autograde"):
            try:
                notebook, _, status, reason, failed = executor.preprocess(notebook, {"metadata": {"path": str(scratch_dir)}},
                                                                          km=km)
            finally:
                _shutdown(km)
    except Exception as error:  # the grader's own failure: report it, do not crash the pool
        return ExecutionResult(
            nbformat.writes(notebook), Status.ERROR, clean_text(f"{type(error).__name__}: {error}"),
            time.monotonic() - start, started=started, ended=time.time(), host=socket.gethostname(),
        )
    finally:
        if judge is not None:
            judge.close()
    return ExecutionResult(nbformat.writes(notebook), status, clean_text(reason), time.monotonic() - start, failed,
                           watch.incidents() if watch is not None else [], started=started, ended=time.time(),
                           host=socket.gethostname(), run_seconds=round(executor.run_seconds, 3),
                           cell_seconds=executor.cell_seconds, reported=[clean_text(r) for r in reported_errors(notebook)],
                           budget=executor._budget(), unloaded_seconds=round(executor.unloaded_seconds, 3))


def _shutdown(km):
    from jupyter_core.utils import run_sync

    try:
        if run_sync(km.is_alive)():
            run_sync(km.shutdown_kernel)(now=True)
        else:
            run_sync(km.cleanup_resources)()
    except Exception:
        pass  # best effort: the kernel is gone either way


def execute_task(task: dict) -> ExecutionResult:
    """Picklable entry point for a process pool: ``execute_notebook(**task)``, in a grading
    process whose memory is bounded (``Limits.grader_memory_bytes``)."""
    limit_own_memory(task.get("limits") or Limits())
    return execute_notebook(**task)


__all__ = ["ExecutionResult", "GradingExecutor", "execute_notebook", "execute_task"]
