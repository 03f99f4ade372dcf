"""Invariances of the four estimators, with hypothesis (deterministic profile
from tests/conftest.py; about 10 s). The linear-form property lives with
nbcore.linear's tests."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import nbcore

NAMES = ["CategoricalNB", "MultinomialNB", "BernoulliNB", "GaussianNB"]
# Summation order changes the last bits: GaussianNB's one-pass variances lose
# up to 3 digits (nbcore.models.gaussian._MAX_CANCELLATION), and its log-probabilities
# reach -4000 here. A real mistake moves them by far more than this.
ROUNDOFF = 1e-12


@st.composite
def datasets(draw):
    """(X, y, integer weights) with every class present at least twice."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_classes = draw(st.integers(2, 4))
    n_features = draw(st.integers(1, 6))
    n_samples = draw(st.integers(2 * n_classes, 30))
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.repeat(np.arange(n_classes), 2),
                        rng.integers(0, n_classes, n_samples - 2 * n_classes)])
    X = rng.poisson(rng.uniform(0.2, 3.0, (n_classes, n_features))[y]).astype(float)
    weights = rng.integers(1, 4, n_samples)
    return X, y, weights


def make(name, X):
    """Model and data adapted to the event model (Gaussian: continuous values)."""
    if name == "GaussianNB":
        jitter = np.random.default_rng(0).normal(0, 0.5, X.shape)
        # No smoothing: epsilon_ uses the unweighted variance, like scikit-learn.
        return nbcore.GaussianNB(var_smoothing=0.0), X + jitter
    return getattr(nbcore, name)(), X


@pytest.mark.parametrize("name", NAMES)
@given(data=datasets())
def test_probabilities_sum_to_one(name, data):
    X, y, _ = data
    model, X = make(name, X)
    proba = model.fit(X, y).predict_proba(X)
    assert proba.shape == (len(X), len(np.unique(y)))
    assert (proba >= 0).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), proba, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("name", NAMES)
@given(data=datasets(), order_seed=st.integers(0, 1000))
def test_permuting_samples_changes_nothing(name, data, order_seed):
    X, y, _ = data
    model, X = make(name, X)
    order = np.random.default_rng(order_seed).permutation(len(X))
    reference = model.fit(X, y).predict_log_proba(X)
    permuted = getattr(nbcore, name)(**model.get_params()).fit(X[order], y[order])
    np.testing.assert_allclose(permuted.predict_log_proba(X), reference, rtol=ROUNDOFF, atol=1e-10)


@pytest.mark.parametrize("name", NAMES)
@given(data=datasets())
def test_integer_weights_equal_duplicated_rows(name, data):
    X, y, weights = data
    model, X = make(name, X)
    weighted = model.fit(X, y, sample_weight=weights).predict_log_proba(X)
    rows = np.repeat(np.arange(len(X)), weights)
    duplicated = getattr(nbcore, name)(**model.get_params()).fit(X[rows], y[rows])
    np.testing.assert_allclose(duplicated.predict_log_proba(X), weighted, rtol=ROUNDOFF, atol=1e-10)


@pytest.mark.parametrize("name", NAMES)
@given(data=datasets(), n_batches=st.integers(2, 5))
def test_partial_fit_in_batches_equals_fit(name, data, n_batches):
    X, y, weights = data
    model, X = make(name, X)
    if name == "GaussianNB":
        model.set_params(var_smoothing=1e-9)  # epsilon_ included: nbcore merges exactly
    whole = model.fit(X, y, sample_weight=weights)
    expected = whole.predict_log_proba(X)
    online = getattr(nbcore, name)(**model.get_params())
    if name == "GaussianNB":
        # A first batch whose every feature is constant gives var_smoothing no scale
        # (epsilon_ = 0): nbcore refuses a zero variance then, with a message.
        assume(np.var(X[np.array_split(np.arange(len(X)), n_batches)[0]], axis=0).max() > 0)
    for rows in np.array_split(np.arange(len(X)), n_batches):
        if len(rows):
            online.partial_fit(X[rows], y[rows], classes=np.unique(y),
                               sample_weight=weights[rows])
    atol = 1e-12 if name == "GaussianNB" else 1e-10
    np.testing.assert_allclose(online.predict_log_proba(X), expected, rtol=1e-12, atol=atol)
    if name == "GaussianNB":
        assert online.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)
        np.testing.assert_allclose(online.var_, whole.var_, rtol=1e-12)
