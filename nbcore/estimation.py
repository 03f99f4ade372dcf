"""Bayes' rule and parameter estimation: the formulas of the first lecture.

Every function is a direct transcription of one formula of the course, works
on NumPy arrays (or scalars) and returns float64 values. ``log(0)`` is
``-inf`` silently: a zero probability is a legitimate answer of the MLE.

Examples
--------
The medical test: P(cancer) = 0.008, P(+|cancer) = 0.98, P(+|no cancer) = 0.03.

>>> prior = [0.008, 0.992]
>>> likelihood = [0.98, 0.03]
>>> unnormalized_posterior(prior, likelihood).round(5)
array([0.00784, 0.02976])
>>> posterior(prior, likelihood).round(4)
array([0.2085, 0.7915])
>>> int(map_hypothesis(prior, likelihood)), int(ml_hypothesis(likelihood))
(1, 0)
"""

import numpy as np

__all__ = [
    "unnormalized_posterior",
    "posterior",
    "map_hypothesis",
    "ml_hypothesis",
    "bernoulli_mle",
    "beta_map",
    "beta_posterior_mean",
    "beta_posterior",
    "beta_credible_interval",
    "m_estimate",
    "categorical_mle",
    "dirichlet_posterior_mean",
    "dirichlet_map",
    "class_log_prior",
    "log_normalize",
]


def _as_float(value):
    return np.asarray(value, dtype=np.float64)


