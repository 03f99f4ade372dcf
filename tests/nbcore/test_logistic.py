"""Tests for nbcore.logistic: scikit-learn is the oracle for the fitted weights.

Runtime: about 5 s of CPU without the slow scikit-learn estimator checks,
about 9 s with them.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import check_grad
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SklearnLogisticRegression
from sklearn.metrics import log_loss
from sklearn.preprocessing import StandardScaler

from nbcore.logistic import LogisticRegression, logistic_loss_grad, softmax_loss_grad
from tests.nbcore.sklearn_checks import estimator_checks

SOLVERS = ["lbfgs", "newton"]


def seeded_dataset(seed, n_classes):
    """Overlapping classes, so that the unpenalised optimum is finite too."""
    return make_classification(
        n_samples=120,
        n_features=5,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        flip_y=0.15,
        class_sep=0.8,
        random_state=seed,
    )


def sklearn_oracle(X, y, C):
    """scikit-learn's solution, converged far below the tolerance we test at."""
    return SklearnLogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(X, y)


def tight(solver, **params):
    return LogisticRegression(solver=solver, tol=1e-9, max_iter=1000, **params)


# ---------------------------------------------------------------- functional


def test_loss_grad_at_zero_weights_by_hand():
    # p = 1/2 everywhere: loss log 2; grad_w = mean((1/2 - y) x)
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    y = np.array([1, 0, 1])
    loss, grad_w, grad_b = logistic_loss_grad(np.zeros(2), 0.0, X, y)
    assert loss == pytest.approx(np.log(2))
    expected_grad_w = np.array([(-0.5 * 1 + 0.5 * 3 - 0.5 * 0), (-0.5 * 2 - 0.5 * 1 - 0.5)]) / 3
    np.testing.assert_allclose(grad_w, expected_grad_w)
    assert grad_b == pytest.approx((-0.5 + 0.5 - 0.5) / 3)


def test_loss_equals_sklearn_log_loss_and_penalty_skips_bias():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = rng.integers(0, 2, size=50)
    w, b = rng.normal(size=4), 0.7
    p = 1 / (1 + np.exp(-(X @ w + b)))
    loss, _, _ = logistic_loss_grad(w, b, X, y)
    assert loss == pytest.approx(log_loss(y, p))
    penalised, _, grad_b = logistic_loss_grad(w, b, X, y, l2=0.3)
    assert penalised == pytest.approx(log_loss(y, p) + 0.15 * w @ w)
    assert grad_b == pytest.approx(np.mean(p - y))


def test_loss_is_finite_for_huge_scores():
    X = np.array([[1.0], [1.0]])
    loss, grad_w, _ = logistic_loss_grad(np.array([1000.0]), 0.0, X, np.array([0, 1]))
    assert loss == pytest.approx(500.0)  # -log(1 - sigmoid(1000)) = 1000, averaged
    assert np.all(np.isfinite(grad_w))


@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_gradients_match_finite_differences(l2):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    y = rng.integers(0, 2, size=30)
    Y = np.eye(3)[rng.integers(0, 3, size=30)]

    def binary(params, index):
        out = logistic_loss_grad(params[:3], params[3], X, y, l2)
        return out[0] if index == 0 else np.append(out[1], out[2])

    def multi(params, index):
        W, b = params[:9].reshape(3, 3), params[9:]
        out = softmax_loss_grad(W, b, X, Y, l2)
        return out[0] if index == 0 else np.append(out[1].ravel(), out[2])

    for func, size in [(binary, 4), (multi, 12)]:
        point = rng.normal(size=size)
        error = check_grad(lambda p: func(p, 0), lambda p: func(p, 1), point)
        assert error < 1e-6


def test_loss_grad_errors_say_what_to_change():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="only 0 and 1"):
        logistic_loss_grad(np.zeros(2), 0.0, X, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"must have shape \(2,\)"):
        logistic_loss_grad(np.zeros(3), 0.0, X, np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="l2 must be >= 0"):
        logistic_loss_grad(np.zeros(2), 0.0, X, np.array([0, 1, 1]), l2=-1)


