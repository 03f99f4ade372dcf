"""What a counterexample shows, as the report groups it: the behaviour's signature and its record.

The report lists the failed cells that matched no known mistake grouped by how the student's
result differs from the reference's on the counterexample (:func:`signature`: which part of the
result, which entries, and how: the shape, a flipped sign, a constant factor or offset, a
permutation of the rows, NaN or inf, an exception, ...), so that an instructor sees which
unknown mistakes many students share and can add them to the catalogue. The signature leaves
the numbers out (two students' counterexamples differ, their mistake need not), the record keeps
them for ``nbg mistakes --group``. Runs in the judge (:func:`record`: NumPy and the standard
library only) and in the grader (:func:`cell_metadata`: what the judge's verdict may put in a
cell's metadata, checked and cut to size).
"""

from __future__ import annotations

from grading.execution.evidence.counterexample import _show, count, difference

MAX_TEXT = 2_000  # characters of a call or a result kept in the cell's metadata
RTOL, ATOL = 1e-6, 1e-9


def _np():
    import numpy as np

    return np


def _raised(value) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] == "raised"


def _kind(value) -> str:
    if hasattr(value, "toarray") and hasattr(value, "format"):
        return f"a {value.format.upper()} sparse matrix"
    return {"ndarray": "an array", "list": "a list", "tuple": "a tuple", "dict": "a dict"}.get(
        type(value).__name__, "a number" if _np().ndim(value) == 0 and not isinstance(value, str) else "a value")


def _where(wrong) -> str:
    """Which entries differ: every one, whole rows, whole columns, one, or some."""
    if wrong.all():
        return "every entry"
    if wrong.sum() == 1:
        return "one entry"
    if wrong.ndim == 2:
        rows, columns = wrong.any(axis=1), wrong.any(axis=0)
        if (wrong[rows] == True).all():  # noqa: E712 (NumPy booleans)
            return "whole rows"
        if (wrong[:, columns] == True).all():  # noqa: E712
            return "whole columns"
    return "some entries"


def _how(a, b, wrong) -> str:
    """How the entries that differ differ (a and b float arrays of one shape)."""
    np = _np()
    close = lambda x, y: bool(np.allclose(x, y, rtol=RTOL, atol=ATOL))  # noqa: E731
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    if (~finite_a & finite_b).any():
        return "NaN or inf where the reference is finite"
    if (finite_a & ~finite_b).any():
        return "finite where the reference has NaN or inf"
    if a.ndim == 2 and a.shape[0] > 1 and close(a[np.lexsort(a.T[::-1])], b[np.lexsort(b.T[::-1])]):
        return "rows in another order"
    if a.ndim >= 1 and a.size > 1 and close(np.sort(a, axis=None), np.sort(b, axis=None)):
        return "entries in another order"
    x, y = a[wrong], b[wrong]
    if close(x, -y) and np.abs(y).max() > ATOL:
        return "sign flipped"
    if x.size < 2:
        return "another value"
    if (np.abs(y) > ATOL).all() and close(x / y, np.full_like(x, x[0] / y[0])):
        return "off by a constant factor"
    if close(x - y, np.full_like(x, x[0] - y[0])):
        return "off by a constant"
    return "other values"


def _items(value) -> bool:
    """A tuple of results, or a list of arrays (one per feature): compared item by item."""
    np = _np()
    return isinstance(value, tuple) or isinstance(value, list) and any(
        isinstance(item, (np.ndarray, list, tuple)) or hasattr(item, "toarray") for item in value)


def _differs(yours, expected) -> str:
    np = _np()
    if _items(yours) and _items(expected) and len(yours) == len(expected):
        parts = [f"item {i}: {how}" for i, (x, y) in enumerate(zip(yours, expected)) if (how := _differs(x, y))]
        return "; ".join(parts[:3])
    sparse = [hasattr(v, "toarray") and hasattr(v, "format") for v in (yours, expected)]
    if sparse[0] and sparse[1] and yours.format != expected.format or any(sparse) and not all(sparse):
        return f"{_kind(yours)} where {_kind(expected)} is expected"
    if isinstance(yours, np.ndarray) != isinstance(expected, np.ndarray) and (np.ndim(yours) or np.ndim(expected)):
        return f"{_kind(yours)} where {_kind(expected)} is expected"
    try:
        a = np.asarray(yours.toarray() if sparse[0] else yours)
        b = np.asarray(expected.toarray() if sparse[1] else expected)
    except Exception:
        return "another value"
    if a.shape != b.shape:
        if a.ndim != b.ndim:
            return f"shape: {a.ndim}-D where {b.ndim}-D is expected"
        axes = [i for i, (m, n) in enumerate(zip(a.shape, b.shape)) if m != n]
        return "shape: another length along axis " + ", ".join(str(i) for i in axes)
    if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
        return "" if np.array_equal(a, b) else "another value"
    a, b = a.astype(float), b.astype(float)
    wrong = ~np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
    if not wrong.any():
        return ""
    if a.size == 1:  # one number: which part and how cannot be told apart, as for a scalar
        return _how(a.reshape(1), b.reshape(1), wrong.reshape(1))
    return f"{_where(wrong)}, {_how(a, b, wrong)}"


