"""Hand-derived values: the course's worked numbers, the estimation formulas,
the functional core, and what nbcore does beyond scikit-learn (about 3 s).

Every expected value below is written out by hand (or taken from
../shared/COURSE.md), never computed by the code under test.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import nbcore
from nbcore import estimation as est

# ------------------------------------------------------------ Bayes' rule


def test_medical_test_scores_posterior_and_map():
    prior, likelihood = [0.008, 0.992], [0.98, 0.03]
    np.testing.assert_allclose(
        est.unnormalized_posterior(prior, likelihood), [0.00784, 0.02976], rtol=1e-12
    )
    np.testing.assert_allclose(
        est.posterior(prior, likelihood), [0.00784 / 0.0376, 0.02976 / 0.0376], rtol=1e-12
    )
    assert round(float(est.posterior(prior, likelihood)[0]), 4) == 0.2085
    assert est.map_hypothesis(prior, likelihood) == 1  # no cancer
    assert est.ml_hypothesis(likelihood) == 0  # cancer explains "+" best


def test_posterior_of_all_zero_scores_is_nan_without_warning(recwarn):
    assert np.isnan(est.posterior([0.5, 0.5], [0.0, 0.0])).all()
    assert len(recwarn) == 0


# ------------------------------------------------------------ coin and Beta


def test_coin_estimates():
    assert est.bernoulli_mle(3, 4) == 0.75
    assert est.bernoulli_mle(0, 2) == 0.0  # the MLE overfits: never heads
    assert est.beta_map(3, 4, 2, 2) == pytest.approx(4 / 6)
    assert est.beta_posterior_mean(3, 4, 2, 2) == pytest.approx(5 / 8)
    assert [float(v) for v in est.beta_posterior(3, 4, 2, 5)] == [5.0, 6.0]
    # A uniform Beta(1, 1) prior: MAP = MLE; posterior mean = add-one.
    assert est.beta_map(3, 4, 1, 1) == 0.75
    assert est.beta_posterior_mean(0, 2, 1, 1) == pytest.approx(1 / 4)


def test_beta_credible_interval_closed_forms():
    # Beta(k + 1, 1) (k heads in k tosses, uniform prior) has CDF theta**(k + 1).
    lower, upper = est.beta_credible_interval(3, 3, 1, 1)
    assert float(lower) == pytest.approx(0.025 ** (1 / 4))
    assert float(upper) == pytest.approx(0.975 ** (1 / 4))
    # Beta(1, n + 1) (no heads in n tosses) has CDF 1 - (1 - theta)**(n + 1).
    lower, upper = est.beta_credible_interval([0, 0], [4, 9], 1, 1, level=0.9)
    np.testing.assert_allclose(lower, [1 - 0.95 ** (1 / 5), 1 - 0.95 ** (1 / 10)])
    np.testing.assert_allclose(upper, [1 - 0.05 ** (1 / 5), 1 - 0.05 ** (1 / 10)])
    # No data and a uniform prior: the central 95 % of the uniform distribution.
    lower, upper = est.beta_credible_interval(0, 0, 1, 1)
    assert (float(lower), float(upper)) == pytest.approx((0.025, 0.975))
    # A symmetric posterior Beta(5, 5): the interval is symmetric about 1/2.
    lower, upper = est.beta_credible_interval(3, 6, 2, 2)
    assert float(lower) + float(upper) == pytest.approx(1.0)


def test_beta_credible_interval_leaves_the_stated_mass_in_each_tail():
    # Integrate the unnormalised posterior theta^(k+a-1) (1-theta)^(n-k+b-1) on a fine grid.
    k, n, a, b, level = 7, 20, 2.0, 3.0, 0.8
    lower, upper = est.beta_credible_interval(k, n, a, b, level=level)
    theta = np.linspace(0.0, 1.0, 400_001)
    density = theta ** (k + a - 1) * (1 - theta) ** (n - k + b - 1)
    cdf = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2)])
    cdf /= cdf[-1]
    assert np.interp(float(lower), theta, cdf) == pytest.approx(0.1, abs=1e-6)
    assert np.interp(float(upper), theta, cdf) == pytest.approx(0.9, abs=1e-6)


def test_beta_credible_interval_rejects_a_level_outside_0_1():
    with pytest.raises(ValueError, match="level must be in"):
        est.beta_credible_interval(1, 2, 1, 1, level=95)


def test_m_estimate():
    assert est.m_estimate(0, 5, 0.5, 2) == pytest.approx(1 / 7)
    assert est.m_estimate(3, 4, 0.25, 0) == 0.75  # m = 0: the MLE
    # m virtual samples at rate p: (2 + 3 * 1/3) / (6 + 3)
    assert est.m_estimate(2, 6, 1 / 3, 3) == pytest.approx(1 / 3)


def test_functions_accept_arrays():
    np.testing.assert_allclose(est.bernoulli_mle([1, 2], [4, 4]), [0.25, 0.5])
    np.testing.assert_allclose(est.beta_posterior_mean([0, 4], 4, 1, 1), [1 / 6, 5 / 6])


# ------------------------------------------------------------ Dirichlet


def test_categorical_and_dirichlet_estimates():
    counts = [3, 1, 0]
    np.testing.assert_allclose(est.categorical_mle(counts), [0.75, 0.25, 0.0])
    np.testing.assert_allclose(
        est.dirichlet_posterior_mean(counts, 0.5), [3.5 / 5.5, 1.5 / 5.5, 0.5 / 5.5]
    )
    np.testing.assert_allclose(est.dirichlet_map(counts, 3.0), [5 / 10, 3 / 10, 2 / 10])


def test_laplace_is_uniform_posterior_mean_and_dirichlet2_map():
    counts = np.array([[5, 0, 2, 1], [0, 0, 1, 0]])
    laplace = np.array([[6, 1, 3, 2], [1, 1, 2, 1]]) / np.array([[12], [5]])
    np.testing.assert_allclose(est.dirichlet_posterior_mean(counts, 1.0), laplace)
    np.testing.assert_allclose(est.dirichlet_map(counts, 2.0), laplace)
    # Uniform Dirichlet(1): the MAP is the MLE (not "the MSE", seed 001's slip).
    np.testing.assert_allclose(est.dirichlet_map(counts, 1.0), est.categorical_mle(counts))


# ------------------------------------------------------------ priors, normalisation


def test_class_log_prior():
    np.testing.assert_allclose(
        est.class_log_prior(["b", "a", "b", "b"], ["a", "b", "c"]),
        [np.log(0.25), np.log(0.75), -np.inf],
    )
    np.testing.assert_allclose(
        est.class_log_prior([0, 1, 1], [0, 1], sample_weight=[3.0, 0.5, 0.5]),
        np.log([0.75, 0.25]),
    )


def test_log_normalize_is_stable():
    jll = np.array([[-1000.0, -1000.0 + np.log(3.0)], [0.0, -np.inf]])
    np.testing.assert_allclose(np.exp(est.log_normalize(jll)), [[0.25, 0.75], [1.0, 0.0]])
    with np.errstate(all="raise"):  # no floating-point warnings either
        assert np.isnan(est.log_normalize([[-np.inf, -np.inf]])).all()


# ------------------------------------------------------------ worked examples

PLAY_TENNIS = """sunny hot high weak no
sunny hot high strong no
overcast hot high weak yes
rain mild high weak yes
rain cool normal weak yes
rain cool normal strong no
overcast cool normal strong yes
sunny mild high weak no
sunny cool normal weak yes
rain mild normal weak yes
sunny mild normal strong yes
overcast mild high strong yes
overcast hot normal weak yes
rain mild high strong no"""
VALUES = [["sunny", "overcast", "rain"], ["hot", "mild", "cool"], ["high", "normal"],
          ["weak", "strong"]]


def play_tennis():
    rows = [line.split() for line in PLAY_TENNIS.splitlines()]
    X = np.array([[VALUES[j].index(r[j]) for j in range(4)] for r in rows])
    return X, np.array([r[4] for r in rows])


def test_play_tennis_mle_and_smoothed():
    X, y = play_tennis()
    query = [[0, 2, 0, 1]]  # sunny, cool, high, strong
    mle = nbcore.CategoricalNB(alpha=0.0).fit(X, y)
    np.testing.assert_allclose(
        np.exp(mle.predict_joint_log_proba(query)), [[0.0205714, 0.0052910]], atol=5e-8
    )
    assert mle.predict_proba(query)[0, 0] == pytest.approx(0.79542, abs=5e-6)
    smoothed = nbcore.CategoricalNB(alpha=1.0).fit(X, y)
    assert smoothed.predict_proba(query)[0, 0] == pytest.approx(0.72007, abs=5e-6)
    # The functional core gives the same numbers: P(sunny | no) = 3/5.
    log_prob = nbcore.categorical_feature_log_prob(X, y, ["no", "yes"], alpha=0.0)
    assert np.exp(log_prob[0][0, 0]) == pytest.approx(3 / 5)
    jll = nbcore.categorical_jll(query, nbcore.class_log_prior(y, ["no", "yes"]), log_prob)
    np.testing.assert_allclose(np.exp(jll), [[0.0205714, 0.0052910]], atol=5e-8)


IIR_DOCS = np.array([[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0],
                     [1, 0, 0, 0, 1, 1]])  # Chinese Beijing Shanghai Macao Tokyo Japan
IIR_LABELS = ["c", "c", "c", "j"]
D5 = [[3, 0, 0, 0, 1, 1]]


@pytest.mark.parametrize("to_input", [np.asarray, sp.csr_matrix])
def test_iir_multinomial(to_input):
    model = nbcore.MultinomialNB(alpha=1.0).fit(to_input(IIR_DOCS), IIR_LABELS)
    prob = np.exp(model.feature_log_prob_)
    assert prob[0, 0] == pytest.approx(3 / 7)
    assert prob[0, 4] == pytest.approx(1 / 14)
    np.testing.assert_allclose(prob[1, [0, 4, 5]], [2 / 9] * 3)
    np.testing.assert_allclose(
        np.exp(model.predict_joint_log_proba(to_input(D5))), [[3.0121e-4, 1.3548e-4]],
        rtol=2e-4,
    )
    assert model.predict_proba(to_input(D5))[0, 0] == pytest.approx(0.68976, abs=5e-6)


def test_iir_bernoulli_flips_the_decision():
    model = nbcore.BernoulliNB(alpha=1.0).fit(IIR_DOCS, IIR_LABELS)
    np.testing.assert_allclose(
        np.exp(model.predict_joint_log_proba(D5)), [[0.005184, 0.0219479]], rtol=2e-5
    )
    assert model.predict_proba(D5)[0, 1] == pytest.approx(0.80893, abs=5e-6)
    assert model.predict(D5)[0] == "j"
    # Laplace for Bernoulli: +1 / +2 documents, P(Chinese | c) = (3+1)/(3+2).
    log_p = nbcore.bernoulli_feature_log_prob(IIR_DOCS > 0, IIR_LABELS, ["c", "j"])
    assert np.exp(log_p[0, 0]) == pytest.approx(4 / 5)


def test_multinomial_alpha_zero_gives_zero_score_without_warning(recwarn):
    # A word unseen in class c (Tokyo) makes P(d5, c) exactly 0 under the MLE.
    log_prob = nbcore.multinomial_feature_log_prob(IIR_DOCS, IIR_LABELS, ["c", "j"], alpha=0)
    assert log_prob[0, 4] == -np.inf
    jll = nbcore.multinomial_jll(D5, np.log([0.75, 0.25]), log_prob)
    assert jll[0, 0] == -np.inf and np.isfinite(jll[0, 1])
    assert len(recwarn) == 0


def test_gaussian_mean_var_mle_and_unbiased():
    X = [[1.0, 10.0], [3.0, 10.0], [5.0, 13.0], [7.0, 0.0]]
    theta, var = nbcore.gaussian_mean_var(X, [0, 0, 0, 1], [0, 1])
    np.testing.assert_allclose(theta, [[3.0, 11.0], [7.0, 0.0]])
    np.testing.assert_allclose(var, [[8 / 3, 2.0], [0.0, 0.0]])
    _, unbiased = nbcore.gaussian_mean_var(X, [0, 0, 0, 1], [0, 1], ddof=1)
    np.testing.assert_allclose(unbiased[0], [4.0, 3.0])
    assert np.isnan(unbiased[1]).all()  # one sample: N - 1 = 0


def test_gaussian_jll_is_the_normal_density():
    jll = nbcore.gaussian_jll([[1.0, 2.0]], np.log([0.25, 0.75]), [[0.0, 2.0], [1.0, 0.0]],
                              [[1.0, 4.0], [2.0, 1.0]])
    density_0 = 0.25 * np.exp(-0.5) / np.sqrt(2 * np.pi) / np.sqrt(8 * np.pi)
    density_1 = 0.75 / np.sqrt(4 * np.pi) * np.exp(-2.0) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(np.exp(jll), [[density_0, density_1]], rtol=1e-12)


# ------------------------------------------------------------ beyond scikit-learn


def test_unseen_category_gets_the_smoothed_zero_count_probability():
    X = np.array([[0], [1], [1], [0], [2]])
    y = [0, 0, 0, 1, 1]
    model = nbcore.CategoricalNB(alpha=0.5).fit(X, y)
    # Class 0: N = 3, K = 3, alpha / (N + alpha K) = 0.5 / 4.5; class 1: 0.5 / 3.5.
    expected = np.log([0.6, 0.4]) + np.log([0.5 / 4.5, 0.5 / 3.5])
    np.testing.assert_allclose(model.predict_joint_log_proba([[7]])[0], expected)
    mle = nbcore.CategoricalNB(alpha=0.0).fit(X, y)
    assert np.isneginf(mle.predict_joint_log_proba([[7]])).all()


def test_partial_fit_rejects_labels_outside_classes():
    model = nbcore.MultinomialNB().partial_fit([[1, 2]], [0], classes=[0, 1])
    with pytest.raises(ValueError, match=r"label\(s\) \[2\] in y do not exist in the initial classes"):
        model.partial_fit([[1, 0]], [2])


def test_gaussian_partial_fit_equals_fit_including_epsilon():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4)) * [1.0, 10.0, 0.1, 3.0] + [0.0, 100.0, -5.0, 2.0]
    y = rng.integers(0, 3, 90)
    batch = nbcore.GaussianNB()
    for rows in np.array_split(np.arange(90), 6):
        batch.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    whole = nbcore.GaussianNB().fit(X, y)
    assert batch.epsilon_ == pytest.approx(1e-9 * X.var(axis=0).max(), rel=1e-12)
    assert batch.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)
    np.testing.assert_allclose(batch.theta_, whole.theta_, rtol=1e-12)
    np.testing.assert_allclose(batch.var_, whole.var_, rtol=1e-12)
    np.testing.assert_allclose(batch.predict_log_proba(X), whole.predict_log_proba(X),
                               rtol=0, atol=1e-12)


# ------------------------------------------------------------ missing="skip"


def _data_with_missing():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    y = rng.integers(0, 2, 40)
    X[rng.random(X.shape) < 0.2] = np.nan
    return X, y


@pytest.mark.parametrize("name", ["CategoricalNB", "BernoulliNB"])
def test_missing_skip_equals_fitting_each_feature_on_its_observed_rows(name):
    """Naive Bayes is a sum over features: with 'skip', each feature's term is
    that of a model fitted on this feature's non-missing rows only."""
    X, y = _data_with_missing()
    query = np.array([[1.0, np.nan, 2.0]])
    model = getattr(nbcore, name)(missing="skip").fit(X, y)
    expected = np.log(np.bincount(y) / len(y))
    for j in (0, 2):
        rows = ~np.isnan(X[:, j])
        single = getattr(nbcore, name)().fit(X[rows][:, [j]], y[rows])
        expected = expected + single.predict_joint_log_proba(query[:, [j]])[0]
        expected -= single.class_log_prior_
    np.testing.assert_allclose(model.predict_joint_log_proba(query)[0], expected)


