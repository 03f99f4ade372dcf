"""Mutants and correct variants of 01_bayes_mle_map's graded functions."""

ASSIGNMENT = "01_bayes_mle_map"


# The hidden cells of each function (issue 21): the core computation, the edge cases its task names,
# and the input kinds it promises; the visible cell checks the lectures' numbers and gives no points.
_HIDDEN = {
    "posterior": ("core", "edges", "inputs"),
    "map_hypothesis": ("core", "inputs"),
    "ml_hypothesis": ("core", "inputs"),
    "bernoulli_mle": ("core", "edges", "inputs"),
    "beta_posterior": ("core", "inputs"),
    "beta_map": ("core", "inputs"),
    "beta_posterior_mean": ("core", "edges", "inputs"),
    "m_estimate": ("core", "edges", "inputs"),
    "beta_credible_interval": ("core", "edges", "inputs"),
    "categorical_mle": ("core", "edges", "inputs"),
    "dirichlet_posterior_mean": ("core", "edges", "inputs"),
    "dirichlet_map": ("core", "edges", "inputs"),
}


def _tests(name):
    return [f"test_{name}_visible"] + [f"test_{name}_{part}" for part in _HIDDEN[name]]


CASES = {
    "posterior": {
        "tests": _tests("posterior"),
        "correct": {
            "vectorised": '''import numpy as np


def posterior(prior, likelihood):
    scores = np.multiply(prior, likelihood, dtype=float)
    return scores / np.sum(scores)''',
            "loops": '''def posterior(prior, likelihood):
    scores = [float(p) * float(l) for p, l in zip(prior, likelihood)]
    total = sum(scores)
    return [score / total for score in scores]''',
        },
        "mutants": {
            "forgotten_prior": '''import numpy as np


def posterior(prior, likelihood):
    likelihood = np.asarray(likelihood, dtype=float)
    return likelihood / likelihood.sum()''',
            "unnormalised_scores": '''import numpy as np


def posterior(prior, likelihood):
    return np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float)''',
            "wrong_total": '''import numpy as np


def posterior(prior, likelihood):
    scores = np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float)
    return scores / np.sum(likelihood)''',
            "overwrites_input": '''import numpy as np


def posterior(prior, likelihood):
    scores = np.asarray(prior, dtype=float)
    scores *= likelihood  # no copy for a float array: this is the caller's prior
    scores /= scores.sum()
    return scores''',
        },
    },
    "map_hypothesis": {
        "tests": _tests("map_hypothesis"),
        "correct": {
            "vectorised": '''import numpy as np


def map_hypothesis(prior, likelihood):
    return int(np.argmax(np.asarray(prior) * np.asarray(likelihood)))''',
            "loops": '''def map_hypothesis(prior, likelihood):
    best, best_score = 0, -1.0
    for index, (p, l) in enumerate(zip(prior, likelihood)):
        if p * l > best_score:
            best, best_score = index, p * l
    return best''',
        },
        "mutants": {
            "ignores_prior": '''import numpy as np


def map_hypothesis(prior, likelihood):
    return int(np.argmax(likelihood))''',
            "largest_prior": '''import numpy as np


def map_hypothesis(prior, likelihood):
    return int(np.argmax(prior))''',
            "overwrites_input": '''import numpy as np


def map_hypothesis(prior, likelihood):
    scores = np.asarray(prior, dtype=float)
    scores *= likelihood
    return int(np.argmax(scores))''',
        },
    },
    "ml_hypothesis": {
        "tests": _tests("ml_hypothesis"),
        "correct": {
            "vectorised": '''import numpy as np


def ml_hypothesis(likelihood):
    return int(np.argmax(likelihood))''',
            "loops": '''def ml_hypothesis(likelihood):
    values = list(likelihood)
    return max(range(len(values)), key=lambda index: values[index])''',
        },
        "mutants": {
            "argmin": '''import numpy as np


def ml_hypothesis(likelihood):
    return int(np.argmin(likelihood))''',
            "returns_value": '''import numpy as np


def ml_hypothesis(likelihood):
    return float(np.max(likelihood))''',
            "overwrites_input": '''import numpy as np


def ml_hypothesis(likelihood):
    likelihood = np.asarray(likelihood, dtype=float)
    best = int(np.argmax(likelihood))
    likelihood /= likelihood[best]  # rescales the caller's array
    return best''',
        },
    },
    "bernoulli_mle": {
        "tests": _tests("bernoulli_mle"),
        "correct": {
            "numpy": '''import numpy as np


def bernoulli_mle(k, n):
    return np.true_divide(k, n)''',
            "plain": '''import numpy as np


def bernoulli_mle(k, n):
    return np.asarray(k) / np.asarray(n)''',
        },
        "mutants": {
            "integer_division": '''import numpy as np


def bernoulli_mle(k, n):
    return np.asarray(k) // np.asarray(n)''',
            "divides_by_tails": '''import numpy as np


def bernoulli_mle(k, n):
    k = np.asarray(k, dtype=float)
    return k / (np.asarray(n, dtype=float) - k)''',
            "k_over_n_plus_1": '''import numpy as np


def bernoulli_mle(k, n):
    return np.asarray(k, dtype=float) / (np.asarray(n, dtype=float) + 1)''',
            "overwrites_input": '''import numpy as np


def bernoulli_mle(k, n):
    k = np.asarray(k, dtype=float)
    k /= n
    return k''',
        },
    },
    "beta_posterior": {
        "tests": _tests("beta_posterior"),
        "correct": {
            "arrays": '''import numpy as np


def beta_posterior(k, n, a, b):
    heads = np.asarray(k, dtype=float)
    tails = np.asarray(n, dtype=float) - heads
    return a + heads, b + tails''',
            "plain": '''def beta_posterior(k, n, a, b):
    return k + a, (n - k) + b''',
        },
        "mutants": {
            "swaps_heads_and_tails": '''import numpy as np


def beta_posterior(k, n, a, b):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return a + n - k, b + k''',
            "adds_n": '''import numpy as np


def beta_posterior(k, n, a, b):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return a + k, b + n''',
            "overwrites_input": '''import numpy as np


def beta_posterior(k, n, a, b):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    n -= k
    k += a
    n += b
    return k, n''',
        },
    },
    "beta_map": {
        "tests": _tests("beta_map"),
        "correct": {
            "formula": '''import numpy as np


def beta_map(k, n, a, b):
    return (np.asarray(k, dtype=float) + a - 1) / (np.asarray(n, dtype=float) + a + b - 2)''',
            "from_posterior": '''def beta_map(k, n, a, b):
    a_post, b_post = k + a, n - k + b
    return (a_post - 1) / (a_post + b_post - 2)''',
        },
        "mutants": {
            "posterior_mean": '''import numpy as np


def beta_map(k, n, a, b):
    return (np.asarray(k, dtype=float) + a) / (np.asarray(n, dtype=float) + a + b)''',
            "denominator_minus_1": '''import numpy as np


def beta_map(k, n, a, b):
    return (np.asarray(k, dtype=float) + a - 1) / (np.asarray(n, dtype=float) + a + b - 1)''',
            "overwrites_input": '''import numpy as np


def beta_map(k, n, a, b):
    k = np.asarray(k, dtype=float)
    k += a - 1
    k /= np.asarray(n, dtype=float) + a + b - 2
    return k''',
        },
    },
    "beta_posterior_mean": {
        "tests": _tests("beta_posterior_mean"),
        "correct": {
            "formula": '''import numpy as np


def beta_posterior_mean(k, n, a, b):
    return (np.asarray(k, dtype=float) + a) / (np.asarray(n, dtype=float) + a + b)''',
            "one_minus_tails": '''def beta_posterior_mean(k, n, a, b):
    return 1.0 - (n - k + b) / (n + a + b)''',
        },
        "mutants": {
            "mode": '''import numpy as np


def beta_posterior_mean(k, n, a, b):
    return (np.asarray(k, dtype=float) + a - 1) / (np.asarray(n, dtype=float) + a + b - 2)''',
            "denominator_n_plus_2": '''import numpy as np


def beta_posterior_mean(k, n, a, b):
    return (np.asarray(k, dtype=float) + a) / (np.asarray(n, dtype=float) + 2)''',
            "swaps_a_and_b": '''import numpy as np


def beta_posterior_mean(k, n, a, b):
    return (np.asarray(k, dtype=float) + b) / (np.asarray(n, dtype=float) + a + b)''',
            "overwrites_input": '''import numpy as np


def beta_posterior_mean(k, n, a, b):
    k = np.asarray(k, dtype=float)
    k += a
    k /= np.asarray(n, dtype=float) + a + b
    return k''',
        },
    },
    "m_estimate": {
        "tests": _tests("m_estimate"),
        "correct": {
            "formula": '''import numpy as np


def m_estimate(n_c, n, p, m):
    return (np.asarray(n_c, dtype=float) + m * p) / (np.asarray(n, dtype=float) + m)''',
            "beta_prior": '''import numpy as np


def m_estimate(n_c, n, p, m):
    a, b = m * p, m * (1 - p)  # the Beta prior of the m-estimate
    return (np.asarray(n_c) + a) / (np.asarray(n) + a + b)''',
            "loops": '''import numpy as np


def m_estimate(n_c, n, p, m):
    values = [(c + m * p) / (t + m) for c, t in zip(np.ravel(n_c), np.ravel(n))]
    return np.array(values, dtype=float).reshape(np.shape(n_c))''',
        },
        "mutants": {
            "denominator_n_plus_mp": '''import numpy as np


def m_estimate(n_c, n, p, m):
    return (np.asarray(n_c, dtype=float) + m * p) / (np.asarray(n, dtype=float) + m * p)''',
            "adds_p_not_mp": '''import numpy as np


def m_estimate(n_c, n, p, m):
    return (np.asarray(n_c, dtype=float) + p) / (np.asarray(n, dtype=float) + m)''',
            "ignores_m": '''import numpy as np


def m_estimate(n_c, n, p, m):
    return (np.asarray(n_c, dtype=float) + p) / (np.asarray(n, dtype=float) + 1)''',
            "overwrites_input": '''import numpy as np


def m_estimate(n_c, n, p, m):
    n_c = np.asarray(n_c, dtype=float)
    n_c += m * p
    n_c /= np.asarray(n, dtype=float) + m
    return n_c''',
        },
    },
    "beta_credible_interval": {
        "tests": _tests("beta_credible_interval"),
        "correct": {
            "ppf": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, a + k, b + n - k), stats.beta.ppf(1 - tail, a + k, b + n - k)''',
            "frozen_interval": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    posterior = stats.beta(a + np.asarray(k), b + np.asarray(n) - np.asarray(k))
    lower, upper = posterior.interval(level)
    return lower, upper''',
            "loops_betaincinv": '''import numpy as np
from scipy.special import betaincinv


def beta_credible_interval(k, n, a, b, level=0.95):
    pairs = [(betaincinv(a + h, b + t - h, (1 - level) / 2), betaincinv(a + h, b + t - h, (1 + level) / 2))
             for h, t in zip(np.ravel(k), np.ravel(n))]
    lower = np.array([p[0] for p in pairs]).reshape(np.shape(k))
    upper = np.array([p[1] for p in pairs]).reshape(np.shape(k))
    return lower, upper''',
        },
        "mutants": {
            "quantiles_one_minus_level_and_level": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return stats.beta.ppf(1 - level, a + k, b + n - k), stats.beta.ppf(level, a + k, b + n - k)''',
            "prior_quantiles": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    shape = np.shape(k)
    tail = (1 - level) / 2
    return np.full(shape, stats.beta.ppf(tail, a, b)), np.full(shape, stats.beta.ppf(1 - tail, a, b))''',
            "swaps_heads_and_tails": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, a + n - k, b + k), stats.beta.ppf(1 - tail, a + n - k, b + k)''',
            "ignores_prior": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, k + 1, n - k + 1), stats.beta.ppf(1 - tail, k + 1, n - k + 1)''',
            "normal_approximation": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    a_post, b_post = a + np.asarray(k, dtype=float), b + np.asarray(n, dtype=float) - np.asarray(k, dtype=float)
    mean = a_post / (a_post + b_post)
    sd = np.sqrt(a_post * b_post / ((a_post + b_post) ** 2 * (a_post + b_post + 1)))
    z = stats.norm.ppf((1 + level) / 2)
    return mean - z * sd, mean + z * sd''',
            "level_fixed_at_95": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return stats.beta.ppf(0.025, a + k, b + n - k), stats.beta.ppf(0.975, a + k, b + n - k)''',
            "overwrites_input": '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    n -= k  # the tails, computed in the caller's array
    k += a
    n += b
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, k, n), stats.beta.ppf(1 - tail, k, n)''',
        },
    },
    "categorical_mle": {
        "tests": _tests("categorical_mle"),
        "correct": {
            "vectorised": '''import numpy as np


