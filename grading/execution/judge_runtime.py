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
  with its arguments as plain data (:mod:`grading.execution.plain`); the answer comes
  back as plain data too, decoded without pickle;
* a callable the test passes to a student's function stays here: the
  student's code calls it through the grader (``{"op": "callback"}``).

The expected values, the comparisons and the verdict never leave this process.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import re
import sys
import traceback
import warnings

from grading.execution import plain
from grading.execution.diagnosis_runtime import Diagnoser, Recorder
from grading.execution.frames import JudgeProtocolError, read_frame, write_frame
from grading.execution.process import die_with_parent

# Exceptions a student's function may raise that the judge re-raises as themselves,
# so that tests written for the student's own kernel (pytest.raises(ValueError)) hold.
_REBUILT_EXCEPTIONS = {
    name: getattr(builtins, name) for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), Exception)
    and name not in ("SystemExit", "KeyboardInterrupt", "GeneratorExit", "StopIteration", "StopAsyncIteration")
}


class StudentError(Exception):
    """A student's function raised an exception that is not a builtin one."""


class StudentFunction:
    """Stands, in the judge, for a function defined in the student's kernel.

    Calling it runs the function there on plain-data arguments and returns its
    result as plain data. NumPy arrays the function changed in place are
    changed here too, as they would be in one process.
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
        except BaseException as error:
            recorder.failed(self.__name__, snapshot, error)
            raise
        recorder.after(self.__name__, snapshot, value, args, kwargs)
        return value


class Channel:
    """The judge's end of the pipe to the grader."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self._callbacks: dict[int, object] = {}
        self._in_callback = False
        self.recorder = Recorder()  # the calls a failed cell's diagnosis replays

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
        function = self._callbacks.get(request.get("id"))
        if function is None:
            return {"op": "callback_result", "ok": False, "error": "unknown callback"}
        self._in_callback = True
        try:
            args = plain.decode(request.get("args"))
            kwargs = plain.decode(request.get("kwargs"))
            if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
                raise plain.PlainDataError("callback arguments must be a list and a dict of str keys")
            value = function(*args, **kwargs)
            return {"op": "callback_result", "ok": True, "value": plain.encode(value)}
        except Exception as error:
            return {"op": "callback_result", "ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
        finally:
            self._in_callback = False

    def _register_callback(self, function):
        if isinstance(function, StudentFunction):  # the student's own function: it runs there directly
            return {"t": "callback", "student": function.__name__}
        handle = len(self._callbacks) + 1
        self._callbacks[handle] = function
        return {"t": "callback", "id": handle, "name": str(getattr(function, "__name__", "callback"))[:100]}

    def lookup(self, name: str) -> dict:
        return self.request({"op": "lookup", "name": name})

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
        if reply.get("op") == "call_failed":  # the grader could not run it: timeout, dead kernel, ...
            raise StudentError(str(reply.get("reason", "the call failed")))
        if not reply.get("ok"):
            ename, evalue = str(reply.get("ename", "Error")), str(reply.get("evalue", ""))
            if ename == "NotPlainData":
                raise TypeError(f"{name} returned {evalue}; return numbers, strings or NumPy arrays "
                                "(or lists, tuples and dicts of them)")
            kind = _REBUILT_EXCEPTIONS.get(ename) if reply.get("builtin") else None
            if kind is not None:
                try:
                    raise kind(evalue)
                except TypeError:  # an exception class that needs other arguments
                    pass
            raise StudentError(f"{name} raised {ename}: {evalue}")
        try:
            value = plain.decode(reply.get("value"))
            after = plain.decode(reply.get("after", {"t": "dict", "v": []}))
        except plain.PlainDataError as error:
            raise TypeError(f"{name} returned something the grader cannot read: {error}") from None
        _copy_back(args, kwargs, after)
        return value


def _copy_back(args, kwargs, after):
    """Write the arrays, lists and dicts a student's function changed in place into the
    judge's arguments, as if it had run in this process."""
    import numpy as np

    if not isinstance(after, dict):
        return
    for key, new in after.items():
        original = args[int(key)] if str(key).isdigit() and int(key) < len(args) else kwargs.get(key)
        if (isinstance(original, np.ndarray) and isinstance(new, np.ndarray) and original.flags.writeable
                and original.shape == new.shape and original.dtype == new.dtype):
            np.copyto(original, new)
        elif isinstance(original, list) and isinstance(new, list) and not _same(original, new):
            original[:] = new
        elif isinstance(original, dict) and isinstance(new, dict) and not _same(original, new):
            original.clear()
            original.update(new)


def _same(old, new) -> bool:
    """Equal content (arrays compared by value), so unchanged lists keep their own objects."""
    import numpy as np

    try:
        if isinstance(old, np.ndarray) or isinstance(new, np.ndarray):
            return (isinstance(old, np.ndarray) and isinstance(new, np.ndarray) and old.shape == new.shape
                    and old.dtype == new.dtype and bool(np.array_equal(old, new, equal_nan=old.dtype.kind in "fc")))
        if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
            return type(old) is type(new) and len(old) == len(new) and all(_same(a, b) for a, b in zip(old, new))
        if isinstance(old, dict) and isinstance(new, dict):
            return old.keys() == new.keys() and all(_same(old[k], new[k]) for k in old)
        return type(old) is type(new) and bool(old == new)
    except Exception:
        return False


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
    except BaseException as error:  # the test failed (AssertionError) or errored
        passed = False
        ename, evalue = _failure(error)
        if not isinstance(error, (AssertionError, StudentError)):
            # Where in the test it happened helps the instructor; the source is not shown.
            frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == f"<{name}>"]
            if frames:
                evalue = f"{evalue} (test line {frames[-1].lineno})"
    verdict = {"op": "done", "passed": passed, "stdout": stdout.getvalue()[:1_000_000],
               "ename": ename, "evalue": evalue[:20_000]}
    if not passed and diagnoser is not None:
        grade_id = re.search(r"\(([^()]*)\)$", name)
        try:
            found = diagnoser.diagnose(grade_id.group(1) if grade_id else name)
        except Exception:
            found = []
        if found:
            verdict["diagnosis"] = found
    return verdict


# Imported once by the fork server, before any notebook: what the tests use.
PRELOADED = ("numpy", "scipy.special", "scipy.sparse", "scipy.stats", "scipy.optimize", "nbkit", "nbkit.testing",
             "nbkit.datasets", "nbcore", "nbcore.text", "sklearn.metrics", "sklearn.linear_model", "copy")


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


def run_judge(reader, writer):
    """The judge's loop: one notebook's test cells, until ``exit`` or end of stream."""
    channel = Channel(reader, writer)
    write_frame(writer, {"op": "ready"})
    namespace = StudentNamespace(channel)
    diagnoser = Diagnoser(channel.recorder)
    while True:
        message = read_frame(reader)
        if message is None or message.get("op") == "exit":
            return
        if message.get("op") == "run":
            namespace.forget()
            channel.recorder.reset()
            write_frame(writer, run_cell(namespace, str(message.get("source", "")), str(message.get("name", "test")),
                                         diagnoser))
        else:
            write_frame(writer, {"op": "error", "reason": f"unknown op {str(message.get('op'))[:40]!r}"})


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
