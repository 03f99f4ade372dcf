"""Diagnosis in the judge: which known mistakes a failing test cell's calls agree with.

While a test cell runs, every call of a student's function that the catalogue
(``.nbg_mistakes.json`` in the judge's folder, written by the grader from
``<course>/mistakes/``) knows is recorded: the arguments before the call, what
the function returned (or the exception it raised) and the arguments after it.
When the cell fails, each of the function's known mistakes, and the reference,
is run here on copies of the same arguments. A mistake is named when the
student's results agree with it on every call (result and arguments after the
call; results within :data:`RTOL`/:data:`ATOL`, arguments after the call exactly, as the
tests check them) and it differs from the reference on
at least one call where the student's result differs from the reference too.

Agreeing on the calls a cell made before its first failed check is thin evidence (often the
worked example alone: two hypotheses, two categories, the default level), on which a mistake
outside the catalogue can coincide with a catalogued one. So a mistake is named only once
confirmed on its function's *probes* (``probes`` in the catalogue: argument lists the
instructor chose to tell the mistakes apart from each other and from plausible neighbours:
three or more hypotheses, classes and categories, unequal classes, a level given
explicitly): the student's function is called on each through the bridge, as the tests call
it, and a mistake that does not agree with it on every probe is dropped. When nothing is left,
nothing is said. A function without probes is diagnosed on the recorded calls alone.

Only trusted code runs: the mistakes, the reference and the notebook's given
imports and helpers come from the catalogue; a name they do not define is
another graded function's reference. Nothing is sent to the student's kernel.
The verdict is never touched: a diagnosis is words added to a failed cell.
"""

from __future__ import annotations

import copy
import json
import re
import time

CATALOGUE_FILE = ".nbg_mistakes.json"
RTOL, ATOL = 1e-6, 1e-9  # as tight as the hidden tests' own comparisons (they use 1e-6 or looser)
MAX_CALLS = 200  # recorded per cell and function
MAX_RECORDED_BYTES = 64 * 2**20  # per cell, all calls: past it, the function is not diagnosed
BUDGET_SECONDS = 2.0  # per failed cell: past it, no diagnosis (never a wrong one)
# A visible cell's search shows nothing (its worked example is small already): it is evidence only,
# and its first inputs are the telling ones (on the catalogue's 686 failed cells, 3 calls name the
# same mistakes as 12; 2 calls leave two visible cells with two names).
EVIDENCE_CALLS = 3
COUNTEREXAMPLE_SECONDS = 0.5  # per failed cell: past it, the smallest counterexample found so far

_UNKNOWN = ("unknown",)


class Recorder:
    """The calls of catalogued student functions during one test cell."""

    def __init__(self, folder="."):
        self._folder = folder
        self._catalogue = None
        self.calls: dict[str, list] = {}
        self.recorded_bytes = 0
        self.paused = False

    @property
    def catalogue(self) -> dict:
        if self._catalogue is None:
            try:
                with open(f"{self._folder}/{CATALOGUE_FILE}", encoding="utf-8") as handle:
                    self._catalogue = json.load(handle)
            except (OSError, ValueError):
                self._catalogue = {}
        return self._catalogue

    def reset(self):
        self.calls = {}
        self.recorded_bytes = 0

    def before(self, name, args, kwargs):
        """A snapshot of a call's arguments, or None when the call is not recorded."""
        if self.paused or name not in self.catalogue.get("functions", {}):
            return None
        if any(getattr(value, "__nbg_remote__", False) for value in (*args, *kwargs.values())):
            return _UNKNOWN  # a student's function passed along: replaying it would call the kernel
        try:
            return copy.deepcopy((list(args), dict(kwargs)))
        except Exception:
            return _UNKNOWN

    def after(self, name, snapshot, value, args, kwargs):
        """The call returned ``value`` and left its arguments as ``args``, ``kwargs``."""
        if snapshot is None:
            return
        try:
            outcome = (value, copy.deepcopy((list(args), dict(kwargs))))
        except Exception:
            outcome = _UNKNOWN
        self._add(name, snapshot, outcome)

    def failed(self, name, snapshot, error):
        """The call raised ``error`` (in the judge: a rebuilt builtin exception or a StudentError)."""
        if snapshot is not None:
            raised = outcome_of_error(error)
            self._add(name, snapshot, _UNKNOWN if raised is _UNKNOWN else (raised, None))

    def _add(self, name, snapshot, outcome):
        calls = self.calls.setdefault(name, [])
        if snapshot is _UNKNOWN or outcome is _UNKNOWN or len(calls) >= MAX_CALLS or None in calls:
            calls[:] = [None]  # a call that cannot be replayed: no diagnosis for this function
            return
        self.recorded_bytes += _size((snapshot, outcome))
        if self.recorded_bytes > MAX_RECORDED_BYTES:  # the kernel's results are the student's: bounded
            calls[:] = [None]
        else:
            calls.append((snapshot, outcome))


def _size(value, limit=MAX_RECORDED_BYTES + 1) -> int:
    """About how many bytes ``value`` holds (arrays, text, containers), counted up to ``limit``."""
    total, stack = 0, [value]
    while stack and total < limit:
        item = stack.pop()
        total += 64
        if isinstance(item, (str, bytes)):
            total += len(item)
        elif hasattr(item, "nbytes") and isinstance(getattr(item, "nbytes", None), int):
            total += item.nbytes
        elif hasattr(item, "format") and hasattr(item, "data") and hasattr(item, "indices"):  # sparse
            stack.extend((item.data, item.indices, getattr(item, "indptr", b"")))
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return total


def outcome_of_error(error) -> tuple:
    """How a failed call of the student's function is compared: the exception's name."""
    text = str(error)
    match = re.match(r"\w+ raised (\w+):", text)
    if type(error).__name__ == "StudentError":
        return ("raised", match.group(1)) if match else _UNKNOWN  # a timeout or a dead kernel
    return ("raised", type(error).__name__)


def _is_raised(x) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] == "raised"


def _outcomes_agree(a, b) -> bool:
    """Two calls' outcomes: the same exception, or results within the tolerance and the
    arguments after the call exactly equal (the tests check that inputs are unchanged exactly)."""
    if _is_raised(a[0]) or _is_raised(b[0]):
        return _is_raised(a[0]) and _is_raised(b[0]) and a[0][1] == b[0][1]
    return _agree(a[0], b[0]) and _agree(a[1], b[1], exact=True)


def _visibly_agree(a, b) -> bool:
    """As :func:`_outcomes_agree`, with the arguments after the call compared within the tolerance
    too: a counterexample must show its difference at the precision it is printed (an argument
    changed in place by 1e-13 fails the test, but no small example can show it)."""
    if _is_raised(a[0]) or _is_raised(b[0]):
        return _outcomes_agree(a, b)
    return _agree(a[0], b[0]) and _agree(a[1], b[1])


def _scalar(value) -> bool:
    """A number, or a NumPy array of no dimension (both are 'a number' to the tests)."""
    import numpy as np

    return isinstance(value, (int, float, complex, np.number)) or (isinstance(value, np.ndarray) and value.ndim == 0)