def categorical_mle(counts):
    counts = np.asarray(counts, dtype=float)
    return counts / counts.sum(axis=-1, keepdims=True)''',
            "apply_along_axis": '''import numpy as np


def categorical_mle(counts):
    return np.apply_along_axis(lambda row: row / row.sum(), -1, np.asarray(counts, dtype=float))''',
        },
        "mutants": {
            "normalises_columns": '''import numpy as np


def categorical_mle(counts):
    counts = np.asarray(counts, dtype=float)
    return counts / counts.sum(axis=0, keepdims=True)''',
            "normalises_whole_table": '''import numpy as np


def categorical_mle(counts):
    counts = np.asarray(counts, dtype=float)
    return counts / counts.sum()''',
            "overwrites_input": '''import numpy as np


def categorical_mle(counts):
    counts = np.asarray(counts, dtype=float)
    counts /= counts.sum(axis=-1, keepdims=True)
    return counts''',
        },
    },
    "dirichlet_posterior_mean": {
        "tests": _tests("dirichlet_posterior_mean"),
        "correct": {
            "formula": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * alpha)''',
            "renormalise": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    smoothed = np.asarray(counts, dtype=float) + alpha
    return smoothed / smoothed.sum(axis=-1, keepdims=True)''',
        },
        "mutants": {
            "denominator_2_alpha": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + 2 * alpha)''',
            "denominator_alpha": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + alpha)''',
            "wrong_axis": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=0, keepdims=True) + counts.shape[0] * alpha)''',
            "alpha_0_not_mle": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    alpha = alpha if alpha > 0 else 1.0  # "alpha must be positive"
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * alpha)''',
            "overwrites_input": '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    counts += alpha
    counts /= counts.sum(axis=-1, keepdims=True)
    return counts''',
        },
    },
    "dirichlet_map": {
        "tests": _tests("dirichlet_map"),
        "correct": {
            "formula": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha - 1) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * (alpha - 1))''',
            "renormalise": '''import numpy as np


