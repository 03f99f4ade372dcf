"""Label encoding: the counting fast path for small integer labels must agree
with the sorting path (np.unique / searchsorted) on every input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from nbcore._validation import _LABEL_TABLE_MAX, encode_labels, unique_labels

INT_DTYPES = st.sampled_from([np.int8, np.uint8, np.int32, np.int64, np.uint64])


@given(y=hnp.arrays(INT_DTYPES, st.integers(1, 40), elements=st.integers(0, 100)), shift=st.integers(-50, 0))
def test_unique_and_encode_agree_with_sorting(y, shift):
    if y.dtype.kind == "i":
        y = (y.astype(np.int64) + shift).astype(y.dtype)
    classes = unique_labels(y)
    assert classes.dtype == y.dtype
    np.testing.assert_array_equal(classes, np.unique(y))
    index = encode_labels(y, classes)
    np.testing.assert_array_equal(classes[index], y)
    np.testing.assert_array_equal(index, np.unique(y, return_inverse=True)[1])


@pytest.mark.parametrize("y", [
    np.array([0, _LABEL_TABLE_MAX + 5, 3]),  # too wide a range for a table: sorting path
    np.array([2**63 + 7, 1, 2**63 + 7], dtype=np.uint64),  # beyond int64
    np.array(["b", "a", "b"]),
    np.array([1.0, 0.5, 1.0]),
])
def test_other_labels_take_the_sorting_path(y):
    classes = unique_labels(y)
    np.testing.assert_array_equal(classes, np.unique(y))
    np.testing.assert_array_equal(classes[encode_labels(y, classes)], y)


@pytest.mark.parametrize("y, classes", [
    (np.array([0, 1, 5]), np.array([0, 1])),  # above every class, inside the table
    (np.array([0, 2, 1]), np.array([0, 1, 3])),  # a gap between classes
    (np.array([-1, 0]), np.array([0, 1])),  # below every class
    (np.array(["a", "z"]), np.array(["a", "b"])),
])
def test_unknown_labels_are_named(y, classes):
    with pytest.raises(ValueError, match=r"label\(s\) \[.*\] in y do not exist in the initial classes"):
        encode_labels(y, classes)
