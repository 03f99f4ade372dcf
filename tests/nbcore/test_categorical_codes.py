"""CategoricalNB takes integer arrays as they are and float arrays of whole
numbers; both give the same model, with or without missing entries."""

import numpy as np
import pytest

from nbcore import CategoricalNB

RNG = np.random.default_rng(0)
X_INT = RNG.integers(0, 4, (300, 5))
Y = RNG.integers(0, 3, 300)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float32])
def test_integer_and_float_codes_give_the_same_model(dtype):
    reference = CategoricalNB().fit(X_INT.astype(float), Y)
    model = CategoricalNB().fit(X_INT.astype(dtype), Y)
    for ours, theirs in zip(model.category_count_, reference.category_count_):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(model.predict_log_proba(X_INT.astype(dtype)),
                                  reference.predict_log_proba(X_INT.astype(float)))


@pytest.mark.parametrize("X", [np.array([[0, -1]]), np.array([[0.0, -0.5]]), np.array([[0.0, 1.5]])])
def test_negative_or_fractional_codes_are_refused(X):
    with pytest.raises(ValueError, match="category codes"):
        CategoricalNB().fit(np.vstack([X, X]), [0, 1])


def test_missing_entries_are_skipped_in_fit_and_predict():
    X = X_INT.astype(float)
    X_missing = X.copy()
    X_missing[::7, 2] = np.nan
    model = CategoricalNB(missing="skip").fit(X_missing, Y)
    kept = ~np.isnan(X_missing[:, 2])
    counts = np.array([np.bincount(X[kept & (Y == c), 2].astype(int), minlength=4) for c in range(3)])
    np.testing.assert_array_equal(model.category_count_[2], counts)
    # A missing entry contributes nothing: the same as predicting without that feature.
    row = X_missing[:1]
    jll = model.predict_joint_log_proba(row)
    expected = model.class_log_prior_ + sum(
        model.feature_log_prob_[j][:, int(row[0, j])] for j in range(5) if j != 2)
    np.testing.assert_allclose(jll[0], expected, rtol=1e-12)
