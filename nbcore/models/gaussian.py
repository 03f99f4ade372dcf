"""Gaussian naive Bayes: one univariate normal per class and feature."""

import numpy as np

from nbcore.models._base import _BaseNB, class_sums, fill_nan, functional_inputs, nan_mask, safe_log
from nbcore._validation import as_2d_float, check_prior

__all__ = ["gaussian_mean_var", "gaussian_jll", "GaussianNB"]


# The one-pass sums are used when they lose at most 3 of the 16 digits: the
# sum of squares about the shift may exceed m2 by at most this factor.
_MAX_CANCELLATION = 1e3
# Bytes per block of rows: small enough that a block stays in the CPU cache
# between the subtraction, the squaring and the products, large enough that
# the per-block Python overhead is negligible. Adding up block totals is also
# more accurate than one long running sum.
_BLOCK_BYTES = 1 << 22


def _moments(X, class_index, weights, n_classes):
    """Per (class, feature): observed weight ``n``, mean ``theta`` and sum of
    squared deviations ``m2``.

    NaN entries are left out. A (class, feature) without data has theta = m2 = 0.
    """
    class_weight = np.bincount(class_index, weights=weights, minlength=n_classes)
    moments = _shifted_moments(X, class_index, weights, class_weight)
    if moments is None:
        moments = _two_pass_moments(X, class_index, weights, class_weight)
    return moments


