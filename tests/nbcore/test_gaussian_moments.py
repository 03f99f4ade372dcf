"""GaussianNB's sufficient statistics: the one-pass shifted sums and the exact
two-pass fallback against per-class ``np.var`` (pairwise summation)."""

import numpy as np
import pytest

import nbcore.models.gaussian as gaussian
from nbcore import GaussianNB, gaussian_mean_var


def per_class_var(X, y):
    return np.array([X[y == c].var(axis=0) for c in np.unique(y)])


def spy_on_paths(monkeypatch):
    """Record which of the two algorithms produced the moments."""
    used = []
    for name in ("_shifted_moments", "_two_pass_moments"):
        original = getattr(gaussian, name)

        def spy(*args, original=original, name=name):
            result = original(*args)
            used.append((name, result is not None))
            return result

        monkeypatch.setattr(gaussian, name, spy)
    return used


def test_one_pass_sums_when_classes_overlap(monkeypatch):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 50_000)
    X = rng.normal(size=(50_000, 4)) * [1, 2, 0.5, 3] + y[:, None]
    used = spy_on_paths(monkeypatch)
    theta, var = gaussian_mean_var(X, y, [0, 1, 2])
    assert used == [("_shifted_moments", True)]
    np.testing.assert_allclose(var, per_class_var(X, y), rtol=1e-13)
    np.testing.assert_allclose(theta, [X[y == c].mean(axis=0) for c in range(3)], rtol=1e-13, atol=1e-14)  # data of scale 1


@pytest.mark.parametrize("case", ["far-apart means", "huge offset", "single sample", "constant feature"])
def test_falls_back_to_two_passes_where_one_pass_would_cancel(monkeypatch, case):
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 200)
    X = rng.normal(size=(600, 2))
    if case == "far-apart means":  # 1e4 standard deviations apart
        X += 1e4 * y[:, None]
    elif case == "huge offset":  # the shift is close, but x**2 dwarfs the spread
        X[:, 1] = 1e9 + X[:, 1] * 1e-3 + 1e3 * y
    elif case == "single sample":
        y = y.copy()
        y[-1] = 3
    else:
        X[y == 1, 0] = 7.25
    used = spy_on_paths(monkeypatch)
    theta, var = gaussian_mean_var(X, y, np.unique(y))
    assert used == [("_shifted_moments", False), ("_two_pass_moments", True)]
    np.testing.assert_allclose(var, per_class_var(X, y), rtol=1e-12, atol=1e-300)


def test_fit_matches_scikit_learn_far_from_the_origin():
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 2000)
    X = 1e6 + rng.normal(size=(2000, 3)) + 3 * y[:, None]
    ours, theirs = GaussianNB().fit(X, y), SkGaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-7, atol=1e-9)


def test_blocks_cover_every_row(monkeypatch):
    """Blocks of 7 rows over 100 rows: the last, partial block counts too."""
    monkeypatch.setattr(gaussian, "_BLOCK_BYTES", 7 * 8 * 3)
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(100, 3)), rng.integers(0, 2, 100)
    theta, var = gaussian_mean_var(X, y, [0, 1])
    np.testing.assert_allclose(var, per_class_var(X, y), rtol=1e-13)


def direct_jll(model, X):
    """The Gaussian joint log-likelihood written out term by term."""
    terms = -0.5 * (np.log(2 * np.pi * model.var_)[None] + (X[:, None, :] - model.theta_[None]) ** 2
                    / model.var_[None])
    return model.class_log_prior_ + np.nansum(terms, axis=2)


@pytest.mark.parametrize("block_bytes", [16 * 3 * 7, 1 << 22])  # 7 rows a block, or all at once
def test_blocked_scores_equal_the_formula(monkeypatch, block_bytes):
    monkeypatch.setattr(gaussian, "_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(100, 3)) * [1, 10, 0.1] + 50, rng.integers(0, 3, 100)
    model = GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), direct_jll(model, X), rtol=1e-11)


def test_missing_entries_are_left_out_of_the_scores():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 2, 60)
    model = GaussianNB(missing="skip").fit(X, y)
    X_missing = X.copy()
    X_missing[::3, 1] = np.nan
    expected = direct_jll(model, X_missing)  # nansum: a missing feature adds nothing
    np.testing.assert_allclose(model.predict_joint_log_proba(X_missing), expected, rtol=1e-11)
    proba = model.predict_proba(X_missing)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
