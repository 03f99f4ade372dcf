"""nbcore's estimators against scikit-learn 1.9 as the oracle (about 5 s).

Same inputs and parameters, ``predict_log_proba`` within 1e-9 (absolute),
and the same fitted attributes. Where scikit-learn produces nan with alpha=0
(``0 * log 0``), an independent direct evaluation of the formula is the oracle.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skl

import nbcore

ATOL = 1e-9
N_SAMPLES, N_FEATURES, N_CLASSES = 120, 7, 3


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, N_SAMPLES)
    # Class-dependent rates so that the classes differ.
    rates = rng.uniform(0.2, 3.0, size=(N_CLASSES, N_FEATURES))
    X = rng.poisson(rates[y]).astype(np.float64)
    weights = rng.uniform(0.1, 3.0, N_SAMPLES)
    return X, y, weights


X_COUNTS, Y, WEIGHTS = make_data()
X_TEST = make_data(seed=1)[0]
PER_FEATURE_ALPHA = np.linspace(0.1, 2.0, N_FEATURES)
DISCRETE = ["MultinomialNB", "BernoulliNB", "CategoricalNB"]
SETTINGS = [
    {},
    {"fit_prior": False},
    {"class_prior": [0.2, 0.5, 0.3]},
]


def both(name, **params):
    return getattr(nbcore, name)(**params), getattr(skl, name)(**params)


def assert_same_attributes(ours, theirs, names):
    for attribute in names:
        mine, ref = getattr(ours, attribute), getattr(theirs, attribute)
        if isinstance(ref, list):
            assert len(mine) == len(ref)
            for a, b in zip(mine, ref):
                np.testing.assert_allclose(a, b, rtol=0, atol=ATOL, err_msg=attribute)
        else:
            np.testing.assert_allclose(mine, ref, rtol=0, atol=ATOL, err_msg=attribute)


ATTRIBUTES = {
    "MultinomialNB": ["class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"],
    "BernoulliNB": ["class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"],
    "CategoricalNB": [
        "class_count_", "class_log_prior_", "category_count_", "feature_log_prob_",
        "n_categories_",
    ],
    "GaussianNB": ["class_count_", "class_prior_", "theta_", "var_", "epsilon_"],
}


def inputs(name, sparse):
    X, X_test = X_COUNTS, np.minimum(X_TEST, X_COUNTS.max(axis=0))
    if name == "BernoulliNB" and not sparse:
        X, X_test = (X > 1) * 1.0, (X_test > 1) * 1.0  # already binary
    if sparse:
        return sp.csr_matrix(X), sp.csr_matrix(X_test)
    return X, X_test


def _discrete_cases():
    """The combinations scikit-learn itself can run: its CategoricalNB takes
    dense X and a scalar alpha only, and its BernoulliNB fails on a per-feature
    alpha (a broadcasting error). Those are tested against the formula below."""
    for name in DISCRETE:
        for sparse in (False, True):
            for alpha in (1.0, 0.37, "per-feature"):
                if name == "CategoricalNB" and (sparse or alpha == "per-feature"):
                    continue
                if name == "BernoulliNB" and alpha == "per-feature":
                    continue
                for setting in range(len(SETTINGS)):
                    for weighted in (False, True):
                        yield name, sparse, alpha, setting, weighted


@pytest.mark.parametrize("name, sparse, alpha, setting, weighted", list(_discrete_cases()))
def test_discrete_models_match_sklearn(name, sparse, alpha, setting, weighted):
    alpha = PER_FEATURE_ALPHA if isinstance(alpha, str) else alpha
    params = dict(SETTINGS[setting], alpha=alpha)
    if name == "BernoulliNB":
        params["binarize"] = 1.0 if sparse else None
    X, X_test = inputs(name, sparse)
    weights = WEIGHTS if weighted else None
    ours, theirs = both(name, **params)
    ours.fit(X, Y, sample_weight=weights)
    theirs.fit(X, Y, sample_weight=weights)
    assert_same_attributes(ours, theirs, ATTRIBUTES[name])
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=0, atol=ATOL
    )
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


@pytest.mark.parametrize(
    "name, sparse",
    [(name, sparse) for name in DISCRETE for sparse in (False, True)
     if not (name == "CategoricalNB" and sparse)],  # scikit-learn's CategoricalNB: dense only
)
def test_partial_fit_in_batches_matches_sklearn(name, sparse):
    X, X_test = inputs(name, sparse)
    params = {"binarize": None} if name == "BernoulliNB" and not sparse else {}
    ours, theirs = both(name, **params)
    for rows in np.array_split(np.arange(N_SAMPLES), 4):
        ours.partial_fit(X[rows], Y[rows], classes=[0, 1, 2], sample_weight=WEIGHTS[rows])
        theirs.partial_fit(X[rows], Y[rows], classes=[0, 1, 2], sample_weight=WEIGHTS[rows])
    # scikit-learn's n_categories_ is that of the last batch only: not compared.
    names = [a for a in ATTRIBUTES[name] if a != "n_categories_"]
    assert_same_attributes(ours, theirs, names)
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=0, atol=ATOL
    )


def direct_jll(name, X, class_log_prior, feature_log_prob):
    """The joint log-likelihood by the formula, term by term, 0 * log 0 = 0."""
    jll = np.tile(class_log_prior, (X.shape[0], 1))
    for i, x in enumerate(X):
        for c in range(len(class_log_prior)):
            log_p = feature_log_prob[c]
            if name == "MultinomialNB":
                terms = [x[j] * log_p[j] for j in range(len(x)) if x[j] > 0]
            else:
                terms = [
                    log_p[j] if x[j] else np.log1p(-np.exp(log_p[j]))
                    for j in range(len(x))
                ]
            jll[i, c] += sum(terms)
    return jll


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
@pytest.mark.parametrize("sparse", [False, True])
def test_alpha_zero_is_the_mle_and_handles_zero_counts(name, sparse):
    # Few samples so that many counts are zero; force_alpha keeps sklearn's alpha 0.
    rng = np.random.default_rng(5)
    X, X_test = rng.poisson(0.4, (12, N_FEATURES)), rng.poisson(0.4, (20, N_FEATURES))
    if name == "BernoulliNB" and not sparse:
        X, X_test = np.minimum(X, 1), np.minimum(X_test, 1)
    X, X_test = (sp.csr_matrix(X), sp.csr_matrix(X_test)) if sparse else (X, X_test)
    y = Y[:12]
    params = {"alpha": 0.0, "force_alpha": True}
    if name == "BernoulliNB":
        params["binarize"] = 0.0
    ours, theirs = both(name, **params)
    ours.fit(X, y)
    with np.errstate(all="ignore"):
        theirs.fit(X, y)
        reference = theirs.predict_log_proba(X_test)
    assert np.isneginf(theirs.feature_log_prob_).any(), "the test needs zero counts"
    assert_same_attributes(ours, theirs, ATTRIBUTES[name])
    got = ours.predict_log_proba(X_test)
    defined = ~np.isnan(reference).any(axis=1)
    np.testing.assert_allclose(got[defined], reference[defined], rtol=0, atol=ATOL)
    # Where scikit-learn computes 0 * -inf = nan, evaluate the formula directly.
    dense_test = X_test.toarray() if sparse else X_test
    if name == "BernoulliNB":
        dense_test = (dense_test > params["binarize"]) * 1.0
    expected_jll = direct_jll(
        name, dense_test, theirs.class_log_prior_, theirs.feature_log_prob_
    )
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X_test), expected_jll, rtol=0, atol=1e-9
    )
    if not sparse:  # a sparse product never multiplies the zeros
        assert (~defined).any(), "the test should hit scikit-learn's nan case"


def test_categorical_alpha_zero_matches_sklearn():
    X = np.minimum(X_COUNTS, 4)[:30]
    ours, theirs = both("CategoricalNB", alpha=0.0)
    ours.fit(X, Y[:30])
    with np.errstate(all="ignore"):
        theirs.fit(X, Y[:30])
        reference = theirs.predict_log_proba(X)
    assert_same_attributes(ours, theirs, ATTRIBUTES["CategoricalNB"])
    np.testing.assert_allclose(ours.predict_log_proba(X), reference, rtol=0, atol=ATOL)


@pytest.mark.parametrize("min_categories", [6, np.array([7, 6, 6, 9, 6, 6, 8])])
def test_categorical_min_categories_matches_sklearn(min_categories):
    X = np.minimum(X_COUNTS, 5)
    ours, theirs = both("CategoricalNB", min_categories=min_categories)
    ours.fit(X, Y)
    theirs.fit(X, Y)
    assert_same_attributes(ours, theirs, ATTRIBUTES["CategoricalNB"])
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), atol=ATOL)


def gaussian_data(seed=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, N_SAMPLES)
    means = rng.normal(0, 3, size=(N_CLASSES, N_FEATURES))
    scales = rng.uniform(0.2, 4.0, size=(N_CLASSES, N_FEATURES))
    X = means[y] + scales[y] * rng.standard_normal((N_SAMPLES, N_FEATURES)) + 50.0
    return X, y


@pytest.mark.parametrize(
    "params",
    [{}, {"var_smoothing": 0.0}, {"var_smoothing": 1e-2}, {"priors": [0.1, 0.6, 0.3]}],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_matches_sklearn(params, weighted):
    X, y = gaussian_data()
    X_test = gaussian_data(seed=3)[0]
    weights = WEIGHTS if weighted else None
    ours, theirs = both("GaussianNB", **params)
    ours.fit(X, y, sample_weight=weights)
    theirs.fit(X, y, sample_weight=weights)
    assert_same_attributes(ours, theirs, ATTRIBUTES["GaussianNB"])
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=0, atol=ATOL
    )
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X_test),
        theirs.predict_joint_log_proba(X_test),
        rtol=1e-12,
        atol=ATOL,
    )


def test_gaussian_partial_fit_matches_sklearn_without_smoothing():
    # With var_smoothing=0 scikit-learn's per-batch epsilon (its issue #14054)
    # plays no part, and the merged statistics must agree.
    X, y = gaussian_data()
    ours, theirs = both("GaussianNB", var_smoothing=0.0)
    for rows in np.array_split(np.arange(N_SAMPLES), 5):
        ours.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=WEIGHTS[rows])
        theirs.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=WEIGHTS[rows])
    assert_same_attributes(ours, theirs, ["class_count_", "class_prior_", "theta_", "var_"])
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), atol=ATOL)


@pytest.mark.parametrize("name", DISCRETE + ["GaussianNB"])
def test_string_labels_and_feature_names_match_sklearn(name):
    X = pd.DataFrame(np.minimum(X_COUNTS, 5), columns=[f"f{j}" for j in range(N_FEATURES)])
    labels = np.array(["ham", "spam", "eggs"])[Y]
    ours, theirs = both(name)
    ours.fit(X, labels)
    theirs.fit(X, labels)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.feature_names_in_, theirs.feature_names_in_)
    assert ours.n_features_in_ == theirs.n_features_in_
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=ATOL)


@pytest.mark.parametrize("name", ["BernoulliNB", "CategoricalNB"])
def test_per_feature_alpha_equals_scikit_learn_fitted_one_column_at_a_time(name):
    """scikit-learn cannot take a per-feature alpha for these two models, but a
    feature's probabilities depend on its own alpha only: fit scikit-learn on
    each column with that column's scalar alpha and compare."""
    X, _ = inputs(name, sparse=False)
    params = {"binarize": None} if name == "BernoulliNB" else {}
    ours = getattr(nbcore, name)(alpha=PER_FEATURE_ALPHA, **params).fit(X, Y)
    for j, alpha_j in enumerate(PER_FEATURE_ALPHA):
        theirs = getattr(skl, name)(alpha=alpha_j, **params).fit(X[:, [j]], Y)
        if name == "BernoulliNB":
            np.testing.assert_allclose(
                ours.feature_log_prob_[:, j], theirs.feature_log_prob_[:, 0], rtol=0, atol=ATOL
            )
        else:
            np.testing.assert_allclose(
                ours.feature_log_prob_[j], theirs.feature_log_prob_[0], rtol=0, atol=ATOL
            )
