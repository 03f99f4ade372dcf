"""grading.execution.plain: what may cross between the student's kernel and the judge (no kernel needed)."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from grading.execution import plain


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 2**80, 1.5, float("inf"), complex(1, -2), "text", "héllo",
    [1, 2.5, "a"], (1, (2, 3)), {"a": 1, 2: [3.0]},
    np.arange(6.0).reshape(2, 3), np.array([True, False]), np.array(["spam", "ham"]),
    np.array([], dtype=np.int64).reshape(0, 4), np.array([1 + 2j]), np.float32(2.5),
    np.array(0.5), np.arange(12.0).reshape(3, 4).T, np.arange(10)[::3],
])
def test_round_trip(value):
    back = plain.loads(plain.dumps(value))
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape and np.array_equal(back, value)
    else:
        assert back == value and type(back) is type(value.item() if isinstance(value, np.generic) else value)


def test_nan_and_numpy_scalars_become_python_numbers():
    assert np.isnan(plain.loads(plain.dumps(float("nan"))))
    assert type(plain.loads(plain.dumps(np.float64(0.75)))) is float  # np.float64 is a float subclass
    assert type(plain.loads(plain.dumps(np.int64(3)))) is int


def test_sparse_matrices_cross_as_their_parts():
    matrix = sp.random(5, 4, density=0.4, format="csr", random_state=0)
    back = plain.loads(plain.dumps(matrix))
    assert sp.issparse(back) and back.format == "csr" and np.array_equal(back.toarray(), matrix.toarray())
    assert plain.loads(plain.dumps(matrix.tocoo())).format == "coo"  # sent as CSR, rebuilt in its own format


def test_pandas_results_become_arrays():
    pd = pytest.importorskip("pandas")
    back = plain.loads(plain.dumps(pd.Series([1.0, 2.0])))
    assert isinstance(back, np.ndarray) and back.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("value, words", [
    (object(), "a object"),
    (np.array([object(), 1], dtype=object), "dtype=object"),
    (lambda: 1, "function"),
    (np.zeros(2, dtype=[("a", "f8")]), "dtype"),
])
def test_what_is_not_plain_data_is_refused_by_name(value, words):
    with pytest.raises(plain.PlainDataError, match=words):
        plain.encode(value)


@pytest.mark.parametrize("tree, words", [
    ({"t": "nd", "dtype": "|O", "shape": [1], "b64": ""}, "not plain data"),
    ({"t": "nd", "dtype": "<f8", "shape": [3], "b64": "AAAA"}, "needs 24 bytes"),
    ({"t": "nd", "dtype": "<f8", "shape": [-1], "b64": ""}, "non-negative"),
    ({"t": "pickle", "v": "gASV"}, "unknown tag"),
    ({"t": "int", "v": "9" * 5000}, "at most 4000 digits"),
    ({"t": "callback", "id": 1}, "unknown tag"),  # the judge never accepts a callable
    ({"t": "sparse", "format": "csr", "shape": [2, 2],
      "data": plain.encode(np.ones(1)), "indices": plain.encode(np.array([7])),
      "indptr": plain.encode(np.array([0, 1, 1]))}, "invalid sparse"),
    ({"t": "dict", "v": [[{"t": "list", "v": []}, 1]]}, "dict key"),
])
def test_hostile_encodings_are_refused(tree, words):
    with pytest.raises(plain.PlainDataError, match=words):
        plain.decode(tree)


def test_depth_and_json_are_bounded():
    deep = None
    for _ in range(plain.MAX_DEPTH + 5):
        deep = {"t": "list", "v": [deep]}
    with pytest.raises(plain.PlainDataError, match="nested"):
        plain.decode(deep)
    with pytest.raises(plain.PlainDataError, match="JSON"):
        plain.loads("{not json")
    assert json.loads(plain.dumps("\ud800"))  # a lone surrogate travels escaped


def test_a_sparse_matrix_keeps_its_format_and_class():
    """A task may prescribe CSR: a COO answer must arrive as COO, not converted on the way."""
    import scipy.sparse as sp

    from grading.execution import plain

    dense = np.array([[0.0, 1.0], [2.0, 0.0]])
    for matrix in (sp.csr_matrix(dense), sp.csc_matrix(dense), sp.coo_matrix(dense), sp.lil_matrix(dense),
                   sp.csr_array(dense), sp.coo_array(dense)):
        back = plain.decode(json.loads(json.dumps(plain.encode(matrix))))
        assert back.format == matrix.format and type(back) is type(matrix), (type(matrix), type(back))
        assert np.array_equal(back.toarray(), dense)


def test_same_holds_for_nan_in_lists_and_for_sparse_matrices():
    """The in-place check compares an argument before and after a call: a list holding NaN,
    or a sparse matrix, that the function left alone is unchanged."""
    from grading.execution import plain

    assert plain.same([[1.0, float("nan")]], [[1.0, float("nan")]])
    assert not plain.same([[1.0, float("nan")]], [[1.0, 0.0]])
    matrix = sp.csr_matrix(np.eye(2))
    assert plain.same([matrix], [matrix.copy()])
    assert not plain.same([matrix], [matrix.tocsc()])
    changed = sp.csr_matrix(np.array([[1.0, 5.0], [0.0, 1.0]]))
    assert not plain.same(matrix, changed)
