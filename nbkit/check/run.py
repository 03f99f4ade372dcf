"""Run a copy of the notebook top to bottom in a fresh kernel, within the grader's limits.

The limits are the grader's (:class:`grading.execution.limits.Limits`; tests/nbkit check they
agree): time per cell and in all, the kernel's address space (where the operating system has
``resource.setrlimit``: Linux, macOS), and the output a notebook may produce, past which the
grader stops the kernel (the check keeps no more of it, so a flood cannot fill the student's
memory either).

The copy goes to a temporary folder with the data files that sit next to the
notebook (no other notebook, no hidden file); the student's file is only
read. The kernel is this environment's Python (the one ``nbkit`` is
installed in), started from scratch, so nothing of a running Jupyter session
(variables, imports, cells run out of order) helps the notebook through.
"""

from __future__ import annotations

import dataclasses
from copy import deepcopy
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The grader's limits (course/nbgrader_config.py: c.Execute.timeout; the
# sandbox's deadline for a whole notebook). tests/nbkit/test_check.py checks
# they agree with the grader's.
CELL_TIMEOUT = 120
NOTEBOOK_TIMEOUT = 900
# Files copied beside the notebook: at most this many bytes (the grader's copy of a submission is capped).
MAX_DATA_BYTES = 200_000_000
MAX_CODE_CELLS = 500  # the grader runs no more code cells than this
MEMORY_BYTES = 4 * 2**30  # the kernel's address space (the grader's sandbox limit)
MAX_OUTPUT_BYTES = 20_000_000  # output of the whole notebook, past which the grader stops the kernel
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The kernel's launcher: the memory limit first, then ipykernel as `python -m ipykernel_launcher` would run.
_LAUNCH = """\
import runpy, sys
limit = int(sys.argv.pop(1))
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
except (ImportError, ValueError, OSError):  # no such limit on this system: the run goes on without it
    pass
sys.argv[0] = "ipykernel_launcher"
runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
"""
KERNEL_NAME = "nbkit-check"
TIMEOUT_ENAME = "TimeoutError"


@dataclasses.dataclass
class CellRun:
    index: int
    seconds: float
    error: tuple | None = None  # (ename, evalue)
    timed_out: bool = False  # interrupted at the cell time limit (the run goes on, as in the grader)


@dataclasses.dataclass
class RunResult:
    """What happened when the copy ran."""

    cells: list = dataclasses.field(default_factory=list)  # CellRun per code cell that ran
    seconds: float = 0.0
    stopped_at: int | None = None  # index of the cell the run stopped at (not run, or not finished)
    stop_reason: str = ""  # "notebook timeout", "too many cells", "kernel died", "kernel stuck", "too much output"
    copied: list = dataclasses.field(default_factory=list)  # data files copied beside the notebook
    not_copied: str = ""  # why data files were left out, if they were


def data_files(folder: Path) -> tuple[list, str]:
    """(files, why not all): the regular files next to the notebook a graded copy may read."""
    files, total = [], 0
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix == ".ipynb" or path.is_symlink() or not path.is_file():
            continue
        total += path.stat().st_size
        if total > MAX_DATA_BYTES:
            return [], (f"the files next to the notebook hold more than {MAX_DATA_BYTES // 1_000_000} MB; "
                        "none was copied (run the check in the assignment's own folder)")
        files.append(path)
    return files, ""


def _output_size(content) -> int:
    try:
        return len(json.dumps(content, default=str))
    except (TypeError, ValueError):
        return len(str(content))


def _limited_client(NotebookClient, max_output_bytes):
    """nbclient's client that keeps no output past ``max_output_bytes`` in all (``flooded`` then)."""

    class LimitedClient(NotebookClient):
        output_bytes = 0
        flooded = False

        def output(self, outs, msg, display_id, cell_index):
            self.output_bytes += _output_size(msg.get("content", {}))
            if self.output_bytes > max_output_bytes:
                self.flooded = True
                return None  # dropped: the grader stops the kernel here
            return super().output(outs, msg, display_id, cell_index)

    return LimitedClient


def _kernel_spec(folder: Path, memory_bytes=MEMORY_BYTES) -> Path:
    """A kernelspec folder whose one kernel is this Python (the student's environment)."""
    spec = folder / KERNEL_NAME
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", _LAUNCH, str(int(memory_bytes)), "-f", "{connection_file}"],
        # As in the grader's kernel: one thread for the linear algebra (the time limit is measured so; many
        # threads would also reserve address space the memory limit counts).
        "env": dict(THREAD_ENV),
        "display_name": "Python 3 (nbkit check)",
        "language": "python",
    }))
    return folder