def test_missing_skip_multinomial_counts_nothing_for_nan():
    X, y = _data_with_missing()
    model = nbcore.MultinomialNB(missing="skip").fit(X, y)
    zero_filled = nbcore.MultinomialNB().fit(np.nan_to_num(X), y)
    np.testing.assert_allclose(model.feature_log_prob_, zero_filled.feature_log_prob_)
    np.testing.assert_allclose(
        model.predict_joint_log_proba([[1.0, np.nan, 2.0]]),
        zero_filled.predict_joint_log_proba([[1.0, 0.0, 2.0]]),
    )


def test_missing_skip_gaussian_moments_use_observed_entries():
    X, y = _data_with_missing()
    model = nbcore.GaussianNB(missing="skip").fit(X, y)
    for c in (0, 1):
        for j in range(3):
            column = X[y == c, j]
            column = column[~np.isnan(column)]
            assert model.theta_[c, j] == pytest.approx(column.mean(), rel=1e-12)
            assert model.var_[c, j] - model.epsilon_ == pytest.approx(column.var(), rel=1e-9)
    assert model.epsilon_ == pytest.approx(1e-9 * np.nanvar(X, axis=0).max())


def test_missing_skip_drops_the_term_from_the_gaussian_product():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [10.0, 11.0], [12.0, 15.0]])
    model = nbcore.GaussianNB(missing="skip").fit(X, [0, 0, 1, 1])
    full = model.predict_joint_log_proba([[1.0, 2.0]])
    only_first = model.predict_joint_log_proba([[1.0, np.nan]])
    # log N(2; theta_c1, var_c1) is what the NaN removes.
    log_density = -0.5 * (np.log(2 * np.pi * model.var_[:, 1])
                          + (2.0 - model.theta_[:, 1]) ** 2 / model.var_[:, 1])
    np.testing.assert_allclose(full[0] - only_first[0], log_density, rtol=1e-12)


def test_row_max_and_row_sum_match_numpy_reductions():
    from nbcore.estimation import row_max, row_sum

    a = np.array([[1.0, 3.0, 2.0], [-np.inf, -np.inf, -np.inf], [np.nan, 0.0, 1.0], [5.0, -1.0, np.inf]])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(row_max(a), a.max(axis=1, keepdims=True))
        np.testing.assert_array_equal(row_sum(a[[0, 3]]), a[[0, 3]].sum(axis=1, keepdims=True))
    assert np.isnan(row_sum(a[[2]])).all()
    assert row_max(np.empty((0, 2))).shape == (0, 1)
