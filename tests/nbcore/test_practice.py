"""Tests for nbcore.practice: temperature scaling and the EM training set.

Expected values come from scikit-learn (``CalibratedClassifierCV`` with
``method="temperature"``, ``MultinomialNB`` fitted on repeated rows), from a
dense grid search and from hand-built arrays. Runtime: about 1 s.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.naive_bayes import MultinomialNB

from nbcore.practice import binary_log_loss, expand_with_posteriors, fit_temperature


class _GivenLogOdds(ClassifierMixin, BaseEstimator):
    """A 'classifier' whose decision function is column 0 of X (the log-odds)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def _scaled_data(seed, scale, n=4000):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=1.5, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return scale * z, y


@pytest.mark.parametrize("seed, scale", [(0, 1.0), (1, 7.0), (2, 0.3)])
def test_fit_temperature_matches_sklearn_temperature_scaling(seed, scale):
    log_odds, y = _scaled_data(seed, scale)
    frozen = FrozenEstimator(_GivenLogOdds().fit(log_odds[:, None], y))
    calibrated = CalibratedClassifierCV(frozen, method="temperature").fit(log_odds[:, None], y)
    p_sklearn = calibrated.predict_proba(log_odds[:, None])[:, 1]
    t = fit_temperature(log_odds, y)
    p_ours = 1 / (1 + np.exp(-log_odds / t))
    np.testing.assert_allclose(p_ours, p_sklearn, rtol=0, atol=2e-4)


def test_fit_temperature_is_the_grid_minimum_and_recovers_the_scale():
    log_odds, y = _scaled_data(3, 11.0)
    grid = np.exp(np.linspace(np.log(0.1), np.log(100), 20001))
    losses = [binary_log_loss(log_odds / t, y) for t in grid]
    t = fit_temperature(log_odds, y)
    assert t == pytest.approx(grid[int(np.argmin(losses))], rel=1e-3)
    assert binary_log_loss(log_odds / t, y) <= min(losses) + 1e-12
    assert 9.0 < t < 13.0  # the data were generated with log-odds 11 times too large


def test_fit_temperature_scales_with_the_log_odds_and_leaves_inputs_alone():
    log_odds, y = _scaled_data(4, 1.0, n=500)
    before = log_odds.copy()
    t1 = fit_temperature(log_odds, y)
    assert np.array_equal(log_odds, before)
    assert fit_temperature(5 * log_odds, y) == pytest.approx(5 * t1, rel=1e-6)
    assert fit_temperature(log_odds, y.astype(bool)) == pytest.approx(t1, rel=1e-12)


def test_binary_log_loss_is_finite_for_huge_log_odds():
    assert binary_log_loss([1000.0, -1000.0], [1, 0]) == 0.0
    assert binary_log_loss([1000.0], [0]) == 1000.0
    assert binary_log_loss([0.0], [1]) == pytest.approx(np.log(2))


def test_expand_with_posteriors_by_hand():
    X, y, w = expand_with_posteriors(np.array([[1, 0], [2, 2]]), np.array([5, 3]),
                                     np.array([[0, 1], [4, 0], [1, 1]]),
                                     np.array([[0.2, 0.8], [0.5, 0.5], [1.0, 0.0]]), np.array([5, 3]))
    np.testing.assert_array_equal(X, [[1, 0], [2, 2], [0, 1], [4, 0], [1, 1], [0, 1], [4, 0], [1, 1]])
    np.testing.assert_array_equal(y, [5, 3, 5, 5, 5, 3, 3, 3])
    np.testing.assert_array_equal(w, [1, 1, 0.2, 0.5, 1.0, 0.8, 0.5, 0.0])


def test_expand_with_hard_posteriors_is_fitting_on_the_labels():
    """One-hot posteriors: the weighted fit equals a fit on the labelled + truly labelled rows."""
    rng = np.random.default_rng(7)
    X = rng.poisson(1.0, size=(40, 6))
    y = rng.integers(0, 3, size=40)
    classes = np.array([0, 1, 2])
    resp = (y[10:, None] == classes).astype(float)
    X_big, y_big, w = expand_with_posteriors(X[:10], y[:10], X[10:], resp, classes)
    weighted = MultinomialNB().fit(X_big, y_big, sample_weight=w)
    plain = MultinomialNB().fit(X, y)
    np.testing.assert_allclose(weighted.feature_log_prob_, plain.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(weighted.class_log_prior_, plain.class_log_prior_, rtol=1e-12)


def test_expand_with_posteriors_sparse_and_no_labelled_rows():
    X_unlab = sp.csr_matrix(np.array([[0.0, 3.0], [1.0, 0.0]]))
    X, y, w = expand_with_posteriors(sp.csr_matrix((0, 2)), np.array([], dtype=int), X_unlab,
                                     np.array([[0.9, 0.1], [0.3, 0.7]]), np.array([1, 0]))
    assert sp.issparse(X)
    np.testing.assert_array_equal(X.toarray(), [[0, 3], [1, 0], [0, 3], [1, 0]])
    np.testing.assert_array_equal(y, [1, 1, 0, 0])
    np.testing.assert_allclose(w, [0.9, 0.3, 0.1, 0.7])
