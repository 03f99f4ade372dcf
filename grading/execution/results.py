"""What executing one notebook gives back (:func:`grading.execution.kernel.execute_notebook`)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class ExecutionResult:
    """What a worker sends back: the executed notebook and how execution went."""

    notebook_json: str
    status: str
    reason: str
    seconds: float
    failed_cell: int | None = None  # index of the cell that timed out or killed the kernel
    incidents: list = dataclasses.field(default_factory=list)  # what the grader observed (observed.KernelWatch)
    # When and where it ran (epoch seconds, host name): the grader finds notebooks that
    # ran at the same time on one machine (see grading.autograde's regrading alone).
    started: float = 0.0
    ended: float = 0.0
    host: str = ""
    graded_alone: str = ""  # why it was graded again alone, if it was
    run_seconds: float = 0.0  # from the first cell to the last (kernel start-up excluded)
    cell_seconds: list = dataclasses.field(default_factory=list)  # [index, label, seconds] per code cell run
    reported: list = dataclasses.field(default_factory=list)  # errors the notebook's outputs report (observed.py)
    budget: float | None = None  # the seconds the whole notebook was allowed
    unloaded_seconds: float = 0.0  # run_seconds less the kernel's and the judge's waits for a CPU
