"""Tests of nbcore.selection: mutual information against IIR's worked example and scikit-learn."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import mutual_info_classif
from sklearn.metrics import mutual_info_score

from nbcore.selection import mutual_information


def test_iir_export_poultry_example():
    # IIR 13.5.1: "export" and class "poultry" in Reuters-RCV1, N11 = 49, N10 = 27,652,
    # N01 = 141, N00 = 774,106: I = 0.0001105 bits.
    n11, n10, n01, n00 = 49, 27_652, 141, 774_106
    n = n11 + n10 + n01 + n00
    rows = np.arange(n11 + n10)  # the documents that contain "export"
    X = sp.csr_matrix((np.ones(rows.size), (rows, np.zeros(rows.size, dtype=int))), shape=(n, 1))
    y = np.zeros(n, dtype=int)
    y[:n11] = 1  # poultry and export
    y[n11 + n10:n11 + n10 + n01] = 1  # poultry without export
    bits = mutual_information(X, y, [0, 1])[0] / np.log(2)
    assert bits == pytest.approx(0.0001105, abs=5e-8)


def test_hand_computed_toy_values():
    # 8 documents, 4 spam (class 1) then 4 ham; word 3 occurs 3 times in one spam message only.
    X = np.array([[1, 1, 1, 3], [1, 0, 1, 0], [1, 1, 1, 0], [1, 0, 1, 0],
                  [0, 1, 1, 0], [0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 1, 0]])
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    expected = [np.log(2), 0.0, 0.0,
                1 / 8 * np.log(2) + 3 / 8 * np.log(24 / 28) + 4 / 8 * np.log(32 / 28)]
    np.testing.assert_allclose(mutual_information(X, y, [0, 1]), expected, atol=1e-15)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_matches_scikit_learn_on_random_presence(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.poisson(rng.uniform(0.05, 1.5, size=40), size=(200, 40))
    X[:, 0] = 0  # a word in no document
    X[:, 1] += 1  # a word in every document
    y = rng.integers(0, n_classes, size=200)
    got = mutual_information(X, y, np.arange(n_classes))
    per_column = [mutual_info_score(y, X[:, j] > 0) for j in range(X.shape[1])]
    np.testing.assert_allclose(got, per_column, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(got, mutual_info_classif(X > 0, y, discrete_features=True), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(mutual_information(sp.csr_matrix(X), y, np.arange(n_classes)), got)


def test_classes_absent_from_y_and_label_types():
    X = np.array([[2, 0], [0, 1], [1, 1]])
    with_absent = mutual_information(X, ["a", "b", "b"], ["c", "b", "a"])
    np.testing.assert_allclose(with_absent, [mutual_info_score(["a", "b", "b"], X[:, j] > 0) for j in range(2)])
