"""The limits one notebook is graded under (time, output, memory, processes, files)."""

from __future__ import annotations

import dataclasses

from grading.core.errors import NbgError


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits for one kernel.

    Parameters
    ----------
    cell_timeout : float or None
        Seconds a cell may run before it is interrupted (None: no limit).
    max_output_bytes : int
        Output (text and data) a notebook may produce before the grader
        stops its kernel, so a flood cannot exhaust the grader's memory.
    memory_bytes : int or None
        Address-space limit of the kernel (sandbox only; None: no limit).
    max_processes : int or None
        Processes and threads the kernel may have (sandbox only).
    cpu_seconds : int or None
        CPU time of the whole kernel (sandbox only); past it the kernel is killed.
    file_bytes : int or None
        Largest file the kernel may write (sandbox only).
    notebook_timeout : float or None
        Seconds the whole notebook may run (its cells and its tests).
    max_code_cells : int or None
        Code cells of one notebook that are run; a notebook with more stops there.
    tmpfs_bytes : int or None
        Size of the sandbox's ``/tmp`` and ``/dev/shm`` each (memory the
        address-space limit does not count).
    max_answer_bytes : int
        The largest answer (a function's result, in UTF-8 bytes as the kernel sends it)
        or request to a test's function the student's kernel may send the grader;
        a larger one fails the test cell that called it.
    max_callbacks : int
        Calls of the tests' functions (callbacks) the student's code may make in one
        test cell (each request at most ``max_answer_bytes``, all of them at most 64 times that).
    grader_memory_bytes : int or None
        Data-segment limit (``RLIMIT_DATA``, soft) of the grading process that runs
        the notebook (a pool worker), so no kernel can exhaust the grader's host; never
        below ``memory_bytes``, which the kernel it starts inherits. None: no limit.
    """

    cell_timeout: float | None = 30
    max_output_bytes: int = 20_000_000
    memory_bytes: int | None = 4 * 2**30
    max_processes: int | None = 64
    cpu_seconds: int | None = 600
    file_bytes: int | None = 100_000_000
    notebook_timeout: float | None = 900
    max_code_cells: int | None = 500
    tmpfs_bytes: int | None = 256 * 2**20
    max_answer_bytes: int = 16 * 2**20
    grader_memory_bytes: int | None = 4 * 2**30
    max_callbacks: int = 100_000  # 06's fit_logistic may call its loss_grad 10,000 times

    def __post_init__(self):
        if self.cell_timeout is not None and self.cell_timeout <= 0:
            raise NbgError(
                f"cell_timeout must be a positive number of seconds or None, got {self.cell_timeout}"
            )
        if not isinstance(self.max_answer_bytes, int) or self.max_answer_bytes <= 0:
            raise NbgError(f"max_answer_bytes must be a positive number of bytes, got {self.max_answer_bytes}")
        if self.max_output_bytes <= 0:
            raise NbgError(f"max_output_bytes must be positive, got {self.max_output_bytes}")
        for name in ("memory_bytes", "max_processes", "cpu_seconds", "file_bytes", "notebook_timeout",
                     "max_code_cells", "tmpfs_bytes", "max_answer_bytes", "grader_memory_bytes", "max_callbacks"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise NbgError(f"{name} must be positive or None (no limit), got {value}")

