"""Helpers the notebooks' tests use to compare a student's result with nbcore.

The comparisons use references to NumPy and builtin functions captured when
this module is imported, and refuse to run when a test-relevant library
function has been replaced (a monkeypatched ``numpy.allclose`` would make any
answer pass).

Examples
--------
>>> import numpy as np
>>> check_array([0.25, 0.75], np.array([0.25, 0.75]), name="posterior")
>>> check_array([0.3, 0.7], [0.25, 0.75], name="posterior")
Traceback (most recent call last):
    ...
AssertionError: posterior, entry [0]: expected 0.25, got 0.3 (2 of 2 entries differ; rtol=1e-07, atol=1e-09).
"""

import builtins
import contextlib
import functools
import types
import warnings

import numpy as np
import numpy.testing

__all__ = ["check_array", "check_type", "assert_own_implementation", "hidden_rng", "quiet"]

# Pristine references, captured at import. The comparison below only uses these.
_asarray = np.asarray
_isnan = np.isnan
_isinf = np.isinf
_isfinite = np.isfinite
_absolute = np.absolute
_argwhere = np.argwhere
_logical_and = np.logical_and
_count_nonzero = np.count_nonzero
_array_equal = np.array_equal
_errstate = np.errstate
_abs, _len, _isinstance, _float = builtins.abs, builtins.len, builtins.isinstance, builtins.float
_tuple, _str, _getattr = builtins.tuple, builtins.str, builtins.getattr

_WATCHED = {
    "numpy.testing.assert_allclose": (numpy.testing, "assert_allclose"),
    "numpy.allclose": (np, "allclose"),
    "numpy.isclose": (np, "isclose"),
    "numpy.asarray": (np, "asarray"),
    "numpy.array_equal": (np, "array_equal"),
    "numpy.isnan": (np, "isnan"),
    "numpy.isfinite": (np, "isfinite"),
    "builtins.abs": (builtins, "abs"),
    "builtins.len": (builtins, "len"),
    "builtins.isinstance": (builtins, "isinstance"),
    "builtins.float": (builtins, "float"),
}
_ORIGINALS = {label: getattr(owner, attr) for label, (owner, attr) in _WATCHED.items()}


def _check_untampered():
    """Fail when a library function the tests rely on has been replaced."""
    for label, (owner, attr) in _WATCHED.items():
        if _getattr(owner, attr, None) is not _ORIGINALS[label]:
            raise AssertionError(
                f"{label} was replaced; do not monkeypatch libraries the tests use "
                "(restart the kernel and remove the line that assigns to it)."
            )


def _format_index(index):
    return ", entry [" + ", ".join(_str(int(i)) for i in index) + "]" if _len(index) else ""


def _kind(value):
    if _isnan(value):
        return "nan"
    if _isinf(value):
        return "inf" if value > 0 else "-inf"
    return "a finite number"


def check_array(result, expected, *, name, rtol=1e-7, atol=1e-9):
    """Assert that ``result`` equals ``expected`` (shape, inf/nan pattern, values).

    Parameters
    ----------
    result : array-like
        The student's result; converted with ``np.asarray(result, dtype=float)``.
    expected : array-like
        The reference values.
    name : str
        What is compared, as the student knows it (e.g. ``"posterior(prior, lik)"``).
    rtol, atol : float
        Tolerances: ``|result - expected| <= atol + rtol * |expected|``.

    Raises
    ------
    AssertionError
        With a message saying what was expected and what was got: the shapes,
        or the first mismatching index and both values.
    """
    _check_untampered()
    if result is None:
        raise AssertionError(
            f"{name}: your function returned None; did you forget the return statement?"
        )
    try:
        got = _asarray(result, dtype=_float)
    except (TypeError, ValueError) as error:
        raise AssertionError(
            f"{name}: could not turn your result into an array of numbers "
            f"({error}); return numbers, e.g. a NumPy array of floats. "
            f"Got {type(result).__name__}."
        ) from None
    want = _asarray(expected, dtype=_float)
    if got.shape != want.shape:
        raise AssertionError(
            f"{name}: expected shape {want.shape}, got shape {got.shape}."
        )
    # Same pattern of nan, +inf and -inf (e.g. log(0) = -inf must stay -inf).
    for label, test in (("nan", _isnan), ("inf", _isinf)):
        mismatch = test(got) != test(want)
        if label == "inf":
            both_inf = _logical_and(test(got), test(want))
            mismatch = mismatch | (both_inf & (got != want))
        if mismatch.any():
            index = _tuple(_argwhere(mismatch)[0])
            raise AssertionError(
                f"{name}{_format_index(index)}: expected {_float(want[index])!r} "
                f"({_kind(want[index])}), got {_float(got[index])!r} "
                f"({_kind(got[index])})."
            )
    finite = _isfinite(want)
    with _errstate(invalid="ignore", over="ignore"):
        error = _absolute(got - want, where=finite, out=np.zeros_like(want))
        too_far = finite & (error > atol + rtol * _absolute(want))
    n_bad = int(_count_nonzero(too_far))
    if n_bad:
        index = _tuple(_argwhere(too_far)[0])
        raise AssertionError(
            f"{name}{_format_index(index)}: expected {float(want[index])!r}, got "
            f"{float(got[index])!r} ({n_bad} of {want.size} entries differ; "
            f"rtol={rtol}, atol={atol})."
        )


