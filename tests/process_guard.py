"""The end-of-run check: a test run fails when it leaves a process behind.

Judge servers, kernels, Dask schedulers and workers, PostgreSQL servers and
the practice service are started by tests and must be stopped by them: one
left running holds memory and a core for the rest of the run (and, in CI, for
whatever runs next on the machine). At the end of the session this plugin
lists the processes the run started that are still alive:

* every descendant of the pytest process, and
* every process on the machine whose command line or working folder is under
  this run's temporary folder (``--basetemp``): a daemon such as PostgreSQL's
  postmaster is re-parented when ``pg_ctl`` exits, so it is no descendant.

Processes that were already there when the session started are left out, and
the ones found get a few seconds to finish exiting (a pool shut down without
waiting). Whatever is still alive then is printed, killed, and the session's
exit status becomes 1.

Under pytest-xdist each worker checks its own descendants and temporary
folder and hands what it found to the controller, which reports it and fails
the run (a worker's exit status is not the run's).

Registered for every run by the root ``conftest.py``; ``-p tests.process_guard``
loads it elsewhere (its own test does).
"""

from __future__ import annotations

import os
import time

import psutil
import pytest

GRACE_SECONDS = 10.0  # what a process that is exiting gets before it counts as left behind
# Python's own helpers of multiprocessing: one per interpreter, started on first use, ended at exit.
INTERPRETER_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")
_STARTED_WITH: set = set()


def _basetemp(config) -> str | None:
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return None
    try:
        return str(factory.getbasetemp())
    except Exception:  # no temporary folder was made by this run
        return None


def _ours(config) -> dict:
    """pid -> psutil.Process of the processes this run started that are alive now."""
    me = psutil.Process()
    found = {}
    try:
        for child in me.children(recursive=True):
            found[child.pid] = child
    except psutil.Error:
        pass
    base = _basetemp(config)
    if base:
        for process in psutil.process_iter(["pid", "cmdline", "cwd"]):
            if process.pid == me.pid:
                continue
            try:
                cmdline = " ".join(process.info["cmdline"] or [])
                cwd = process.info["cwd"] or ""
            except psutil.Error:
                continue
            if base in cmdline or cwd == base or cwd.startswith(base + os.sep):
                found[process.pid] = process
    alive = {}
    for pid, process in found.items():
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE and pid not in _STARTED_WITH \
                    and not any(helper in " ".join(process.cmdline()) for helper in INTERPRETER_HELPERS):
                alive[pid] = process
        except psutil.Error:
            continue
    return alive


def _describe(process) -> str:
    try:
        command = " ".join(process.cmdline())
    except psutil.Error:
        command = "?"
    tail = command if len(command) <= 160 else command[:70] + " ... " + command[-85:]
    return f"pid {process.pid}: {tail}"


def pytest_sessionstart(session):
    _STARTED_WITH.clear()
    _STARTED_WITH.update(_ours(session.config))


_FROM_WORKERS: list = []  # under pytest-xdist: what each worker found and killed (the controller reports it)


def pytest_testnodedown(node, error):
    """Under pytest-xdist, in the controller: a worker ended; keep what it left behind."""
    _FROM_WORKERS.extend(getattr(node, "workeroutput", {}).get("nbg_left_behind", ()))


def _left_behind(session) -> list:
    """Describe and kill what this process's run left running (after their grace)."""
    deadline = time.monotonic() + GRACE_SECONDS
    left = _ours(session.config)
    while left and time.monotonic() < deadline:
        time.sleep(0.25)
        left = _ours(session.config)
    lines = [_describe(process) for process in left.values()]
    for process in left.values():
        try:
            process.kill()
        except psutil.Error:
            pass
    return lines


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    lines = _left_behind(session)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its exit status is not the run's; the controller reports
        workeroutput["nbg_left_behind"] = lines
        return
    lines += _FROM_WORKERS
    if not lines:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = (f"{len(lines)} process(es) started by this test run were still running at its end "
               "(stop what a test starts, in its own teardown); killed now:\n  " + "\n  ".join(lines))
    if reporter is not None:
        reporter.write_sep("=", "processes left behind", red=True)
        reporter.write_line(message)
    else:
        print(message)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