def dirichlet_map(counts, alpha):
    shifted = np.asarray(counts, dtype=float) + (alpha - 1)
    return shifted / shifted.sum(axis=-1, keepdims=True)''',
        },
        "mutants": {
            "posterior_mean": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * alpha)''',
            "denominator_alpha_minus_1": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha - 1) / (counts.sum(axis=-1, keepdims=True) + (alpha - 1))''',
            "denominator_2_alpha_minus_1": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha - 1) / (counts.sum(axis=-1, keepdims=True) + 2 * (alpha - 1))''',
            "wrong_axis": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha - 1) / (counts.sum(axis=0, keepdims=True) + counts.shape[0] * (alpha - 1))''',
            "overwrites_input": '''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    counts += alpha - 1
    counts /= counts.sum(axis=-1, keepdims=True)
    return counts''',
        },
    },
}

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
EXPLANATIONS = {
    "posterior": {
        "forgotten_prior": "Your posterior uses the likelihoods alone: the prior never multiplies them. "
                           "Bayes' rule weighs each likelihood by its prior before normalising (Section 1).",
        "unnormalised_scores": "Your posterior returns prior times likelihood without dividing by their sum, "
                               "so the values do not add up to 1 (Section 1, the evidence P(D)).",
        "wrong_total": "Your posterior divides by the sum of the likelihoods; the evidence is the sum of prior "
                       "times likelihood over all hypotheses (Section 1).",
        "overwrites_input": _INPUT,
    },
    "map_hypothesis": {
        "ignores_prior": "Your MAP hypothesis ignores the prior, which makes it the ML hypothesis; MAP "
                         "maximises prior times likelihood (Section 1).",
        "largest_prior": "Your MAP hypothesis is the one with the largest prior, whatever the data say; "
                         "the likelihood must weigh in too (Section 1).",
        "overwrites_input": _INPUT,
    },
    "ml_hypothesis": {
        "argmin": "Your ML hypothesis is the least likely one: it picks the smallest likelihood instead of "
                  "the largest (Section 1).",
        "returns_value": "Your function returns the largest likelihood itself, not which hypothesis has it "
                         "(Section 1 asks for the index).",
        "overwrites_input": _INPUT,
    },
    "bernoulli_mle": {
        "integer_division": "Your estimate uses integer division, so it is 0 or 1 instead of a fraction "
                            "(Section 2, the MLE).",
        "divides_by_tails": "Your estimate divides heads by tails; the MLE divides the heads by the number "
                            "of tosses (Section 2).",
        "k_over_n_plus_1": "Your estimate adds 1 to the number of tosses, which is a smoothed estimate, "
                           "not the maximum-likelihood one (Section 2).",
        "overwrites_input": _INPUT,
    },
    "beta_posterior": {
        "swaps_heads_and_tails": "Your posterior adds the heads to b and the tails to a; look again at which "
                                 "Beta parameter counts which outcome (Section 2, conjugacy).",
        "adds_n": "Your posterior adds the number of tosses to a parameter instead of the heads or the tails "
                  "alone (Section 2, conjugacy).",
        "overwrites_input": _INPUT,
    },
    "beta_map": {
        "posterior_mean": "Your function returns the posterior mean, not the mode: the MAP estimate is the "
                          "peak of the Beta density (Section 2).",
        "denominator_minus_1": "Your mode's denominator is off: subtract 1 for each of the two parameters, "
                               "not once (Section 2, the Beta mode).",
        "overwrites_input": _INPUT,
    },
    "beta_posterior_mean": {
        "mode": "Your function returns the posterior mode (the MAP estimate), not the mean (Section 2).",
        "denominator_n_plus_2": "Your mean uses Laplace's +2 whatever the prior is; the Beta mean divides by "
                                "a + b of the posterior (Section 2).",
        "swaps_a_and_b": "Your mean is b over a + b: that is the probability of tails (Section 2).",
        "overwrites_input": _INPUT,
    },
    "m_estimate": {
        "denominator_n_plus_mp": "Your m-estimate adds m*p to the denominator; the denominator gains the m "
                                 "virtual samples themselves (Section 2, the m-estimate).",
        "adds_p_not_mp": "Your m-estimate adds p to the count instead of m*p virtual successes (Section 2, the m-estimate).",
        "ignores_m": "Your m-estimate does not depend on m, the weight of the prior guess (Section 2, the m-estimate).",
        "overwrites_input": _INPUT,
    },
    "beta_credible_interval": {
        "quantiles_one_minus_level_and_level": "Your interval takes the quantiles at 1 - level and level; an "
            "equal-tailed interval leaves half of 1 - level in each tail (Section 2, credible intervals).",
        "prior_quantiles": "Your interval comes from the prior, before the data: take the quantiles of the "
                           "posterior Beta (Section 2).",
        "swaps_heads_and_tails": "Your posterior adds the heads to b and the tails to a before taking the "
                                 "quantiles (Section 2, conjugacy).",
        "ignores_prior": "Your interval uses a uniform prior whatever a and b are: the posterior adds the "
                         "data to the given Beta(a, b) (Section 2).",
        "normal_approximation": "Your interval is a normal approximation around the estimate; the exact "
                                "Beta quantiles differ, most with few tosses (Section 2).",
        "level_fixed_at_95": "Your interval is always a 95% interval: the level argument is ignored (Section 2).",
        "overwrites_input": _INPUT,
    },
    "categorical_mle": {
        "normalises_columns": "Your table is normalised along the wrong axis: each row (one distribution) "
                              "must sum to 1 (Section 3).",
        "normalises_whole_table": "Your table is divided by the grand total, so only the whole table sums "
                                  "to 1, not each distribution (Section 3).",
        "overwrites_input": _INPUT,
    },
    "dirichlet_posterior_mean": {
        "denominator_2_alpha": "Your denominator adds 2*alpha whatever the number of values; the Dirichlet "
                               "adds alpha once per value (Section 3).",
        "denominator_alpha": "Your denominator adds alpha once; it must add it once per possible value "
                             "(Section 3).",
        "wrong_axis": "Your sums run along the wrong axis of the counts (Section 3).",
        "alpha_0_not_mle": "With alpha = 0 your function does not return the plain relative frequencies "
                           "that the formula gives (Section 3).",
        "overwrites_input": _INPUT,
    },
    "dirichlet_map": {
        "posterior_mean": "Your function returns the posterior mean, not the mode (Section 3).",
        "denominator_alpha_minus_1": "Your denominator subtracts once; the mode subtracts 1 from every "
                                     "value's alpha (Section 3).",
        "denominator_2_alpha_minus_1": "Your denominator counts two values whatever the number of values "
                                       "(Section 3).",
        "wrong_axis": "Your sums run along the wrong axis of the counts (Section 3).",
        "overwrites_input": _INPUT,
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts


# Mistakes of the edge cases and of the input kinds (issue 21), with the cells a mutant that misses only
# them must still pass in full ("keeps": its core computation is right).
_ARRAYS_ONLY = ("Your function works on NumPy arrays only: it fails when {what}. The task promises {promise} "
                "({section}); convert the arguments with np.asarray before computing.")
_MORE = {
    "posterior": {
        "epsilon_added": ('''import numpy as np


