"""Every number of COURSE.md's "Worked numbers" table, through nbcore's public API.

The data come from nbcore.datasets; the computation from nbcore.estimation,
the functional ``*_feature_log_prob`` / ``*_jll`` functions and the
estimator classes. Every expected value is typed from COURSE.md, and the
tolerance matches the precision printed there: a value printed with d
significant digits is compared with rel = 0.5 * 10**(1 - d). Runtime: about 1 s.
"""

import numpy as np
import pytest

import nbcore
from nbcore import datasets
from nbcore.estimation import (
    class_log_prior,
    log_normalize,
    map_hypothesis,
    ml_hypothesis,
    posterior,
    unnormalized_posterior,
)


def printed(value, significant_digits):
    """``pytest.approx`` accepting anything that rounds to ``value``."""
    return pytest.approx(value, rel=0.5 * 10 ** (1 - significant_digits))


def _index(data, name):
    return data.target_names.tolist().index(name)


def _scores_and_posterior(jll):
    """Unnormalised scores P(c) prod P(x|c) and the posterior, for one query row."""
    return np.exp(jll[0]), np.exp(log_normalize(jll))[0]


# --- 1. the medical test ------------------------------------------------------------


def test_medical_test():
    data = datasets.medical_test()
    cancer, healthy = _index(data, "cancer"), _index(data, "no cancer")
    scores = unnormalized_posterior(data.prior, data.likelihood)
    assert scores[cancer] == printed(0.00784, 3)
    assert scores[healthy] == printed(0.02976, 4)
    assert posterior(data.prior, data.likelihood)[cancer] == printed(0.2085, 4)
    assert map_hypothesis(data.prior, data.likelihood) == healthy
    # Without the prior the test result alone points to cancer.
    assert ml_hypothesis(data.likelihood) == cancer


# --- 2. car theft (MLE) ----------------------------------------------------------------


def _categorical_query(data, alpha):
    log_prior = class_log_prior(data.y, data.classes)
    log_prob = nbcore.categorical_feature_log_prob(
        data.X, data.y, data.classes, alpha=alpha, n_categories=data.n_categories
    )
    return nbcore.categorical_jll(data.X_query, log_prior, log_prob)


def test_car_theft_functional():
    data = datasets.car_theft()
    yes, no = _index(data, "Yes"), _index(data, "No")
    scores, post = _scores_and_posterior(_categorical_query(data, alpha=0.0))
    assert scores[yes] == printed(0.024, 2)
    assert scores[no] == printed(0.072, 2)
    assert post[yes] == printed(0.25, 2)


def test_car_theft_estimator():
    data = datasets.car_theft()
    model = nbcore.CategoricalNB(alpha=0.0).fit(data.X, data.y)
    proba = model.predict_proba(data.X_query)[0]
    assert proba[_index(data, "Yes")] == printed(0.25, 2)
    assert data.target_names[model.predict(data.X_query)[0]] == "No"


# --- 3. PlayTennis -----------------------------------------------------------------------


def test_play_tennis_mle():
    data = datasets.play_tennis()
    yes, no = _index(data, "Yes"), _index(data, "No")
    scores, post = _scores_and_posterior(_categorical_query(data, alpha=0.0))
    assert scores[yes] == printed(0.0052910, 5)
    assert scores[no] == printed(0.0205714, 6)
    assert post[no] == printed(0.79542, 5)


def test_play_tennis_laplace_smoothing():
    data = datasets.play_tennis()
    _, post = _scores_and_posterior(_categorical_query(data, alpha=1.0))
    assert post[_index(data, "No")] == printed(0.72007, 5)


def test_play_tennis_estimator_matches():
    data = datasets.play_tennis()
    for alpha, expected in [(0.0, 0.79542), (1.0, 0.72007)]:
        model = nbcore.CategoricalNB(alpha=alpha).fit(data.X, data.y)
        assert model.predict_proba(data.X_query)[0, _index(data, "No")] == printed(expected, 5)


# --- 4. IIR, multinomial ------------------------------------------------------------------


def test_iir_multinomial_parameters():
    data = datasets.iir_china_documents()
    assert len(data.vocabulary) == 6
    c, j = _index(data, "china"), _index(data, "not china")
    prob = np.exp(nbcore.multinomial_feature_log_prob(data.X, data.y, data.classes, alpha=1.0))
    word = data.vocabulary
    assert prob[c, word["chinese"]] == pytest.approx(3 / 7, rel=1e-12)
    assert prob[c, word["tokyo"]] == pytest.approx(1 / 14, rel=1e-12)
    assert prob[c, word["japan"]] == pytest.approx(1 / 14, rel=1e-12)
    for w in ("chinese", "tokyo", "japan"):
        assert prob[j, word[w]] == pytest.approx(2 / 9, rel=1e-12)


