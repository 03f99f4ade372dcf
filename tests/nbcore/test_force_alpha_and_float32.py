"""``force_alpha`` and float32 input behave as in scikit-learn 1.9, the
oracle (about 2 s)."""

import warnings

import numpy as np
import pytest
import sklearn.naive_bayes as skl

import nbcore

DISCRETE = ["CategoricalNB", "MultinomialNB", "BernoulliNB"]
RNG = np.random.default_rng(7)
X = RNG.integers(0, 3, (30, 5))
Y = RNG.integers(0, 3, 30)
X_TEST = RNG.integers(0, 3, (10, 5))
TOO_SMALL = "alpha too small will result in numeric errors, setting alpha = 1.0e-10"


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("alpha", [0.0, 1e-12])
def test_force_alpha_false_clips_alpha_with_a_warning_as_sklearn(name, alpha):
    with pytest.warns(UserWarning, match=TOO_SMALL):
        ours = getattr(nbcore, name)(alpha=alpha, force_alpha=False).fit(X, Y)
    with pytest.warns(UserWarning, match=TOO_SMALL):
        theirs = getattr(skl, name)(alpha=alpha, force_alpha=False).fit(X, Y)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X_TEST), theirs.predict_proba(X_TEST),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", DISCRETE)
def test_force_alpha_false_clips_each_small_per_feature_alpha(name):
    # scikit-learn takes a per-feature alpha in MultinomialNB only (its
    # CategoricalNB refuses one, its BernoulliNB fails to broadcast it).
    alpha = np.array([0.0, 1e-11, 0.5, 1.0, 2.0])
    with pytest.warns(UserWarning, match=TOO_SMALL):
        ours = getattr(nbcore, name)(alpha=alpha, force_alpha=False).fit(X, Y)
    clipped = getattr(nbcore, name)(alpha=np.maximum(alpha, 1e-10)).fit(X, Y)
    for a, b in zip(ours.feature_log_prob_, clipped.feature_log_prob_):
        np.testing.assert_array_equal(a, b)
    if name == "MultinomialNB":
        with pytest.warns(UserWarning, match=TOO_SMALL):
            theirs = skl.MultinomialNB(alpha=alpha, force_alpha=False).fit(X, Y)
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


@pytest.mark.parametrize("name", DISCRETE)
def test_force_alpha_false_warns_at_every_partial_fit(name):
    model = getattr(nbcore, name)(alpha=0.0, force_alpha=False)
    for batch in (slice(0, 15), slice(15, 30)):
        with pytest.warns(UserWarning, match=TOO_SMALL):
            model.partial_fit(X[batch], Y[batch], classes=[0, 1, 2])


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("force_alpha", [True, False])
def test_alpha_large_enough_or_forced_is_used_as_given_without_warning(name, force_alpha):
    alpha = 0.0 if force_alpha else 1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = getattr(nbcore, name)(alpha=alpha, force_alpha=force_alpha).fit(X, Y)
    reference = getattr(nbcore, name)(alpha=alpha).fit(X, Y)
    for a, b in zip(ours.feature_log_prob_, reference.feature_log_prob_):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("force_alpha", ["yes", None, 1, 0.0])
def test_force_alpha_must_be_a_bool(name, force_alpha):
    with pytest.raises(ValueError, match="force_alpha must be True or False"):
        getattr(nbcore, name)(force_alpha=force_alpha).fit(X, Y)


@pytest.mark.parametrize("fit_dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("predict_dtype", [np.float32, np.float64])
def test_gaussian_keeps_float32_as_sklearn(fit_dtype, predict_dtype):
    X_fit, X_pred = (X + RNG.normal(size=X.shape)).astype(fit_dtype), X_TEST.astype(predict_dtype)
    ours = nbcore.GaussianNB().fit(X_fit, Y)
    theirs = skl.GaussianNB().fit(X_fit, Y)
    for attribute in ["theta_", "var_", "class_prior_", "class_count_", "epsilon_"]:
        mine, ref = getattr(ours, attribute), getattr(theirs, attribute)
        assert np.asarray(mine).dtype == np.asarray(ref).dtype, attribute
        np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-12)
    for method in ["predict_joint_log_proba", "predict_log_proba", "predict_proba"]:
        mine, ref = getattr(ours, method)(X_pred), getattr(theirs, method)(X_pred)
        assert mine.dtype == ref.dtype, method
        np.testing.assert_allclose(mine, ref, rtol=1e-5, atol=1e-6)


def test_gaussian_partial_fit_keeps_the_first_call_dtype():
    X32 = (X + 0.5).astype(np.float32)
    model = nbcore.GaussianNB().partial_fit(X32[:15], Y[:15], classes=[0, 1, 2])
    model.partial_fit(X32[15:].astype(np.float64), Y[15:])
    whole = nbcore.GaussianNB().fit(X32, Y)
    assert model.theta_.dtype == model.var_.dtype == np.float32
    np.testing.assert_allclose(model.theta_, whole.theta_, rtol=1e-6)


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_models_give_float64_for_float32_input_as_sklearn(name):
    X32, X_test32 = X.astype(np.float32), X_TEST.astype(np.float32)
    ours, theirs = getattr(nbcore, name)().fit(X32, Y), getattr(skl, name)().fit(X32, Y)
    for method in ["predict_joint_log_proba", "predict_log_proba", "predict_proba"]:
        assert getattr(ours, method)(X_test32).dtype == getattr(theirs, method)(X_test32).dtype