def posterior(prior, likelihood):
    scores = np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float) + 1e-12  # "avoid 0 / 0"
    return scores / scores.sum()''',
            "Your posterior adds a small constant to the scores; with tiny likelihoods (1e-200) the constant "
            "swamps them and the posterior becomes nearly uniform, and a hypothesis with likelihood 0 gets a "
            "positive posterior (Section 1)."),
        "lists_not_accepted": ('''def posterior(prior, likelihood):
    scores = prior * likelihood
    return scores / scores.sum()''',
            _ARRAYS_ONLY.format(what="the prior and likelihood are lists or tuples",
                                promise="array-likes", section="Exercise 1.1")),
    },
    "map_hypothesis": {
        "lists_not_accepted": ('''import numpy as np


def map_hypothesis(prior, likelihood):
    return int(np.argmax(prior * likelihood))''',
            _ARRAYS_ONLY.format(what="the prior and likelihood are lists", promise="array-likes",
                                section="Exercise 1.2")),
    },
    "ml_hypothesis": {
        "lists_not_accepted": ('''def ml_hypothesis(likelihood):
    return int(likelihood.argmax())''',
            _ARRAYS_ONLY.format(what="the likelihood is a list or a tuple", promise="array-likes",
                                section="Exercise 1.2")),
    },
    "bernoulli_mle": {
        "clipped_away_from_0_and_1": ('''import numpy as np