def _shifted_moments(X, class_index, weights, class_weight):
    """One pass: per-class sums of ``x - shift`` and of its square, by blocks
    of rows, each block's sums a product with its one-hot label matrix.

    ``m2 = S2 - S1**2 / n`` cancels when a class mean is far from the shift
    (a sample mean of X) compared with the class's spread; then, and when X
    has NaN, returns None and :func:`_two_pass_moments` is used instead.
    """
    n_samples, n_features = X.shape
    n_classes = len(class_weight)
    sample = X[:: max(1, n_samples // 1000)]  # ~1000 rows spread over X
    shift = sample.mean(axis=0) if sample.size else np.zeros(n_features)
    s1 = np.zeros((n_classes, n_features))
    s2 = np.zeros((n_classes, n_features))
    block = max(1, _BLOCK_BYTES // (8 * max(1, n_features)))
    buffer = np.empty((min(block, n_samples), n_features))
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        X_block = X[rows]
        shifted = np.subtract(X_block, shift, out=buffer[: len(X_block)])
        s1 += class_sums(shifted, class_index[rows], weights[rows], n_classes)
        s2 += class_sums(np.square(shifted, out=shifted), class_index[rows], weights[rows], n_classes)
    n = np.broadcast_to(class_weight[:, np.newaxis], s1.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_shifted = np.where(n > 0, s1 / n, 0.0)
    m2 = s2 - s1 * mean_shifted
    accurate = (s2 == 0) | (m2 * _MAX_CANCELLATION > s2)  # also False for NaN
    if not accurate.all():
        return None
    return np.array(n, dtype=np.float64), np.where(n > 0, shift + mean_shifted, 0.0), m2


def _two_pass_moments(X, class_index, weights, class_weight):
    """Means first, then squared deviations from each sample's own class mean:
    no cancellation at all, at the price of a second pass and a gather."""
    n_classes = len(class_weight)
    missing = nan_mask(X)
    n = np.broadcast_to(class_weight[:, np.newaxis], (n_classes, X.shape[1]))
    if missing is not None:
        n = n - class_sums(missing, class_index, weights, n_classes)
    X_filled = X if missing is None else fill_nan(X)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(n > 0, class_sums(X_filled, class_index, weights, n_classes) / n, 0.0)
    deviation = X - theta[class_index]
    if missing is not None:
        deviation = fill_nan(deviation)
    m2 = class_sums(deviation**2, class_index, weights, n_classes)
    return np.array(n, dtype=np.float64), theta, m2


def gaussian_mean_var(X, y, classes, ddof=0, sample_weight=None):
    """Per-class mean and variance of each feature (the MLE when ddof=0).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        NaN entries are left out.
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    ddof : int, default=0
        The variance divides by ``N_c - ddof``: 0 is the MLE, 1 the unbiased
        estimate.
    sample_weight : array-like of shape (n_samples,), default=None
        ``N_c`` is then the sum of the weights.

    Returns
    -------
    theta : ndarray of shape (n_classes, n_features)
    var : ndarray of shape (n_classes, n_features)
        nan where a class has no (or too few) samples.

    Examples
    --------
    >>> theta, var = gaussian_mean_var([[1.0], [3.0], [10.0]], [0, 0, 1], [0, 1])
    >>> theta.ravel(), var.ravel()
    (array([ 2., 10.]), array([1., 0.]))
    """
    X, class_index, weights, n_classes = functional_inputs(
        X, y, classes, sample_weight, accept_sparse=False
    )
    n, theta, m2 = _moments(X, class_index, weights, n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(n > 0, theta, np.nan)
        var = np.where(n - ddof > 0, m2 / (n - ddof), np.nan)
    return theta, var


def _quadratic_jll(X, class_log_prior, theta, var, reference):
    """``log pi_c - 1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``.

    Expanded into one matrix product per block of rows, ``[(x - r)^2, x - r]``
    times ``[1 / var, -2 (theta - r) / var]``, after centring X and theta on
    ``reference`` (smaller numbers, less cancellation); NaN entries are skipped.
    """
    precision = 1.0 / var
    theta_c = theta - reference
    per_feature_constant = theta_c**2 * precision + np.log(2 * np.pi * var)
    coefficients = np.hstack([precision, -2.0 * theta_c * precision]).T  # (2 n_features, n_classes)
    n_samples, n_features = X.shape
    quadratic = np.empty((n_samples, len(theta)))
    block = max(1, _BLOCK_BYTES // (16 * max(1, n_features)))
    buffer = np.empty((min(block, n_samples), 2 * n_features))
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        part = buffer[: len(quadratic[rows])]
        centred = np.subtract(X[rows], reference, out=part[:, n_features:])
        np.square(centred, out=part[:, :n_features])
        np.matmul(part, coefficients, out=quadratic[rows])
    if np.isnan(quadratic).any():  # NaN in X: redo leaving those entries out
        return _quadratic_jll_skipping_nan(X, class_log_prior, precision, theta_c, per_feature_constant,
                                           reference)
    quadratic += per_feature_constant.sum(axis=1)
    return class_log_prior - 0.5 * quadratic


def _quadratic_jll_skipping_nan(X, class_log_prior, precision, theta_c, per_feature_constant, reference):
    centred = X - reference
    missing = nan_mask(centred)
    centred = fill_nan(centred)
    quadratic = (centred**2) @ precision.T - 2.0 * centred @ (theta_c * precision).T
    quadratic += per_feature_constant.sum(axis=1)
    if missing is not None:
        quadratic -= missing @ per_feature_constant.T
    return class_log_prior - 0.5 * quadratic


def gaussian_jll(X, class_log_prior, theta, var):
    """Joint log-likelihood under per-class diagonal Gaussians.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        NaN entries are skipped (they contribute 0).
    class_log_prior : array-like of shape (n_classes,)
    theta : array-like of shape (n_classes, n_features)
    var : array-like of shape (n_classes, n_features)
        Must be > 0.

    Returns
    -------
    jll : ndarray of shape (n_samples, n_classes)
        ``log P(c) + sum_j log N(x_j; theta_cj, var_cj)``.

    Examples
    --------
    >>> jll = gaussian_jll([[0.0]], np.log([0.5, 0.5]), [[0.0], [1.0]], [[1.0], [1.0]])
    >>> np.exp(jll) * 2 * np.sqrt(2 * np.pi)  # 2: the prior 1/2
    array([[1.        , 0.60653066]])
    """
    X = as_2d_float(X, accept_sparse=False)
    theta = np.asarray(theta, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    if not (var > 0).all():
        raise ValueError(
            "var must be > 0 everywhere (a zero variance makes the density "
            "infinite); add a small smoothing term, e.g. var_smoothing."
        )
    return _quadratic_jll(
        X, np.asarray(class_log_prior, dtype=np.float64), theta, var, theta.mean(axis=0)
    )


def _merge(n_a, theta_a, m2_a, n_b, theta_b, m2_b):
    """Exact merge of two sets of (count, mean, squared deviations) (Chan et al.)."""
    n = n_a + n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        share_b = np.where(n > 0, n_b / n, 0.0)
    delta = theta_b - theta_a
    theta = theta_a + delta * share_b
    m2 = m2_a + m2_b + delta**2 * n_a * share_b
    return n, theta, m2


class GaussianNB(_BaseNB):
    """Naive Bayes with class-conditional univariate normal features.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Fixed class priors (must sum to 1); None: the class frequencies.
    var_smoothing : float, default=1e-9
        ``epsilon_ = var_smoothing * max_j var(x_j)`` is added to every
        variance, for (near-)constant features.
    missing : {"error", "skip"}, default="error"
        "skip" leaves NaN entries out of the means and variances and out of
        the product.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    epsilon_ : float
    theta_ : ndarray of shape (n_classes, n_features)
    var_ : ndarray of shape (n_classes, n_features)
        MLE variance (divides by N_c) plus ``epsilon_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Notes
    -----
    ``partial_fit`` keeps exact sufficient statistics (count, mean, sum of
    squared deviations) per class and, unweighted, over all the data. Batch
    after batch it therefore gives ``fit`` on all the data, ``epsilon_``
    included; scikit-learn recomputes ``epsilon_`` from each batch alone
    (its issue #14054). As in scikit-learn, ``epsilon_`` uses the unweighted
    variance of X, of its rows of positive weight: a row of weight 0 changes
    nothing, as if it were removed.

    As in scikit-learn, float32 X gives float32 fitted attributes and
    predictions (computed in float64, then rounded); any other X is
    converted to float64.

    Examples
    --------
    >>> X = np.array([[-1.0, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> model = GaussianNB().fit(X, [1, 1, 1, 2, 2, 2])
    >>> model.predict([[-0.8, -1]])
    array([1])
    """

    # float32 is kept (as in scikit-learn); any other dtype becomes float64.
    _input_dtypes = (np.float64, np.float32)

    def __init__(self, *, priors=None, var_smoothing=1e-9, missing="error"):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.missing = missing

    def _init_counters(self, n_classes, n_features):
        if not np.isscalar(self.var_smoothing) or not self.var_smoothing >= 0:
            raise ValueError(f"var_smoothing must be >= 0, got {self.var_smoothing!r}.")
        self.class_count_ = np.zeros(n_classes)
        # The float64 class weights; class_count_ is their copy in the fit dtype.
        self._class_weight = np.zeros(n_classes)
        self._fit_dtype = None  # X's dtype at the first call
        zeros = np.zeros((n_classes, n_features))
        self._class_moments = (zeros, zeros.copy(), zeros.copy())
        self._all_moments = (np.zeros(n_features), np.zeros(n_features), np.zeros(n_features))

    def _count(self, X, class_index, weights):
        if self._fit_dtype is None:
            self._fit_dtype = X.dtype
        n_classes = len(self.classes_)
        self._class_weight += np.bincount(class_index, weights=weights, minlength=n_classes)
        batch = _moments(X, class_index, weights, n_classes)
        self._class_moments = _merge(*self._class_moments, *batch)
        # Unweighted moments of all samples, for epsilon_: without weights,
        # merge the classes' moments; otherwise one pass with unit weights
        # (0 for a row of weight 0: it changes nothing, as if removed).
        if not np.all(weights == 1.0):
            unit = (weights > 0).astype(np.float64)
            batch = _moments(X, np.zeros(X.shape[0], dtype=np.int64), unit, 1)
        for n, theta, m2 in zip(*batch):
            self._all_moments = _merge(*self._all_moments, n, theta, m2)

    def _variance(self, n, m2):
        """MLE variance per (class, feature), 0 without data, from the moments."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, m2 / n, 0.0)

    def _update_parameters(self):
        n, theta, m2 = self._class_moments
        n_all, _, m2_all = self._all_moments
        with np.errstate(invalid="ignore", divide="ignore"):
            overall_var = np.where(n_all > 0, m2_all / n_all, 0.0)
        epsilon = float(self.var_smoothing * overall_var.max(initial=0.0))
        var = self._variance(n, m2) + epsilon
        if self.priors is not None:
            class_prior = check_prior(self.priors, len(self.classes_), "priors")
        else:
            class_prior = self._class_weight / self._class_weight.sum()
        zero = var <= 0
        if zero.any():
            c, j = np.argwhere(zero)[0]
            raise ValueError(
                f"Feature {j} has zero variance in class {self.classes_.tolist()[c]!r} "
                "(one sample, or constant values) and "
                f"var_smoothing={self.var_smoothing}; "
                "set var_smoothing > 0 (the default is 1e-9)."
            )
        class_log_prior = safe_log(class_prior)
        # Predictions use the float64 parameters, whatever the fit dtype.
        self._parameters64 = (class_log_prior, theta, var)
        # Centre on the overall mean at predict time: less cancellation.
        self._reference = self._all_moments[1].copy()
        dtype = self._fit_dtype if self._fit_dtype == np.float32 else np.float64
        self.epsilon_ = epsilon if dtype == np.float64 else dtype.type(epsilon)
        self.theta_ = theta.astype(dtype)  # a copy: theta is updated in place
        self.var_ = var.astype(dtype, copy=False)
        self.class_prior_ = class_prior.astype(dtype, copy=False)
        self.class_log_prior_ = class_log_prior.astype(dtype, copy=False)
        self.class_count_ = self._class_weight.astype(dtype)

    def _joint_log_likelihood(self, X):
        return _quadratic_jll(X, *self._parameters64, self._reference)

    def _output_dtype(self, X):
        # float32 only when both the fit and X are float32, as in scikit-learn.
        return np.result_type(self._fit_dtype, X.dtype)
