"""Multinomial naive Bayes: word counts drawn from one distribution per class."""

import numpy as np

from nbcore.models._base import (
    _BaseDiscreteNB,
    class_sums,
    fill_nan,
    functional_inputs,
    log_dot,
    safe_log,
)
from nbcore._validation import as_2d_float, check_alpha, check_non_negative

__all__ = ["multinomial_feature_log_prob", "multinomial_jll", "MultinomialNB"]


def _smoothed_log_prob(feature_count, alpha):
    """log (N_cj + alpha) / (N_c + alpha n_features), N_c = all words of class c."""
    smoothed = feature_count + alpha
    return safe_log(smoothed) - safe_log(smoothed.sum(axis=1, keepdims=True))


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    """Smoothed log-probabilities of each word in each class.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative counts; NaN entries are left out of the counts.
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; ``alpha=0`` is the maximum likelihood estimate
        (``-inf`` for a word never seen in a class).
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    feature_log_prob : ndarray of shape (n_classes, n_features)
        ``log (N_cj + alpha) / (N_c + alpha n_features)`` where ``N_c`` is the
        total count of all words in class c (not the number of documents).

    Examples
    --------
    >>> X = [[2, 1, 0], [0, 1, 3]]
    >>> np.exp(multinomial_feature_log_prob(X, [0, 1], [0, 1], alpha=1.0))
    array([[0.5       , 0.33333333, 0.16666667],
           [0.14285714, 0.28571429, 0.57142857]])
    """
    X, class_index, weights, n_classes = functional_inputs(X, y, classes, sample_weight)
    check_non_negative(X, "multinomial_feature_log_prob")
    counts = class_sums(fill_nan(X), class_index, weights, n_classes)
    return _smoothed_log_prob(counts, check_alpha(alpha, X.shape[1]))


def multinomial_jll(X, class_log_prior, feature_log_prob):
    """Joint log-likelihood ``log P(c) + sum_j x_j log P(word j | c)``.

    The multinomial coefficient is left out: it is the same for every class.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Counts; NaN entries are skipped.
    class_log_prior : array-like of shape (n_classes,)
    feature_log_prob : array-like of shape (n_classes, n_features)

    Returns
    -------
    jll : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> log_prob = np.log([[0.5, 0.5], [0.9, 0.1]])
    >>> np.exp(multinomial_jll([[2, 0]], np.log([0.5, 0.5]), log_prob))
    array([[0.125, 0.405]])
    """
    X = fill_nan(as_2d_float(X))
    feature_log_prob = np.asarray(feature_log_prob, dtype=np.float64)
    return log_dot(X, feature_log_prob) + np.asarray(class_log_prior, dtype=np.float64)


class MultinomialNB(_BaseDiscreteNB):
    """Naive Bayes for counts (bag of words), dense or sparse.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing; 0 gives the maximum likelihood
        estimate.
    force_alpha : bool, default=True
        True uses alpha as given: ``alpha=0`` is the MLE, a word unseen in a
        class gets ``log 0 = -inf`` silently, and a document containing it
        gets probability 0 for that class. False, as in scikit-learn, raises
        any alpha below 1e-10 to 1e-10 with a UserWarning.
    fit_prior : bool, default=True
        Learn the class priors; if False use a uniform prior.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class priors (must sum to 1).
    missing : {"error", "skip"}, default="error"
        "skip" leaves NaN entries out of the counts and of the product.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when X has string column names.

    Notes
    -----
    With ``alpha=0``, scikit-learn computes ``0 * -inf = nan`` for a word a
    document lacks; here such words contribute 0, as in the formula.

    Examples
    --------
    >>> X = np.array([[2, 1, 0], [0, 1, 3], [3, 0, 0]])
    >>> model = MultinomialNB().fit(X, ["ham", "spam", "ham"])
    >>> model.predict([[0, 0, 2]])
    array(['spam'], dtype='<U4')
    """

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
        missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.missing = missing

    def _check_values(self, X, reset):
        check_non_negative(X, "MultinomialNB")
        return fill_nan(X)

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.feature_count_ = np.zeros((n_classes, n_features))

    def _count(self, X, class_index, weights):
        self.feature_count_ += class_sums(X, class_index, weights, len(self.classes_))

    def _update_feature_log_prob(self, alpha):
        self.feature_log_prob_ = _smoothed_log_prob(self.feature_count_, alpha)

    def _joint_log_likelihood(self, X):
        return log_dot(X, self.feature_log_prob_) + self.class_log_prior_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags
