"""Counterexamples: a small input on which the student's function and the reference disagree.

When a hidden test cell fails on a call of a student's function, the judge shrinks that call's
input step by step, as property-based testing tools do (Hypothesis's shrinking, written out:
no such library runs in the judge's sandbox, and the input is the test's, not one drawn from a
strategy): fewer entries along each axis (rows, features, classes, categories, documents; every
axis of one size shrinks with the others of that size, so aligned arguments stay aligned), then
simpler values (all-one weights, small integer counts, floats with one decimal, shorter
documents). A step is kept when the reference accepts the new input (no exception, no NaN it did
not give before) and the student's function, called through the bridge as the test calls it,
still disagrees with it in the same way (a wrong value stays a wrong value, an exception an
exception).

The search is bounded (a deadline, ``max_calls`` calls of the student's function; past either,
the smallest input found so far), and ends as soon as the input has at most :data:`SMALL_ENOUGH`
values, all simple (each call is a round trip to the student's kernel). A counterexample is shown
only when at least one step was kept (never the hidden input itself: fewer values, or as many with
simpler ones where the test's input is a handful of numbers already) and every float in it is
simple (at most one decimal: a test that passes another function's reference output, a table of log
probabilities, shows none of it). Which entries are kept is drawn from a generator seeded with the
submission's grading seed, so counterexamples differ between students as the hidden inputs do.
Only trusted code runs here: the reference comes from the catalogue; the student's function is a
call through the bridge.
"""

from __future__ import annotations

import re
import time

MAX_STUDENT_CALLS = 12  # per failed cell (each is a round trip to the student's kernel)
SMALL_ENOUGH = 4  # values, all simple: the search stops there
MAX_SHOWN_VALUES = 80  # a counterexample with more values than this is not small enough to show
_SIZES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


class _Stop(Exception):
    pass


def _np():
    import numpy as np

    return np


def _is_sparse(value) -> bool:
    return hasattr(value, "toarray") and hasattr(value, "format") and hasattr(value, "shape")


def axis_sizes(value, found=None) -> set:
    """The lengths (> 1) of every axis of every array and list in ``value``."""
    np = _np()
    found = set() if found is None else found
    if isinstance(value, np.ndarray) and value.dtype.kind != "O" or _is_sparse(value):
        found.update(size for size in value.shape if size > 1)
    elif isinstance(value, (list, tuple)):
        if len(value) > 1:
            found.add(len(value))
        for item in value:
            axis_sizes(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            axis_sizes(item, found)
    return found


def take(value, size, keep):
    """``value`` with only the entries ``keep`` along every axis of length ``size``."""
    np = _np()
    if isinstance(value, np.ndarray) and value.dtype.kind != "O":
        for axis, length in enumerate(value.shape):
            if length == size:
                value = np.take(value, keep, axis=axis)
        return value
    if _is_sparse(value):
        kind, matrix = value.format, value.tocsr()
        if matrix.shape[0] == size:
            matrix = matrix[keep]
        if matrix.shape[1] == size:
            matrix = matrix[:, keep]
        return matrix.asformat(kind)
    if isinstance(value, (list, tuple)):
        items = [value[i] for i in keep] if len(value) == size else list(value)
        items = [take(item, size, keep) for item in items]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {key: take(item, size, keep) for key, item in value.items()}
    return value


def count(value) -> int:
    """How many values ``value`` holds (arrays, lists and dicts of them)."""
    np = _np()
    if isinstance(value, np.ndarray) or _is_sparse(value):
        return int(np.prod(value.shape))
    if isinstance(value, (list, tuple)):
        return sum(count(item) for item in value)
    if isinstance(value, dict):
        return sum(count(item) for item in value.values())
    return 1


def _simple_float(x) -> bool:
    np = _np()
    x = np.asarray(x, dtype=float)
    finite = x[np.isfinite(x)]
    return bool(np.all(np.abs(finite * 10 - np.round(finite * 10)) < 1e-9))


def is_simple(value) -> bool:
    """Whether every float in ``value`` has at most one decimal (or is infinite or NaN)."""
    np = _np()
    if isinstance(value, bool) or value is None or isinstance(value, (str, int, np.integer)):
        return True
    if isinstance(value, (float, np.floating)):
        return _simple_float(value)
    if _is_sparse(value):
        return is_simple(value.toarray())
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or _simple_float(value.real)
    if isinstance(value, (list, tuple)):
        return all(is_simple(item) for item in value)
    if isinstance(value, dict):
        return all(is_simple(item) for item in value.values())
    return False


def _has_callable(value) -> bool:
    if callable(value) and not isinstance(value, type):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_callable(item) for item in value)
    if isinstance(value, dict):
        return any(_has_callable(item) for item in value.values())
    return False


