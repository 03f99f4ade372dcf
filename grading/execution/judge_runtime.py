"""The judge: runs a notebook's test cells outside the student's kernel.

Each notebook's judge is forked from a judge server (:func:`serve_forks`),
which the grader (:mod:`grading.execution.judge_client`) starts in a sandbox of its own,
with ``nbcore`` and no view of the student's files or processes. A judge
talks to the grader over its own socket in frames of JSON
(:func:`read_frame`, :func:`write_frame`):

* the grader sends ``{"op": "run", "source": ..., "name": ...}`` for each test
  cell, and the judge answers ``{"op": "done", "passed": ..., "stdout": ...,
  "ename": ..., "evalue": ...}``;
* while a cell runs, a name the cell does not define is looked up in the
  student's kernel (``{"op": "lookup"}``), and a call of a student's
  function (a :class:`StudentFunction`) is sent there as ``{"op": "call"}``
  with its arguments as plain data (:mod:`grading.execution.plain`); the kernel's
  answer comes back as text inside the grader's reply (``{"op": "reply", "text"}``),
  decoded here without pickle. The judge's arguments never change: an argument
  the function changed in place (in the kernel) fails the test;
* a callable the test passes to a student's function stays here: the
  student's code calls it through the grader (``{"op": "callback"}``), until
  the cell's time is up (an alarm here). A reference function (``nbcore``)
  is never handed to the student's code: the test is refused
  (``{"op": "grader_error"}``), the grader's failure.

The expected values, the comparisons and the verdict never leave this process.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import re
import signal
import traceback
import warnings

from grading.execution import plain
from grading.execution.diagnosis_runtime import Diagnoser, Recorder
from grading.execution.frames import JudgeProtocolError, read_frame, write_frame

# Exceptions a student's function may raise that the judge re-raises as themselves,
# so that tests written for the student's own kernel (pytest.raises(ValueError)) hold.
_REBUILT_EXCEPTIONS = {
    name: getattr(builtins, name) for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), Exception)
    and name not in ("SystemExit", "KeyboardInterrupt", "GeneratorExit", "StopIteration", "StopAsyncIteration")
}


class StudentError(Exception):
    """A student's function raised an exception that is not a builtin one."""


class InPlaceChange(StudentError):
    """A student's function changed an argument in place (in the kernel; never the judge's copy).
    It carries the result and the arguments as the kernel left them, for the diagnosis."""

    def __init__(self, message, value, args, kwargs):
        super().__init__(message)
        self.value, self.args_after, self.kwargs_after = value, args, kwargs


class AuthoringError(BaseException):
    """A test does what the judge refuses (e.g. hands the reference to the student's code):
    the grader's failure, never a grade."""


class CallbackOverrun(BaseException):
    """The judge's alarm, inside a test's function the student's code called (not an Exception:
    the test's function cannot swallow it)."""


MAX_CALLBACK_RESULT_BYTES = 16 * 2**20  # what one test's function may send back to the kernel


class StudentFunction:
    """Stands, in the judge, for a function defined in the student's kernel.

    Calling it runs the function there on plain-data arguments and returns its
    result as plain data. The judge's arguments are never changed by a call: a
    function that changes one in place (in the kernel) fails the test with its own
    message (:class:`InPlaceChange`).
    """

    __nbg_remote__ = True

    def __init__(self, channel, name):
        self._channel, self.__name__ = channel, name
        self.__qualname__ = name

    def __repr__(self):
        return f"<student function {self.__name__}>"

    def __call__(self, *args, **kwargs):
        recorder = self._channel.recorder
        snapshot = recorder.before(self.__name__, args, kwargs)
        try:
            value = self._channel.call(self.__name__, args, kwargs)
        except InPlaceChange as change:  # the diagnosis sees the arguments as the student's code left them
            recorder.after(self.__name__, snapshot, change.value, change.args_after, change.kwargs_after)
            raise
        except BaseException as error:
            recorder.failed(self.__name__, snapshot, error)
            raise
        recorder.after(self.__name__, snapshot, value, args, kwargs)
        return value


