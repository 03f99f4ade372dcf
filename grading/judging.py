"""The grader's side of judging: the judge process and the bridge into the student's kernel.

:class:`JudgeProcess` starts ``grading.judge`` (sandboxed like a kernel, but
with ``nbcore`` and an empty folder of its own) and relays its requests;
:class:`KernelBridge` answers them by running the student's functions in the
student's kernel, as silent executions whose answers come back as plain data
(:mod:`grading.plain`). This process only relays: it never trusts what the
kernel sends beyond decoding it, and the verdict is the judge's.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq
import zmq.asyncio

from grading import kernel_side, plain
from grading.judge import JudgeProtocolError, read_frame, write_frame
from grading.sandbox import Limits, bwrap_command, sandbox_uid

JUDGE_UID_OFFSET = 1_000_000
# What the judge's sandbox can read besides Python: the reference and the tests' helpers.
JUDGE_PACKAGES = ("nbkit", "nbcore", "grading")  # the judge runs as another uid than the kernel of the same worker
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
    """Runs bridge requests in the student's kernel through the executor's client.

    Parameters
    ----------
    executor : grading.execute.GradingExecutor
        Its kernel client and kill switch are used; output counts against its cap.
    call_timeout : float
        Seconds one call may take before the kernel is interrupted.
    """

    def __init__(self, executor, call_timeout):
        self.executor, self.call_timeout = executor, call_timeout
        self.deadline = None  # monotonic time by which the current test cell must end
        self.broken = ""  # why the kernel can no longer answer, once it cannot

    def _time_left(self) -> float:
        if self.deadline is None:
            return self.call_timeout
        return max(0.001, min(self.call_timeout, self.deadline - time.monotonic()))

    def setup(self):
        self._execute(_bridge_setup_code(), self.call_timeout, expect_answer=False)

    def describe(self, name: str) -> dict:
        if not isinstance(name, str) or not name.isidentifier():
            return {"kind": "missing"}
        try:
            return self._answer(self._execute(f"__nbg_bridge__.describe({name!r})", self._time_left()))
        except CallFailed as error:
            return {"kind": "unsupported", "type": f"unreadable ({error})"}

    def call(self, name: str, payload: str, judge) -> dict:
        if not isinstance(name, str) or not name.isidentifier():
            return {"op": "call_failed", "reason": "bad function name"}
        try:
            text = self._execute(f"__nbg_bridge__.call({name!r}, {payload!r})", self._time_left(),
                                 on_input=judge.callback)
            answer = self._answer(text)
        except CallFailed as error:
            return {"op": "call_failed", "reason": f"calling your {name}: {error}"}
        return {"op": "reply", **answer}

    @staticmethod
    def _answer(text) -> dict:
        try:
            answer = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            raise CallFailed("the kernel's answer was not readable (did the notebook replace the grader's bridge?)")
        if not isinstance(answer, dict):
            raise CallFailed("the kernel's answer was not readable")
        return answer

    def _execute(self, code, timeout, *, expect_answer=True, on_input=None):
        from jupyter_core.utils import run_sync

        if self.broken:
            raise CallFailed(self.broken)
        try:
            return run_sync(self._execute_async)(code, timeout, expect_answer, on_input)
        except ValueError as error:  # a message failing verification: stop that kernel
            self.broken = f"a kernel message failed verification ({error})"
            self.executor._kill_kernel()
            raise CallFailed(self.broken) from None

    async def _execute_async(self, code, timeout, expect_answer, on_input):
        executor = self.executor
        kc = executor.kc
        msg_id = kc.execute(code, silent=True, store_history=False, allow_stdin=True)
        answer, replied, idle, interrupted = None, False, False, False
        deadline = time.monotonic() + timeout
        poller = zmq.asyncio.Poller()
        channels = {kc.iopub_channel.socket: ("iopub", kc.iopub_channel),
                    kc.stdin_channel.socket: ("stdin", kc.stdin_channel),
                    kc.shell_channel.socket: ("shell", kc.shell_channel)}
        for socket in channels:
            poller.register(socket, zmq.POLLIN)
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
            for socket in events:
                stream, channel = channels[socket]
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
                    if kind == "display_data":
                        data = msg.get("content", {}).get("data", {})
                        if isinstance(data.get(kernel_side.MIME), str):
                            answer = data[kernel_side.MIME]
                    elif kind == "status" and msg.get("content", {}).get("execution_state") == "idle":
                        idle = True
                elif stream == "stdin" and kind == "input_request":
                    prompt = str(msg.get("content", {}).get("prompt", ""))
                    reply = ""
                    if on_input is not None and prompt.startswith(kernel_side.CALLBACK_PROMPT):
                        reply = on_input(prompt[len(kernel_side.CALLBACK_PROMPT):])
                    kc.input(reply)
                elif stream == "shell":
                    replied = True
        if interrupted:
            raise CallFailed("it ran past the time limit of the test cell that called it")
        if expect_answer and answer is None:
            raise CallFailed("the kernel gave no answer (did the notebook replace the grader's bridge?)")
        return answer


def _message_size(msg) -> int:
    content = msg.get("content", {})
    try:
        return len(json.dumps(content, default=str))
    except (TypeError, ValueError):
        return 0


class JudgeProcess:
    """``grading.judge`` in a sandbox of its own, and the pipe to it.

    Parameters
    ----------
    sandboxed : bool
        Run it under bubblewrap (an empty folder of its own, no network).
    limits : Limits
    files : dict of str to bytes, optional
        The assignment's data files (from the course's source folder, never the
        submission), written into the judge's working folder.
    """

    def __init__(self, *, sandboxed: bool, limits: Limits, files=None):
        self.limits = limits
        self.folder = Path(tempfile.mkdtemp(prefix="nbgj-"))
        for relative, content in (files or {}).items():  # the assignment's own data files
            target = self.folder / relative
            if self.folder not in target.resolve().parents:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        command = [sys.executable, "-c", "from grading.judge import main; main()"]
        environment = None
        if sandboxed:
            uid = None
            if os.geteuid() == 0:
                uid = sandbox_uid() + JUDGE_UID_OFFSET
                os.chown(self.folder, uid, uid)
            command = bwrap_command(command, self.folder, limits, uid=uid, packages=JUDGE_PACKAGES)
            environment = {}
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=environment, start_new_session=True)
        self._ready = False

    def _read(self, timeout):
        ready, _, _ = select.select([self.process.stdout], [], [], max(0.0, timeout))
        if not ready:
            raise JudgeProtocolError(f"the judge did not answer within {timeout:.0f} s")
        message = read_frame(self.process.stdout)
        if message is None:
            raise JudgeProtocolError(f"the judge stopped (exit code {self.process.poll()})")
        return message

    def wait_ready(self, timeout=120):
        if not self._ready:
            message = self._read(timeout)
            if message.get("op") != "ready":
                raise JudgeProtocolError(f"unexpected first message {message.get('op')!r}")
            self._ready = True

    def run_cell(self, source: str, name: str, bridge: KernelBridge, timeout: float) -> dict:
        """The judge's verdict on one test cell (``{"passed", "stdout", "ename", "evalue"}``)."""
        self.wait_ready()
        self._bridge = bridge
        write_frame(self.process.stdin, {"op": "run", "source": source, "name": name})
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline - time.monotonic())
            op = message.get("op")
            if op == "done":
                return message
            if op == "lookup":
                write_frame(self.process.stdin, {"op": "answer", **bridge.describe(message.get("name"))})
            elif op == "call":
                write_frame(self.process.stdin, bridge.call(message.get("name"), str(message.get("payload", "")), self))
            else:
                raise JudgeProtocolError(f"unexpected message {str(op)[:40]!r} from the judge")

    def callback(self, request_text: str) -> str:
        """Relay a callback from the student's kernel to the judge; the kernel's reply text."""
        try:
            request = json.loads(request_text)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):
            return json.dumps({"ok": False, "error": "unreadable callback request"})
        write_frame(self.process.stdin, {"op": "callback", "id": request.get("id"), "args": request.get("args"),
                                         "kwargs": request.get("kwargs")})
        message = self._read(self.limits.cell_timeout or 60)
        return json.dumps({"ok": bool(message.get("ok")), "value": message.get("value"),
                           "error": message.get("error")})

    def close(self):
        try:
            if self.process.poll() is None:
                write_frame(self.process.stdin, {"op": "exit"})
                self.process.wait(timeout=2)
        except Exception:
            pass
        if self.process.poll() is None:
            self.process.kill()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except Exception:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

