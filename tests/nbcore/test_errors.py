"""Bad input raises a ValueError that names the problem (about 2 s)."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

import nbcore

ALL = ["CategoricalNB", "MultinomialNB", "BernoulliNB", "GaussianNB"]
X = np.array([[0, 1, 2], [1, 1, 0], [2, 0, 1], [0, 0, 0]])
Y = np.array([0, 0, 1, 1])


def model(name, **params):
    return getattr(nbcore, name)(**params)


def test_negative_counts_for_multinomial():
    with pytest.raises(ValueError, match=re.escape("Negative values in data passed to MultinomialNB (input X)")):
        model("MultinomialNB").fit([[1, -1], [0, 2]], [0, 1])
    fitted = model("MultinomialNB").fit(X, Y)
    with pytest.raises(ValueError, match="Negative values"):
        fitted.predict([[1, -2, 0]])
    with pytest.raises(ValueError, match="Negative values"):
        nbcore.multinomial_feature_log_prob([[1, -1]], [0], [0])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_name_the_option(name, bad):
    X_bad = X.astype(float)
    X_bad[1, 1] = bad
    message = "missing='skip'" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=message):
        model(name).fit(X_bad, Y)
    fitted = model(name).fit(X, Y)
    with pytest.raises(ValueError, match=message):
        fitted.predict(X_bad)


@pytest.mark.parametrize("name", ALL)
def test_inf_is_rejected_even_with_skip(name):
    X_bad = X.astype(float)
    X_bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model(name, missing="skip").fit(X_bad, Y)


@pytest.mark.parametrize("name", ALL)
def test_unknown_missing_option(name):
    with pytest.raises(ValueError, match="missing must be 'error' or 'skip'"):
        model(name, missing="drop").fit(X, Y)


@pytest.mark.parametrize("name", ALL)
def test_wrong_number_of_features_at_predict(name):
    fitted = model(name).fit(X, Y)
    with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 3"):
        fitted.predict(X[:, :2])


@pytest.mark.parametrize("name", ALL)
def test_one_dimensional_X(name):
    with pytest.raises(ValueError, match="Expected 2D array"):
        model(name).fit(X[:, 0], Y)
    with pytest.raises(ValueError, match="Expected 2D array"):
        model(name).fit(X, Y).predict(X[0])


@pytest.mark.parametrize("name", ALL)
def test_mismatched_lengths_of_X_and_y(name):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model(name).fit(X, Y[:3])


def test_functional_inputs_are_checked():
    with pytest.raises(ValueError, match="must be 2-D"):
        nbcore.multinomial_feature_log_prob([1, 2, 3], [0, 1, 0], [0, 1])
    with pytest.raises(ValueError, match="different numbers of samples"):
        nbcore.bernoulli_feature_log_prob(X, [0, 1], [0, 1])
    with pytest.raises(ValueError, match=r"The target label\(s\) \[7\] in y do not exist in the initial classes"):
        nbcore.gaussian_mean_var(X, [0, 0, 1, 7], [0, 1])
    with pytest.raises(ValueError, match="var must be > 0"):
        nbcore.gaussian_jll(X, [0.0], [[0, 0, 0]], [[1, 0, 1]])
    with pytest.raises(ValueError, match="only 3 categories"):
        nbcore.categorical_jll([[5, 0, 0]], [0.0], [np.zeros((1, 3))] * 3)
    with pytest.raises(ValueError, match="sparse"):
        nbcore.gaussian_mean_var(sp.csr_matrix(X), Y, [0, 1])


def test_zero_variance_with_var_smoothing_zero():
    X_single = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 1.0]])
    with pytest.raises(ValueError, match="zero variance in class 1 .*set var_smoothing > 0"):
        model("GaussianNB", var_smoothing=0.0).fit(X_single, [0, 0, 1])
    with pytest.raises(ValueError, match="var_smoothing must be >= 0"):
        model("GaussianNB", var_smoothing=-1.0).fit(X_single, [0, 0, 1])


@pytest.mark.parametrize(
    "name, parameter", [("MultinomialNB", "class_prior"), ("BernoulliNB", "class_prior"),
                        ("CategoricalNB", "class_prior"), ("GaussianNB", "priors")]
)
def test_priors_must_sum_to_one_and_match_the_classes(name, parameter):
    with pytest.raises(ValueError, match="must sum to 1, but it sums to 0.9"):
        model(name, **{parameter: [0.5, 0.4]}).fit(X, Y)
    with pytest.raises(ValueError, match=r"expected shape \(2,\), got \(3,\)"):
        model(name, **{parameter: [0.2, 0.3, 0.5]}).fit(X, Y)
    with pytest.raises(ValueError, match="probabilities >= 0"):
        model(name, **{parameter: [1.5, -0.5]}).fit(X, Y)


@pytest.mark.parametrize("name", ["CategoricalNB", "MultinomialNB", "BernoulliNB"])
def test_negative_alpha(name):
    with pytest.raises(ValueError, match="All values in alpha must be greater than 0.*alpha must be >= 0"):
        model(name, alpha=-0.5).fit(X, Y)
    with pytest.raises(ValueError, match=r"it should contains `n_features` elements: alpha must be a number or an array of shape"):
        model(name, alpha=[1.0, 2.0]).fit(X, Y)
    with pytest.raises(ValueError, match="All values in alpha must be greater than 0.*alpha must be >= 0"):
        model(name, alpha=[1.0, -2.0, 1.0]).fit(X, Y)


@pytest.mark.parametrize("name", ALL)
def test_predict_before_fit(name):
    # scikit-learn's NotFittedError subclasses ValueError.
    with pytest.raises(ValueError, match="is not fitted yet"):
        model(name).predict(X)


def test_categorical_codes_must_be_non_negative_integers():
    with pytest.raises(ValueError, match=re.escape("Negative values in data passed to CategoricalNB (input X)")):
        model("CategoricalNB").fit([[0], [-1]], [0, 1])
    with pytest.raises(ValueError, match="integer category codes"):
        model("CategoricalNB").fit([[0.5], [1]], [0, 1])
    with pytest.raises(ValueError, match="min_categories must be >= 1"):
        model("CategoricalNB", min_categories=0).fit(X, Y)


def test_partial_fit_needs_classes_first_and_the_same_classes_after():
    with pytest.raises(ValueError, match="classes must be passed on the first call to partial_fit"):
        model("GaussianNB").partial_fit(X, Y)
    fitted = model("MultinomialNB").partial_fit(X, Y, classes=[0, 1])
    with pytest.raises(ValueError, match="is not the same as on last call to partial_fit, was: \\[0, 1\\]"):
        fitted.partial_fit(X, Y, classes=[0, 1, 2])


def test_bad_sample_weight():
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(4,\)"):
        model("GaussianNB").fit(X, Y, sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="non-negative"):
        model("MultinomialNB").fit(X, Y, sample_weight=[1.0, -2.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="zero for every sample"):
        model("BernoulliNB").fit(X, Y, sample_weight=np.zeros(4))


def test_y_is_required():
    with pytest.raises(ValueError, match="requires y to be passed"):
        model("CategoricalNB").fit(X, None)