def _parse_answer(reply: dict, what: str) -> dict:
    """The kernel's answer, relayed as text inside the grader's message (never merged into it)."""
    text = reply.get("text")
    try:
        answer = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError, MemoryError):
        answer = None
    if not isinstance(answer, dict):
        raise StudentError(f"the kernel's answer to {what} was not readable (did the notebook replace "
                           "the grader's bridge?)")
    return answer


def _is_reference(function) -> bool:
    """Whether a callable comes from the reference (nbcore), unwrapping partials and methods."""
    for _ in range(10):
        module = getattr(function, "__module__", None)
        if not isinstance(module, str):
            module = getattr(type(function), "__module__", "")
        if isinstance(module, str) and (module == "nbcore" or module.startswith("nbcore.")):
            return True
        inner = getattr(function, "func", None) or getattr(function, "__func__", None)
        if inner is None or inner is function:
            return False
        function = inner
    return False


class Channel:
    """The judge's end of the pipe to the grader."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self._callbacks: dict[int, object] = {}
        self._in_callback = False
        self.recorder = Recorder()  # the calls a failed cell's diagnosis replays
        self.failure = ""  # why the cell fails whatever the test caught (in-place change, slow callback)

    def request(self, message: dict) -> dict:
        write_frame(self.writer, message)
        while True:
            reply = read_frame(self.reader)
            if reply is None:
                raise JudgeProtocolError("the grader closed the pipe")
            if reply.get("op") != "callback":
                return reply
            write_frame(self.writer, self._run_callback(reply))

    def _run_callback(self, request: dict) -> dict:
        handle = request.get("id")  # the kernel's value: an int or nothing
        function = self._callbacks.get(handle) if type(handle) is int else None
        if function is None:
            return {"op": "callback_result", "ok": False, "error": "unknown callback"}
        seconds = request.get("seconds")
        seconds = float(seconds) if isinstance(seconds, (int, float)) and seconds > 0 else 60.0
        self._in_callback = True
        previous = signal.signal(signal.SIGALRM, _overrun)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            args = plain.decode(request.get("args"))
            kwargs = plain.decode(request.get("kwargs"))
            if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
                raise plain.PlainDataError("callback arguments must be a list and a dict of str keys")
            value = plain.encode(function(*args, **kwargs))
            signal.setitimer(signal.ITIMER_REAL, 0)
            if len(json.dumps(value)) > MAX_CALLBACK_RESULT_BYTES:
                raise plain.PlainDataError(f"a result larger than {MAX_CALLBACK_RESULT_BYTES} bytes")
            return {"op": "callback_result", "ok": True, "value": value}
        except CallbackOverrun:
            self.failure = ("your function's call of the function the test passed to it ran past the time "
                            "limit of the test cell")
            return {"op": "callback_result", "ok": False, "error": self.failure}
        except Exception as error:
            if isinstance(error, plain.PlainDataError) and "larger than" in str(error):
                self.failure = f"the function the test passed to yours returned {error} on your arguments"
            return {"op": "callback_result", "ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            self._in_callback = False

    def _register_callback(self, function):
        if isinstance(function, StudentFunction):  # the student's own function: it runs there directly
            return {"t": "callback", "student": function.__name__}
        if _is_reference(function):
            raise AuthoringError(f"the test passes the reference's {getattr(function, '__name__', function)!r} "
                                     "to the student's code, which must never run the reference: pass a "
                                     "function of the test's own")
        handle = len(self._callbacks) + 1
        self._callbacks[handle] = function
        return {"t": "callback", "id": handle, "name": str(getattr(function, "__name__", "callback"))[:100]}

    def lookup(self, name: str) -> dict:
        reply = self.request({"op": "lookup", "name": name})
        if reply.get("op") != "answer":
            return {"kind": "unsupported", "type": f"unreadable ({str(reply.get('reason', ''))[:500]})"}
        try:
            return _parse_answer(reply, f"the question what {name} is")
        except StudentError as error:
            return {"kind": "unsupported", "type": f"unreadable ({error})"}

    def call(self, name, args, kwargs):
        if self._in_callback:
            raise RuntimeError(f"the tests cannot call your {name} from inside a function they passed to you")
        try:
            payload = {"args": plain.encode(list(args), callback=self._register_callback),
                       "kwargs": plain.encode(dict(kwargs), callback=self._register_callback)}
        except plain.PlainDataError as error:
            raise TypeError(f"the test passes {error} to {name}, which cannot cross to the student's kernel") from None
        try:
            reply = self.request({"op": "call", "name": name, "payload": json.dumps(payload)})
        finally:
            self._callbacks.clear()
        if reply.get("op") != "reply":  # the grader could not run it: timeout, dead kernel, flood, ...
            raise StudentError(str(reply.get("reason", "the call failed"))[:4000])
        answer = _parse_answer(reply, f"the call of {name}")
        if answer.get("ok") is not True:
            ename, evalue = str(answer.get("ename", "Error"))[:200], str(answer.get("evalue", ""))[:4000]
            if ename == "NotPlainData":
                raise TypeError(f"{name} returned {evalue}; return numbers, strings or NumPy arrays "
                                "(or lists, tuples and dicts of them)")
            kind = _REBUILT_EXCEPTIONS.get(ename) if answer.get("builtin") is True else None
            try:  # built apart from raising: `except TypeError` must not catch a rebuilt TypeError
                rebuilt = kind(evalue) if kind is not None else None
            except Exception:  # an exception class that needs other arguments
                rebuilt = None
            if rebuilt is not None:
                raise rebuilt
            raise StudentError(f"{name} raised {ename}: {evalue}")
        try:
            value = plain.decode(answer.get("value"))
            after = plain.decode(answer.get("after", {"t": "dict", "v": []}))
        except plain.PlainDataError as error:
            raise TypeError(f"{name} returned something the grader cannot read: {error}") from None
        change = _changed_in_place(name, args, kwargs, after, value, answer.get("names"))
        if change is not None:  # the cell fails even if the test catches the exception
            self.failure = self.failure or str(change)
            raise change
        return value


def _overrun(signum, frame):
    raise CallbackOverrun()


def _changed_in_place(name, args, kwargs, after, value, names):
    """The :class:`InPlaceChange` of an argument the kernel reports its function changed, or None.
    The judge's own arguments stay as they were: nothing is copied back."""
    names = names if isinstance(names, list) else []
    new_args, new_kwargs, changed = list(args), dict(kwargs), []
    for key, new in (after.items() if isinstance(after, dict) else ()):
        if isinstance(key, str) and key.isdigit() and int(key) < len(args) and not plain.same(args[int(key)], new):
            index = int(key)
            label = names[index] if index < len(names) and isinstance(names[index], str) \
                and names[index].isidentifier() and len(names[index]) <= 60 else f"number {index + 1}"
            new_args[index] = new
            changed.append((label, args[index]))
        elif isinstance(key, str) and key in kwargs and not plain.same(kwargs[key], new):
            new_kwargs[key] = new
            changed.append((key, kwargs[key]))
    if not changed:
        return None
    label, original = changed[0]
    kind = {"ndarray": "array", "list": "list", "dict": "dict"}.get(type(original).__name__, "value")
    return InPlaceChange(f"{name} changed its argument {label} in place (the caller's {kind}); compute on a copy",
                         value, new_args, new_kwargs)


