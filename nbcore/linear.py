"""Naive Bayes as a linear classifier.

For the multinomial and Bernoulli event models, and for Gaussian features
whose variance is shared by the classes, the joint log-likelihood of class c
is linear in x up to a term that is the same for every class::

    log P(c) + log P(x | c) = x . W[c] + b[c] + const(x)

so the classifier is ``argmax_c (X @ W.T + b)[c]`` and the posterior is
``softmax(X @ W.T + b)``. With two classes the log-odds is the difference of
the two log-posteriors,
``log P(c1 | x) - log P(c0 | x) = x . (W[1] - W[0]) + (b[1] - b[0])``, so
``P(c1 | x) = sigmoid(w . x + b0)``: the form of logistic regression.

Gaussian naive Bayes is linear only when every class has the same variance
per feature; with per-class variances the ``x**2 / var`` terms do not cancel
and the decision boundary is quadratic. Fit a shared variance with
:class:`SharedVarianceGaussianNB` (or compute one with
:func:`pooled_variance`).
"""

import numpy as np
from sklearn import naive_bayes

from nbcore.models.bernoulli import BernoulliNB
from nbcore.models.gaussian import GaussianNB, gaussian_mean_var
from nbcore.models.multinomial import MultinomialNB

__all__ = [
    "multinomial_linear_form",
    "bernoulli_linear_form",
    "gaussian_linear_form",
    "binary_linear_form",
    "linear_form",
    "pooled_variance",
    "SharedVarianceGaussianNB",
    "sigmoid",
    "softmax",
]


def _as_log_prior(class_log_prior):
    log_prior = np.asarray(class_log_prior, dtype=np.float64)
    if log_prior.ndim != 1:
        raise ValueError(
            f"class_log_prior must be 1-D of shape (n_classes,), got shape {log_prior.shape}."
        )
    return log_prior


def _as_log_prob(feature_log_prob, n_classes):
    log_prob = np.asarray(feature_log_prob, dtype=np.float64)
    if log_prob.ndim != 2 or log_prob.shape[0] != n_classes:
        raise ValueError(
            f"feature_log_prob must have shape (n_classes, n_features) with "
            f"n_classes={n_classes} (one row per class_log_prior entry), got "
            f"shape {log_prob.shape}."
        )
    return log_prob


def _check_finite_weights(W, model):
    if not np.all(np.isfinite(W)):
        raise ValueError(
            f"The {model} model has a probability of exactly 0 or 1 (alpha=0 and "
            "a count of zero), so some weights are infinite and X @ W.T is not "
            "defined; fit with alpha > 0 to get a linear classifier."
        )


def multinomial_linear_form(class_log_prior, feature_log_prob):
    """Weights and biases of multinomial naive Bayes.

    ``log P(c) + sum_j x_j log theta_cj = x . W[c] + b[c]`` with
    ``W = log theta`` and ``b = log pi`` (the multinomial coefficient is the
    per-row constant).

    Parameters
    ----------
    class_log_prior : array-like of shape (n_classes,)
        ``log pi``.
    feature_log_prob : array-like of shape (n_classes, n_features)
        ``log theta``; must be finite (alpha > 0).

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    b : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> W, b = multinomial_linear_form(np.log([0.5, 0.5]), np.log([[0.75, 0.25], [0.25, 0.75]]))
    >>> w, b0 = binary_linear_form(W, b)
    >>> w.round(4), float(b0)   # log(0.25/0.75), log(0.75/0.25); equal priors
    (array([-1.0986,  1.0986]), 0.0)
    """
    b = _as_log_prior(class_log_prior)
    W = _as_log_prob(feature_log_prob, len(b))
    _check_finite_weights(W, "multinomial")
    return W.copy(), b.copy()


def bernoulli_linear_form(class_log_prior, feature_log_prob):
    """Weights and biases of Bernoulli naive Bayes.

    ``sum_j [x_j log p_cj + (1 - x_j) log(1 - p_cj)]
    = x . (log p_c - log(1 - p_c)) + sum_j log(1 - p_cj)``: the absence terms
    move into the weights (``- log(1 - p)``) and the bias (``+ sum log(1 - p)``).

    Parameters
    ----------
    class_log_prior : array-like of shape (n_classes,)
    feature_log_prob : array-like of shape (n_classes, n_features)
        ``log p``, the log-probability that each feature is present; the
        probabilities must lie strictly between 0 and 1 (alpha > 0).

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
        ``log p - log(1 - p)``.
    b : ndarray of shape (n_classes,)
        ``log pi + sum_j log(1 - p_cj)``.

    Examples
    --------
    >>> import numpy as np
    >>> W, b = bernoulli_linear_form(np.log([0.5, 0.5]), np.log([[0.5, 0.2]]*2))
    >>> W.round(4)   # log(0.5/0.5) = 0, log(0.2/0.8)
    array([[ 0.    , -1.3863],
           [ 0.    , -1.3863]])
    """
    b = _as_log_prior(class_log_prior)
    log_p = _as_log_prob(feature_log_prob, len(b))
    with np.errstate(divide="ignore"):
        log_not_p = np.log1p(-np.exp(log_p))  # log(1 - p), accurate for small p
    W = log_p - log_not_p
    _check_finite_weights(W, "Bernoulli")
    return W, b + log_not_p.sum(axis=1)


def gaussian_linear_form(class_log_prior, theta, var):
    """Weights and biases of Gaussian naive Bayes with a shared variance.

    With one variance per feature shared by the classes,
    ``-0.5 sum_j (x_j - theta_cj)**2 / var_j
    = x . (theta_c / var) - 0.5 sum_j theta_cj**2 / var_j - 0.5 sum_j x_j**2 / var_j``;
    the last term, and ``-0.5 sum_j log(2 pi var_j)``, are the same for every
    class (the per-row constant), so ``W = theta / var`` and
    ``b = log pi - 0.5 sum_j theta_cj**2 / var_j``.

    Parameters
    ----------
    class_log_prior : array-like of shape (n_classes,)
    theta : array-like of shape (n_classes, n_features)
        Class means.
    var : array-like of shape (n_features,) or (n_classes, n_features)
        The shared variances; a 2-D ``var`` must have identical rows.

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    b : ndarray of shape (n_classes,)

    Raises
    ------
    ValueError
        If the rows of a 2-D ``var`` differ: the boundary is then quadratic.

    Examples
    --------
    >>> import numpy as np
    >>> W, b = gaussian_linear_form(np.log([0.5, 0.5]), [[-1.0], [1.0]], [1.0])
    >>> w, b0 = binary_linear_form(W, b)
    >>> w, float(b0)   # P(c1 | x) = sigmoid(2 x)
    (array([2.]), 0.0)
    """
    b = _as_log_prior(class_log_prior)
    theta = _as_log_prob(theta, len(b))
    var = _shared_variance(var, theta.shape)
    W = theta / var
    return W, b - 0.5 * np.sum(theta**2 / var, axis=1)


def _shared_variance(var, shape):
    """The (n_features,) variance shared by the classes, or a ValueError."""
    var = np.asarray(var, dtype=np.float64)
    if var.ndim == 2:
        if var.shape != shape:
            raise ValueError(f"var has shape {var.shape}; theta has shape {shape}.")
        if not np.allclose(var, var[0], rtol=1e-9, atol=0.0):
            raise ValueError(
                "The classes have different variances, so the boundary is quadratic "
                "(the x**2 / var terms do not cancel) and there is no linear form; "
                "fit with a shared variance: nbcore.linear.SharedVarianceGaussianNB, "
                "or pooled_variance(X, y, classes)."
            )
        var = var[0]
    if var.shape != shape[1:]:
        raise ValueError(
            f"var must have shape (n_features,) = ({shape[1]},), got {var.shape}."
        )
    if not np.all(var > 0):
        raise ValueError("var must be > 0 for every feature.")
    return var


def binary_linear_form(W, b):
    """Collapse a two-class linear form into the log-odds ``w . x + b0``.

    ``log P(c1 | x) - log P(c0 | x) = x . (W[1] - W[0]) + (b[1] - b[0])``,
    so ``P(c1 | x) = sigmoid(x . w + b0)`` with ``c1 = classes_[1]``.

    Parameters
    ----------
    W : array-like of shape (2, n_features)
    b : array-like of shape (2,)

    Returns
    -------
    w : ndarray of shape (n_features,)
    b0 : float

    Examples
    --------
    >>> binary_linear_form([[1.0, 2.0], [4.0, 0.0]], [0.5, -0.5])
    (array([ 3., -2.]), -1.0)
    """
    W = np.asarray(W, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] != 2 or b.shape != (2,):
        raise ValueError(
            f"binary_linear_form needs two classes: W of shape (2, n_features) and "
            f"b of shape (2,), got {W.shape} and {b.shape}; with more classes use "
            "softmax(X @ W.T + b)."
        )
    return W[1] - W[0], float(b[1] - b[0])


def linear_form(estimator):
    """The weights and biases of a fitted naive Bayes classifier.

    ``X @ W.T + b`` equals ``estimator.predict_joint_log_proba(X)`` up to a
    constant per row, so ``softmax(X @ W.T + b)`` is ``predict_proba(X)``.

    Parameters
    ----------
    estimator : fitted MultinomialNB, BernoulliNB or GaussianNB
        nbcore's or scikit-learn's. A GaussianNB must have the same variances
        in every class (:class:`SharedVarianceGaussianNB`). For BernoulliNB
        the form applies to the binarized X (``X > binarize``).

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    b : ndarray of shape (n_classes,)

    Raises
    ------
    ValueError
        For a GaussianNB with per-class variances (the boundary is
        quadratic), an infinite weight (alpha=0), or another model.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 3]])
    >>> model = MultinomialNB().fit(X, [0, 0, 1])
    >>> W, b = linear_form(model)
    >>> bool(np.allclose(softmax(X @ W.T + b), model.predict_proba(X)))
    True
    """
    kind = _event_model(estimator)
    if not hasattr(estimator, "classes_"):
        raise ValueError(f"{type(estimator).__name__} is not fitted; call fit first.")
    if kind == "gaussian":
        log_prior = _gaussian_log_prior(estimator)
        return gaussian_linear_form(log_prior, estimator.theta_, estimator.var_)
    form = multinomial_linear_form if kind == "multinomial" else bernoulli_linear_form
    return form(estimator.class_log_prior_, estimator.feature_log_prob_)


def _event_model(estimator):
    """'multinomial', 'bernoulli' or 'gaussian' for nbcore's or sklearn's models."""
    kinds = {
        "multinomial": (MultinomialNB, naive_bayes.MultinomialNB),
        "bernoulli": (BernoulliNB, naive_bayes.BernoulliNB),
        "gaussian": (GaussianNB, naive_bayes.GaussianNB),
    }
    for kind, classes in kinds.items():
        if isinstance(estimator, classes):
            return kind
    raise ValueError(
        f"linear_form needs a MultinomialNB, BernoulliNB or GaussianNB, got "
        f"{type(estimator).__name__}; a CategoricalNB is linear only in the "
        "one-hot encoding of its features."
    )


def _gaussian_log_prior(estimator):
    if hasattr(estimator, "class_log_prior_"):
        return estimator.class_log_prior_
    with np.errstate(divide="ignore"):
        return np.log(estimator.class_prior_)


def pooled_variance(X, y, classes, ddof=0, sample_weight=None):
    """Within-class variance of each feature, pooled over the classes.

    ``sum_c sum_{i in c} (x_ij - theta_cj)**2 / (N - ddof * n_classes)``:
    every sample is measured from its own class mean, and the squared
    deviations of all classes are averaged. This is the maximum likelihood
    variance of a Gaussian naive Bayes whose classes share one variance per
    feature (``ddof=0``), or its unbiased version (``ddof=1``). NaN entries
    are left out (``N`` then counts the observed values of each feature).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    ddof : int, default=0
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    var : ndarray of shape (n_features,)

    Examples
    --------
    >>> pooled_variance([[0.0], [2.0], [10.0], [14.0]], [0, 0, 1, 1], [0, 1])
    array([2.5])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = np.asarray(classes)
    theta, _ = gaussian_mean_var(X, y, classes, ddof=0, sample_weight=sample_weight)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    squared_deviations = np.zeros(X.shape[1])
    n_observed = np.zeros(X.shape[1])
    for c, mean in zip(classes, theta):
        in_class = y == c
        deviations = X[in_class] - mean
        observed = ~np.isnan(deviations)
        squared_deviations += weights[in_class] @ np.where(observed, deviations, 0.0) ** 2
        n_observed += weights[in_class] @ observed
    denominator = n_observed - ddof * len(classes)
    if np.any(denominator <= 0):
        raise ValueError(
            f"Too few observed values for ddof={ddof} with {len(classes)} classes "
            "(N - ddof * n_classes <= 0 for some feature); use ddof=0 or more samples."
        )
    return squared_deviations / denominator


class SharedVarianceGaussianNB(GaussianNB):
    """Gaussian naive Bayes whose classes share one variance per feature.

    The same as :class:`nbcore.models.gaussian.GaussianNB` (same parameters,
    ``partial_fit``, ``missing="skip"``), except that ``var_`` is the pooled
    within-class maximum likelihood variance (:func:`pooled_variance`) plus
    ``epsilon_``, identical in every row. The ``x**2 / var`` terms of the
    classes then cancel, and the model is the linear classifier returned by
    :func:`linear_form`; ``predict_proba`` is ``sigmoid(X @ w + b0)`` for two
    classes. (This is linear discriminant analysis with a diagonal covariance.)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [0.0], [1.0], [2.0], [4.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = SharedVarianceGaussianNB().fit(X, y)
    >>> model.var_.round(4)   # each class: deviations -1, 0, 1 and -4/3, -1/3, 5/3
    array([[1.1111],
           [1.1111]])
    >>> w, b0 = binary_linear_form(*linear_form(model))
    >>> bool(np.allclose(sigmoid(X @ w + b0), model.predict_proba(X)[:, 1]))
    True
    """

    def _variance(self, n, m2):
        # per-class observed weight n and squared deviations m2, as kept by
        # GaussianNB for exact partial_fit: pool them over the classes
        n_all = n.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled = np.where(n_all > 0, m2.sum(axis=0) / n_all, 0.0)
        return np.tile(pooled, (n.shape[0], 1))


def sigmoid(z):
    """The logistic function ``1 / (1 + exp(-z))``, without overflow.

    Parameters
    ----------
    z : array-like

    Returns
    -------
    ndarray of the shape of ``z``

    Examples
    --------
    >>> sigmoid([-1000.0, 0.0, 1000.0])
    array([0. , 0.5, 1. ])
    """
    z = np.asarray(z, dtype=np.float64)
    # exp(-|z|) never overflows; use 1/(1+e) or e/(1+e) by the sign of z
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def softmax(Z):
    """Softmax over the last axis, ``exp(Z) / sum(exp(Z))``, without overflow.

    Parameters
    ----------
    Z : array-like of shape (n_classes,) or (n_samples, n_classes)

    Returns
    -------
    ndarray of the shape of ``Z``; the last axis sums to one.

    Examples
    --------
    >>> softmax([[1000.0, 1000.0 + np.log(3.0)]])
    array([[0.25, 0.75]])
    """
    Z = np.asarray(Z, dtype=np.float64)
    # shifting by the maximum leaves the result unchanged and keeps exp <= 1
    shifted = np.exp(Z - Z.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)