def _error_of(cell) -> tuple | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("ename", "Error"), output.get("evalue", "")
    return None


def run_notebook(notebook, folder: Path, cell_timeout=CELL_TIMEOUT, notebook_timeout=NOTEBOOK_TIMEOUT,
                 on_cell=None, memory_bytes=MEMORY_BYTES, max_output_bytes=MAX_OUTPUT_BYTES) -> RunResult:
    """Execute every code cell of ``notebook`` (a copy is made) in a fresh kernel.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The student's notebook (not modified).
    folder : Path
        The notebook's folder: its data files are copied beside the copy.
    cell_timeout : float
        Seconds one cell may run; the run stops at a cell that takes longer.
    notebook_timeout : float
        Seconds all cells together may run.
    on_cell : callable, optional
        Called with (index of the cell about to run, number of cells), for progress.
    memory_bytes : int
        The kernel's address space (where the system can limit it).
    max_output_bytes : int
        Output of all cells together; the run stops after the cell that passes it.

    Returns
    -------
    RunResult

    Raises
    ------
    RuntimeError
        When no kernel can be started (Jupyter missing from the environment).
    """
    try:
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync
        from nbclient import NotebookClient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
    except ImportError as error:
        raise RuntimeError(f"{error.name} is not installed in this environment, so no kernel can run the "
                           "notebook: install the course environment (pip install -r requirements.txt in the "
                           "hand-out folder) and run the check from it") from None

    notebook = deepcopy(notebook)
    result = RunResult()
    result.copied, result.not_copied = data_files(Path(folder))
    with tempfile.TemporaryDirectory(prefix="nbkit-check-") as scratch:
        work = Path(scratch) / "notebook"
        work.mkdir()
        for path in result.copied:
            shutil.copy2(path, work / path.name)
        kernels = _kernel_spec(Path(scratch) / "kernels", memory_bytes)
        manager = AsyncKernelManager(kernel_name=KERNEL_NAME,
                                     kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
        client = _limited_client(NotebookClient, max_output_bytes)(notebook, km=manager, kernel_name=KERNEL_NAME, allow_errors=True,
                                timeout_func=lambda cell: cell_timeout, interrupt_on_timeout=True,
                                error_on_timeout={"ename": TIMEOUT_ENAME, "traceback": [],
                                                  "evalue": f"the cell ran longer than {cell_timeout:g} s"},
                                resources={"metadata": {"path": str(work)}})
        started = None
        try:
            # The kernel's own log lines (about its transport) would only confuse a student.
            with client.setup_kernel(stderr=subprocess.DEVNULL):
                started = time.monotonic()  # as the grader, from the moment the kernel is ready
                code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
                for count, index in enumerate(code, start=1):
                    # As the grader: the notebook's time and number of cells are checked before each cell.
                    if time.monotonic() - started > notebook_timeout or count > MAX_CODE_CELLS:
                        result.stopped_at = index
                        result.stop_reason = "notebook timeout" if count <= MAX_CODE_CELLS else "too many cells"
                        break
                    cell = notebook.cells[index]
                    if on_cell is not None:
                        on_cell(index, len(notebook.cells))
                    begun = time.monotonic()
                    try:
                        client.execute_cell(cell, index)
                    except CellTimeoutError:  # no reply after the interrupt either
                        result.cells.append(CellRun(index, time.monotonic() - begun, (TIMEOUT_ENAME, ""), True))
                        result.stopped_at, result.stop_reason = index, "kernel stuck"
                        break
                    except DeadKernelError:
                        result.cells.append(CellRun(index, time.monotonic() - begun, ("DeadKernelError", "")))
                        result.stopped_at, result.stop_reason = index, "kernel died"
                        break
                    seconds = time.monotonic() - begun
                    timed_out = seconds >= cell_timeout
                    error = (TIMEOUT_ENAME, "") if timed_out else _error_of(cell)
                    result.cells.append(CellRun(index, seconds, error, timed_out))
                    if client.flooded:
                        result.stopped_at, result.stop_reason = index, "too much output"
                        break
        except Exception as error:
            if started is None:  # the kernel did not start
                raise RuntimeError(f"no Python kernel could start in this environment ({type(error).__name__}: "
                                   f"{error}); check that ipykernel is installed (pip install -r "
                                   "requirements.txt in the hand-out folder)") from error
            raise
        finally:
            result.seconds = time.monotonic() - started if started is not None else 0.0
            if manager.has_kernel:
                run_sync(manager.shutdown_kernel)(now=True)
            if client.kc is not None:
                client.kc.stop_channels()
    return result