# ---------------------------------------------------------------- estimator


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize(
    ("seed", "n_classes", "C"),
    [(0, 2, 1.0), (1, 2, 0.05), (2, 2, np.inf), (0, 3, 1.0), (1, 3, np.inf), (2, 4, 0.05)],
)
def test_coefficients_match_sklearn(solver, seed, n_classes, C):
    X, y = seeded_dataset(seed, n_classes)
    expected = sklearn_oracle(X, y, C)
    model = tight(solver, C=C).fit(X, y)
    np.testing.assert_allclose(model.coef_, expected.coef_, atol=1e-4)
    np.testing.assert_allclose(model.intercept_, expected.intercept_, atol=1e-4)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-5)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))


@pytest.mark.parametrize("solver", SOLVERS)
def test_breast_cancer_standardised_matches_sklearn(solver):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    expected = sklearn_oracle(X, y, 1.0)
    model = tight(solver).fit(X, y)
    np.testing.assert_allclose(model.coef_, expected.coef_, atol=1e-4)
    np.testing.assert_allclose(model.intercept_, expected.intercept_, atol=1e-4)
    assert model.coef_.shape == (1, 30) and model.intercept_.shape == (1,)


@pytest.mark.parametrize("solver", SOLVERS)
def test_no_intercept_matches_sklearn(solver):
    X, y = seeded_dataset(3, 3)
    expected = SklearnLogisticRegression(fit_intercept=False, tol=1e-10, max_iter=10_000)
    expected.fit(X, y)
    model = tight(solver, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(model.coef_, expected.coef_, atol=1e-4)
    np.testing.assert_array_equal(model.intercept_, 0.0)


@pytest.mark.parametrize("solver", SOLVERS)
def test_integer_sample_weight_equals_duplicated_rows(solver):
    X, y = seeded_dataset(4, 3)
    weights = np.random.default_rng(4).integers(1, 4, size=len(y))
    weighted = tight(solver, C=0.5).fit(X, y, sample_weight=weights)
    duplicated = tight(solver, C=0.5).fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    np.testing.assert_allclose(weighted.coef_, duplicated.coef_, atol=1e-6)
    np.testing.assert_allclose(weighted.intercept_, duplicated.intercept_, atol=1e-6)


def test_sparse_input_equals_dense_and_string_labels():
    X, y = seeded_dataset(5, 3)
    labels = np.array(["ham", "spam", "eggs"])[y]
    X_pos = np.abs(X)
    dense = tight("newton").fit(X_pos, labels)
    sparse = tight("newton").fit(sp.csr_matrix(X_pos), labels)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-8)
    assert list(dense.classes_) == ["eggs", "ham", "spam"]
    assert set(dense.predict(X_pos)) <= set(labels)


def test_binary_outputs_are_consistent():
    X, y = seeded_dataset(6, 2)
    model = tight("lbfgs").fit(X, y)
    scores = model.decision_function(X)
    proba = model.predict_proba(X)
    assert scores.shape == (len(y),)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-scores)))
    np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(int))


def test_multiclass_intercepts_and_coefficients_sum_to_zero():
    # the symmetric representative of the softmax's equivalent solutions
    X, y = seeded_dataset(7, 3)
    model = tight("newton", C=np.inf).fit(X, y)
    np.testing.assert_allclose(model.intercept_.sum(), 0.0, atol=1e-10)
    np.testing.assert_allclose(model.coef_.sum(axis=0), 0.0, atol=1e-10)


def test_warns_when_not_converged():
    X, y = seeded_dataset(8, 2)
    for solver in SOLVERS:
        with pytest.warns(ConvergenceWarning, match="increase max_iter"):
            LogisticRegression(solver=solver, max_iter=1, tol=1e-12).fit(X, y)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"C": 0.0}, "C must be a positive number"),
        ({"C": -1.0}, "C must be a positive number"),
        ({"C": "big"}, "C must be a positive number"),
        ({"solver": "sgd"}, "Unknown solver 'sgd'"),
        ({"max_iter": 0}, "max_iter must be a positive integer"),
        ({"tol": 0.0}, "tol must be a positive number"),
    ],
)
def test_bad_parameters_raise(params, message):
    X, y = seeded_dataset(0, 2)
    with pytest.raises(ValueError, match=message):
        LogisticRegression(**params).fit(X, y)


def test_one_class_raises():
    with pytest.raises(ValueError, match="only one class"):
        LogisticRegression().fit(np.ones((4, 2)), np.zeros(4))


# one solver only: the checks exercise the API, which both solvers share;
# slow: about 60 scikit-learn checks, ~4 s of CPU
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator, check", list(estimator_checks([LogisticRegression()])))
def test_sklearn_estimator_api(estimator, check):
    check(estimator)