def _array_steps(a, rng):
    """Simpler versions of a numeric array: weights of one, small integers, one decimal."""
    np = _np()
    if a.size == 0 or a.dtype.kind not in "fiu":
        return []
    steps = []
    finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
    if finite.size and np.all(finite > 0) and not np.all(a == 1):
        steps.append(np.ones_like(a))
    if a.dtype.kind in "iu":
        if finite.size and finite.max() > 3:
            steps += [np.minimum(a, 3), np.minimum(a, 1)]
        return steps
    if _simple_float(a):
        return steps
    with np.errstate(invalid="ignore"):
        steps += [np.round(a), np.round(a, 1)]
        grid = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])  # fresh values of the same signs: nothing of the test's
        mask = np.isfinite(a) & (a != 0)
        fresh = a.astype(float)
        fresh[mask] = np.sign(a[mask]) * grid[[rng.randrange(len(grid)) for _ in range(int(mask.sum()))]]
    return steps + [fresh]


def value_steps(value, rng) -> list:
    """Simpler versions of one argument, in the order they are tried."""
    np = _np()
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, np.integer)):
        return [type(value)(v) for v in (1, 2, int(value) // 2) if 0 < v < value]
    if isinstance(value, (float, np.floating)):
        return [] if _simple_float(value) else [type(value)(round(float(value))), type(value)(round(float(value), 1))]
    if isinstance(value, np.ndarray):
        return _array_steps(value, rng)
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(item, str) for item in value):  # documents: the first half of their words
            if max(len(item.split()) for item in value) <= 2:
                return []
            shorter = [" ".join(item.split()[: max(1, len(item.split()) // 2)]) for item in value]
            return [tuple(shorter) if isinstance(value, tuple) else shorter]
        if not any(isinstance(item, np.ndarray) for item in value):
            try:
                array = np.asarray(value)
            except (ValueError, TypeError):  # ragged: each item apart
                array = None
            if array is not None and array.dtype.kind in "fiu" and array.ndim and not isinstance(value, tuple):
                return [step.tolist() for step in _array_steps(array, rng)]
        if any(isinstance(item, (np.ndarray, list, tuple)) for item in value):  # tables: each simplified alike
            per_item = [value_steps(item, rng) if isinstance(item, (np.ndarray, list, tuple)) else [] for item in value]
            steps = [[s[k] if k < len(s) else item for s, item in zip(per_item, value)]
                     for k in range(max(len(s) for s in per_item))]
            return [tuple(step) if isinstance(value, tuple) else step for step in steps]
    return []


def _nan_count(outcome) -> int:
    np = _np()

    def walk(value):
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
            return int(np.isnan(value).sum())
        if isinstance(value, (float, np.floating)):
            return int(value != value)
        if isinstance(value, (list, tuple)):
            return sum(walk(item) for item in value)
        return 0

    return walk(outcome[0])


def _raised(outcome) -> bool:
    value = outcome[0]
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] == "raised"


def _key(value):
    """A hashable key of an input (arrays by dtype, shape and bytes): the same input is tried once."""
    np = _np()
    if isinstance(value, np.ndarray):
        return ("a", value.dtype.str, value.shape, value.tobytes() if value.dtype.kind != "O" else repr(value.tolist()))
    if _is_sparse(value):
        return ("s", value.format, _key(value.toarray()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *(_key(item) for item in value))
    if isinstance(value, dict):
        return ("d", *((repr(k), _key(v)) for k, v in value.items()))
    return (type(value).__name__, repr(value))


class Shrinker:
    """Shrinks one failing call.

    ``reference(args, kwargs)`` and ``student(args, kwargs)`` return an outcome as the diagnosis
    compares them (``(value, (args_after, kwargs_after))`` or ``(("raised", name), None)``; the
    student's None when it cannot tell: a timeout, a dead kernel); ``agree(a, b)`` compares two.
    """

    def __init__(self, reference, student, agree, *, deadline, rng, max_calls=MAX_STUDENT_CALLS):
        self.reference, self.student, self.agree = reference, student, agree
        self.deadline, self.rng, self.max_calls = deadline, rng, max_calls
        self.calls = 0
        self.steps = 0  # accepted: each changes the input (fewer entries or simpler values)
        self.tried = []  # (args, kwargs, the student's outcome) of every call made: evidence for the diagnosis

    def shrink(self, args, kwargs, yours, expected):
        """The smallest call found on which the student disagrees as on ``args``, ``kwargs``:
        ``(args, kwargs, yours, expected)``, the given call when nothing smaller was found."""
        self.best = (list(args), dict(kwargs), yours, expected)
        self._seen = {_key((self.best[0], self.best[1]))}
        self._student_raised = _raised(yours)
        self._nan_allowed = _nan_count(expected)
        if _has_callable((args, kwargs)):  # a test's function passed in: calling it again is the test's business
            return self.best
        try:
            for _ in range(2):
                changed = False
                for size in sorted(axis_sizes(self.best[:2]), reverse=True):
                    changed |= self._shrink_axis(size)
                changed |= self._simplify_values()
                if not changed:
                    break
        except _Stop:
            pass
        return self.best

    def _try(self, args, kwargs) -> bool:
        if self.calls >= self.max_calls or time.monotonic() > self.deadline:
            raise _Stop
        key = _key((args, kwargs))
        if key in self._seen:  # tried already (two steps can give one input): its answer is known
            return False
        self._seen.add(key)
        expected = self.reference(args, kwargs)
        if _raised(expected) or _nan_count(expected) > self._nan_allowed:
            return False  # not an input the function promises to handle
        self.calls += 1
        yours = self.student(args, kwargs)
        if yours is None:
            raise _Stop  # the kernel cannot answer (time, death): keep what was found
        self.tried.append((args, kwargs, yours))
        if _raised(yours) != self._student_raised or self.agree(yours, expected):
            return False
        self.best = (args, kwargs, yours, expected)
        self.steps += 1
        if count((args, kwargs)) <= SMALL_ENOUGH and is_simple((args, kwargs)):
            raise _Stop  # a student can work this by hand: a further step would cost a round trip for little
        return True

    def _shrink_axis(self, size) -> bool:
        args, kwargs = self.best[:2]
        for keep_size in (s for s in _SIZES if s < size):
            # Two draws of which entries to keep, but one of a single entry: where one entry is too
            # few (one class, one hypothesis), another single entry rarely differs.
            for _ in range(2 if 1 < keep_size < size - 1 else 1):
                keep = sorted(self.rng.sample(range(size), keep_size))
                if self._try(take(args, size, keep), take(kwargs, size, keep)):
                    return True
        return False

    def _simplify_values(self) -> bool:
        changed = False
        slots = [(i, None) for i in range(len(self.best[0]))] + [(None, k) for k in self.best[1]]
        # The biggest cut first: every argument's simplest step at once, one call of the student's
        # function where one per argument would be needed (each argument's own steps follow if refused).
        args, kwargs = self.best[:2]
        firsts = {slot: steps[0] for slot in slots
                  if (steps := value_steps(args[slot[0]] if slot[1] is None else kwargs[slot[1]], self.rng))}
        if len(firsts) > 1:
            new_args, new_kwargs = list(args), dict(kwargs)
            for (index, key), step in firsts.items():
                if key is None:
                    new_args[index] = step
                else:
                    new_kwargs[key] = step
            changed = self._try(new_args, new_kwargs)
        for index, key in slots:
            args, kwargs = self.best[:2]
            current = args[index] if key is None else kwargs[key]
            for step in value_steps(current, self.rng):
                new_args, new_kwargs = list(args), dict(kwargs)
                if key is None:
                    new_args[index] = step
                else:
                    new_kwargs[key] = step
                if self._try(new_args, new_kwargs):
                    changed = True
                    break
        return changed


def _show(value, code=False) -> str:
    """``value`` in a line; with ``code``, as Python the student can paste (``np.array(...)``)."""
    np = _np()
    if _is_sparse(value):
        if code:
            return f"scipy.sparse.{value.format}_matrix({_show(value.toarray(), code)})"
        return f"a {value.format.upper()} sparse matrix of {_show(value.toarray())}"
    if isinstance(value, np.ndarray):
        text = " ".join(np.array2string(value, precision=4, separator=", ", threshold=200).split())
        if code and value.dtype.kind in "fc":
            text = re.sub(r"\b(inf|nan)\b", r"np.\1", text)
        return f"np.array({text})" if code else text
    if isinstance(value, (float, np.floating)):
        text = f"{float(value) + 0.0:.6g}"  # + 0.0: no -0
        if code and text in ("inf", "-inf", "nan"):
            return f"float('{text}')"
        return f"{text}.0" if code and text.lstrip("-").isdigit() else text
    if isinstance(value, list):
        return "[" + ", ".join(_show(item, code) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(item, code) for item in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)[:300]


def difference(yours, expected, where="", tol=(1e-6, 1e-9)) -> str:
    """Which part of the student's result differs from the expected one, in words."""
    np = _np()
    prefix = f"{where}: " if where else ""
    if _raised((yours, None)) or _raised((expected, None)):
        if _raised((yours, None)):
            return f"{prefix}your function raised {yours[1]}"
        return f"{prefix}yours returned a value, the reference raised {expected[1]}"
    if isinstance(yours, np.ndarray) != isinstance(expected, np.ndarray) and not (
            np.ndim(yours) == 0 and np.ndim(expected) == 0):
        return f"{prefix}yours is a {type(yours).__name__}, expected a {type(expected).__name__}"
    if isinstance(yours, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(yours) != len(expected):
            return f"{prefix}yours has {len(yours)} items, expected {len(expected)}"
        parts = [difference(a, b, f"{where}item {i}".strip(), tol) for i, (a, b) in enumerate(zip(yours, expected))]
        parts = [p for p in parts if p]
        return "; ".join(parts[:2]) + (f"; and {len(parts) - 2} more items" if len(parts) > 2 else "")
    try:
        a, b = np.asarray(yours), np.asarray(expected)
        if a.shape != b.shape:
            return f"{prefix}shape {a.shape}, expected {b.shape}"
        if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
            wrong = a != b
        else:
            wrong = ~np.isclose(a.astype(float), b.astype(float), rtol=tol[0], atol=tol[1], equal_nan=True)
    except (TypeError, ValueError):
        return f"{prefix}yours {_show(yours)}, expected {_show(expected)}"
    if a.ndim == 0:
        return f"{prefix}yours {_show(a.item())}, expected {_show(b.item())}" if bool(wrong) else ""
    places = [tuple(int(i) for i in index) for index in np.argwhere(wrong)]
    shown = [f"entry {list(p)}: yours {_show(a[p].item())}, expected {_show(b[p].item())}" for p in places[:3]]
    more = f" (and {len(places) - 3} more entries)" if len(places) > 3 else ""
    return (prefix + "; ".join(shown) + more) if shown else ""


def wording(function, names, args, kwargs, yours, expected, original_values) -> str:
    """The counterexample as the student reads it: the call, both results, what differs."""
    named = [f"{names[i]}={_show(v, True)}" if i < len(names) else _show(v, True) for i, v in enumerate(args)]
    named += [f"{key}={_show(v, True)}" for key, v in kwargs.items()]
    mine = f"raised {yours[0][1]}" if _raised(yours) else _show(yours[0])
    lines = [f"A smaller input on which your {function} and the reference disagree ({count((args, kwargs))} "
             f"values; the test's input had {original_values}):",
             f"  {function}(" + ", ".join(named) + ")",
             f"  yours:    {mine}",
             f"  expected: {_show(expected[0])}"]
    if not _raised(yours):
        differs = difference(yours[0], expected[0])
        lines.append(f"  differs:  {differs or 'the results agree, but your function changed its arguments in place'}")
    return "\n".join(lines)
