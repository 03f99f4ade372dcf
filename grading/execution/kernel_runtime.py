"""The part of the bridge that runs inside the student's kernel.

Its source (with :mod:`grading.execution.plain`'s) is executed in the kernel before the
first cell; it defines ``__nbg_bridge__`` in the kernel's namespace. For each
test cell that needs the notebook, the grader runs ``__nbg_bridge__.serve()``
as one silent execution: it reads the judge's requests (``describe`` a name,
``call`` a function) from the kernel's stdin channel and sends each answer,
as plain data, in the prompt of its next input request, until the grader
says ``end``. One round trip costs an input request, not a cell execution.

Nothing here is trusted: the student's code can replace or break all of it.
That changes only what the student's own functions appear to return, which
the judge checks outside this process; expected values never come here.
"""

SERVE_PROMPT = "\x00nbg-serve\x00"
CALLBACK_PROMPT = "\x00nbg-callback\x00"


def _install(plain, user_ns, max_answer_bytes=16 * 2**20):
    import builtins
    import sys
    import types

    def dumps(answer):
        return plain.json.dumps(answer, ensure_ascii=True, allow_nan=True)

    def callback_stub(node):
        if "student" in node:  # one of the notebook's own functions, passed back by the test
            name = str(node["student"])
            return lambda *args, **kwargs: user_ns[name](*args, **kwargs)
        handle = node.get("id")

        def call_judge(*args, **kwargs):
            # input() travels to the grader over the kernel's stdin channel.
            request = dumps({"id": handle, "args": plain.encode(list(args)), "kwargs": plain.encode(kwargs)})
            reply = plain.json.loads(builtins.input(CALLBACK_PROMPT + request))
            if not reply.get("ok"):
                raise RuntimeError(str(reply.get("error", "the grader's function failed")))
            return plain.decode(reply["value"])

        call_judge.__name__ = str(node.get("name", "callback"))
        return call_judge

    def describe(name):
        if name not in user_ns:
            return {"kind": "missing"}
        value = user_ns[name]
        if isinstance(value, types.ModuleType):  # e.g. np: the judge imports its own copy
            return {"kind": "module", "module": str(getattr(value, "__name__", ""))}
        if isinstance(value, type):
            return {"kind": "unsupported", "type": type(value).__name__}
        if callable(value) and not hasattr(value, "__array__"):
            return {"kind": "function"}
        try:
            return {"kind": "value", "value": plain.encode(value)}
        except plain.PlainDataError as error:
            return {"kind": "unsupported", "type": str(error)}

    def parameter_names(function):
        try:
            import inspect

            return [str(name)[:60] for name in inspect.signature(function).parameters][:50]
        except Exception:
            return []

    def call(name, payload):
        try:
            request = plain.json.loads(payload)
            args = plain.decode(request["args"], callback=callback_stub)
            kwargs = plain.decode(request["kwargs"], callback=callback_stub)
            # A second copy, as sent: an argument the function changes in place is reported.
            sent_args = plain.decode(request["args"], callback=callback_stub)
            sent_kwargs = plain.decode(request["kwargs"], callback=callback_stub)
            function = user_ns[name]
        except Exception as error:
            return {"ok": False, "ename": "BridgeError", "evalue": f"{type(error).__name__}: {error}"}
        try:
            result = function(*args, **kwargs)
        except BaseException as error:  # SystemExit, KeyboardInterrupt too: the judge reports them
            builtin = type(error).__module__ == "builtins"
            return {"ok": False, "ename": type(error).__name__, "evalue": str(error)[:4000], "builtin": builtin}
        # The arguments it changed in place go back: the judge fails the test (its own copy never changes).
        after = {}
        for key, value in [*enumerate(args), *kwargs.items()]:
            sent = sent_args[key] if isinstance(key, int) else sent_kwargs[key]
            if type(value).__name__ in ("ndarray", "list", "dict") and not plain.same(sent, value):
                after[str(key)] = value
        try:
            return {"ok": True, "value": plain.encode(result), "after": plain.encode(after),
                    "names": parameter_names(function) if after else []}
        except plain.PlainDataError as error:
            return {"ok": False, "ename": "NotPlainData", "evalue": str(error)}
        except Exception as error:
            return {"ok": False, "ename": "NotPlainData", "evalue": f"{type(error).__name__}: {error}"}

    def sized(answer):
        text = dumps(answer)
        if len(text) > max_answer_bytes:  # the grader would refuse it: say why instead
            text = dumps({"ok": False, "ename": "AnswerTooLarge",
                          "evalue": f"its result is {len(text)} bytes as sent to the grader, more than the "
                                    f"{max_answer_bytes} it accepts; return less data"})
        return text

    def serve():
        # Each prompt carries the number of the request it answers (0: ready), so that a reply
        # meant for a prompt of the notebook's own, read here, only makes this loop ask again.
        answer, seq = {"ready": True}, 0
        while True:
            try:
                text = builtins.input(f"{SERVE_PROMPT}{seq}\x00{sized(answer)}")
            except (KeyboardInterrupt, EOFError):
                return
            try:
                request = plain.json.loads(text)
            except ValueError:
                continue
            if not isinstance(request, dict):
                continue
            op = request.get("op")
            seq = request.get("seq") if type(request.get("seq")) is int else seq + 1
            if op == "describe":
                answer = describe(str(request.get("name", "")))
            elif op == "call":
                answer = call(str(request.get("name", "")), str(request.get("payload", "")))
            else:
                return

    bridge = types.SimpleNamespace(serve=serve, describe=describe, call=call)
    user_ns["__nbg_bridge__"] = bridge
    sys.modules.pop("_nbg_plain", None)


