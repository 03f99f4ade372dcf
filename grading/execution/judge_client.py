"""The grader's side of judging: the judge process and the bridge into the student's kernel.

:class:`JudgeServer` is a sandboxed process (like a kernel's sandbox, but with
``nbcore``) that imports the tests' modules once; :class:`JudgeProcess` is one
notebook's judge, forked from it into an empty folder of its own, whose
requests this process relays; :class:`KernelBridge` (:mod:`grading.execution.bridge`)
answers them by running the student's functions in the student's kernel. This
process only relays: it counts what the kernel sends in bytes and passes its
answers on as text, never decoding them into its own messages, and the
verdict is the judge's.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grading.execution.bridge import CallFailed, KernelBridge  # noqa: F401 (the executor imports them here)
from grading.execution.frames import (
    CallbackStuck,
    FrameTooLarge,
    JudgeProtocolError,
    JudgeTimeout,
    frame_bytes,
    frame_size,
)
from grading.execution.limits import Limits
from grading.execution.sandbox import get_sandbox

CALLBACK_WAIT_MARGIN = 15  # seconds past its `seconds` that a callback's answer is waited for
REPLY_MARGIN = 5  # seconds the judge has to report a test after the grader answered it


class JudgeServer:
    """A sandboxed process that imports the judge's modules once and forks a judge per notebook.

    Importing NumPy, SciPy, scikit-learn and nbcore costs about two seconds of
    CPU; a fork costs milliseconds. One server serves one grading process
    (a pool worker, or a Dask worker's process): :func:`judge_server` keeps it.
    Its working folder holds one subfolder per notebook with the assignment's
    data files; the judges run there, as the server's uid, in the server's
    sandbox (its own, apart from every kernel's).
    """

    def __init__(self, *, sandbox: str, limits: Limits):
        self.root = Path(tempfile.mkdtemp(prefix="nbgs-"))
        self.uid = None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-c", f"from grading.execution.judge_server import serve_forks; serve_forks({theirs.fileno()})"]
        command, environment, self.uid = get_sandbox(sandbox).judge_command(command, self.root, limits)
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, env=environment, pass_fds=(theirs.fileno(),),
                                            cwd=self.root, start_new_session=True)
        finally:
            theirs.close()
        self.control = ours
        self._lock = threading.Lock()
        self._ready = False
        self._forks = 0

    def alive(self) -> bool:
        return self.process.poll() is None

    def _receive(self, timeout) -> dict:
        self.control.settimeout(max(0.001, timeout))
        try:
            data = self.control.recv(65536)
        except socket.timeout:
            raise JudgeProtocolError(f"the judge server did not answer within {timeout:.0f} s") from None
        if not data:
            raise JudgeProtocolError(f"the judge server stopped (exit code {self.process.poll()})")
        return json.loads(data)

    def wait_ready(self, timeout=120):
        with self._lock:
            if not self._ready:
                message = self._receive(timeout)
                if message.get("op") != "ready":
                    raise JudgeProtocolError(f"unexpected first message {str(message.get('op'))[:40]!r}")
                self._ready = True

    def fork(self, files, seed=None) -> tuple:
        """A new judge: (its socket, its pid in the server's namespace, its folder)."""
        self.wait_ready()
        with self._lock:
            self._forks += 1
            folder = self.root / f"j{self._forks}"
            folder.mkdir()
            for relative, content in (files or {}).items():  # the assignment's own data files
                target = folder / relative
                if folder not in target.resolve().parents:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            if self.uid is not None:
                for path in [folder, *folder.rglob("*")]:
                    os.chown(path, self.uid, self.uid)
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                request = json.dumps({"op": "fork", "folder": str(folder),  # the same path inside
                                      "seed": seed}).encode()  # the hidden tests' grading seed
                socket.send_fds(self.control, [request], [theirs.fileno()])
            finally:
                theirs.close()
            reply = self._receive(30)
            if reply.get("op") != "forked":
                ours.close()
                raise JudgeProtocolError(f"the judge server could not start a judge ({str(reply)[:200]})")
            return ours, int(reply["pid"]), folder

    def kill(self, pid: int):
        with self._lock:
            try:
                self.control.send(json.dumps({"op": "kill", "pid": pid}).encode())
                self._receive(10)
            except (OSError, JudgeProtocolError, ValueError):
                pass

    def close(self):
        try:
            self.control.close()  # the server exits at end of stream
            self.process.wait(timeout=5)
        except Exception:
            pass
        if self.process.poll() is None:
            self.process.kill()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.root, ignore_errors=True)


_SERVERS: dict = {}
_SERVERS_LOCK = threading.Lock()


def judge_server(*, sandbox: str, limits: Limits) -> JudgeServer:
    """This process's judge server for these settings, started on first use (or after it died)."""
    key = (os.getpid(), sandbox, limits)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or not server.alive():
            if server is not None:
                server.close()
            server = _SERVERS[key] = JudgeServer(sandbox=sandbox, limits=limits)
        return server


@atexit.register
def close_judge_servers():
    """Stop this process's judge servers (they also stop when it dies: end of stream)."""
    with _SERVERS_LOCK:
        for key, server in list(_SERVERS.items()):
            if key[0] == os.getpid():
                server.close()
            _SERVERS.pop(key, None)


class JudgeProcess:
    """One notebook's judge, forked from this process's :class:`JudgeServer`, and the socket to it.

    Parameters
    ----------
    sandbox : str
        The backend that confines the judge server (:mod:`grading.execution.sandbox`).
    limits : Limits
    files : dict of str to bytes, optional
        The assignment's data files (from the course's source folder, never the
        submission), written into the judge's working folder.
    """

    def __init__(self, *, sandbox: str, limits: Limits, files=None, seed=None):
        self.limits, self.seed = limits, seed
        self.server = judge_server(sandbox=sandbox, limits=limits)
        self._files = files
        self._socket = self._pid = self.folder = None
        self._buffer = b""
        self._stuck = False  # a read timed out: the judge may be running still
        self._ready = False

    def _read(self, timeout):
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            header = self._read_exactly(4, deadline)
            return json.loads(self._read_exactly(frame_size(header), deadline))
        except JudgeProtocolError:
            self._stuck = True
            raise

    def _read_exactly(self, size, deadline) -> bytes:
        while len(self._buffer) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                raise JudgeTimeout("the judge did not answer in time")
            self._socket.settimeout(left)
            try:
                chunk = self._socket.recv(max(65536, size - len(self._buffer)))
            except socket.timeout:
                raise JudgeTimeout("the judge did not answer in time") from None
            if not chunk:
                raise JudgeProtocolError("the judge stopped")
            self._buffer += chunk
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def _write(self, message: dict):
        self._socket.settimeout(None)
        self._socket.sendall(frame_bytes(message))

    def wait_ready(self, timeout=120):
        if not self._ready:
            self.server.wait_ready(timeout)
            self._socket, self._pid, self.folder = self.server.fork(self._files, self.seed)
            message = self._read(30)
            if message.get("op") != "ready":
                raise JudgeProtocolError(f"unexpected first message {str(message.get('op'))[:40]!r}")
            self._ready = True

    def run_cell(self, source: str, name: str, bridge: KernelBridge, timeout: float) -> dict:
        """The judge's verdict on one test cell (``{"passed", "stdout", "ename", "evalue"}``).

        Raises JudgeProtocolError when the judge breaks the protocol or reports a test that
        the grader refuses to run (the grader's failure, never a grade).
        """
        self.wait_ready()
        self._write({"op": "run", "source": source, "name": name})
        deadline = time.monotonic() + timeout
        # A relay may itself wait past `deadline` (a callback waits up to its seconds + 15, an
        # interrupted call up to the kernel's grace): the judge then still needs a moment to
        # report, so each relay leaves it REPLY_MARGIN, never past `latest`.
        latest = deadline + CALLBACK_WAIT_MARGIN
        while True:
            message = self._read(deadline - time.monotonic())
            op = message.get("op")
            if op == "done":
                return message
            if op == "lookup":
                self._relay(bridge.describe(message.get("name")), "answer_failed")
            elif op == "call":
                self._relay(bridge.call(message.get("name"), str(message.get("payload", "")), self), "call_failed")
            elif op == "grader_error":
                raise JudgeProtocolError(f"a test the grader cannot run: {str(message.get('reason'))[:2000]}")
            else:
                self._stuck = True
                raise JudgeProtocolError(f"unexpected message {str(op)[:40]!r} from the judge")
            deadline = min(latest, max(deadline, time.monotonic() + REPLY_MARGIN))

    def _relay(self, message: dict, failed_op: str):
        """Send the judge a message carrying the kernel's text; one too large for a frame is the
        student's failure (the kernel sent it), never the grader's."""
        try:
            self._write(message)
        except FrameTooLarge as error:
            self._write({"op": failed_op, "reason": f"the kernel's answer is too large ({error})"})

    def callback(self, request_text: str, seconds: float) -> str:
        """Relay a callback from the student's kernel to the judge; the kernel's reply text.

        ``seconds`` is what the test cell has left: the judge stops the test's function then
        (its own alarm), and the cell fails.
        """
        try:
            request = json.loads(request_text)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):
            return json.dumps({"ok": False, "error": "unreadable callback request"})
        try:
            self._write({"op": "callback", "id": request.get("id"), "args": request.get("args"),
                         "kwargs": request.get("kwargs"), "seconds": max(0.001, seconds)})
        except FrameTooLarge as error:
            return json.dumps({"ok": False, "error": f"the callback request is too large ({error})"})
        try:
            message = self._read(seconds + CALLBACK_WAIT_MARGIN)  # the judge's alarm ends the test's function at `seconds`
        except JudgeTimeout:  # stuck where no alarm reaches (compiled code); close() kills the judge
            raise CallbackStuck(f"the test's function that the notebook's code called ran past the cell's time limit "
                                f"({seconds:.0f} s left) and did not stop") from None
        return json.dumps({"ok": message.get("ok") is True, "value": message.get("value"),
                           "error": str(message.get("error"))[:2000]})

    def close(self):
        if self._socket is not None:
            try:
                self._write({"op": "exit"})
            except OSError:
                pass
            self._socket.close()
            if self._stuck:  # it may be inside a test that never ends: stop it
                self.server.kill(self._pid)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
