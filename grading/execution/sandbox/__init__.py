"""How student code is confined: named sandbox backends behind one small protocol.

A backend confines the two kinds of process that run or judge student code:
the student's kernel (:meth:`Sandbox.kernel_manager`) and the judge server
(:meth:`Sandbox.judge_command`). Tasks carry the backend's *name*, so they
stay plain data for a process pool or a Dask worker, and the grading log
records it; the report warns where a backend is not :attr:`Sandbox.confined`.

Backends: ``"bubblewrap"`` (:mod:`.bubblewrap`, the default) and ``"none"``
(:mod:`.unconfined`, ``--unsafe-no-sandbox``). Another one (a Kubernetes pod,
say) is a module here and an entry in :data:`SANDBOXES`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from grading.core.errors import NbgError
from grading.execution.limits import Limits
from grading.execution.sandbox.bubblewrap import Bubblewrap
from grading.execution.sandbox.unconfined import Unconfined


class Sandbox(Protocol):
    """What the grader needs of a way to confine student code."""

    name: str  # written to the grading log
    confined: bool  # False: student code runs with the grader's permissions (the report says so)

    def available(self) -> tuple[bool, str]:
        """Whether it works on this machine, and if not, what to install."""

    def readable_paths(self) -> list[Path]:
        """Folders a confined kernel can read (a course inside one would be exposed)."""

    def kernel_manager(self, scratch_dir, *, limits: Limits, kernel_name="python3", matplotlib_cache=None):
        """A not yet started ``AsyncKernelManager`` whose kernel runs in ``scratch_dir``."""

    def judge_command(self, argv, workdir, limits: Limits) -> tuple[list, dict | None, int | None]:
        """(command, environment, uid) that starts the judge server confined in ``workdir``."""


SANDBOXES: dict = {backend.name: backend for backend in (Bubblewrap(), Unconfined())}
DEFAULT = "bubblewrap"


def get_sandbox(name: str) -> Sandbox:
    """The backend called ``name``; an :class:`NbgError` listing the known ones otherwise."""
    try:
        return SANDBOXES[name]
    except KeyError:
        raise NbgError(f"unknown sandbox {name!r}: choose one of {', '.join(sorted(SANDBOXES))}") from None


def sandbox_name(sandboxed: bool) -> str:
    """The backend of ``sandboxed=True`` (the default one) or ``False`` (none)."""
    return DEFAULT if sandboxed else "none"
