"""The rule on ready-made libraries: what a graded function may use, and what it may not.

The notebooks state it: *graded functions compute with NumPy, SciPy, pandas and
Python's standard library for maths and data structures; an exercise names any
other library it allows or forbids. A graded function that uses another library
or loads code in a way the grader cannot read gets 0 points for that function.*

:class:`LibraryRule` holds the allow-list by module prefix (:data:`DEFAULT_ALLOWED`,
``c.Nbg.allowed_libraries`` course-wide), the course's ``c.Nbg.forbidden_libraries``,
each exercise's own ``allow``/``forbid`` lists (the source notebook's
``metadata["nbg"]["libraries"]``; the grader reads them from the source, never the
submission's, ``nbkit check`` from the release notebook, which carries them) and the
instructor's overrules (recorded by the grader). A dotted name matches a module or an
attribute path: ``scipy.special`` matches ``scipy.special.softmax``; a forbidden
name wins over an allowed one. Names are also resolved to the objects they name in
the grading process (only for allowed modules), so ``numpy.testing._private.utils.os``
is the module ``os`` and a forbidden ``scipy.special.softmax`` is forbidden under any
of its paths.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import importlib
import importlib.machinery
import os
import sys
import types
from pathlib import Path

# The notebooks' words (markdown: their "Libraries" paragraph starts with it, tests/nbkit/test_check_rule.py),
# shared with the feedback and the students' README.
RULE_TEXT = (
    "Graded functions compute with NumPy, SciPy, pandas and Python's standard library for maths and data "
    "structures; an exercise names any other library it allows or forbids. A graded function that uses "
    "another library (scikit-learn, nbcore, ...) or loads code in a way the grader cannot read (importlib, "
    "`__import__`, `eval`, `exec`, `getattr` with a computed name, ...) gets 0 points for that function: the grader "
    "checks your submitted code before running it, the feedback says what it found, and your instructor can "
    "overrule the finding. Cells of your own that only explore may use any library and may look at objects "
    "(`print(name, getattr(model, name))`, `vars(model)`), but code that can replace a function while the "
    "notebook runs (`exec` or `eval` of code built at run time, `globals()`, `setattr` on a module, "
    "`sys.modules`, ...) counts, anywhere in the notebook, against every graded function tested after it."
)

DEFAULT_ALLOWED = (
    "numpy", "scipy", "pandas", "math", "cmath", "statistics", "collections", "itertools", "functools",
    "operator", "re", "string", "unicodedata", "typing", "dataclasses", "fractions", "decimal", "heapq",
    "bisect", "numbers", "warnings", "copy", "nbkit",
    # printing a note (to stderr too) and the float's limits are not computing with a library
    "sys.stdout", "sys.stderr", "sys.float_info", "sys.maxsize",
)
# Modules and paths that load or reach code the grader cannot read: findings whatever the allow-list says.
DYNAMIC_PATHS = (
    "importlib", "pickle", "_pickle", "cPickle", "marshal", "ctypes", "gc", "inspect", "pkgutil", "runpy",
    "builtins", "__builtin__", "__main__", "sys.modules", "sys._getframe", "sys.settrace", "sys.setprofile",
    "sys.meta_path", "sys.path_hooks", "sys._current_frames", "sys.addaudithook", "dill", "cloudpickle",
    "joblib.load", "shelve", "code", "codeop", "zipimport", "types.FunctionType", "types.CodeType",
    "types.ModuleType", "pandas.read_pickle", "pandas.io.pickle", "numpy.f2py", "numpy.ctypeslib",
    "typing.get_type_hints", "typing.ForwardRef", "string.Formatter", "sklearn.utils.all_estimators",
    "sklearn.utils.discovery", "sklearn.utils._testing",
)
# Of those, the ones that find an estimator but cannot rebind a name of the notebook.
NOT_REBINDING = ("sklearn.utils.all_estimators", "sklearn.utils.discovery", "sklearn.utils._testing")
# Builtins that run or look up code by a computed name (getattr and co only with a computed name).
DYNAMIC_BUILTINS = frozenset({"__import__", "eval", "exec", "compile", "globals", "vars", "locals", "breakpoint",
                              "getattr", "setattr", "delattr", "__build_class__"})
# Attributes that reach a namespace, a frame or code objects.
DYNAMIC_ATTRIBUTES = frozenset({
    "__dict__", "__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__", "__import__",
    "__loader__", "__spec__", "__getattribute__", "__self__", "__func__", "__wrapped__", "__defaults__",
    "__kwdefaults__", "__mro__", "__bases__", "__base__", "__reduce__", "__reduce_ex__",
    "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame",
    "func_globals", "user_ns", "user_global_ns", "__annotations__",
})
DANGEROUS_OBJECTS = tuple(getattr(builtins, name) for name in
                          ("eval", "exec", "compile", "__import__", "globals", "vars", "locals", "getattr",
                           "setattr", "delattr"))


def is_under(path: str, prefixes) -> bool:
    """``path`` is one of ``prefixes`` or inside one (``scipy.special.softmax`` is under ``scipy``)."""
    return any(path == p or path.startswith(p + ".") for p in prefixes)


def is_dynamic_path(path: str) -> bool:
    return is_under(path, DYNAMIC_PATHS)


def installed_module(name: str) -> bool:
    """The top-level module ``name`` is already imported, in the standard library, or installed in this
    environment: never a file in the current folder, which is the student's when ``nbkit check`` runs (and
    whose files the grader's process does not see either)."""
    if name in sys.modules or name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return True
    here = {"", ".", os.getcwd()}
    path = [entry for entry in sys.path if entry not in here and Path(entry or ".").resolve() != Path.cwd()]
    for finder in sys.meta_path:  # editable installs have finders of their own
        try:
            spec = (importlib.machinery.PathFinder.find_spec(name, path) if finder is importlib.machinery.PathFinder
                    else finder.find_spec(name, None))
        except (ImportError, ValueError, AttributeError, TypeError):
            continue
        if spec is not None:
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _resolve(path: str):
    """(object, real name of the last module passed) that ``path`` names in the grading process, or None.
    Only called for paths under an allowed module."""
    parts = path.split(".")
    if not installed_module(parts[0]):
        return None
    try:
        obj = importlib.import_module(parts[0])
    except Exception:
        return None
    walked = [parts[0]]
    for part in parts[1:]:
        walked.append(part)
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(walked))
            except Exception:
                return None
        except Exception:
            return None
        if isinstance(obj, types.ModuleType) and obj.__name__ != ".".join(walked):
            return obj, obj.__name__
    return obj, None


