"""Tests for nbcore.linear: naive Bayes as a linear classifier.

Expected values come from the worked numbers of COURSE.md (the IIR
documents), from hand derivation, and from scikit-learn's fitted models.
Runtime: about 3 s of CPU plus imports.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import naive_bayes as sk
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from nbcore.models.bernoulli import BernoulliNB
from nbcore.models.categorical import CategoricalNB
from nbcore.models.gaussian import GaussianNB
from nbcore.linear import (
    SharedVarianceGaussianNB,
    bernoulli_linear_form,
    binary_linear_form,
    gaussian_linear_form,
    linear_form,
    multinomial_linear_form,
    pooled_variance,
    sigmoid,
    softmax,
)
from nbcore.models.multinomial import MultinomialNB

# IIR example 13.1: vocabulary Chinese, Beijing, Shanghai, Macao, Tokyo, Japan;
# d1-d3 are about China (label 1), d4 is not (label 0).
IIR_X = np.array(
    [
        [2, 1, 0, 0, 0, 0],  # Chinese Beijing Chinese
        [2, 0, 1, 0, 0, 0],  # Chinese Chinese Shanghai
        [1, 0, 0, 1, 0, 0],  # Chinese Macao
        [1, 0, 0, 0, 1, 1],  # Tokyo Japan Chinese
    ]
)
IIR_Y = np.array([1, 1, 1, 0])
IIR_D5 = np.array([[3, 0, 0, 0, 1, 1]])  # Chinese Chinese Chinese Tokyo Japan


def hand_pooled_variance(X, y):
    """Squared deviations from the own class mean, averaged over all samples."""
    deviations = X - np.array([X[y == c].mean(axis=0) for c in y])
    return (deviations**2).mean(axis=0)


def assert_equal_up_to_row_constant(jll, scores, atol=1e-8):
    difference = jll - scores
    spread = difference - difference[:, :1]  # zero when constant along each row
    np.testing.assert_allclose(spread, np.zeros_like(spread), atol=atol)


# ------------------------------------------------------------ worked numbers


def test_iir_multinomial_log_odds_gives_worked_posterior():
    model = MultinomialNB(alpha=1.0).fit(IIR_X, IIR_Y)
    w, b0 = binary_linear_form(*linear_form(model))
    # w_j = log P(word_j | china) - log P(word_j | not): Chinese 3/7 vs 2/9
    assert w[0] == pytest.approx(np.log((3 / 7) / (2 / 9)))
    assert w[4] == pytest.approx(np.log((1 / 14) / (2 / 9)))
    assert b0 == pytest.approx(np.log(3))  # log(3/4) - log(1/4)
    assert sigmoid(IIR_D5 @ w + b0)[0] == pytest.approx(0.68976, abs=5e-6)


def test_iir_bernoulli_log_odds_flips_the_decision():
    model = BernoulliNB(alpha=1.0).fit(IIR_X, IIR_Y)
    w, b0 = binary_linear_form(*linear_form(model))
    # presence of Chinese: (3+1)/(3+2) vs (1+1)/(1+2); w = log(p/(1-p)) difference
    assert w[0] == pytest.approx(np.log(4 / 1) - np.log(2 / 1))
    p_china = sigmoid((IIR_D5 > 0) @ w + b0)[0]
    assert 1 - p_china == pytest.approx(0.80893, abs=5e-6)


def test_two_gaussians_by_hand():
    # means -1 and 3, shared variance 4, priors 1/4 and 3/4:
    # w = (3 - (-1)) / 4 = 1, b0 = log 3 - (9 - 1) / 8 = log 3 - 1
    W, b = gaussian_linear_form(np.log([0.25, 0.75]), [[-1.0], [3.0]], [4.0])
    w, b0 = binary_linear_form(W, b)
    np.testing.assert_allclose(w, [1.0])
    assert b0 == pytest.approx(np.log(3) - 1)


def test_bernoulli_weights_by_hand():
    W, b = bernoulli_linear_form(np.log([0.4, 0.6]), np.log([[0.5, 0.1], [0.8, 0.25]]))
    np.testing.assert_allclose(W, np.log([[1.0, 1 / 9], [4.0, 1 / 3]]))
    np.testing.assert_allclose(b, np.log([0.4 * 0.5 * 0.9, 0.6 * 0.2 * 0.75]))


# ------------------------------------------------------ Gaussian: shared variance


def breast_cancer_standardised():
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def test_shared_variance_gaussian_proba_is_sigmoid_of_linear_score():
    X, y = breast_cancer_standardised()
    model = SharedVarianceGaussianNB().fit(X, y)
    np.testing.assert_allclose(model.var_[0], hand_pooled_variance(X, y) + model.epsilon_)
    np.testing.assert_array_equal(model.var_[0], model.var_[1])
    w, b0 = binary_linear_form(*linear_form(model))
    np.testing.assert_allclose(sigmoid(X @ w + b0), model.predict_proba(X)[:, 1], atol=1e-10)


def test_linear_form_of_sklearn_gaussian_with_pooled_variance():
    # scikit-learn is the oracle for the probabilities of the shared-variance model
    X, y = load_iris(return_X_y=True)
    oracle = sk.GaussianNB().fit(X, y)
    oracle.var_ = np.tile(hand_pooled_variance(X, y), (3, 1))
    W, b = linear_form(oracle)
    np.testing.assert_allclose(softmax(X @ W.T + b), oracle.predict_proba(X), atol=1e-10)
    # the per-row constant is -1/2 sum_j [x_j^2 / var_j + log(2 pi var_j)]
    var = oracle.var_[0]
    constant = -0.5 * np.sum(X**2 / var + np.log(2 * np.pi * var), axis=1)
    jll = oracle.predict_joint_log_proba(X)
    np.testing.assert_allclose(jll - (X @ W.T + b), np.tile(constant, (3, 1)).T, atol=1e-9)


def test_per_class_variances_have_no_linear_form():
    X, y = load_iris(return_X_y=True)
    for model in (GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y)):
        with pytest.raises(ValueError, match="boundary is quadratic"):
            linear_form(model)


def test_pooled_variance_equals_lda_covariance_diagonal():
    X, y = load_iris(return_X_y=True)
    lda = LinearDiscriminantAnalysis(solver="lsqr", store_covariance=True).fit(X, y)
    np.testing.assert_allclose(pooled_variance(X, y, [0, 1, 2]), np.diag(lda.covariance_))


def test_pooled_variance_ddof_weights_and_missing():
    X = np.array([[0.0], [2.0], [10.0], [14.0]])
    y = np.array([0, 0, 1, 1])
    # squared deviations 1 + 1 + 4 + 4 = 10
    np.testing.assert_allclose(pooled_variance(X, y, [0, 1]), [10 / 4])
    np.testing.assert_allclose(pooled_variance(X, y, [0, 1], ddof=1), [10 / 2])
    weighted = pooled_variance(X, y, [0, 1], sample_weight=[1, 1, 2, 2])
    np.testing.assert_allclose(weighted, [(1 + 1 + 2 * 4 + 2 * 4) / 6])
    X_nan = np.array([[0.0], [2.0], [np.nan], [10.0], [14.0]])
    np.testing.assert_allclose(pooled_variance(X_nan, [0, 0, 0, 1, 1], [0, 1]), [10 / 4])
    with pytest.raises(ValueError, match="use ddof=0"):
        pooled_variance(X[:2], y[:2], [0, 1], ddof=1)


def test_shared_variance_partial_fit_and_missing():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3)) + np.repeat(np.eye(3), 20, axis=0)
    y = np.repeat([0, 1, 2], 20)
    order = rng.permutation(60)
    X, y = X[order], y[order]
    whole = SharedVarianceGaussianNB().fit(X, y)
    online = SharedVarianceGaussianNB()
    for batch in np.array_split(np.arange(60), 4):
        online.partial_fit(X[batch], y[batch], classes=[0, 1, 2])
    np.testing.assert_allclose(online.var_, whole.var_)
    X_nan = X.copy()
    X_nan[::7, 1] = np.nan
    model = SharedVarianceGaussianNB(missing="skip", var_smoothing=0.0).fit(X_nan, y)
    np.testing.assert_allclose(model.var_[0], pooled_variance(X_nan, y, [0, 1, 2]))


# ------------------------------------------ the form reproduces the predictions


def _fitted(kind, X_int, y, alpha):
    if kind == "multinomial":
        return MultinomialNB(alpha=alpha).fit(X_int, y), X_int
    if kind == "bernoulli":
        X_bin = (X_int > 1).astype(float)
        return BernoulliNB(alpha=alpha).fit(X_bin, y), X_bin
    X_real = X_int + np.linspace(0, 1, X_int.size).reshape(X_int.shape)
    return SharedVarianceGaussianNB().fit(X_real, y), X_real


@given(
    kind=st.sampled_from(["multinomial", "bernoulli", "gaussian"]),
    n_classes=st.integers(2, 4),
    n_features=st.integers(1, 6),
    alpha=st.floats(0.1, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_linear_form_reproduces_predictions(kind, n_classes, n_features, alpha, seed):
    rng = np.random.default_rng(seed)
    n_samples = 4 * n_classes
    y = np.tile(np.arange(n_classes), 4)  # every class present
    X_int = rng.integers(0, 5, size=(n_samples, n_features)).astype(float)
    model, X = _fitted(kind, X_int, y, alpha)
    W, b = linear_form(model)
    scores = X @ W.T + b
    jll = model.predict_joint_log_proba(X)
    assert_equal_up_to_row_constant(jll, scores, atol=1e-7 * (1 + np.abs(jll).max()))
    np.testing.assert_allclose(softmax(scores), model.predict_proba(X), atol=1e-9)
    clear = np.sort(jll, axis=1)[:, -1] - np.sort(jll, axis=1)[:, -2] > 1e-9
    np.testing.assert_array_equal(
        model.classes_[scores.argmax(axis=1)][clear], model.predict(X)[clear]
    )
    if n_classes == 2:
        w, b0 = binary_linear_form(W, b)
        np.testing.assert_allclose(sigmoid(X @ w + b0), model.predict_proba(X)[:, 1], atol=1e-9)


@pytest.mark.parametrize("model", [sk.MultinomialNB(alpha=0.5), sk.BernoulliNB(alpha=2.0)])
def test_linear_form_of_sklearn_discrete_models(model):
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(40, 8)).astype(float)
    y = rng.integers(0, 3, size=40)
    model.fit(X, y)
    W, b = linear_form(model)
    assert_equal_up_to_row_constant(model.predict_joint_log_proba(X), X @ W.T + b)


# ------------------------------------------------------------ sigmoid, softmax


def test_sigmoid_is_stable_and_symmetric():
    z = np.array([-800.0, -30.0, -1.5, 0.0, 2.0, 40.0, 800.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = sigmoid(z)
    np.testing.assert_allclose(p[1:-1], 1 / (1 + np.exp(-z[1:-1])))
    np.testing.assert_allclose(sigmoid(-z), 1 - p, atol=1e-15)
    assert p[0] == 0.0 and p[-1] == 1.0 and sigmoid(0.0) == 0.5


def test_softmax_is_stable_and_sums_to_one():
    Z = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1000.0], [0.0, 1.0, 2.0]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        P = softmax(Z)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P[2], np.exp([0, 1, 2]) / np.exp([0, 1, 2]).sum())
    np.testing.assert_allclose(P[0], P[2][[1, 2, 0]])
    np.testing.assert_allclose(softmax([0.0, np.log(3.0)]), [0.25, 0.75])


def test_binary_softmax_equals_sigmoid_of_difference():
    Z = np.random.default_rng(5).normal(scale=5, size=(20, 2))
    np.testing.assert_allclose(softmax(Z)[:, 1], sigmoid(Z[:, 1] - Z[:, 0]))


# ------------------------------------------------------------------- errors


def test_alpha_zero_with_zero_count_raises():
    model = MultinomialNB(alpha=0.0).fit(IIR_X, IIR_Y)
    with pytest.raises(ValueError, match="fit with alpha > 0"):
        linear_form(model)
    model = BernoulliNB(alpha=0.0).fit(IIR_X, IIR_Y)
    with pytest.raises(ValueError, match="fit with alpha > 0"):
        linear_form(model)


def test_other_models_and_unfitted_raise():
    with pytest.raises(ValueError, match="CategoricalNB is linear only"):
        linear_form(CategoricalNB().fit([[0, 1], [1, 0]], [0, 1]))
    with pytest.raises(ValueError, match="not fitted"):
        linear_form(MultinomialNB())


def test_binary_linear_form_needs_two_classes():
    with pytest.raises(ValueError, match="softmax"):
        binary_linear_form(np.zeros((3, 2)), np.zeros(3))


def test_shape_errors_say_what_to_change():
    with pytest.raises(ValueError, match="n_classes=2"):
        multinomial_linear_form(np.log([0.5, 0.5]), np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"shape \(n_features,\) = \(2,\)"):
        gaussian_linear_form(np.log([0.5, 0.5]), np.zeros((2, 2)), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="var must be > 0"):
        gaussian_linear_form(np.log([0.5, 0.5]), np.zeros((2, 1)), [0.0])