def bernoulli_mle(k, n):
    return np.clip(np.asarray(k, dtype=float) / np.asarray(n, dtype=float), 1e-6, 1 - 1e-6)''',
            "Your estimate is kept away from 0 and 1; the MLE after no heads is exactly 0 and after all heads "
            "exactly 1 (that overfitting is the point of Section 2, and what the priors fix)."),
        "assumes_arrays": ('''def bernoulli_mle(k, n):
    return k.astype(float) / n''',
            _ARRAYS_ONLY.format(what="k and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.1")),
    },
    "beta_posterior": {
        "assumes_arrays": ('''def beta_posterior(k, n, a, b):
    heads = k.astype(float)
    return a + heads, b + n - heads''',
            _ARRAYS_ONLY.format(what="k and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.1")),
    },
    "beta_map": {
        "assumes_arrays": ('''def beta_map(k, n, a, b):
    return (k.astype(float) + a - 1) / (n + a + b - 2)''',
            _ARRAYS_ONLY.format(what="k and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.1")),
    },
    "beta_posterior_mean": {
        "no_tosses_gives_one_half": ('''import numpy as np


def beta_posterior_mean(k, n, a, b):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (k + a) / (n + a + b), 0.5)''',
            "Your mean is 1/2 when there are no tosses; with no data the posterior is the prior Beta(a, b), "
            "whose mean is a / (a + b) (Section 2)."),
        "assumes_arrays": ('''def beta_posterior_mean(k, n, a, b):
    return (k.astype(float) + a) / (n + a + b)''',
            _ARRAYS_ONLY.format(what="k and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.1")),
    },
    "m_estimate": {
        "no_trials_gives_0": ('''import numpy as np


