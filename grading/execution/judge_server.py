"""The judge's fork server: imports the tests' modules once, then forks one judge per notebook.

Runs in the judge's sandbox (started by :class:`grading.execution.judge_client.JudgeServer`);
each forked child runs :func:`grading.execution.judge_runtime.run_judge` for one notebook.
"""

from __future__ import annotations

import io
import json
import os
import sys
import warnings

from grading.execution.judge_runtime import PRELOADED, StudentFunction, run_judge
from grading.execution.process import die_with_parent


def _preload():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module in PRELOADED:
            try:
                __import__(module)
            except Exception:
                pass
    try:  # the kit's own-implementation check must know the judge's proxies
        from nbkit.testing import register_remote_type
    except ImportError:
        return
    register_remote_type(StudentFunction)


def _set_grading_seed(seed):
    """The seed ``nbkit.testing.hidden_rng`` mixes into the hidden tests' inputs (None: their own)."""
    try:
        from nbkit.testing import set_grading_seed
    except ImportError:  # no kit, no hidden_rng: nothing to seed
        return
    set_grading_seed(seed if isinstance(seed, int) and not isinstance(seed, bool) else None)


def _silence_standard_streams():
    # The protocol has its own channel; anything written to fd 0, 1 or 2 is dropped.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr = io.StringIO()


def serve_forks(control_fd: int):
    """The fork server: import once, then fork one judge per notebook.

    The grader (:class:`grading.execution.judge_client.JudgeServer`) sends ``{"op": "fork",
    "folder": name}`` over the control socket (a SOCK_SEQPACKET socket) with
    the judge's end of a fresh socket pair attached; the child changes to
    ``folder`` (the notebook's data files) and runs :func:`run_judge` on that
    socket. Each notebook's judge thus starts in milliseconds from a clean copy
    of this process, and no state passes from one notebook's tests to the
    next. ``{"op": "kill", "pid": pid}`` stops a judge that hangs. The server
    exits when the grader closes its end.
    """
    import signal
    import socket

    control = socket.socket(fileno=control_fd)
    _silence_standard_streams()
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # judges are reaped by the system
    control.send(json.dumps({"op": "ready"}).encode())
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 65536, 1)
        except OSError:
            return
        if not data:
            return
        try:
            message = json.loads(data)
        except ValueError:
            message = {}
        op = message.get("op")
        if op == "fork" and fds:
            server_pid = os.getpid()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    die_with_parent(server_pid)  # a judge stuck in a test must not outlive its server
                    control.close()
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    os.chdir(str(message.get("folder", ".")))
                    _set_grading_seed(message.get("seed"))
                    channel = socket.socket(fileno=fds[0])
                    run_judge(channel.makefile("rb"), channel.makefile("wb"))
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"op": "forked", "pid": pid}).encode())
        elif op == "kill":
            try:
                os.kill(int(message.get("pid")), signal.SIGKILL)
            except (OSError, TypeError, ValueError):
                pass
            control.send(b'{"op": "killed"}')
        else:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"op": "error", "reason": f"unknown op {str(op)[:40]!r}"}).encode())