def test_iir_multinomial_scores():
    data = datasets.iir_china_documents()
    c, j = _index(data, "china"), _index(data, "not china")
    log_prob = nbcore.multinomial_feature_log_prob(data.X, data.y, data.classes, alpha=1.0)
    jll = nbcore.multinomial_jll(data.X_query, class_log_prior(data.y, data.classes), log_prob)
    scores, post = _scores_and_posterior(jll)
    assert scores[c] == printed(3.0121e-4, 5)
    assert scores[j] == printed(1.3548e-4, 5)
    assert post[c] == printed(0.68976, 5)
    model = nbcore.MultinomialNB(alpha=1.0).fit(data.X, data.y)
    assert model.predict_proba(data.X_query)[0, c] == printed(0.68976, 5)
    assert data.target_names[model.predict(data.X_query)[0]] == "china"


# --- 5. IIR, Bernoulli: the decision flips --------------------------------------------------


def test_iir_bernoulli_scores_and_flip():
    data = datasets.iir_china_documents()
    c, not_c = _index(data, "china"), _index(data, "not china")
    log_prob = nbcore.bernoulli_feature_log_prob(data.X_binary, data.y, data.classes, alpha=1.0)
    jll = nbcore.bernoulli_jll(data.X_query_binary, class_log_prior(data.y, data.classes),
                               log_prob)
    scores, post = _scores_and_posterior(jll)
    assert scores[c] == printed(0.005184, 4)
    assert scores[not_c] == printed(0.0219479, 6)
    assert post[not_c] == printed(0.80893, 5)
    model = nbcore.BernoulliNB(alpha=1.0).fit(data.X, data.y)  # binarize=0: counts > 0
    assert model.predict_proba(data.X_query)[0, not_c] == printed(0.80893, 5)
    assert data.target_names[model.predict(data.X_query)[0]] == "not china"


# --- 6. the seven e-mails ------------------------------------------------------------------


def test_seven_emails_counts():
    data = datasets.seven_emails()
    spam, ham = _index(data, "spam"), _index(data, "not spam")
    assert len(data.vocabulary) == 14
    assert data.X[data.y == spam].sum() == 11
    assert data.X[data.y == ham].sum() == 16


@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_seven_emails_scores(alpha):
    data = datasets.seven_emails()
    spam, ham = _index(data, "spam"), _index(data, "not spam")
    log_prob = nbcore.multinomial_feature_log_prob(data.X, data.y, data.classes, alpha=alpha)
    jll = nbcore.multinomial_jll(data.X_query, class_log_prior(data.y, data.classes), log_prob)
    scores = np.exp(jll[0])
    if alpha == 1.0:
        assert scores[spam] == printed(2.96e-5, 3)
        assert scores[ham] == printed(1.69e-5, 3)
    else:
        # "you" never occurs in spam, so the unsmoothed spam score is exactly 0.
        assert jll[0, spam] == -np.inf and scores[spam] == 0.0
        assert scores[ham] > 0


# --- 7. the five customers --------------------------------------------------------------------


@pytest.mark.parametrize("ddof, expected_drop_out", [(0, 0.01578), (1, 0.01928)])
def test_five_customers_drop_out_score(ddof, expected_drop_out):
    data = datasets.five_customers()
    theta, var = nbcore.gaussian_mean_var(data.X, data.y, data.classes, ddof=ddof)
    jll = nbcore.gaussian_jll(data.X_query, class_log_prior(data.y, data.classes), theta, var)
    drop_out = _index(data, "drop out")
    assert np.exp(jll[0, drop_out]) == printed(expected_drop_out, 4)


def test_five_customers_complete_score_and_decision():
    data = datasets.five_customers()
    theta, var = nbcore.gaussian_mean_var(data.X, data.y, data.classes, ddof=0)
    jll = nbcore.gaussian_jll(data.X_query, class_log_prior(data.y, data.classes), theta, var)
    complete = _index(data, "complete")
    assert np.exp(jll[0, complete]) == printed(1.9e-51, 2)
    # The slide's 0.016 is the MLE score rounded to 2 significant digits.
    assert round(float(np.exp(jll[0, _index(data, "drop out")])), 3) == 0.016
    model = nbcore.GaussianNB(var_smoothing=0.0).fit(data.X, data.y)
    assert data.target_names[model.predict(data.X_query)[0]] == "drop out"
    assert np.exp(model.predict_joint_log_proba(data.X_query)[0, complete]) == printed(1.9e-51, 2)
