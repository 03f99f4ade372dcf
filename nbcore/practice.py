"""Naive Bayes in practice: recalibration and learning from unlabelled data.

Two tools of notebook 7 that work on top of any fitted naive Bayes model:

* :func:`fit_temperature` rescales a binary model's log-odds by ``1 / T``
  (temperature scaling), with ``T`` chosen on held-out data to minimise the
  log loss. Redundant features multiply naive Bayes' log-odds by roughly the
  number of copies; a temperature divides it back.
* :func:`expand_with_posteriors` turns labelled documents plus unlabelled
  documents with class posteriors (the E-step of EM) into one weighted
  training set, so that the M-step is an ordinary fit with ``sample_weight``
  (Nigam et al. 2000, semi-supervised naive Bayes).
"""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize_scalar

__all__ = ["binary_log_loss", "fit_temperature", "expand_with_posteriors"]

#: The temperatures searched by :func:`fit_temperature`: ``T`` in ``[1e-3, 1e3]``.
LOG_T_BOUNDS = (np.log(1e-3), np.log(1e3))


def binary_log_loss(log_odds, y):
    """Mean log loss of ``P(y = 1) = sigmoid(log_odds)``, without overflow.

    ``-log P(true class) = log(1 + exp(-s))`` with ``s = log_odds`` for a
    positive and ``s = -log_odds`` for a negative, computed as
    ``np.logaddexp(0, -s)`` (finite even for ``|log_odds|`` in the thousands).

    Parameters
    ----------
    log_odds : array-like of shape (n_samples,)
    y : array-like of shape (n_samples,)
        0/1 (or False/True) labels.

    Returns
    -------
    float

    Examples
    --------
    >>> round(binary_log_loss([0.0, 0.0], [0, 1]), 6)  # log 2
    0.693147
    >>> binary_log_loss([800.0], [0])
    800.0
    """
    log_odds = np.asarray(log_odds, dtype=np.float64)
    sign = np.where(np.asarray(y).astype(bool), 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -sign * log_odds)))


def fit_temperature(log_odds, y):
    """The temperature ``T > 0`` minimising the log loss of ``sigmoid(log_odds / T)``.

    A 1-D minimisation over ``log T`` in ``[log 1e-3, log 1e3]`` (bounded
    Brent search, ``xatol=1e-10``). The loss is convex in ``1 / T``, so the
    search finds the global minimum in that range; ``T > 1`` means the model
    was over-confident (its log-odds too large), ``T < 1`` under-confident.

    Parameters
    ----------
    log_odds : array-like of shape (n_samples,)
        The model's log-odds ``log P(1 | x) - log P(0 | x)`` on held-out data.
    y : array-like of shape (n_samples,)
        0/1 (or False/True) labels of the same samples.

    Returns
    -------
    float

    Examples
    --------
    Log-odds ten times too large: the temperature divides them back.

    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(scale=2.0, size=20_000)
    >>> y = rng.random(20_000) < 1 / (1 + np.exp(-z))
    >>> round(fit_temperature(10 * z, y), 1)
    10.0
    """
    log_odds = np.asarray(log_odds, dtype=np.float64)
    y = np.asarray(y)
    result = minimize_scalar(
        lambda log_t: binary_log_loss(log_odds / np.exp(log_t), y),
        bounds=LOG_T_BOUNDS,
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(np.exp(result.x))


def expand_with_posteriors(X_lab, y_lab, X_unlab, resp, classes):
    """One weighted training set from labelled rows and unlabelled rows with posteriors.

    Each unlabelled row is repeated once per class, labelled with that class
    and weighted with its posterior ``resp[i, k]``; labelled rows keep weight
    1. A weighted fit on the result is the M-step of EM for naive Bayes:
    every count becomes an expected count.

    Parameters
    ----------
    X_lab : array-like or sparse matrix of shape (n_labelled, n_features)
    y_lab : array-like of shape (n_labelled,)
    X_unlab : array-like or sparse matrix of shape (n_unlabelled, n_features)
    resp : array-like of shape (n_unlabelled, n_classes)
        ``P(class k | x_i)`` for every unlabelled row, columns in the order of ``classes``.
    classes : array-like of shape (n_classes,)

    Returns
    -------
    X : ndarray (or CSR matrix when an input is sparse) of shape (n_labelled + n_classes * n_unlabelled, n_features)
        ``X_lab``, then ``X_unlab`` once for each class in the order of ``classes``.
    y : ndarray of shape (n_labelled + n_classes * n_unlabelled,)
    sample_weight : ndarray of shape (n_labelled + n_classes * n_unlabelled,)

    Examples
    --------
    >>> X, y, w = expand_with_posteriors([[1, 0]], ["a"], [[0, 2], [3, 1]],
    ...                                  [[0.25, 0.75], [1.0, 0.0]], ["a", "b"])
    >>> X.tolist(), y.tolist(), w.tolist()
    ([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0], [0.0, 2.0], [3.0, 1.0]], ['a', 'a', 'a', 'b', 'b'], [1.0, 0.25, 1.0, 0.75, 0.0])
    """
    classes = np.asarray(classes)
    resp = np.asarray(resp, dtype=np.float64)
    y_lab = np.asarray(y_lab)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(X_lab, dtype=np.float64)] + [sp.csr_matrix(X_unlab, dtype=np.float64)] * len(classes),
                      format="csr")
    else:
        X_unlab = np.asarray(X_unlab, dtype=np.float64)
        X = np.vstack([np.asarray(X_lab, dtype=np.float64)] + [X_unlab] * len(classes))
    n_unlab = resp.shape[0]
    y = np.concatenate([y_lab, np.repeat(classes, n_unlab)]).astype(np.result_type(y_lab, classes))
    sample_weight = np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
    return X, y, sample_weight
