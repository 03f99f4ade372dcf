"""The abstract base of the four estimators, and array helpers they share.

``_BaseNB`` writes ``fit``, ``partial_fit`` and every ``predict*`` method once.
A model only says how it counts (``_init_counters``, ``_count``), how it turns
counts into parameters (``_update_parameters``), and how it scores
(``_joint_log_likelihood``).
"""

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from nbcore._validation import (
    check_alpha,
    check_finite,
    check_missing_option,
    check_prior,
    check_sample_weight,
    encode_labels,
    unique_labels,
)
from nbcore.estimation import log_normalize, row_max, row_sum


# ---------------------------------------------------------------- array helpers
def nan_mask(X):
    """Indicator (same kind as ``X``) of its NaN entries, or None if there are none."""
    if sp.issparse(X):
        is_nan = np.isnan(X.data)
        if not is_nan.any():
            return None
        mask = X.copy()
        mask.data = is_nan.astype(np.float64)
        mask.eliminate_zeros()
        return mask
    is_nan = np.isnan(X)
    return is_nan.astype(np.float64) if is_nan.any() else None


def fill_nan(X, value=0.0):
    """``X`` with NaN entries replaced by ``value`` (a copy only when needed)."""
    values = X.data if sp.issparse(X) else X
    is_nan = np.isnan(values)
    if not is_nan.any():
        return X
    X = X.copy()
    if sp.issparse(X):
        X.data[is_nan] = value
        X.eliminate_zeros()
    else:
        X[is_nan] = value
    return X


def dot(X, W):
    """``X @ W.T`` as a dense ndarray, for dense or sparse ``X``."""
    return np.asarray(X @ W.T)


def log_dot(X, log_prob):
    """``X @ log_prob.T`` with the convention ``0 * log(0) = 0``.

    With maximum likelihood estimates (alpha=0) some log-probabilities are
    ``-inf``; a plain product would give ``0 * -inf = nan`` for the features a
    sample does not have. Here such features contribute 0 and a feature the
    sample does have contributes ``-inf``.
    """
    finite = np.isfinite(log_prob)
    if finite.all():
        return dot(X, log_prob)
    out = dot(X, np.where(finite, log_prob, 0.0))
    hits_impossible = dot(X, (~finite).astype(np.float64)) > 0
    out[hits_impossible] = -np.inf
    return out


def class_sums(X, class_index, weights, n_classes):
    """Weighted per-class column sums ``Y.T @ X``, (n_classes, n_features).

    ``Y`` is the weighted one-hot matrix of the labels; for a sparse ``X`` it
    stays sparse-friendly (``X.T @ Y``).
    """
    n_samples = len(class_index)
    # One stored entry per row: build the CSR arrays directly (no COO sort).
    # Sparse products run in SciPy's single-threaded loops: a tall-skinny
    # BLAS product (n_classes x n_samples x n_features) gains nothing from
    # threads and its spinning threads collapse on a busy machine.
    Y = sp.csr_matrix(
        (np.asarray(weights, dtype=np.float64), np.asarray(class_index, dtype=np.intp),
         np.arange(n_samples + 1)),
        shape=(n_samples, n_classes),
    )
    if sp.issparse(X):
        return np.ascontiguousarray(np.asarray(X.T @ Y.toarray()).T)
    return np.asarray(Y.T @ X)


