"""The grader's side of judging: the judge process and the bridge into the student's kernel.

:class:`JudgeServer` is a sandboxed process (like a kernel's sandbox, but with
``nbcore``) that imports the tests' modules once; :class:`JudgeProcess` is one
notebook's judge, forked from it into an empty folder of its own, whose
requests this process relays; :class:`KernelBridge` answers them by running
the student's functions in the student's kernel, through a serve loop whose
answers come back as plain data (:mod:`grading.execution.plain`). This process only
relays: it never trusts what the kernel sends beyond decoding it, and the
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

import zmq
import zmq.asyncio

from grading.execution import kernel_runtime as kernel_side
from grading.execution import plain
from grading.execution.frames import JudgeProtocolError, frame_bytes, frame_size
from grading.execution.limits import Limits
from grading.execution.sandbox import get_sandbox

# What the judge's sandbox can read besides Python: the reference and the tests' helpers.
INTERRUPT_GRACE = 10  # seconds an interrupted call has to stop before its kernel is killed


class CallFailed(Exception):
    """The grader could not get an answer from the student's kernel (timeout, death, flood)."""


def _bridge_setup_code() -> str:
    plain_source = Path(plain.__file__).read_text()
    side_source = Path(kernel_side.__file__).read_text()
    return (
        "def __nbg_setup__():\n"
        "    import types\n"
        "    plain = types.ModuleType('_nbg_plain')\n"
        f"    exec(compile({plain_source!r}, '<nbg-plain>', 'exec'), plain.__dict__)\n"
        "    side = types.ModuleType('_nbg_bridge')\n"
        f"    exec(compile({side_source!r}, '<nbg-bridge>', 'exec'), side.__dict__)\n"
        "    side._install(plain, get_ipython().user_ns)\n"
        "__nbg_setup__()\n"
        "del __nbg_setup__\n"
    )


class KernelBridge:
    """Answers the judge's requests by running the student's functions in the student's kernel.

    While a test cell needs the notebook, one silent execution of
    ``__nbg_bridge__.serve()`` runs in the kernel (:mod:`grading.execution.kernel_runtime`):
    requests go in input replies, answers come back in input prompts, so a
    call costs one round trip on the stdin channel rather than a cell's
    execution. :meth:`end_cell` stops it before the kernel runs another cell.

    Parameters
    ----------
    executor : grading.execution.kernel.GradingExecutor
        Its kernel client and kill switch are used; output counts against its cap.
    call_timeout : float
        Seconds one call may take before the kernel is interrupted.
    """

    def __init__(self, executor, call_timeout):
        self.executor, self.call_timeout = executor, call_timeout
        self.deadline = None  # monotonic time by which the current test cell must end
        self.broken = ""  # why the kernel can no longer answer, once it cannot
        self._serving = None  # msg_id of the running serve() execution

    def _time_left(self) -> float:
        if self.deadline is None:
            return self.call_timeout
        return max(0.001, min(self.call_timeout, self.deadline - time.monotonic()))

    def setup(self):
        from jupyter_core.utils import run_sync

        msg_id = self.executor.kc.execute(_bridge_setup_code(), silent=True, store_history=False)
        self._run(run_sync(self._until_done), msg_id, self.call_timeout)

    def describe(self, name: str) -> dict:
        if not isinstance(name, str) or not name.isidentifier():
            return {"kind": "missing"}
        try:
            return self._request({"op": "describe", "name": name})
        except CallFailed as error:
            return {"kind": "unsupported", "type": f"unreadable ({error})"}

    def call(self, name: str, payload: str, judge) -> dict:
        if not isinstance(name, str) or not name.isidentifier():
            return {"op": "call_failed", "reason": "bad function name"}
        try:
            answer = self._request({"op": "call", "name": name, "payload": payload}, on_callback=judge.callback)
        except CallFailed as error:
            return {"op": "call_failed", "reason": f"calling your {name}: {error}"}
        return {"op": "reply", **answer}

    def end_cell(self):
        """Stop the kernel's serve loop (the test cell is over); kill a kernel that does not stop."""
        from jupyter_core.utils import run_sync

        msg_id, self._serving = self._serving, None
        if msg_id is None or self.broken:
            return
        try:
            self.executor.kc.input(json.dumps({"op": "end"}))
            self._run(run_sync(self._until_done), msg_id, INTERRUPT_GRACE)
        except CallFailed:
            if not self.broken:
                self.broken = "the kernel did not stop serving the grader's requests"
                self.executor._kill_kernel()

    def _request(self, request: dict, on_callback=None) -> dict:
        from jupyter_core.utils import run_sync

        if self.broken:
            raise CallFailed(self.broken)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise CallFailed("it ran past the time limit of the test cell that called it")
        kc = self.executor.kc
        if self._serving is None:
            self._serving = kc.execute("__nbg_bridge__.serve()", silent=True, store_history=False, allow_stdin=True)
            ready = self._run(run_sync(self._next_answer), self._serving, self._time_left(), None)
            if not ready.get("ready"):
                raise CallFailed("the kernel's answer was not readable")
        kc.input(json.dumps(request))
        return self._run(run_sync(self._next_answer), self._serving, self._time_left(), on_callback)

    def _run(self, function, *args):
        try:
            return function(*args)
        except CallFailed as error:
            if self._serving is not None and str(error) == _SERVE_ENDED:
                self._serving = None
            raise
        except ValueError as error:  # a message failing verification: stop that kernel
            self.broken = f"a kernel message failed verification ({error})"
            self.executor._kill_kernel()
            raise CallFailed(self.broken) from None

    async def _until_done(self, msg_id, timeout):
        """Wait for the execution ``msg_id`` to reply and go idle."""
        await self._wait(msg_id, timeout, None, want_answer=False)

    async def _next_answer(self, msg_id, timeout, on_callback) -> dict:
        """The answer in serve()'s next input prompt."""
        return await self._wait(msg_id, timeout, on_callback, want_answer=True)

    async def _wait(self, msg_id, timeout, on_callback, *, want_answer):
        executor = self.executor
        kc = executor.kc
        replied, idle, interrupted = False, False, False
        deadline = time.monotonic() + timeout
        poller = zmq.asyncio.Poller()
        channels = {kc.iopub_channel.socket: ("iopub", kc.iopub_channel),
                    kc.stdin_channel.socket: ("stdin", kc.stdin_channel),
                    kc.shell_channel.socket: ("shell", kc.shell_channel)}
        for channel_socket in channels:
            poller.register(channel_socket, zmq.POLLIN)
        while not (replied and idle):
            left = deadline - time.monotonic()
            if left <= 0:
                if interrupted:  # it ignored the interrupt: its state is unknown, stop it
                    executor._kill_kernel()
                    self.broken = (f"a call ran longer than {timeout:g} s and did not stop when "
                                   "interrupted, so the grader stopped the kernel")
                    raise CallFailed(self.broken)
                interrupted = True
                try:
                    await executor.km.interrupt_kernel()
                except Exception:
                    pass
                deadline = time.monotonic() + INTERRUPT_GRACE
                continue
            if not executor._kernel_alive():
                exit_info = executor._exit_description()
                self.broken = "the kernel died" + (f" ({exit_info})" if exit_info else "")
                raise CallFailed(self.broken)
            events = dict(await poller.poll(min(left, 1.0) * 1000))
            for ready_socket in events:
                stream, channel = channels[ready_socket]
                msg = await channel.get_msg(timeout=0)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind = msg.get("msg_type")
                if stream == "iopub":
                    executor._output_bytes += _message_size(msg)
                    if executor._output_bytes > executor.max_output_bytes:
                        executor._output_limit_hit = True
                        executor._kill_kernel()
                        self.broken = f"the notebook printed more than {executor.max_output_bytes} bytes of output"
                        raise CallFailed(self.broken)
                    if kind == "status" and msg.get("content", {}).get("execution_state") == "idle":
                        idle = True
                elif stream == "stdin" and kind == "input_request":
                    prompt = msg.get("content", {}).get("prompt", "")
                    prompt = prompt if isinstance(prompt, str) else ""
                    if prompt.startswith(kernel_side.CALLBACK_PROMPT) and on_callback is not None:
                        kc.input(on_callback(prompt[len(kernel_side.CALLBACK_PROMPT):]))
                    elif want_answer and prompt.startswith(kernel_side.SERVE_PROMPT):
                        if interrupted:
                            raise CallFailed("it ran past the time limit of the test cell that called it")
                        return self._answer(prompt[len(kernel_side.SERVE_PROMPT):])
                    else:  # a prompt of the notebook's own, or a stray one: an empty reply
                        kc.input("")
                elif stream == "shell":
                    replied = True
        if want_answer:  # serve() ended without answering: input() or the bridge was replaced
            raise CallFailed(_SERVE_ENDED)
        return None

    @staticmethod
    def _answer(text) -> dict:
        if len(text) > MAX_ANSWER_CHARS:
            raise CallFailed(f"the kernel's answer is larger than {MAX_ANSWER_CHARS} characters")
        try:
            answer = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            raise CallFailed("the kernel's answer was not readable (did the notebook replace the grader's bridge?)")
        if not isinstance(answer, dict):
            raise CallFailed("the kernel's answer was not readable")
        return answer


