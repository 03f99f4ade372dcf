"""No sandbox (``--unsafe-no-sandbox``): student code runs with the grader's permissions.

Only for trusted submissions; every record of the grading log names it and
the report carries a red banner. Time and output limits still hold (the
grader enforces them); memory, process and file limits do not.
"""

from __future__ import annotations

from pathlib import Path


class Unconfined:
    """The ``"none"`` backend."""

    name = "none"
    confined = False

    def available(self) -> tuple[bool, str]:
        return True, ""

    def readable_paths(self) -> list[Path]:
        return []  # nothing is hidden, so nothing is exposed by being inside something

    def kernel_manager(self, scratch_dir, *, limits, kernel_name="python3", matplotlib_cache=None):
        from jupyter_client.manager import AsyncKernelManager

        return AsyncKernelManager(kernel_name=kernel_name)

    def judge_command(self, argv, workdir, limits):
        return list(argv), None, None
