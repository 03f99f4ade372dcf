"""The grader's end of the bridge into the student's kernel (see :mod:`grading.execution.kernel_runtime`).

The kernel is hostile: whatever it sends (answers, callback requests, prompts,
floods) ends, at worst, as the failure of the test cell that called it, never
as the grader's. Its answers travel to the judge as text inside the grader's
own message (``{"op": "reply", "text": ...}``), so no field of theirs can
become a field of the protocol; everything it sends is counted in bytes.
"""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path

import zmq
import zmq.asyncio

from grading.execution import kernel_runtime as kernel_side
from grading.execution import plain

INTERRUPT_GRACE = 10  # seconds an interrupted call has to stop before its kernel is killed
CALLBACK_BYTES_FACTOR = 64  # all callback requests of a test cell: at most this many answers' worth
MAX_STRAY_PROMPTS = 1_000  # input() prompts of the notebook's own per test cell (each answered '')
_PAST_TIME = "it ran past the time limit of the test cell that called it"
END_REQUEST = json.dumps({"op": "end"})
_SERVE_ENDED = "the kernel stopped answering the grader (did the notebook replace input() or the grader's bridge?)"


class CallFailed(Exception):
    """The grader could not get an answer from the student's kernel (timeout, death, flood)."""


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (lone surrogates count 3), without one big copy."""
    if text.isascii():
        return len(text)
    return sum(len(text[i:i + 2**20].encode("utf-8", "surrogatepass")) for i in range(0, len(text), 2**20))


def _part(msg, key) -> dict:
    """A dict field of a kernel message, or {} (a forged message may hold anything)."""
    value = msg.get(key) if isinstance(msg, dict) else None
    return value if isinstance(value, dict) else {}


def _message_size(msg) -> int:
    try:
        return len(json.dumps(_part(msg, "content"), default=str))
    except (TypeError, ValueError, RecursionError):
        return 0


def bridge_setup_code(max_answer_bytes: int) -> str:
    """The code that installs ``__nbg_bridge__`` in the student's kernel."""
    plain_source = Path(plain.__file__).read_text()
    side_source = Path(kernel_side.__file__).read_text()
    return (
        "def __nbg_setup__():\n"
        "    import types\n"
        "    plain = types.ModuleType('_nbg_plain')\n"
        f"    exec(compile({plain_source!r}, '<nbg-plain>', 'exec'), plain.__dict__)\n"
        "    side = types.ModuleType('_nbg_bridge')\n"
        f"    exec(compile({side_source!r}, '<nbg-bridge>', 'exec'), side.__dict__)\n"
        f"    side._install(plain, get_ipython().user_ns, {int(max_answer_bytes)})\n"
        "__nbg_setup__()\n"
        "del __nbg_setup__\n"
    )


def interrupt_guard_code() -> str:
    """The code that installs :func:`kernel_runtime.guard_interrupts` in a fresh kernel."""
    return (inspect.getsource(kernel_side.guard_interrupts)
            + "guard_interrupts(get_ipython())\ndel guard_interrupts\n")