def _objects(names) -> list:
    found = []
    for name in names:
        resolved = _resolve(name)
        if resolved is not None and not isinstance(resolved[0], (int, float, str, bool, type(None))):
            found.append(resolved[0])
    return found


@dataclasses.dataclass(frozen=True)
class LibraryRule:
    """What each graded function of one notebook may use, and the instructor's overrules."""

    allowed: tuple = DEFAULT_ALLOWED
    forbidden: tuple = ()
    exercises: dict = dataclasses.field(default_factory=dict)  # function -> {"allow": (...), "forbid": (...)}
    overruled: dict = dataclasses.field(default_factory=dict)  # function -> the instructor's reason

    def lists(self, function):
        own = self.exercises.get(function, {})
        return (tuple(self.allowed) + tuple(own.get("allow", ())),
                tuple(self.forbidden) + tuple(own.get("forbid", ())))

    def import_allowed(self, function, module: str) -> bool:
        """``import a.b`` is fine when ``a.b`` is allowed or holds an allowed name (its uses are checked)."""
        allowed, _ = self.lists(function)
        return is_under(module, allowed) or any(a.startswith(module + ".") for a in allowed)

    def why_not(self, function, path: str) -> tuple[str, str] | None:
        """(kind, words) when ``function`` may not use the module or attribute ``path``, else None;
        kind is "dynamic" (code the grader cannot read) or "library"."""
        if is_dynamic_path(path):
            return "dynamic", f"uses {path}, which loads or reaches code the grader cannot read"
        allowed, forbidden = self.lists(function)
        if is_under(path, forbidden):
            return "library", f"uses {path}, which this exercise forbids"
        if not is_under(path, allowed):
            return "library", f"uses {path}, outside the allowed libraries"
        resolved = _resolve(path)
        if resolved is None:
            return None
        obj, real_module = resolved
        if real_module is not None and not is_under(real_module, allowed):
            return "library", f"uses {path}, which is the module {real_module}, outside the allowed libraries"
        if real_module is not None and (is_dynamic_path(real_module) or is_under(real_module, forbidden)):
            return "dynamic", f"uses {path}, which is the module {real_module}"
        if any(obj is o for o in DANGEROUS_OBJECTS):
            return "dynamic", f"uses {path}, which is the builtin {getattr(obj, '__name__', obj)}"
        if forbidden and any(obj is o for o in _objects(forbidden)):
            return "library", f"uses {path}, which this exercise forbids"
        return None


def exercise_libraries(notebook, where: str) -> dict:
    """The ``metadata["nbg"]["libraries"]`` of a source notebook, checked:
    ``{"<function>": {"allow": [names], "forbid": [names]}}``."""
    raw = (notebook.get("metadata", {}).get("nbg", {}) or {}).get("libraries", {}) or {}
    form = 'metadata["nbg"]["libraries"] must map a function name to {"allow": [...], "forbid": [...]}'
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: {form}")
    checked = {}
    for function, lists in raw.items():
        if not isinstance(lists, dict) or set(lists) - {"allow", "forbid"}:
            raise ValueError(f"{where}: {form} (see {function!r})")
        entry = {}
        for key in ("allow", "forbid"):
            names = lists.get(key, [])
            if not isinstance(names, list) or not all(isinstance(n, str) and n and
                                                      all(p.isidentifier() for p in n.split(".")) for n in names):
                raise ValueError(f"{where}: {function!r} {key} must be a list of dotted names such as "
                               f"'sklearn.metrics.confusion_matrix', got {names!r}")
            entry[key] = tuple(names)
        checked[str(function)] = entry
    return checked
