"""The submission that hard-codes what the notebook shows, for the mutation suite.

For every graded function, the answer a student could write without computing
anything: a table from the arguments of each call in the notebook's visible
tests to the result the instructor's answer gives there, and for any other
arguments the first of those results. It passes every visible test and knows
nothing else, so it must earn no point: the suite grades it with the others and
requires 0 on every test cell that carries points, and that its visible tests
pass (otherwise the table would prove nothing).

The table is built here, in this process: the release notebook's solution
cells and visible test cells run in order (hidden tests and demonstrations
are left out), each graded function wrapped to record its calls. The answer
is written as plain Python and NumPy literals: no pickle, nothing the
library rule forbids, so only the tests decide its score.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import math
import re
import warnings

import numpy as np

HIDDEN_MARKER = "### BEGIN HIDDEN TESTS"

# Written into the student's cell, and used here to key the recorded calls the same way.
CANON_SOURCE = '''
def _canon(value):
    """A text key for a call's arguments: numbers rounded, arrays and sparse matrices by value."""
    if hasattr(value, "toarray") and hasattr(value, "nnz"):
        value = value.toarray()
    if isinstance(value, dict):
        return "{" + ",".join(repr(k) + ":" + _canon(v) for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ",".join(_canon(item) for item in value) + "]"
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return format(float(value), ".9g")
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "None"
    return "?"  # a callable or an object: not part of the key
'''

_namespace: dict = {"np": np}
exec(compile(CANON_SOURCE, "<canon>", "exec"), _namespace)
canon = _namespace["_canon"]


def literal(value) -> str:
    """Python source that rebuilds ``value`` (NumPy arrays, SciPy sparse matrices, containers)."""
    if hasattr(value, "toarray") and hasattr(value, "format"):
        return f"scipy.sparse.{value.format}_matrix({literal(value.toarray())})"
    if isinstance(value, np.ndarray):
        return f"np.array({literal(value.tolist())}, dtype={value.dtype.str!r})"
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return f"np.{type(value).__name__}({literal(value.item())})"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, (bool, int, str)) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(literal(item) + ", " for item in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write a {type(value).__name__} as a literal")


def _runnable(source: str) -> str:
    """A cell's source without IPython magics (this is plain Python)."""
    return "\n".join(line for line in source.splitlines() if not re.match(r"\s*[%!]", line))


def _definitions_only(source: str) -> str:
    """A given cell's imports and definitions, without the experiments it also runs."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    tree.body = [node for node in tree.body if isinstance(node, kinds)]
    return ast.unparse(tree)


def record_visible_calls(notebook, functions) -> dict:
    """function -> [(key, result)] of every call the visible tests make, in order."""
    calls = {name: [] for name in functions}
    namespace: dict = {"__name__": "__main__"}
    recording = [False]  # only the visible tests' calls count, not the demonstrations'

    def wrapped(name, function):
        def recorder(*args, **kwargs):
            key = canon((list(args), kwargs))
            result = function(*copy.deepcopy(args), **copy.deepcopy(kwargs))
            if recording[0]:
                calls[name].append((key, copy.deepcopy(result)))
            return result
        return recorder

    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or HIDDEN_MARKER in cell.source:
            continue
        source = _runnable(cell.source)
        if not (meta.get("grade") or meta.get("solution")):
            source = _definitions_only(source)
        code = compile(source, f"<{meta.get('grade_id', 'cell')}>", "exec")
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if meta.get("grade") or meta.get("solution"):
                recording[0] = bool(meta.get("grade")) and not meta.get("solution")
                try:
                    exec(code, namespace)  # a visible test must pass with the instructor's answers
                finally:
                    recording[0] = False
            else:
                try:  # a given cell kept for its definitions may need a demonstration left out
                    exec(code, namespace)
                except Exception:
                    pass
        if meta.get("solution"):
            for name in functions:
                if name in namespace and not getattr(namespace[name], "__wrapped_by_recorder__", False):
                    namespace[name] = wrapped(name, namespace[name])
                    namespace[name].__wrapped_by_recorder__ = True
    return calls


def hardcoded_answer(name: str, recorded) -> str:
    """The source of ``name`` as a lookup table of the visible tests' calls."""
    if not recorded:
        raise ValueError(f"the visible tests never call {name}: nothing to hard-code")
    table = {}
    for key, result in recorded:
        table.setdefault(key, result)
    first = literal(recorded[0][1])
    rows = ",\n".join(f"    {key!r}: {literal(result)}" for key, result in table.items())
    return (f"import copy\nimport numpy as np\nimport scipy.sparse\n{CANON_SOURCE}\n"
            f"_TABLE_{name} = {{\n{rows},\n}}\n_FIRST_{name} = {first}\n\n\n"
            f"def {name}(*args, **kwargs):\n"
            f"    return copy.deepcopy(_TABLE_{name}.get(_canon((list(args), kwargs)), _FIRST_{name}))\n")