def install_interrupt_guard(executor):
    """Run the interrupt guard in ``executor``'s fresh kernel (a silent execution, before any cell)."""
    executor.wait_for_reply(executor.kc.execute(interrupt_guard_code(), silent=True, store_history=False))


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
    max_answer_bytes : int
        The largest answer or callback request (UTF-8 bytes) the kernel may send.
    max_callbacks : int
        Calls of the tests' functions the kernel may make in one test cell.
    """

    def __init__(self, executor, call_timeout, max_answer_bytes=16 * 2**20, max_callbacks=100_000):
        self.executor, self.call_timeout, self.max_answer_bytes = executor, call_timeout, max_answer_bytes
        self.max_callbacks = max_callbacks
        self.deadline = None  # monotonic time by which the current test cell must end
        self.broken = ""  # why the kernel can no longer answer, once it cannot
        self._serving = None  # msg_id of the running serve() execution
        self._seq, self._pending = 0, None  # the number and text of the request the kernel answers next
        self._interrupted = False
        self._ending = None  # msg_id of the serve loop being ended
        self.start_cell(None)

    def start_cell(self, deadline):
        """A new test cell: its deadline, and fresh counts of what the kernel may send."""
        self.deadline = deadline
        self.callbacks = self.callback_bytes = self.stray_prompts = 0
        self._abort = ""  # why the current call must end (a cap the kernel exceeded)

    def _time_left(self) -> float:
        if self.deadline is None:
            return self.call_timeout
        return max(0.001, min(self.call_timeout, self.deadline - time.monotonic()))

    def setup(self):
        from jupyter_core.utils import run_sync

        msg_id = self.executor.kc.execute(bridge_setup_code(self.max_answer_bytes), silent=True, store_history=False)
        self._run(run_sync(self._until_done), msg_id, self.call_timeout)

    def describe(self, name: str) -> dict:
        """The judge's message answering a lookup: the kernel's answer as text, or why there is none."""
        if not isinstance(name, str) or not name.isidentifier():
            return {"op": "answer", "text": '{"kind": "missing"}'}
        try:
            return {"op": "answer", "text": self._request({"op": "describe", "name": name})}
        except CallFailed as error:
            return {"op": "answer_failed", "reason": str(error)}

    def call(self, name: str, payload: str, judge) -> dict:
        """The judge's message answering a call: ``reply`` with the kernel's text, or ``call_failed``."""
        if not isinstance(name, str) or not name.isidentifier():
            return {"op": "call_failed", "reason": "bad function name"}
        try:
            text = self._request({"op": "call", "name": name, "payload": payload}, on_callback=judge.callback)
        except CallFailed as error:
            return {"op": "call_failed", "reason": f"calling your {name}: {error}"}
        return {"op": "reply", "text": text}

    def end_cell(self):
        """Stop the kernel's serve loop (the test cell is over); kill a kernel that does not stop."""
        from jupyter_core.utils import run_sync

        msg_id, self._serving = self._serving, None
        if msg_id is None or self.broken:
            return
        self._ending = msg_id
        try:
            self.executor.kc.input(END_REQUEST)
            self._run(run_sync(self._until_done), msg_id, INTERRUPT_GRACE)
        except CallFailed:
            if not self.broken:
                self.broken = "the kernel did not stop serving the grader's requests"
                self.executor._kill_kernel()
        finally:
            self._ending = None

    def _request(self, request: dict, on_callback=None) -> str:
        from jupyter_core.utils import run_sync

        if self.broken or self._abort:  # a cap exceeded earlier in this cell fails its later calls too
            raise CallFailed(self.broken or self._abort)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise CallFailed("it ran past the time limit of the test cell that called it")
        kc = self.executor.kc
        if self._serving is None:
            self._serving = kc.execute("__nbg_bridge__.serve()", silent=True, store_history=False, allow_stdin=True)
            self._seq, self._pending = 0, None
            ready = self._run(run_sync(self._next_answer), self._serving, self._time_left(), None)
            if ready.replace(" ", "") != '{"ready":true}':
                raise CallFailed("the kernel's answer was not readable")
        self._seq += 1
        self._pending = json.dumps({**request, "seq": self._seq})
        kc.input(self._pending)
        self._interrupted = False
        try:
            return self._run(run_sync(self._next_answer), self._serving, self._time_left(), on_callback)
        except CallFailed:
            if self._interrupted:  # where the interrupt left the kernel is unknown: a fresh serve loop next time
                self.end_cell()
            raise

    def _run(self, function, *args):
        try:
            return function(*args)
        except ValueError as error:  # a message failing verification: stop that kernel
            self.broken = f"a kernel message failed verification ({str(error)[:200]})"
            self.executor._kill_kernel()
            raise CallFailed(self.broken) from None

    async def _until_done(self, msg_id, timeout):
        """Wait for the execution ``msg_id`` to reply and go idle."""
        await self._wait(msg_id, timeout, None, want_answer=False)

    async def _next_answer(self, msg_id, timeout, on_callback) -> str:
        """The answer in serve()'s next input prompt (its text, checked for size)."""
        return await self._wait(msg_id, timeout, on_callback, want_answer=True)

    def _dead(self) -> str:
        executor = self.executor
        if executor._output_limit_hit:
            return f"the notebook printed more than {executor.max_output_bytes} bytes of output"
        if getattr(executor, "_message_error", ""):
            return f"the grader stopped the kernel: {executor._message_error}"
        exit_info = executor._exit_description()
        return "the kernel died" + (f" ({exit_info})" if exit_info else "")

    def _refuse(self, reason):
        """End the current call for ``reason`` (a cap it exceeded): interrupt the kernel now."""
        if not self._abort:
            self._abort = reason

    def _on_callback(self, text, on_callback) -> str:
        self.callbacks += 1
        size = utf8_size(text)
        self.callback_bytes += size
        total = CALLBACK_BYTES_FACTOR * self.max_answer_bytes
        if self.callbacks > self.max_callbacks:
            self._refuse(f"your function called the function the test passed to it more than {self.max_callbacks} "
                         "times in one test cell")
        elif size > self.max_answer_bytes or self.callback_bytes > total:
            self._refuse(f"your function sent more than {self.max_answer_bytes if size > self.max_answer_bytes else total} "
                         "bytes to the function the test passed to it")
        if self._abort:
            return json.dumps({"ok": False, "error": self._abort})
        return on_callback(text, self._time_left())

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
            if self._abort and want_answer and not interrupted:
                deadline = 0.0  # a cap was exceeded during a call: interrupt it now
            left = deadline - time.monotonic()
            if left <= 0:
                if interrupted:  # it ignored the interrupt: its state is unknown, stop it
                    executor._kill_kernel()
                    self.broken = self._abort or (f"a call ran longer than {timeout:g} s and did not stop when "
                                                  "interrupted, so the grader stopped the kernel")
                    raise CallFailed(self.broken)
                interrupted = self._interrupted = True
                try:
                    await executor.km.interrupt_kernel()
                except Exception:
                    pass
                deadline = time.monotonic() + INTERRUPT_GRACE
                continue
            if not executor._kernel_alive():
                self.broken = self._dead()
                raise CallFailed(self.broken)
            events = dict(await poller.poll(min(left, 1.0) * 1000))
            for ready_socket in events:
                stream, channel = channels[ready_socket]
                msg = await channel.get_msg(timeout=0)
                if _part(msg, "parent_header").get("msg_id") != msg_id:
                    continue
                kind = msg.get("msg_type")
                if stream == "iopub":
                    executor._output_bytes += _message_size(msg)
                    if executor._output_bytes > executor.max_output_bytes:
                        executor._output_limit_hit = True
                        executor._kill_kernel()
                        self.broken = f"the notebook printed more than {executor.max_output_bytes} bytes of output"
                        raise CallFailed(self.broken)
                    if kind == "status" and _part(msg, "content").get("execution_state") == "idle":
                        idle = True
                elif stream == "stdin" and kind == "input_request":
                    prompt = _part(msg, "content").get("prompt", "")
                    prompt = prompt if isinstance(prompt, str) else ""
                    if prompt.startswith(kernel_side.CALLBACK_PROMPT) and on_callback is not None:
                        kc.input(self._on_callback(prompt[len(kernel_side.CALLBACK_PROMPT):], on_callback))
                    elif not want_answer and msg_id == self._ending and prompt.startswith(kernel_side.SERVE_PROMPT):
                        self._stray(1)  # it read a stale reply instead of the end: say it again
                        kc.input(END_REQUEST)
                    elif want_answer and prompt.startswith(kernel_side.SERVE_PROMPT):
                        seq, _, body = prompt[len(kernel_side.SERVE_PROMPT):].partition("\x00")
                        if seq == str(self._seq):
                            if interrupted:
                                raise CallFailed(self._abort or _PAST_TIME)
                            return self._answer(body)
                        if seq == str(self._seq - 1) and self._pending:  # a stray reply reached the loop
                            kc.input(self._pending)
                            self._stray(1)
                        else:  # a forged prompt of the notebook's own: an empty reply
                            self._stray(1)
                            kc.input("")
                    else:  # a prompt of the notebook's own, or a stray one: an empty reply
                        self._stray(1)
                        kc.input("")
                elif stream == "shell":
                    replied = True
        if msg_id == self._serving:  # serve() ended: the next request starts it again
            self._serving = None
        if want_answer:  # ended without answering: interrupted, or input() or the bridge was replaced
            raise CallFailed(self._abort or (_PAST_TIME if interrupted else _SERVE_ENDED))
        return None

    def _stray(self, count):
        self.stray_prompts += count
        if self.stray_prompts > MAX_STRAY_PROMPTS:
            self._refuse(f"the notebook asked for input more than {MAX_STRAY_PROMPTS} times while a test "
                         "cell called it")

    def _answer(self, text) -> str:
        size = utf8_size(text)
        if size > self.max_answer_bytes:
            raise CallFailed(f"the kernel's answer is larger than {self.max_answer_bytes} bytes "
                             f"({size} bytes); return less data")
        return text