def m_estimate(n_c, n, p, m):
    n_c, n = np.asarray(n_c, dtype=float), np.asarray(n, dtype=float)
    return np.where(n > 0, (n_c + m * p) / (n + m), 0.0)''',
            "Your m-estimate is 0 when there are no trials; with n = 0 only the m virtual trials remain, so "
            "the estimate is the prior rate p (Section 2, the m-estimate)."),
        "assumes_arrays": ('''def m_estimate(n_c, n, p, m):
    return (n_c.astype(float) + m * p) / (n + m)''',
            _ARRAYS_ONLY.format(what="n_c and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.2")),
    },
    "beta_credible_interval": {
        "assumes_arrays": ('''from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.95):
    k = k.astype(float)
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, a + k, b + n - k), stats.beta.ppf(1 - tail, a + k, b + n - k)''',
            _ARRAYS_ONLY.format(what="k and n are plain Python numbers", promise="plain numbers and arrays",
                                section="Exercise 2.3")),
    },
    "categorical_mle": {
        "assumes_2d": ('''import numpy as np


def categorical_mle(counts):
    counts = np.asarray(counts, dtype=float)
    return counts / counts.sum(axis=1, keepdims=True)''',
            "Your function sums along axis 1, which exists only for a 2-D table; the categories are on the "
            "last axis, so a 1-D array of counts (one variable) must work too (Section 3)."),
        "lists_not_accepted": ('''def categorical_mle(counts):
    return counts / counts.sum(axis=-1, keepdims=True)''',
            _ARRAYS_ONLY.format(what="the counts are a nested list", promise="an array or a nested list",
                                section="Exercise 3.1")),
    },
    "dirichlet_posterior_mean": {
        "lists_not_accepted": ('''def dirichlet_posterior_mean(counts, alpha):
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * alpha)''',
            _ARRAYS_ONLY.format(what="the counts are a nested list", promise="an array or a nested list",
                                section="Exercise 3.1")),
    },
    "dirichlet_map": {
        "assumes_2d": ('''import numpy as np