_KINDS = {"float": "f", "int": "iu", "bool": "b", "number": "fiub"}
_SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def check_type(result, *, name, container="ndarray", kind=None, sparse_format=None):
    """Assert that ``result`` has the type the task prescribes, before its values are compared.

    Parameters
    ----------
    result : object
        The student's result.
    name : str
        What is checked, as the student knows it.
    container : {"ndarray", "list", "sparse", "number", None}
        ``"ndarray"``: a NumPy array (not a list, not a matrix); ``"list"``: a Python list;
        ``"sparse"``: a SciPy sparse matrix or array; ``"number"``: a Python or NumPy scalar;
        None: not checked.
    kind : {"float", "int", "bool", "number", None}
        The dtype's kind (``"int"`` accepts signed and unsigned integers).
    sparse_format : str, optional
        With ``container="sparse"``: the format required, e.g. ``"csr"``.

    Raises
    ------
    AssertionError
        Saying what was expected and what was got.
    """
    _check_untampered()
    got = type(result).__name__
    if result is None:
        raise AssertionError(f"{name}: your function returned None; did you forget the return statement?")
    if container == "ndarray" and not (_isinstance(result, np.ndarray) and type(result) is not np.matrix):
        raise AssertionError(f"{name}: return a NumPy array (np.ndarray), got {got}.")
    if container == "list" and not _isinstance(result, list):
        raise AssertionError(f"{name}: return a Python list, got {got}.")
    if container == "number" and not _isinstance(result, (int, float, np.number)):
        raise AssertionError(f"{name}: return a single number, got {got}.")
    if container == "sparse":
        import scipy.sparse

        if not scipy.sparse.issparse(result):
            raise AssertionError(f"{name}: return a SciPy sparse matrix, got {got}.")
        if sparse_format is not None and _getattr(result, "format", None) != sparse_format:
            raise AssertionError(f"{name}: return a sparse matrix in {sparse_format.upper()} format "
                                 f"(scipy.sparse.{sparse_format}_matrix), got {_getattr(result, 'format', got)}.")
    if kind is not None:
        dtype = _getattr(result, "dtype", None)
        if dtype is None:
            dtype = _asarray(result).dtype
        if dtype.kind not in _KINDS[kind]:
            raise AssertionError(f"{name}: expected {kind} values, got dtype {dtype}.")


# The seed of the hidden tests' random inputs for one grading run. The grader's judge sets
# it (from a secret of the instructor's, the student and the submission) so that inputs seen
# in one run's feedback cannot be replayed in the next; unset, the tests use their own seeds.
_GRADING_SEED = None


def set_grading_seed(seed) -> None:
    """Called by the grader's judge before a notebook's tests run; None restores the default."""
    global _GRADING_SEED
    _GRADING_SEED = None if seed is None else int(seed)


