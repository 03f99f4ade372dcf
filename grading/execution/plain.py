"""Plain data across the trust boundary: numbers, strings, arrays, and containers of them.

The judge (which holds the expected values) and the student's kernel exchange
only what this module encodes: ``None``, ``bool``, ``int``, ``float``,
``complex``, ``str``, NumPy arrays of numbers, booleans or strings, SciPy
sparse matrices (as their component arrays), and ``list`` / ``tuple`` /
``dict`` of these. Everything travels as JSON; arrays as raw bytes in base64
with an explicit dtype and shape. Decoding never unpickles and never calls
code of the sender: a hostile kernel can only send wrong numbers, or a
message that :func:`decode` refuses with :class:`PlainDataError`.

This file is also executed inside the student's kernel (its source is sent
there by :mod:`grading.execution.judge_client`), so it imports nothing from the grader.
"""

import base64
import json

import numpy as np

MAX_DEPTH = 64
MAX_ITEMS = 1_000_000  # containers' entries, summed over one message
# Array element kinds that are plain data: bool, signed/unsigned int, float, complex, unicode.
ARRAY_KINDS = "biufcU"


class PlainDataError(ValueError):
    """A value is not plain data, or a message is not a valid encoding of one."""


def _type_name(value) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _encode_array(array):
    array = np.asarray(array)
    if array.dtype.kind == "O":
        try:  # e.g. a list of strings stored as objects
            converted = np.array(array.tolist())
        except Exception:
            converted = array
        if converted.dtype.kind == "O":
            raise PlainDataError("an array of Python objects (dtype=object); use numbers or strings")
        array = converted
    if array.dtype.kind not in ARRAY_KINDS or array.dtype.fields is not None or array.dtype.subdtype is not None:
        raise PlainDataError(f"an array of dtype {array.dtype}; use numbers, booleans or strings")
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # not np.ascontiguousarray: it turns 0-d into shape (1,)
    return {"t": "nd", "dtype": array.dtype.str, "shape": list(array.shape),
            "b64": base64.b64encode(array.tobytes()).decode("ascii")}


SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def _sparse_module():
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover - scipy is a dependency
        return None
    return scipy.sparse


def encode(value, *, callback=None, _depth=0):
    """The JSON-ready tree of a plain value.

    Parameters
    ----------
    value
        The value to send.
    callback : callable, optional
        Called with a callable found in ``value``; returns the JSON-ready stand-in
        for it (the judge sends its callables to the kernel this way). Without
        it a callable is refused.

    Raises
    ------
    PlainDataError
        Naming the type that is not plain data.
    """
    if _depth > MAX_DEPTH:
        raise PlainDataError(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, np.generic):  # before float: np.float64 is a float subclass
        if value.dtype.kind not in ARRAY_KINDS:
            raise PlainDataError(f"a NumPy scalar of dtype {value.dtype}")
        return encode(value.item(), callback=callback, _depth=_depth + 1)
    if value is None or type(value) is bool:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return {"t": "int", "v": str(int(value))}
    if isinstance(value, float):
        return {"t": "float", "v": repr(float(value))}
    if isinstance(value, complex):
        return {"t": "complex", "v": [repr(float(value.real)), repr(float(value.imag))]}
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    sparse = _sparse_module()
    if sparse is not None and sparse.issparse(value):
        matrix = value.tocsc() if value.format == "csc" else value.tocsr()
        # Sent as CSR or CSC; its own format and class travel along, since a task may prescribe them.
        return {"t": "sparse", "format": matrix.format, "shape": list(matrix.shape),
                "data": _encode_array(matrix.data), "indices": _encode_array(matrix.indices),
                "indptr": _encode_array(matrix.indptr), "as": str(value.format),
                "array": bool(hasattr(sparse, "sparray") and isinstance(value, sparse.sparray))}
    if isinstance(value, (list, tuple)):
        return {"t": "list" if isinstance(value, list) else "tuple",
                "v": [encode(item, callback=callback, _depth=_depth + 1) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[encode(k, callback=callback, _depth=_depth + 1),
                                     encode(v, callback=callback, _depth=_depth + 1)] for k, v in value.items()]}
    to_numpy = getattr(value, "to_numpy", None)
    if callable(to_numpy) and type(value).__module__.startswith("pandas"):
        return _encode_array(to_numpy())
    if callback is not None and callable(value):
        return callback(value)
    raise PlainDataError(f"a {_type_name(value)}")


def same(old, new) -> bool:
    """Equal plain content: arrays by shape, dtype and value (NaN equal to NaN), containers item by item."""
    try:
        if isinstance(old, np.ndarray) or isinstance(new, np.ndarray):
            return (isinstance(old, np.ndarray) and isinstance(new, np.ndarray) and old.shape == new.shape
                    and old.dtype == new.dtype and bool(np.array_equal(old, new, equal_nan=old.dtype.kind in "fc")))
        if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
            return type(old) is type(new) and len(old) == len(new) and all(map(same, old, new))
        if isinstance(old, dict) and isinstance(new, dict):
            return old.keys() == new.keys() and all(same(old[k], new[k]) for k in old)
        if type(old) is not type(new):
            return False
        if isinstance(old, (float, complex, np.floating, np.complexfloating)):
            return bool(old == new) or bool(np.isnan(old) and np.isnan(new))  # a NaN in a list is unchanged
        if hasattr(old, "toarray") and hasattr(old, "format"):  # sparse: same format, shape and entries
            return old.format == new.format and old.shape == new.shape and same(old.toarray(), new.toarray())
        return bool(old == new)
    except Exception:
        return False