def _check_targets(y):
    """scikit-learn's check that y holds class labels, not continuous values.

    Skipped for a 1-D integer y, which always does: scikit-learn's check
    finds the unique values by hashing, about as long as fitting GaussianNB.
    """
    if not (isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iub"):
        check_classification_targets(y)


def safe_log(values):
    """``np.log`` where ``log(0) = -inf`` is a legitimate result (no warning)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(values)


# ------------------------------------------------------------------- estimators
class _BaseNB(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Abstract naive Bayes classifier: fit, partial_fit and predict written once."""

    _accept_sparse = False
    # X keeps one of these dtypes; any other is converted to the first.
    _input_dtypes = (np.float64,)

    # --- the parts a model supplies
    @abstractmethod
    def _init_counters(self, n_classes, n_features):
        """Create zero sufficient statistics."""

    @abstractmethod
    def _count(self, X, class_index, weights):
        """Add the sufficient statistics of one batch."""

    @abstractmethod
    def _update_parameters(self):
        """Turn the sufficient statistics into the fitted parameters."""

    @abstractmethod
    def _joint_log_likelihood(self, X):
        """``log P(c) + log P(x|c)`` of validated X, (n_samples, n_classes)."""

    def _check_values(self, X, reset):
        """Model-specific checks of validated X (e.g. non-negative counts)."""
        return X

    def _output_dtype(self, X):
        """dtype of the predictions for validated X; they are computed in float64."""
        return np.float64

    # --- validation
    def _validate_X(self, X, y=None, reset=False, training=False):
        check_missing_option(self.missing)
        kwargs = dict(
            accept_sparse="csr" if self._accept_sparse else False,
            dtype=list(self._input_dtypes),
            ensure_all_finite=False,  # checked below, naming the `missing` option
            reset=reset,
        )
        if training and y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None; pass the class labels."
            )
        if not training:
            X = validate_data(self, X, **kwargs)
        else:
            X, y = validate_data(self, X, y, **kwargs)
        check_finite(X, self.missing, type(self).__name__)
        X = self._check_values(X, reset)
        return (X, y) if training else X

    # --- fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model to training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (sparse only for MultinomialNB and BernoulliNB).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample (1 when None).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = self._validate_X(X, y, reset=True, training=True)
        _check_targets(y)
        self.classes_ = unique_labels(y)
        self._init_counters(len(self.classes_), X.shape[1])
        return self._learn(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch of samples (online learning).

        The sufficient statistics are summed exactly, so fitting batch after
        batch gives the model fitted on all the data at once.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that can appear; required at the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object

        Notes
        -----
        Unlike scikit-learn's discrete models, a label of ``y`` that is not in
        ``classes`` raises a ValueError instead of being silently ignored.
        """
        first_call = not hasattr(self, "classes_")
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit. "
                    "Pass every label that can appear, e.g. np.unique(y_all)."
                )
            classes = np.unique(classes)
        elif classes is not None and not np.array_equal(
            np.unique(classes), self.classes_
        ):
            raise ValueError(
                f"`classes={np.asarray(classes).tolist()}` is not the same as on "
                f"last call to partial_fit, was: {self.classes_.tolist()}; pass the "
                "classes of the first call, or None."
            )
        X, y = self._validate_X(X, y, reset=first_call, training=True)
        _check_targets(y)
        if first_call:
            self.classes_ = classes
            self._init_counters(len(classes), X.shape[1])
        return self._learn(X, y, sample_weight)

    def _learn(self, X, y, sample_weight):
        class_index = encode_labels(y, self.classes_, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        self.class_count_ += np.bincount(
            class_index, weights=weights, minlength=len(self.classes_)
        )
        self._count(X, class_index, weights)
        self._update_parameters()
        return self

    def _log_prior_from(self, prior, name):
        """Log of a user prior, or of the empirical class frequencies."""
        if prior is not None:
            return safe_log(check_prior(prior, len(self.classes_), name))
        return safe_log(self.class_count_) - np.log(self.class_count_.sum())

    # --- prediction
    def predict_joint_log_proba(self, X):
        """Joint log-probabilities ``log P(c) + log P(x|c)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        jll : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        jll, dtype = self._float64_jll(X)
        return jll.astype(dtype, copy=False)

    def _float64_jll(self, X):
        """The joint log-likelihood in float64, and the dtype to return."""
        check_is_fitted(self)
        X = self._validate_X(X)
        return self._joint_log_likelihood(X), self._output_dtype(X)

    def predict_log_proba(self, X):
        """Log posterior probabilities ``log P(c|x)``, normalised with logsumexp.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        jll, dtype = self._float64_jll(X)
        return log_normalize(jll).astype(dtype, copy=False)

    def predict_proba(self, X):
        """Posterior probabilities ``P(c|x)``; each row sums to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        jll, dtype = self._float64_jll(X)
        # One exp instead of exp(log_normalize(jll)): shift by the row maximum.
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.exp(np.subtract(jll, row_max(jll), out=jll), out=jll)
            proba /= row_sum(proba)
        return proba.astype(dtype, copy=False)

    def predict(self, X):
        """The class of maximum posterior probability (the MAP class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        jll, _ = self._float64_jll(X)  # checks first that we are fitted
        return self.classes_[np.argmax(jll, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        tags.input_tags.allow_nan = getattr(self, "missing", "error") == "skip"
        return tags


class _BaseDiscreteNB(_BaseNB):
    """Shared by the count-based models: alpha, fit_prior, class_prior."""

    _accept_sparse = True

    def _update_parameters(self):
        alpha = check_alpha(self.alpha, self.n_features_in_, self.force_alpha)
        self._update_feature_log_prob(alpha)
        if self.class_prior is None and not self.fit_prior:
            n_classes = len(self.classes_)
            self.class_log_prior_ = np.full(n_classes, -np.log(n_classes))
        else:
            self.class_log_prior_ = self._log_prior_from(self.class_prior, "class_prior")

    @abstractmethod
    def _update_feature_log_prob(self, alpha):
        """Compute ``feature_log_prob_`` from the counts."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


def functional_inputs(X, y, classes, sample_weight, accept_sparse=True):
    """Validate the arguments of a functional estimator (``*_feature_log_prob``).

    Returns
    -------
    X : ndarray or CSR matrix of float64
    class_index : ndarray of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
    n_classes : int
    """
    from nbcore._validation import as_2d_float

    X = as_2d_float(X, accept_sparse=accept_sparse)
    values = X.data if sp.issparse(X) else X
    if np.isinf(values).any():
        raise ValueError("X contains infinity; give finite values (NaN = missing).")
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(classes) == 0:
        raise ValueError(f"classes must be a non-empty 1-D array, got {classes!r}.")
    class_index = encode_labels(y, classes, X.shape[0])
    weights = check_sample_weight(sample_weight, X.shape[0])
    return X, class_index, weights, len(classes)
