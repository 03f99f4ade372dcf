"""Input checks shared by the functional core and the estimators.

Every check raises a ``ValueError`` whose message says what to change.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

MISSING_OPTIONS = ("error", "skip")


def check_missing_option(missing):
    """Return ``missing`` if it is one of ``MISSING_OPTIONS``."""
    if not isinstance(missing, str) or missing not in MISSING_OPTIONS:
        raise ValueError(
            f"missing must be 'error' or 'skip', got {missing!r}."
        )
    return missing


def as_2d_float(X, name="X", accept_sparse=True):
    """``X`` as a float64 2-D ndarray, or a CSR matrix when sparse."""
    if sp.issparse(X):
        if not accept_sparse:
            raise ValueError(
                f"{name} is a sparse matrix; this model needs a dense array "
                "(call X.toarray())."
            )
        return sp.csr_matrix(X, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features), got shape "
            f"{X.shape}; reshape a single feature with X.reshape(-1, 1) or a "
            "single sample with X.reshape(1, -1)."
        )
    return X


def stored_values(X):
    """The explicitly stored values of a dense or sparse array."""
    return X.data if sp.issparse(X) else X


def check_finite(X, missing, estimator_name="the model"):
    """Reject infinity always, and NaN unless ``missing == 'skip'``.

    Returns
    -------
    has_nan : bool
        Whether ``X`` holds NaN entries (only possible with 'skip').
    """
    values = stored_values(X)
    if values.size == 0 or np.isfinite(values.sum()):
        return False  # fast path: a finite sum means every entry is finite
    if np.isinf(values).any():
        raise ValueError(
            f"Input X contains infinity; {estimator_name} needs finite values "
            "(NaN marks a missing value when missing='skip')."
        )
    if missing != "skip":
        raise ValueError(
            f"Input X contains NaN. Set missing='skip' on {estimator_name} to "
            "leave missing values out of the product, or impute them first."
        )
    return True


def check_non_negative(X, estimator_name):
    """Reject negative entries (counts cannot be negative); NaN is ignored."""
    values = stored_values(X)
    if values.size and (values < 0).any():  # NaN < 0 is False: NaN is ignored
        raise ValueError(
            f"Negative values in data passed to {estimator_name} (input X): it "
            "models counts, which must be >= 0."
        )


# Integer labels spanning at most this many values are counted with a table
# (O(n)) instead of sorted (O(n log n)): a few times faster on large y.
_LABEL_TABLE_MAX = 1 << 16


def _small_int_range(*arrays):
    """(low, high) of integer arrays whose values span a small table, else None."""
    if not all(a.dtype.kind in "iu" and a.size for a in arrays):
        return None
    low = min(int(a.min()) for a in arrays)
    high = max(int(a.max()) for a in arrays)
    if high - low >= _LABEL_TABLE_MAX or low < -(2**62) or high > 2**62:
        return None
    return low, high


def unique_labels(y):
    """``np.unique(y)``, by counting for integer labels of a small range."""
    y = np.asarray(y)
    span = _small_int_range(y) if y.ndim == 1 else None
    if span is None:
        return np.unique(y)
    low, high = span
    counts = np.bincount(y.astype(np.intp, copy=False) - low, minlength=high - low + 1)
    return (np.flatnonzero(counts) + low).astype(y.dtype)


def _unknown_labels(labels, classes):
    # scikit-learn's sentence first: user code may match on it.
    return ValueError(
        f"The target label(s) {np.unique(labels).tolist()} in y do not exist in "
        f"the initial classes {classes.tolist()}: every label of y must be in "
        "classes (pass all of them at the first call of partial_fit)."
    )


def encode_labels(y, classes, n_samples=None):
    """Indices of the labels ``y`` in ``classes``.

    Raises a ValueError for a label that is not in ``classes``.
    """
    y = np.asarray(y)
    classes = np.asarray(classes)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {y.shape}.")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(
            f"X and y have different numbers of samples: {n_samples} and "
            f"{y.shape[0]}; give one label per row of X."
        )
    span = _small_int_range(y, classes)
    if span is not None:  # a look-up table from label to index
        low, high = span
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[classes.astype(np.intp) - low] = np.arange(len(classes))
        index = table[y.astype(np.intp, copy=False) - low]
        unknown = index < 0
        if np.any(unknown):
            raise _unknown_labels(y[unknown], classes)
        return index
    order = np.argsort(classes, kind="stable")
    position = np.searchsorted(classes[order], y)
    position = np.minimum(position, len(classes) - 1)
    index = order[position]
    unknown = classes[index] != y
    if np.any(unknown):
        raise _unknown_labels(y[unknown], classes)
    return index


def check_sample_weight(sample_weight, n_samples):
    """``sample_weight`` as float64 of shape (n_samples,), ones when None."""
    if sample_weight is None:
        return np.ones(n_samples)
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        return np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(
            f"sample_weight must have shape ({n_samples},) (one weight per "
            f"sample), got {weights.shape}."
        )
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if n_samples and not weights.any():
        raise ValueError(
            "sample_weight is zero for every sample; give at least one sample a "
            "positive weight."
        )
    return weights


def weighted_one_hot(class_index, n_classes, weights):
    """(n_samples, n_classes) matrix whose row i holds weight i in its class."""
    Y = np.zeros((len(class_index), n_classes))
    Y[np.arange(len(class_index)), class_index] = weights
    return Y


# scikit-learn's smallest alpha when force_alpha=False.
ALPHA_MIN = 1e-10


def check_force_alpha(force_alpha):
    """``force_alpha`` as a bool; anything but True or False is refused."""
    if not isinstance(force_alpha, (bool, np.bool_)):
        raise ValueError(
            f"force_alpha must be True or False, got {force_alpha!r}: True uses "
            "alpha as given (alpha=0 is the maximum likelihood estimate), False "
            f"raises an alpha below {ALPHA_MIN:.0e} to {ALPHA_MIN:.0e}."
        )
    return bool(force_alpha)


def check_alpha(alpha, n_features, force_alpha=True):
    """``alpha`` as a float or a float64 array of shape (n_features,), >= 0.

    With ``force_alpha=False``, as in scikit-learn, values below ``ALPHA_MIN``
    are raised to it with a UserWarning.
    """
    force_alpha = check_force_alpha(force_alpha)
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
        alpha_array = np.float64(alpha)
    else:
        alpha_array = np.asarray(alpha, dtype=np.float64)
        if alpha_array.shape != (n_features,):
            # scikit-learn's sentence (its typo included) first: user code may match on it.
            raise ValueError(
                "When alpha is an array, it should contains `n_features` elements: "
                "alpha must be a number or an array of shape "
                f"(n_features,) = ({n_features},), got shape {alpha_array.shape}."
            )
    if not np.all(np.isfinite(alpha_array)) or np.any(alpha_array < 0):
        raise ValueError(
            "All values in alpha must be greater than 0. (0 itself is allowed: "
            "alpha must be >= 0; alpha=0 is the maximum likelihood estimate, "
            f"alpha=1 Laplace smoothing), got {alpha!r}."
        )
    if not force_alpha and np.min(alpha_array) < ALPHA_MIN:
        warnings.warn(
            f"alpha too small will result in numeric errors, setting alpha = "
            f"{ALPHA_MIN:.1e}. Use `force_alpha=True` to keep alpha unchanged "
            "(alpha=0 gives the maximum likelihood estimate).",
            UserWarning,
            stacklevel=5,
        )
        alpha_array = np.maximum(alpha_array, ALPHA_MIN)
    return alpha_array if alpha_array.ndim else float(alpha_array)


def check_prior(prior, n_classes, name):
    """A user-given prior: length n_classes, non-negative, sums to 1."""
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (n_classes,):
        raise ValueError(
            f"Number of priors must match number of classes: {name} must have "
            f"one probability per class, expected shape ({n_classes},), got "
            f"{prior.shape}."
        )
    if np.any(prior < 0) or not np.isfinite(prior).all():
        raise ValueError(
            f"Priors must be non-negative: {name} must hold probabilities >= 0, "
            f"got {prior}."
        )
    if not np.isclose(prior.sum(), 1.0):
        raise ValueError(
            f"The sum of the priors should be 1: {name} must sum to 1, but it "
            f"sums to {prior.sum():.6g}; divide it by its sum."
        )
    return prior