def dumps(value, *, callback=None) -> str:
    """``encode`` as a JSON string."""
    return json.dumps(encode(value, callback=callback), ensure_ascii=True, allow_nan=True)


class _Decoder:
    def __init__(self, callback):
        self.callback, self.items = callback, 0

    def array(self, node):
        if not isinstance(node, dict) or node.get("t") != "nd":
            raise PlainDataError("an array was expected")
        try:
            dtype = np.dtype(node["dtype"])
        except (TypeError, ValueError, KeyError) as error:
            raise PlainDataError(f"unknown dtype: {error}") from None
        if dtype.kind not in ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise PlainDataError(f"dtype {dtype} is not plain data")
        shape = node.get("shape")
        if not isinstance(shape, list) or len(shape) > 32 or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise PlainDataError("an array's shape must be a list of non-negative integers")
        raw = base64.b64decode(node.get("b64", ""), validate=True)
        size = 1
        for n in shape:
            size *= n
        if size * dtype.itemsize != len(raw):
            raise PlainDataError(f"an array of shape {tuple(shape)} and dtype {dtype} needs "
                                 f"{size * dtype.itemsize} bytes, got {len(raw)}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()

    def __call__(self, node, depth=0):
        if depth > MAX_DEPTH:
            raise PlainDataError(f"nested more than {MAX_DEPTH} levels deep")
        self.items += 1
        if self.items > MAX_ITEMS:
            raise PlainDataError(f"more than {MAX_ITEMS} values")
        if node is None or isinstance(node, (bool, str)):
            return node
        if not isinstance(node, dict):
            raise PlainDataError(f"unexpected JSON {type(node).__name__}")
        tag = node.get("t")
        if tag == "int":
            text = node.get("v")
            if not isinstance(text, str) or len(text) > 4000:
                raise PlainDataError("an integer must be a decimal string of at most 4000 digits")
            return int(text)
        if tag == "float":
            return float(str(node.get("v")))
        if tag == "complex":
            real, imag = node.get("v", ["nan", "nan"])
            return complex(float(str(real)), float(str(imag)))
        if tag == "nd":
            return self.array(node)
        if tag == "sparse":
            import scipy.sparse as sp

            kind = {"csr": sp.csr_matrix, "csc": sp.csc_matrix}.get(node.get("format"))
            if kind is None:
                raise PlainDataError("a sparse matrix must be csr or csc")
            shape = node.get("shape")
            if not (isinstance(shape, list) and len(shape) == 2 and all(isinstance(n, int) and n >= 0 for n in shape)):
                raise PlainDataError("a sparse matrix needs a 2-d shape")
            parts = self.array(node.get("data")), self.array(node.get("indices")), self.array(node.get("indptr"))
            if parts[1].dtype.kind not in "iu" or parts[2].dtype.kind not in "iu":
                raise PlainDataError("a sparse matrix's indices must be integers")
            try:
                matrix = kind(parts, shape=tuple(shape))
                matrix.check_format(full_check=True)
                if node.get("array") is True and hasattr(sp, "csr_array"):
                    matrix = (sp.csr_array if matrix.format == "csr" else sp.csc_array)(matrix)
                if node.get("as") in SPARSE_FORMATS and node["as"] != matrix.format:
                    matrix = matrix.asformat(node["as"])
            except Exception as error:
                raise PlainDataError(f"an invalid sparse matrix: {error}") from None
            return matrix
        if tag in ("list", "tuple"):
            items = node.get("v")
            if not isinstance(items, list):
                raise PlainDataError(f"a {tag} needs a list of values")
            decoded = [self(item, depth + 1) for item in items]
            return decoded if tag == "list" else tuple(decoded)
        if tag == "dict":
            pairs = node.get("v")
            if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise PlainDataError("a dict needs a list of [key, value] pairs")
            result = {}
            for key, value in pairs:
                key = self(key, depth + 1)
                try:
                    hash(key)
                except TypeError:
                    raise PlainDataError(f"a dict key of type {type(key).__name__}") from None
                result[key] = self(value, depth + 1)
            return result
        if tag == "callback" and self.callback is not None:
            return self.callback(node)
        raise PlainDataError(f"unknown tag {str(tag)[:40]!r}")


def decode(tree, *, callback=None):
    """The value of an encoded tree; :class:`PlainDataError` when it is not valid plain data.

    ``callback`` turns a ``{"t": "callback", ...}`` node into a callable (the
    kernel side only; the judge refuses such nodes).
    """
    try:
        return _Decoder(callback)(tree)
    except PlainDataError:
        raise
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError, MemoryError) as error:
        raise PlainDataError(f"not a valid encoding ({type(error).__name__}: {str(error)[:200]})") from None


def loads(text, *, callback=None):
    """``decode`` of a JSON string (:class:`PlainDataError` on invalid JSON)."""
    try:
        tree = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise PlainDataError(f"not valid JSON ({str(error)[:200]})") from None
    return decode(tree, callback=callback)