def _agree(a, b, exact=False) -> bool:
    import numpy as np

    def close(x, y):
        if exact:
            return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc" and y.dtype.kind in "fc"))
        return bool(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True))

    try:
        if _is_raised(a) or _is_raised(b):
            return _is_raised(a) and _is_raised(b) and a[1] == b[1]
        # The type is part of the answer (a list where an array is prescribed, CSC where CSR is):
        # a result of another kind agrees with nothing of this kind, whatever its values.
        if isinstance(a, np.ndarray) != isinstance(b, np.ndarray) and not (_scalar(a) and _scalar(b)):
            return False
        sparse_a, sparse_b = hasattr(a, "toarray") and hasattr(a, "format"), hasattr(b, "toarray") and hasattr(b, "format")
        if sparse_a or sparse_b:
            return sparse_a and sparse_b and a.format == b.format and _agree(a.toarray(), b.toarray(), exact)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            a, b = np.asarray(a), np.asarray(b)
            if a.shape != b.shape:
                return False
            if a.dtype.kind in "fcbiu" and b.dtype.kind in "fcbiu":
                return close(a, b)
            return bool(np.array_equal(a, b))
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return len(a) == len(b) and all(_agree(x, y, exact) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(_agree(a[k], b[k], exact) for k in a)
        if isinstance(a, (int, float, complex, np.number)) and isinstance(b, (int, float, complex, np.number)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return close(np.asarray(a), np.asarray(b))
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


class _Globals(dict):
    """A mistake's globals: the notebook's given set-up, then the other functions' references."""

    def __init__(self, base, references):
        super().__init__(base)
        self._references = references

    def __missing__(self, name):
        if name in self._references:
            return self._references[name]
        raise KeyError(name)


def _build(function, source, base, references):
    namespace = _Globals(base, references)
    exec(compile(source, f"<mistake {function}>", "exec"), namespace)
    return namespace[function]


def _replay(fn, call, deadline):
    if time.monotonic() > deadline:  # checked before every replayed call, not only per mistake
        raise _OutOfTime
    (args, kwargs) = copy.deepcopy(call[0])
    try:
        value = fn(*args, **kwargs)
    except Exception as error:
        return (("raised", type(error).__name__), None)
    return (value, (args, kwargs))


class Diagnoser:
    """Builds the catalogue's functions once per judge; names the mistakes a failed cell's calls fit.

    ``caller(name, args, kwargs)`` calls the student's function (the judge's bridge); without it a
    function that has probes gets no diagnosis (nothing can confirm one)."""

    def __init__(self, recorder: Recorder, caller=None):
        self.recorder = recorder
        self.caller = caller
        self._built = None
        self._probes = {}
        self.example = None

    def _functions(self):
        if self._built is None:
            import builtins
            import warnings

            catalogue = self.recorder.catalogue
            base = {"__builtins__": builtins, "__name__": "__nbg_mistakes__"}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for statement in catalogue.get("setup", []):  # the given cells' imports and helpers
                    try:
                        exec(compile(statement, "<setup>", "exec"), base)
                    except Exception:
                        pass
                references = {}
                built = {}
                for function, entry in catalogue.get("functions", {}).items():
                    try:
                        references[function] = _build(function, entry["reference"], base, references)
                    except Exception:
                        continue
                for function, entry in catalogue.get("functions", {}).items():
                    mistakes = {}
                    for mistake, item in entry.get("mistakes", {}).items():
                        try:
                            mistakes[mistake] = _build(function, item["source"], base, references)
                        except Exception:
                            continue
                    built[function] = (references.get(function), mistakes)
                    self._probes[function] = _probe_calls(entry.get("probes", []), base)
            self._built = built
        return self._built

    def diagnose(self, grade_id: str) -> list:
        """``[{"function", "mistakes": [{"id", "explanation"}]}]`` for the cell's calls."""
        return self.explain(grade_id, counterexample=False)[0]

    def explain(self, grade_id: str, counterexample=True) -> tuple:
        """The diagnosis (as :meth:`diagnose`) and the words of a counterexample ("" when none or not
        ``counterexample``): the cell's first call the student's function gets wrong, shrunk
        (:mod:`.evidence.counterexample`). Every input the search called the student's function on is
        evidence too: a mistake is named only if it gives the student's results on each of them. In a
        visible cell (``counterexample`` false) the search is evidence only, and stops after
        :data:`EVIDENCE_CALLS` calls."""
        import warnings

        found, shown = [], ""
        self.example = None  # the counterexample's record (behaviour.record), for the cell's metadata
        if not self.recorder.calls:
            return found, shown
        self.recorder.paused = True
        deadline = time.monotonic() + BUDGET_SECONDS
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                functions = self._functions()
                entries = self.recorder.catalogue.get("functions", {})
                for function, calls in self.recorder.calls.items():
                    entry = entries.get(function, {})
                    if grade_id not in entry.get("tests", [grade_id]) or not calls or None in calls:
                        continue
                    reference, mistakes = functions.get(function, (None, {}))
                    if reference is None:
                        continue
                    example = None
                    if not shown and self.caller is not None and self.recorder.catalogue.get("counterexamples", True):
                        example = self._counterexample(function, reference, calls, counterexample)
                        shown = example["words"] if example and counterexample else ""
                        self.example = self.example or (example or {}).get("record")
                    names = self._matching(reference, mistakes, calls, deadline)
                    if names and function in self._probes:
                        names = self._confirmed(function, names, mistakes, deadline)
                    for call, yours in (example or {}).get("evidence", []):  # every input the search tried
                        names = [n for n in names if _outcomes_agree(_replay(mistakes[n], call, deadline), yours)]
                    if names:
                        found.append({"function": function, "mistakes": [
                            {"id": name, "explanation": entry["mistakes"][name]["explanation"]} for name in names]})
        except _OutOfTime:
            return [], shown  # not every mistake was checked: nothing said of them
        except Exception:
            return found, shown  # what was found so far stands
        finally:
            self.recorder.paused = False
        if shown and not found:
            shown += "\n  None of the known mistakes gives these results: work this input by hand."
        return found, shown

    def _counterexample(self, function, reference, calls, for_student=True):
        """A shrunk call on which the student's function and the reference disagree, or None
        (``for_student`` false: a visible cell's search, evidence only, :data:`EVIDENCE_CALLS` calls)."""
        import inspect
        import random
        import sys
        import zlib

        from grading.execution.evidence import behaviour
        from grading.execution.evidence import counterexample as shrinking

        deadline = time.monotonic() + COUNTEREXAMPLE_SECONDS
        for recorded in calls:
            (args, kwargs), yours = recorded
            expected = _replay(reference, recorded, deadline)
            if _is_raised(expected[0]) or _visibly_agree(yours, expected):
                continue
            seed = getattr(sys.modules.get("nbkit.testing"), "_GRADING_SEED", None)
            rng = random.Random(zlib.crc32(f"{seed}:{function}".encode()))

            def student(args, kwargs):
                outcome = self._student_outcome(function, ((args, kwargs), None))
                return None if outcome is _UNKNOWN else outcome

            def run_reference(args, kwargs):
                return _replay(reference, ((args, kwargs), None), deadline + 1)

            search = shrinking.Shrinker(run_reference, student, _visibly_agree, deadline=deadline, rng=rng,
                                        max_calls=shrinking.MAX_STUDENT_CALLS if for_student else EVIDENCE_CALLS)
            small = search.shrink(args, kwargs, yours, expected)
            evidence = [(((a, k), None), outcome) for a, k, outcome in search.tried]
            values, original = shrinking.count(small[:2]), shrinking.count((args, kwargs))
            try:
                names = list(inspect.signature(reference).parameters)
            except (TypeError, ValueError):
                names = []
            words = ""  # never the test's input, nor another reference's output:
            if search.steps and values <= min(original, shrinking.MAX_SHOWN_VALUES) and shrinking.is_simple(small[:2]):
                words = shrinking.wording(function, names, *small, original)
            try:  # for the report's groups of failures no known mistake explains (the instructor's only)
                kept = behaviour.record(function, names, small, (args, kwargs, yours, expected), bool(words))
            except Exception:
                kept = None
            return {"words": words, "evidence": evidence, "record": kept}
        return None

    @staticmethod
    def _matching(reference, mistakes, calls, deadline) -> list:
        students = [outcome for _, outcome in calls]
        expected = [_replay(reference, call, deadline) for call in calls]
        if all(_outcomes_agree(s, e) for s, e in zip(students, expected)):
            return []  # the calls are right: the cell failed for another reason
        names = []
        for name, fn in mistakes.items():
            if time.monotonic() > deadline:
                raise _OutOfTime
            differs = False
            for call, student, right in zip(calls, students, expected):
                got = _replay(fn, call, deadline)
                if not _outcomes_agree(got, student):
                    break
                differs = differs or not _outcomes_agree(got, right)
            else:
                if differs:
                    names.append(name)
        return names

    def _confirmed(self, function, names, mistakes, deadline) -> list:
        """The names whose mistakes agree with the student's function on every probe of the function."""
        probes = self._probes[function]
        if probes is None or (probes and self.caller is None):
            return []  # a probe the judge could not build, or no way to call the student: no confirmation
        for call in probes:
            if time.monotonic() > deadline:
                raise _OutOfTime
            student = self._student_outcome(function, call)
            if student is _UNKNOWN:
                return []
            names = [name for name in names if _outcomes_agree(_replay(mistakes[name], call, deadline), student)]
            if not names:
                break
        return names

    def _student_outcome(self, function, call):
        """The student's function on a probe, compared as a recorded call is."""
        args, kwargs = copy.deepcopy(call[0])
        try:
            value = self.caller(function, args, kwargs)
        except Exception as error:
            if hasattr(error, "args_after"):  # it changed its arguments in place (judge_runtime.InPlaceChange)
                return (error.value, (list(error.args_after), dict(error.kwargs_after)))
            raised = outcome_of_error(error)
            return _UNKNOWN if raised is _UNKNOWN else (raised, None)
        return (value, (list(args), dict(kwargs)))


def _probe_calls(sources, base):
    """A function's probes as recorded calls ``((args, kwargs), None)``; None when one does not build."""
    calls = []
    for source in sources:
        try:
            args, kwargs = eval(f"(lambda *a, **k: (list(a), k))({source})", dict(base))
        except Exception:
            return None
        calls.append(((args, kwargs), None))
    return calls


class _OutOfTime(Exception):
    pass


def wording(found: list) -> str:
    """The words added to the failed cell's feedback."""
    parts = []
    for item in found:
        mistakes = item["mistakes"]
        if len(mistakes) == 1:
            parts.append(f"Your answer behaves like a known mistake: {mistakes[0]['explanation']}")
        else:
            lines = "\n".join(f"  - {m['explanation']}" for m in mistakes)
            parts.append(f"Your {item['function']} behaves like each of these known mistakes on the "
                         f"test's inputs:\n{lines}")
    return "\n".join(parts)