def _divide(numerator, denominator):
    """Elementwise division; 0/0 gives nan without a warning on stderr."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _as_float(numerator) / _as_float(denominator)


def unnormalized_posterior(prior, likelihood):
    """Scores ``P(h) P(D|h)`` of each hypothesis (Bayes' numerator).

    Parameters
    ----------
    prior : array-like of shape (n_hypotheses,)
        Prior probabilities ``P(h)``.
    likelihood : array-like of shape (n_hypotheses,)
        Likelihoods ``P(D|h)`` of the observed data under each hypothesis.

    Returns
    -------
    scores : ndarray of shape (n_hypotheses,)

    Examples
    --------
    >>> unnormalized_posterior([0.5, 0.5], [0.2, 0.6])
    array([0.1, 0.3])
    """
    return _as_float(prior) * _as_float(likelihood)


def posterior(prior, likelihood):
    """Posterior ``P(h|D)``: the scores divided by the evidence ``P(D)``.

    Parameters
    ----------
    prior : array-like of shape (n_hypotheses,)
    likelihood : array-like of shape (n_hypotheses,)

    Returns
    -------
    posterior : ndarray of shape (n_hypotheses,)
        Sums to one (nan when every score is zero: the evidence is zero).

    Examples
    --------
    >>> posterior([0.5, 0.5], [0.2, 0.6])
    array([0.25, 0.75])
    """
    scores = unnormalized_posterior(prior, likelihood)
    return _divide(scores, scores.sum(axis=-1, keepdims=True))


def map_hypothesis(prior, likelihood):
    """Index of the maximum a posteriori hypothesis, ``argmax P(h) P(D|h)``.

    Examples
    --------
    >>> int(map_hypothesis([0.9, 0.1], [0.2, 0.6]))
    0
    """
    return np.argmax(unnormalized_posterior(prior, likelihood), axis=-1)


def ml_hypothesis(likelihood):
    """Index of the maximum likelihood hypothesis, ``argmax P(D|h)``.

    Examples
    --------
    >>> int(ml_hypothesis([0.2, 0.6]))
    1
    """
    return np.argmax(_as_float(likelihood), axis=-1)


def bernoulli_mle(k, n):
    """MLE of a coin's bias after ``k`` heads in ``n`` tosses: ``k / n``.

    Examples
    --------
    >>> float(bernoulli_mle(3, 4))
    0.75
    """
    return _divide(k, n)


def beta_map(k, n, a, b):
    """MAP estimate under a Beta(a, b) prior: ``(k + a - 1) / (n + a + b - 2)``.

    Examples
    --------
    >>> float(beta_map(3, 4, 2, 2))
    0.6666666666666666
    """
    return _divide(_as_float(k) + a - 1, _as_float(n) + a + b - 2)


def beta_posterior_mean(k, n, a, b):
    """Posterior mean under a Beta(a, b) prior: ``(k + a) / (n + a + b)``.

    Examples
    --------
    >>> float(beta_posterior_mean(3, 4, 1, 1))
    0.6666666666666666
    """
    return _divide(_as_float(k) + a, _as_float(n) + a + b)


def beta_posterior(k, n, a, b):
    """Parameters ``(a + k, b + n - k)`` of the Beta posterior (conjugacy).

    Examples
    --------
    >>> [float(v) for v in beta_posterior(3, 4, 2, 2)]
    [5.0, 3.0]
    """
    k = _as_float(k)
    return _as_float(a + k), _as_float(b + _as_float(n) - k)


def beta_credible_interval(k, n, a, b, level=0.95):
    """Equal-tailed credible interval of a coin's bias under a Beta(a, b) prior.

    The posterior is Beta(a + k, b + n - k); the interval runs from its
    ``(1 - level) / 2`` quantile to its ``(1 + level) / 2`` quantile, so that
    the posterior puts ``(1 - level) / 2`` of its mass on each side.

    Parameters
    ----------
    k, n : array-like
        Heads and tosses (elementwise for arrays of the same shape).
    a, b : float
        Parameters of the Beta prior.
    level : float, default 0.95
        Posterior probability inside the interval, in (0, 1).

    Returns
    -------
    (lower, upper) : pair of ndarrays of the shape of ``k``.

    Examples
    --------
    Three heads in three tosses, uniform prior: the posterior Beta(4, 1) has
    CDF ``theta**4``, so the bounds are ``0.025**(1/4)`` and ``0.975**(1/4)``.

    >>> [round(float(v), 5) for v in beta_credible_interval(3, 3, 1, 1)]
    [0.39764, 0.99369]
    """
    from scipy import stats

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    a_post, b_post = beta_posterior(k, n, a, b)
    tail = (1.0 - level) / 2.0
    return _as_float(stats.beta.ppf(tail, a_post, b_post)), _as_float(stats.beta.ppf(1.0 - tail, a_post, b_post))


def m_estimate(n_c, n, p, m):
    """The m-estimate ``(n_c + m p) / (n + m)``: ``m`` virtual samples at rate ``p``.

    Examples
    --------
    >>> float(m_estimate(0, 5, 0.5, 2))
    0.14285714285714285
    """
    return _divide(_as_float(n_c) + _as_float(m) * p, _as_float(n) + m)


def _counts_and_total(counts):
    counts = _as_float(counts)
    return counts, counts.sum(axis=-1, keepdims=True), counts.shape[-1]


def categorical_mle(counts):
    """MLE of a categorical distribution, ``N_k / N`` (last axis = categories).

    Examples
    --------
    >>> categorical_mle([3, 1, 0])
    array([0.75, 0.25, 0.  ])
    """
    counts, total, _ = _counts_and_total(counts)
    return _divide(counts, total)


def dirichlet_posterior_mean(counts, alpha):
    """Posterior mean under a symmetric Dirichlet(alpha): ``(N_k + alpha) / (N + K alpha)``.

    With ``alpha = 1`` (uniform prior) this is Laplace's add-one smoothing.

    Examples
    --------
    >>> dirichlet_posterior_mean([3, 1, 0], 1.0)
    array([0.57142857, 0.28571429, 0.14285714])
    """
    counts, total, n_categories = _counts_and_total(counts)
    return _divide(counts + alpha, total + n_categories * alpha)


def dirichlet_map(counts, alpha):
    """MAP estimate under a symmetric Dirichlet(alpha): ``(N_k + alpha - 1) / (N + K (alpha - 1))``.

    With ``alpha = 2`` this equals Laplace smoothing; with ``alpha = 1`` the MLE.

    Examples
    --------
    >>> dirichlet_map([3, 1, 0], 2.0)
    array([0.57142857, 0.28571429, 0.14285714])
    """
    counts, total, n_categories = _counts_and_total(counts)
    return _divide(counts + alpha - 1, total + n_categories * (alpha - 1))


def class_log_prior(y, classes, sample_weight=None):
    """Log of the (weighted) class frequencies, in the order of ``classes``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    log_prior : ndarray of shape (n_classes,)
        ``log(N_c / N)``; ``-inf`` for a class absent from ``y``.

    Examples
    --------
    >>> np.exp(class_log_prior(["a", "b", "b", "b"], ["a", "b"]))
    array([0.25, 0.75])
    """
    y = np.asarray(y)
    classes = np.asarray(classes)
    weights = np.ones(len(y)) if sample_weight is None else _as_float(sample_weight)
    counts = np.array([weights[y == c].sum() for c in classes], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(counts) - np.log(counts.sum())


def log_normalize(jll):
    """Normalise joint log-likelihoods per row: ``jll - logsumexp(jll, axis=1)``.

    Rows whose entries are all ``-inf`` (every class impossible) give nan.

    Parameters
    ----------
    jll : array-like of shape (n_samples, n_classes)

    Returns
    -------
    log_posterior : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> np.exp(log_normalize([[-1000.0, -1000.0 + np.log(3.0)]]))
    array([[0.25, 0.75]])
    """
    jll = _as_float(jll)
    with np.errstate(invalid="ignore"):
        return jll - _logsumexp_rows(jll)


def row_max(a):
    """Maximum of each row of a 2-D array, shape (n_rows, 1); NaN propagates.

    One elementwise maximum per column: with few columns (classes) this is
    several times faster than ``a.max(axis=1)``, which reduces tiny rows.
    """
    result = a[:, 0].copy()
    for column in range(1, a.shape[1]):
        np.maximum(result, a[:, column], out=result)
    return result[:, np.newaxis]


def row_sum(a):
    """Sum of each row of a 2-D array, shape (n_rows, 1), as a matrix-vector product."""
    return (a @ np.ones(a.shape[1]))[:, np.newaxis]


def _logsumexp_rows(jll):
    """Row-wise logsumexp of a 2-D array, kept 2-D; shifted by the row maximum."""
    largest = row_max(jll)
    # A row of -inf has no finite maximum: shift by 0 instead (result -inf).
    shift = np.where(np.isfinite(largest), largest, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.log(row_sum(np.exp(jll - shift))) + shift