_SERVE_ENDED = "the kernel stopped answering the grader (did the notebook replace input() or the grader's bridge?)"
MAX_ANSWER_CHARS = 256 * 2**20


def _message_size(msg) -> int:
    content = msg.get("content", {})
    try:
        return len(json.dumps(content, default=str))
    except (TypeError, ValueError):
        return 0


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
        command = [sys.executable, "-c", f"from grading.execution.judge_runtime import serve_forks; serve_forks({theirs.fileno()})"]
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
                raise JudgeProtocolError("the judge did not answer in time")
            self._socket.settimeout(left)
            try:
                chunk = self._socket.recv(max(65536, size - len(self._buffer)))
            except socket.timeout:
                raise JudgeProtocolError("the judge did not answer in time") from None
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
        """The judge's verdict on one test cell (``{"passed", "stdout", "ename", "evalue"}``)."""
        self.wait_ready()
        self._write({"op": "run", "source": source, "name": name})
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline - time.monotonic())
            op = message.get("op")
            if op == "done":
                return message
            if op == "lookup":
                self._write({"op": "answer", **bridge.describe(message.get("name"))})
            elif op == "call":
                self._write(bridge.call(message.get("name"), str(message.get("payload", "")), self))
            else:
                self._stuck = True
                raise JudgeProtocolError(f"unexpected message {str(op)[:40]!r} from the judge")

    def callback(self, request_text: str) -> str:
        """Relay a callback from the student's kernel to the judge; the kernel's reply text."""
        try:
            request = json.loads(request_text)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):
            return json.dumps({"ok": False, "error": "unreadable callback request"})
        self._write({"op": "callback", "id": request.get("id"), "args": request.get("args"),
                     "kwargs": request.get("kwargs")})
        message = self._read(self.limits.cell_timeout or 60)
        return json.dumps({"ok": bool(message.get("ok")), "value": message.get("value"),
                           "error": message.get("error")})

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