# Modules a test cell may use through the notebook's own imports (``np`` from the setup
# cell): the judge imports its own copy, never the kernel's object.
SHARED_MODULES = ("numpy", "scipy", "pandas", "sklearn", "matplotlib", "nbkit", "math", "statistics",
                  "collections", "itertools", "functools", "random", "re", "string", "fractions", "decimal")


def _import_shared(name: str, module: str):
    import importlib

    if not isinstance(module, str) or module.split(".")[0] not in SHARED_MODULES:
        raise NameError(f"the notebook's {name} is the module {str(module)[:100]}, which the tests cannot use; "
                        "import it in the test cell")
    try:
        return importlib.import_module(module)
    except ImportError:
        raise NameError(f"the notebook's {name} is the module {module}, which the grader cannot import") from None


class StudentNamespace(dict):
    """Globals of the test cells: a name they do not define comes from the student's kernel.

    Values are looked up on every use, so a test cell sees the kernel as it is
    when the cell runs. That a name is a function is remembered until the cell
    ends: a call finds the function by name in the kernel anyway.
    """

    def __init__(self, channel):
        super().__init__()
        self._channel = channel
        self._functions: dict[str, StudentFunction] = {}

    def forget(self):
        """Called when a test cell ends: the notebook's next cells may rebind names."""
        self._functions.clear()

    def __missing__(self, name):
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if name.startswith("__"):
            raise KeyError(name)
        if name in self._functions:
            return self._functions[name]
        answer = self._channel.lookup(name)
        kind = answer.get("kind")
        if kind == "function":
            self._functions[name] = StudentFunction(self._channel, name)
            return self._functions[name]
        if kind == "value":
            try:
                return plain.decode(answer.get("value"))
            except plain.PlainDataError as error:
                raise NameError(f"the notebook's {name} cannot be read by the grader: {error}") from None
        if kind == "module":
            return _import_shared(name, answer.get("module"))
        if kind == "unsupported":
            raise NameError(f"the notebook's {name} is {str(answer.get('type'))[:200]}, which the grader "
                            "cannot read: the tests can use your functions and plain values only")
        raise KeyError(name)


