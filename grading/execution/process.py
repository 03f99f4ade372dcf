"""Processes that end with their parent, and the pool that executes notebooks.

RUNS INSIDE THE JUDGE SANDBOX too (:func:`die_with_parent`): standard library only.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import sys


def die_with_parent(parent_pid: int):
    """Be killed when the process ``parent_pid`` (this one's parent) dies (Linux)."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the sandbox's PID namespace still ends its processes
    if os.getppid() != parent_pid:  # the parent died before that took effect
        os._exit(1)


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



def limit_own_memory(limits):
    """Bound this grading process's data segment (``RLIMIT_DATA``, soft limit only).

    ``limits.grader_memory_bytes`` (None: unchanged). The kernels and judges this process
    starts inherit the limit, so it is never set below ``limits.memory_bytes``, the
    kernel's own; the hard limit is left as it is, so a child may raise it again.
    """
    import resource

    wanted = getattr(limits, "grader_memory_bytes", None)
    if wanted is None:
        return
    wanted = max(int(wanted), int(getattr(limits, "memory_bytes", None) or 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    except (ValueError, OSError):
        pass  # a platform without RLIMIT_DATA: the caps on what a kernel sends still hold


@contextlib.contextmanager
def own_memory_limit_kept():
    """Run a task inline and give this process its own ``RLIMIT_DATA`` back afterwards.

    :func:`limit_own_memory` bounds the process that grades; a pool worker exits with its
    limit, but an inline run (one worker) grades in its caller's process, a library
    caller such as a test run or a service, which must not keep the grader's limit.
    """
    import resource

    try:
        before = resource.getrlimit(resource.RLIMIT_DATA)
    except (ValueError, OSError, AttributeError):
        before = None
    try:
        yield
    finally:
        if before is not None:
            try:
                resource.setrlimit(resource.RLIMIT_DATA, before)
            except (ValueError, OSError):
                pass


@contextlib.contextmanager
def environment_variable(name: str, value: str):
    """``os.environ[name] = value`` inside the block, as it was after it (set or not)."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