def guard_interrupts(shell):
    """Let SIGINT raise only while a cell's code runs, and never inside a message (run in the kernel before any cell).

    ipykernel (7.4) lets SIGINT raise ``KeyboardInterrupt`` for the whole time it handles a
    request. An interrupt arriving just after the code finished (the grader interrupts at a
    deadline the code had just met, more often on a loaded machine) is raised inside ipykernel:
    it logs "KeyboardInterrupt caught in kernel", sends no reply and stops answering, and the
    grader kills the kernel, so an honest cell after it scores 0 for a race the student did not
    cause. The handler installed around each request here raises only when a frame of a cell's
    code (a file IPython compiled for a cell, the grader's silent executions included) is on the
    stack; otherwise the interrupt came too late for any code to stop and is dropped.

    An interrupt that lands while the kernel sends or reads a message (an ``input()`` of the
    bridge's, a callback, the notebook's own sends) would cut the message between two of its
    frames: ZeroMQ then joins the rest to the next message, whose signature fails, and the
    grader must stop the kernel. The kernel's session is wrapped so that such an interrupt is
    held until the message is whole, then raised there, where the cell's code resumes. The
    student's code can undo all this: that only exposes the student's own kernel to the races
    again.
    """
    import signal
    import threading

    kernel = getattr(shell, "kernel", None)
    cells = getattr(getattr(shell, "compile", None), "_filename_map", None)
    session = getattr(kernel, "session", None)
    if kernel is None or session is None or not isinstance(cells, dict):
        return
    main_thread = threading.get_ident()
    state = {"in_message": 0, "held": False}

    def whole_messages(method):
        def wrapper(*args, **kwargs):
            if threading.get_ident() != main_thread:  # signals reach the main thread only
                return method(*args, **kwargs)
            state["in_message"] += 1
            try:
                return method(*args, **kwargs)
            finally:
                state["in_message"] -= 1
                if state["held"] and not state["in_message"]:
                    state["held"] = False
                    raise KeyboardInterrupt
        return wrapper

    session.send, session.recv = whole_messages(session.send), whole_messages(session.recv)

    def on_interrupt(signum, frame):
        while frame is not None:
            if frame.f_code.co_filename in cells:
                if state["in_message"]:
                    state["held"] = True
                    return
                raise KeyboardInterrupt
            frame = frame.f_back

    def pre_handler_hook():
        kernel.saved_sigint_handler = signal.signal(signal.SIGINT, on_interrupt)

    kernel.pre_handler_hook = pre_handler_hook