def _failure(error: BaseException) -> tuple[str, str]:
    ename = type(error).__name__
    if isinstance(error, StudentError):
        ename = "Error"
    return ename, str(error)


def run_cell(namespace, source: str, name: str, diagnoser=None) -> dict:
    """Run one test cell; its verdict, what it printed and, when it failed, the known mistakes
    its calls of the student's functions agree with (never a change of the verdict)."""
    stdout = io.StringIO()
    passed, ename, evalue = True, "", ""
    try:
        code = compile(source, f"<{name}>", "exec")
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, namespace)
    except JudgeProtocolError:
        raise
    except AuthoringError as error:  # the grader's failure: never a verdict
        return {"op": "grader_error", "reason": f"{name}: {error}"[:4000]}
    except BaseException as error:  # the test failed (AssertionError) or errored
        passed = False
        ename, evalue = _failure(error)
        if not isinstance(error, (AssertionError, StudentError)):
            # Where in the test it happened helps the instructor; the source is not shown.
            frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == f"<{name}>"]
            if frames:
                evalue = f"{evalue} (test line {frames[-1].lineno})"
    failure = getattr(getattr(namespace, "_channel", None), "failure", "")
    if failure:  # the root cause, whatever the test made of it
        passed, ename, evalue = False, "Error", failure
    verdict = {"op": "done", "passed": passed, "stdout": stdout.getvalue()[:1_000_000],
               "ename": ename, "evalue": evalue[:20_000]}
    if not passed and diagnoser is not None:
        grade_id = re.search(r"\(([^()]*)\)$", name)
        try:  # a counterexample only for hidden cells: a visible cell's worked example is small already
            found, example = diagnoser.explain(grade_id.group(1) if grade_id else name,
                                               counterexample="BEGIN HIDDEN TESTS" in source)
        except Exception:
            found, example = [], ""
        if example:
            verdict["evalue"] = f"{evalue[:16_000]}\n\n{example[:4_000]}"
        if found:
            verdict["diagnosis"] = found
        if getattr(diagnoser, "example", None):
            verdict["counterexample"] = diagnoser.example
    return verdict


# Imported once by the fork server, before any notebook: what the tests use.
PRELOADED = ("numpy", "scipy.special", "scipy.sparse", "scipy.stats", "scipy.optimize", "nbkit", "nbkit.testing",
             "nbkit.datasets", "nbcore", "nbcore.text", "sklearn.metrics", "sklearn.linear_model", "copy")


def run_judge(reader, writer):
    """The judge's loop: one notebook's test cells, until ``exit`` or end of stream."""
    channel = Channel(reader, writer)
    write_frame(writer, {"op": "ready"})
    namespace = StudentNamespace(channel)
    diagnoser = Diagnoser(channel.recorder, caller=channel.call)  # probes call the student's functions
    while True:
        message = read_frame(reader)
        if message is None or message.get("op") == "exit":
            return
        if message.get("op") == "run":
            namespace.forget()
            channel.recorder.reset()
            channel.failure = ""
            write_frame(writer, run_cell(namespace, str(message.get("source", "")), str(message.get("name", "test")),
                                         diagnoser))
        else:
            write_frame(writer, {"op": "error", "reason": f"unknown op {str(message.get('op'))[:40]!r}"})