def signature(yours, expected) -> str:
    """The behaviour of a counterexample: outcomes ``(value, (args_after, kwargs_after))`` or
    ``(("raised", name), None)``, the student's then the reference's."""
    if _raised(yours[0]):
        return f"raises {yours[0][1]}"
    if _raised(expected[0]):
        return "returns a value where the reference raises"
    return _differs(yours[0], expected[0]) or "changes its arguments in place"


def size(args, kwargs):
    """``[rows, features]`` of the call's largest array argument (a 1-D one is ``[n, 1]``), None
    when it has none: the input's size as the acceptance figure counts it."""
    np = _np()
    best = None
    for value in [*args, *kwargs.values()]:
        if hasattr(value, "toarray") and hasattr(value, "shape"):
            shape = tuple(value.shape)
        elif isinstance(value, (np.ndarray, list, tuple)):
            try:
                shape = np.shape(value) if not any(isinstance(v, str) for v in value) else (len(value),)
            except Exception:
                shape = (len(value),)
        else:
            continue
        if not shape:
            continue
        shape = (shape[0], int(np.prod(shape[1:])) if len(shape) > 1 else 1)
        if best is None or shape[0] * shape[1] > best[0] * best[1]:
            best = shape
    return None if best is None else [int(best[0]), int(best[1])]


def record(function, names, small, original, shown) -> dict:
    """What the cell's metadata keeps of a counterexample (``small`` and ``original``: ``(args,
    kwargs, yours, expected)``; ``shown``: whether the student was shown it)."""
    args, kwargs, yours, expected = small
    named = [f"{names[i]}={_show(v, True)}" if i < len(names) else _show(v, True) for i, v in enumerate(args)]
    named += [f"{key}={_show(v, True)}" for key, v in kwargs.items()]
    return {"function": function, "signature": signature(yours, expected),
            "call": f"{function}(" + ", ".join(named) + ")",
            "yours": f"raised {yours[0][1]}" if _raised(yours[0]) else _show(yours[0]),
            "expected": _show(expected[0]),
            "differs": "" if _raised(yours[0]) else difference(yours[0], expected[0]),
            "values": count((args, kwargs)), "original_values": count(original[:2]),
            "size": size(args, kwargs), "original_size": size(*original[:2]), "shown": bool(shown)}


def _text(value) -> str:
    return str(value).encode("utf-8", "replace").decode("utf-8").replace("\x00", "")[:MAX_TEXT]


def _pair(value):
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and v >= 0 for v in value):
        return [int(v) for v in value]
    return None


def cell_metadata(verdict) -> dict:
    """The metadata a failed cell keeps for the report from the judge's verdict: the ids of the
    known mistakes named (``nbg_diagnosis``) and the counterexample (``nbg_counterexample``)."""
    metadata = {}
    found = verdict.get("diagnosis") if isinstance(verdict.get("diagnosis"), list) else []
    if found:
        metadata["nbg_diagnosis"] = [f"{item['function']}/{m['id']}" for item in found for m in item["mistakes"]]
    example = verdict.get("counterexample")
    if isinstance(example, dict) and isinstance(example.get("function"), str):
        kept = {key: _text(example.get(key, "")) for key in ("function", "signature", "call", "yours",
                                                               "expected", "differs")}
        for key in ("values", "original_values"):
            kept[key] = int(example[key]) if isinstance(example.get(key), int) else 0
        kept["size"], kept["original_size"] = _pair(example.get("size")), _pair(example.get("original_size"))
        kept["shown"] = example.get("shown") is True
        metadata["nbg_counterexample"] = kept
    return metadata