def dirichlet_map(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha - 1) / (counts.sum(axis=1, keepdims=True) + counts.shape[1] * (alpha - 1))''',
            "Your function uses axis 1, which exists only for a 2-D table; the categories are on the last "
            "axis, so a 1-D array of counts must work too (Section 3)."),
        "lists_not_accepted": ('''def dirichlet_map(counts, alpha):
    return (counts + alpha - 1) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1] * (alpha - 1))''',
            _ARRAYS_ONLY.format(what="the counts are a nested list", promise="an array or a nested list",
                                section="Exercise 3.1")),
    },
}
for _function, _mistakes in _MORE.items():
    for _name, (_source, _words) in _mistakes.items():
        CASES[_function]["mutants"][_name] = _source
        CASES[_function]["explanations"][_name] = _words
_KEEPS = {
    "posterior": {"epsilon_added": ["test_posterior_core", "test_posterior_inputs"],
                  "lists_not_accepted": ["test_posterior_core", "test_posterior_edges"]},
    "map_hypothesis": {"lists_not_accepted": ["test_map_hypothesis_core"]},
    "ml_hypothesis": {"lists_not_accepted": ["test_ml_hypothesis_core"]},
    "bernoulli_mle": {"clipped_away_from_0_and_1": ["test_bernoulli_mle_core"],
                      "assumes_arrays": ["test_bernoulli_mle_core", "test_bernoulli_mle_edges"]},
    "beta_posterior": {"assumes_arrays": ["test_beta_posterior_core"]},
    "beta_map": {"assumes_arrays": ["test_beta_map_core"]},
    "beta_posterior_mean": {"no_tosses_gives_one_half": ["test_beta_posterior_mean_core"],
                            "assumes_arrays": ["test_beta_posterior_mean_core", "test_beta_posterior_mean_edges"]},
    "m_estimate": {"no_trials_gives_0": ["test_m_estimate_core"],
                   "assumes_arrays": ["test_m_estimate_core", "test_m_estimate_edges"]},
    "beta_credible_interval": {"level_fixed_at_95": ["test_beta_credible_interval_core"],
                               "assumes_arrays": ["test_beta_credible_interval_core",
                                                  "test_beta_credible_interval_edges"]},
    "categorical_mle": {"assumes_2d": ["test_categorical_mle_core"],
                        "lists_not_accepted": ["test_categorical_mle_core", "test_categorical_mle_edges"]},
    "dirichlet_posterior_mean": {"alpha_0_not_mle": ["test_dirichlet_posterior_mean_core"],
                                 "lists_not_accepted": ["test_dirichlet_posterior_mean_core"]},
    "dirichlet_map": {"assumes_2d": ["test_dirichlet_map_core"],
                      "lists_not_accepted": ["test_dirichlet_map_core", "test_dirichlet_map_edges"]},
}
for _function, _keeps in _KEEPS.items():
    CASES[_function]["keeps"] = _keeps

# Probes (issue 33): argument lists on which the judge calls the student's function to confirm a
# diagnosis before naming it. The tests' first calls can be too few to tell a catalogued mistake from
# another one (two hypotheses, two observed categories, the default level): these have three or more
# hypotheses, every category observed and an explicit level.
_PROBES = {
    "ml_hypothesis": ["np.array([0.2, 0.5, 0.3])", "np.array([0.1, 0.2, 0.3, 0.4])"],
    "dirichlet_posterior_mean": ["np.array([2.0, 1.0, 1.0]), 1.0",
                                 "np.array([[3.0, 1.0, 1.0, 2.0], [1.0, 2.0, 1.0, 4.0]]), 0.5"],
    "beta_credible_interval": ["3, 5, 2.0, 3.0, level=0.8", "np.array([1.0, 4.0]), np.array([6.0, 9.0]), 1.0, 1.0"],
}
for _function, _probes in _PROBES.items():
    CASES[_function]["probes"] = _probes
