"""A row of weight 0 is a removed row, a row of weight k a row repeated k
times: the properties of scikit-learn's ``check_sample_weight_equivalence``,
on integer data that all four models accept (about 1 s)."""

import numpy as np
import pytest

import nbcore

ALL = ["CategoricalNB", "MultinomialNB", "BernoulliNB", "GaussianNB"]
RNG = np.random.default_rng(42)
N_SAMPLES = 40
X = RNG.integers(0, 4, (N_SAMPLES, 6))
Y = RNG.integers(0, 3, N_SAMPLES)
X_TEST = RNG.integers(0, 4, (15, 6))
# Rows of weight 0 hold codes 9 and 7, which no other row has.
ZERO_ROWS = np.array([3, 11, 25])
X_WIDE = X.copy()
X_WIDE[ZERO_ROWS, 0] = 9
X_WIDE[ZERO_ROWS, 5] = 7
WEIGHTS_01 = np.ones(N_SAMPLES)
WEIGHTS_01[ZERO_ROWS] = 0.0

FITTED = {
    "CategoricalNB": ["class_count_", "n_categories_", "category_count_", "feature_log_prob_"],
    "MultinomialNB": ["class_count_", "feature_count_", "feature_log_prob_"],
    "BernoulliNB": ["class_count_", "feature_count_", "feature_log_prob_"],
    "GaussianNB": ["class_count_", "theta_", "var_", "epsilon_"],
}


def assert_same_model(ours, reference, attributes):
    for name in attributes:
        a, b = getattr(ours, name), getattr(reference, name)
        for part_a, part_b in zip(a, b) if isinstance(a, list) else [(a, b)]:
            np.testing.assert_allclose(part_a, part_b, rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(ours.predict_proba(X_TEST), reference.predict_proba(X_TEST),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_weight_zero_is_the_same_as_removing_the_row(name, method):
    weighted = getattr(nbcore, name)()
    removed = getattr(nbcore, name)()
    kept = WEIGHTS_01 > 0
    if method == "fit":
        weighted.fit(X_WIDE, Y, sample_weight=WEIGHTS_01)
        removed.fit(X_WIDE[kept], Y[kept])
    else:
        weighted.partial_fit(X_WIDE[:20], Y[:20], classes=[0, 1, 2], sample_weight=WEIGHTS_01[:20])
        weighted.partial_fit(X_WIDE[20:], Y[20:], sample_weight=WEIGHTS_01[20:])
        removed.partial_fit(X_WIDE[:20][kept[:20]], Y[:20][kept[:20]], classes=[0, 1, 2])
        removed.partial_fit(X_WIDE[20:][kept[20:]], Y[20:][kept[20:]])
    assert_same_model(weighted, removed, FITTED[name])


def test_weight_zero_rows_do_not_widen_the_categories():
    model = nbcore.CategoricalNB().fit(X_WIDE, Y, sample_weight=WEIGHTS_01)
    assert model.n_categories_.tolist() == [4] * 6
    log_prob = nbcore.categorical_feature_log_prob(X_WIDE, Y, [0, 1, 2], sample_weight=WEIGHTS_01)
    assert [block.shape[1] for block in log_prob] == [4] * 6


@pytest.mark.parametrize("name", ["CategoricalNB", "MultinomialNB", "BernoulliNB"])
def test_integer_weight_is_the_same_as_repeating_the_row(name):
    weights = RNG.integers(0, 5, N_SAMPLES)
    weighted = getattr(nbcore, name)().fit(X_WIDE, Y, sample_weight=weights)
    repeated = getattr(nbcore, name)().fit(X_WIDE.repeat(weights, axis=0), Y.repeat(weights))
    assert_same_model(weighted, repeated, FITTED[name])


def test_gaussian_integer_weight_is_the_same_as_repeating_the_row_but_for_epsilon():
    # As in scikit-learn, epsilon_ comes from the unweighted variance of X
    # (its rows of positive weight), so a repeated row changes it.
    weights = RNG.integers(0, 5, N_SAMPLES)
    weighted = nbcore.GaussianNB().fit(X_WIDE, Y, sample_weight=weights)
    repeated = nbcore.GaussianNB().fit(X_WIDE.repeat(weights, axis=0), Y.repeat(weights))
    np.testing.assert_allclose(weighted.theta_, repeated.theta_, rtol=1e-12)
    np.testing.assert_allclose(weighted.var_ - weighted.epsilon_,
                               repeated.var_ - repeated.epsilon_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_fitted_on_one_class_by_its_weights_predicts_that_class(name):
    # scikit-learn's check_classifiers_one_label_sample_weights, on integer codes.
    y = np.arange(N_SAMPLES) % 2
    model = getattr(nbcore, name)().fit(X, y, sample_weight=y.astype(float))
    np.testing.assert_array_equal(model.predict(X_TEST), np.ones(len(X_TEST)))