def hidden_rng(seed):
    """A NumPy random generator for a hidden test's inputs.

    Outside grading (the instructor's own run, CI) it is ``np.random.default_rng(seed)``; in the
    grader's judge the seed is mixed with the run's grading seed, so each student's submission
    gets its own inputs, reproducible on a regrade of the same submission.
    """
    if _GRADING_SEED is None:
        return np.random.default_rng(seed)
    return np.random.default_rng([int(seed), _GRADING_SEED])


_FORBIDDEN_PREFIXES = ("nbcore", "sklearn.naive_bayes")


def _forbidden_module(name):
    return _isinstance(name, _str) and any(
        name == p or name.startswith(p + ".") for p in _FORBIDDEN_PREFIXES
    )


def _code_objects(code):
    yield code
    for constant in code.co_consts:
        if _isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def _delegation(func, seen):
    """A description of what ``func`` delegates to, or None."""
    while _isinstance(func, functools.partial):
        func = func.func
    func = _getattr(func, "__func__", func)  # bound methods
    if id(func) in seen:
        return None
    seen.add(id(func))
    if _forbidden_module(_getattr(func, "__module__", None)):
        return f"{func.__module__}.{_getattr(func, '__name__', func)}"
    code = _getattr(func, "__code__", None)
    if code is None:
        return None
    referenced = {}
    for sub in _code_objects(code):
        for name in sub.co_names:
            if name in func.__globals__:
                referenced[name] = func.__globals__[name]
            elif _forbidden_module(name) or name == "naive_bayes":
                return f"an import of {name}"
        for constant in sub.co_consts:
            if _isinstance(constant, _str) and (
                "nbcore" in constant or "naive_bayes" in constant
            ):
                return f"the string {constant!r}"
    for cell in func.__closure__ or ():
        with contextlib.suppress(ValueError):
            referenced[cell.cell_contents.__class__.__name__] = cell.cell_contents
    for name, value in referenced.items():
        if _isinstance(value, types.ModuleType):
            if _forbidden_module(value.__name__):
                return f"the module {value.__name__} (as {name})"
            continue
        module = _getattr(value, "__module__", None)
        if _forbidden_module(module):
            return f"{module}.{_getattr(value, '__name__', name)} (as {name})"
        if _isinstance(value, (types.FunctionType, functools.partial)):
            found = _delegation(value, seen)  # the student's own helpers
            if found:
                return f"{found}, through {name}"
    return None


def assert_own_implementation(func):
    """Fail when ``func`` calls nbcore or ``sklearn.naive_bayes`` instead of computing.

    Looks at the names ``func`` (and the helper functions it calls) uses:
    imports, global variables, closures and strings.

    Raises
    ------
    AssertionError
        Naming what was delegated to.
    """
    if _getattr(func, "__nbg_remote__", False) is True and _isinstance(func, _REMOTE_TYPES):
        # At grading time the function runs in the student's kernel, which has no
        # nbcore; the grader's static scan reviews the source instead.
        return
    _check_untampered()
    if not callable(func):
        raise AssertionError(f"Expected a function, got {type(func).__name__}.")
    found = _delegation(func, set())
    if found:
        name = _getattr(func, "__name__", "your function")
        raise AssertionError(
            f"{name} uses {found}; the exercise is to compute it yourself with "
            "NumPy, not to call nbcore or sklearn.naive_bayes."
        )


# Callables that stand for a student's function running in another process (the
# grader's judge registers its proxy type); the kit itself never imports the grader.
_REMOTE_TYPES = ()


def register_remote_type(cls) -> None:
    """Treat instances of ``cls`` marked ``__nbg_remote__`` as a student's function elsewhere.

    The grader's judge calls this for its proxy of the student's functions:
    their code runs in the student's kernel, so :func:`assert_own_implementation`
    cannot inspect it there (the grader's static scan reviews the source instead).
    """
    global _REMOTE_TYPES
    if cls not in _REMOTE_TYPES:
        _REMOTE_TYPES = (*_REMOTE_TYPES, cls)


@contextlib.contextmanager
def quiet():
    """Silence warnings and NumPy floating-point warnings inside the block.

    nbgrader scores a test cell that writes to stderr as failed, and a
    student's ``np.log(0)`` is a legitimate ``-inf``.

    Examples
    --------
    >>> with quiet():
    ...     value = np.log(0.0)
    >>> value
    np.float64(-inf)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield
