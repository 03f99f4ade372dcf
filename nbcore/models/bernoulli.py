"""Bernoulli naive Bayes: binary features, with presence AND absence terms."""

import numpy as np
import scipy.sparse as sp

from nbcore.models._base import (
    _BaseDiscreteNB,
    class_sums,
    dot,
    fill_nan,
    functional_inputs,
    log_dot,
    nan_mask,
    safe_log,
)
from nbcore._validation import as_2d_float, check_alpha

__all__ = ["bernoulli_feature_log_prob", "bernoulli_jll", "BernoulliNB"]


def _observed_counts(X, class_index, weights, n_classes, class_count):
    """Per (class, feature) weight of the samples where the feature is observed."""
    missing = nan_mask(X)
    if missing is None:
        return class_count[:, np.newaxis]
    return class_count[:, np.newaxis] - class_sums(missing, class_index, weights, n_classes)


def _smoothed_log_prob(feature_count, observed_count, alpha):
    """log p_cj, p_cj = (n_docs_cj + alpha) / (n_docs_c + 2 alpha)."""
    return safe_log(feature_count + alpha) - safe_log(observed_count + 2 * alpha)


def bernoulli_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    """Smoothed log-probability that each feature is present in each class.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Binary (0/1) features; NaN entries are left out of the counts.
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    alpha : float or array-like of shape (n_features,), default=1.0
        ``alpha=1`` is Laplace smoothing (+1 / +2); ``alpha=0`` the MLE.
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    feature_log_prob : ndarray of shape (n_classes, n_features)
        ``log p_cj`` with ``p_cj = (n_docs_cj + alpha) / (n_docs_c + 2 alpha)``:
        the denominators count documents, not words.

    Examples
    --------
    >>> X = [[1, 0], [1, 1], [0, 0]]
    >>> np.exp(bernoulli_feature_log_prob(X, [0, 0, 1], [0, 1]))
    array([[0.75      , 0.5       ],
           [0.33333333, 0.33333333]])
    """
    X, class_index, weights, n_classes = functional_inputs(X, y, classes, sample_weight)
    class_count = np.bincount(class_index, weights=weights, minlength=n_classes)
    observed = _observed_counts(X, class_index, weights, n_classes, class_count)
    counts = class_sums(fill_nan(X), class_index, weights, n_classes)
    return _smoothed_log_prob(counts, observed, check_alpha(alpha, X.shape[1]))


def bernoulli_jll(X, class_log_prior, feature_log_prob):
    """Joint log-likelihood ``log P(c) + sum_j [x_j log p_cj + (1 - x_j) log(1 - p_cj)]``.

    Computed as ``X @ (log p - log(1-p)).T + sum_j log(1-p)``, which keeps a
    sparse X sparse. NaN entries are skipped (no presence, no absence term).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Binary (0/1) features.
    class_log_prior : array-like of shape (n_classes,)
    feature_log_prob : array-like of shape (n_classes, n_features)
        ``log p_cj``.

    Returns
    -------
    jll : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> log_p = np.log([[0.5, 0.5], [0.9, 0.1]])
    >>> np.exp(bernoulli_jll([[1, 0]], np.log([0.5, 0.5]), log_p))
    array([[0.125, 0.405]])
    """
    X = as_2d_float(X)
    log_p = np.asarray(feature_log_prob, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_not_p = np.log1p(-np.exp(log_p))
    prior = np.asarray(class_log_prior, dtype=np.float64)
    missing = nan_mask(X)
    present = fill_nan(X)
    if np.isfinite(log_p).all() and np.isfinite(log_not_p).all():
        jll = dot(present, log_p - log_not_p) + log_not_p.sum(axis=1)
        if missing is not None:
            jll -= dot(missing, log_not_p)
        return jll + prior
    # Some p is exactly 0 or 1 (alpha=0): keep 0 * log(0) = 0 by counting
    # presences and absences separately.
    present = present.toarray() if sp.issparse(present) else present
    absent = 1.0 - present
    if missing is not None:
        absent -= missing.toarray() if sp.issparse(missing) else missing
    return log_dot(present, log_p) + log_dot(absent, log_not_p) + prior


class BernoulliNB(_BaseDiscreteNB):
    """Naive Bayes for binary features (presence/absence), dense or sparse.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing: ``(n_docs_cj + alpha) / (n_docs_c + 2 alpha)``.
    force_alpha : bool, default=True
        True uses alpha as given: ``alpha=0`` is the MLE (``log 0 = -inf``
        silently). False, as in scikit-learn, raises any alpha below 1e-10 to
        1e-10 with a UserWarning.
    binarize : float or None, default=0.0
        Threshold: values > binarize become 1, the others 0. None: X is
        already binary.
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None
    missing : {"error", "skip"}, default="error"
        "skip" leaves NaN entries out of the counts (per-feature document
        counts) and out of the product.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log p_cj``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Notes
    -----
    With ``alpha=0`` and a probability of exactly 0 or 1, scikit-learn's
    ``X @ (log p - log(1-p))`` yields nan; here absent features contribute
    ``log(1 - p)`` and present ones ``log p``, as in the formula.

    Examples
    --------
    >>> X = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1]])
    >>> BernoulliNB().fit(X, [0, 0, 1]).predict([[0, 0, 1]])
    array([1])
    """

    def __init__(
        self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
        class_prior=None, missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.missing = missing

    def _check_values(self, X, reset):
        if self.binarize is None:
            return X
        if sp.issparse(X):
            above = X.data > self.binarize
            if above.all():
                # Every stored value is a presence (counts > 0, no NaN): ones
                # on the same structure, sharing X's index arrays.
                return sp.csr_matrix(
                    (np.ones(X.nnz), X.indices, X.indptr), shape=X.shape, copy=False
                )
            X = X.copy()
            values = X.data
        else:
            values = X
        binary = np.where(np.isnan(values), np.nan, (values > self.binarize) * 1.0)
        if sp.issparse(X):
            X.data = binary
            X.eliminate_zeros()
            return X
        return binary

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.feature_count_ = np.zeros((n_classes, n_features))
        self._missing_count = np.zeros((n_classes, n_features))

    def _count(self, X, class_index, weights):
        n_classes = len(self.classes_)
        self.feature_count_ += class_sums(fill_nan(X), class_index, weights, n_classes)
        missing = nan_mask(X)
        if missing is not None:
            self._missing_count += class_sums(missing, class_index, weights, n_classes)

    def _update_feature_log_prob(self, alpha):
        observed = self.class_count_[:, np.newaxis] - self._missing_count
        self.feature_log_prob_ = _smoothed_log_prob(self.feature_count_, observed, alpha)

    def _joint_log_likelihood(self, X):
        return bernoulli_jll(X, self.class_log_prior_, self.feature_log_prob_)
