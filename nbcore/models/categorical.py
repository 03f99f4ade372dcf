"""Categorical naive Bayes: each feature is an integer code 0..K_j-1."""

import numbers

import numpy as np
import scipy.sparse as sp

from nbcore.models._base import _BaseDiscreteNB, functional_inputs, safe_log
from nbcore._validation import as_2d_float, check_alpha

__all__ = ["categorical_feature_log_prob", "categorical_jll", "CategoricalNB"]

MISSING_CODE = -1


def _codes(X, name="X", receiver="CategoricalNB"):
    """Integer codes of X (float or integer); NaN becomes MISSING_CODE.

    A fraction is refused (scikit-learn truncates it); ``receiver`` names the
    estimator or function in the messages.
    """
    if X.dtype.kind in "iu":
        codes = X.astype(np.int64, copy=False)
        if codes.size and codes.min() < 0:
            raise _negative_codes(name, receiver)
        return codes
    is_nan = np.isnan(X)
    has_nan = bool(is_nan.any())
    filled = np.where(is_nan, 0.0, X) if has_nan else X
    if filled.size and filled.min() < 0:
        raise _negative_codes(name, receiver)
    codes = filled.astype(np.int64)
    if (codes != filled).any():  # a fraction (or a value beyond int64)
        raise ValueError(
            f"{name} must hold integer category codes 0, 1, 2, ... (encode "
            "categories with sklearn.preprocessing.OrdinalEncoder); "
            f"{receiver} does not truncate fractions as scikit-learn does."
        )
    if has_nan:
        codes[is_nan] = MISSING_CODE
    return codes


def _negative_codes(name, receiver):
    # scikit-learn's sentence first: user code may match on it.
    return ValueError(
        f"Negative values in data passed to {receiver} (input {name}): category "
        "codes are 0, 1, 2, ... (encode categories with "
        "sklearn.preprocessing.OrdinalEncoder)."
    )


def _n_categories(codes, n_categories, parameter="n_categories"):
    """K_j per feature: the largest code + 1, raised to ``n_categories``.

    ``parameter`` names the argument in the messages.
    """
    seen = codes.max(axis=0, initial=MISSING_CODE) + 1
    if n_categories is None:
        return seen
    if isinstance(n_categories, numbers.Integral):
        wanted = np.full(codes.shape[1], int(n_categories), dtype=np.int64)
    else:
        wanted = np.asarray(n_categories)
        if wanted.shape != (codes.shape[1],) or not np.issubdtype(
            wanted.dtype, np.integer
        ):
            # scikit-learn's sentence first: user code may match on it.
            raise ValueError(
                f"'{parameter}' should have shape ({codes.shape[1]},) when an "
                f"array-like is provided: {parameter} must be an int or an integer "
                f"array of shape (n_features,) = ({codes.shape[1]},), got "
                f"{n_categories!r}."
            )
    if (wanted < 1).any():
        raise ValueError(f"{parameter} must be >= 1.")
    return np.maximum(seen, wanted).astype(np.int64)


def _weighted_rows(codes, class_index, weights):
    """The rows of positive weight: a row of weight 0 counts nothing and, as
    if it were removed, does not widen ``K_j`` either."""
    kept = weights > 0
    if kept.all():
        return codes, class_index, weights
    return codes[kept], class_index[kept], weights[kept]


def _category_counts(codes, class_index, weights, n_classes, n_categories):
    """Weighted counts N_cjk as one (n_classes, sum_j K_j) array, in one bincount."""
    starts = np.concatenate([[0], np.cumsum(n_categories)[:-1]]).astype(np.int64)
    total = int(n_categories.sum())
    flat = codes + starts
    flat += (class_index * total)[:, np.newaxis]
    observed = codes != MISSING_CODE
    if observed.all():  # no mask to apply; unit weights need no weights at all
        unit = bool(np.all(weights == 1.0))
        counts = np.bincount(
            flat.ravel(),
            weights=None if unit else np.repeat(weights, codes.shape[1]),
            minlength=n_classes * total,
        ).astype(np.float64, copy=False)
    else:
        counts = np.bincount(
            flat[observed],
            weights=np.broadcast_to(weights[:, np.newaxis], codes.shape)[observed],
            minlength=n_classes * total,
        )
    return counts.reshape(n_classes, total)


def _split(flat_counts, n_categories):
    return np.split(flat_counts, np.cumsum(n_categories)[:-1], axis=1)


def _smoothed_log_prob(counts, alpha):
    """log (N_cjk + alpha) / (N_cj + alpha K_j) for each feature's counts."""
    alphas = np.broadcast_to(alpha, (len(counts),))
    return [
        safe_log(c + a) - safe_log((c + a).sum(axis=1, keepdims=True))
        for c, a in zip(counts, alphas)
    ]


def categorical_feature_log_prob(
    X, y, classes, alpha=1.0, n_categories=None, sample_weight=None
):
    """Smoothed log-probabilities of each category of each feature in each class.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Integer category codes ``0 .. K_j - 1``; NaN entries are left out.
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    alpha : float or array-like of shape (n_features,), default=1.0
        Smoothing ``l``: 0 is the MLE, > 0 a MAP / posterior-mean estimate.
    n_categories : int or array-like of shape (n_features,), default=None
        Number of categories ``K_j`` (at least the largest code + 1).
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    feature_log_prob : list of n_features ndarrays of shape (n_classes, K_j)
        ``log P(x_j = k | c) = log (N_cjk + alpha) / (N_cj + alpha K_j)``.

    Examples
    --------
    >>> X = [[0, 1], [1, 1], [0, 0]]
    >>> log_prob = categorical_feature_log_prob(X, [0, 0, 1], [0, 1], alpha=0)
    >>> np.exp(log_prob[0])
    array([[0.5, 0.5],
           [1. , 0. ]])
    """
    X, class_index, weights, n_classes = functional_inputs(
        X, y, classes, sample_weight, accept_sparse=False
    )
    codes = _codes(X, receiver="categorical_feature_log_prob")
    codes, class_index, weights = _weighted_rows(codes, class_index, weights)
    sizes = _n_categories(codes, n_categories)
    counts = _category_counts(codes, class_index, weights, n_classes, sizes)
    return _smoothed_log_prob(_split(counts, sizes), check_alpha(alpha, X.shape[1]))


def _one_hot(codes, n_categories):
    """Sparse (n_samples, sum_j (K_j + 1)) indicator of each sample's categories.

    Block j has K_j columns for the known categories and one for any code
    >= K_j (unseen at fit). Missing entries have no column.
    """
    starts = np.concatenate([[0], np.cumsum(n_categories + 1)[:-1]])
    columns = starts + np.minimum(codes, n_categories)
    n_samples, n_features = codes.shape
    shape = (n_samples, int((n_categories + 1).sum()))
    observed = codes != MISSING_CODE
    if observed.all():  # one entry per (sample, feature), in row order already
        indptr = np.arange(0, n_samples * n_features + 1, n_features)
        return sp.csr_matrix((np.ones(columns.size), columns.ravel(), indptr), shape=shape)
    indptr = np.concatenate([[0], np.cumsum(observed.sum(axis=1))])
    return sp.csr_matrix((np.ones(observed.sum()), columns[observed], indptr), shape=shape)


def _jll_from_blocks(codes, class_log_prior, blocks, n_categories):
    """Sum of each sample's log-probabilities, via one sparse product."""
    table = np.concatenate(blocks, axis=1)  # (n_classes, sum_j (K_j + 1))
    jll = np.asarray(_one_hot(codes, n_categories) @ table.T)
    return jll + np.asarray(class_log_prior, dtype=np.float64)


def categorical_jll(X, class_log_prior, feature_log_prob):
    """Joint log-likelihood ``log P(c) + sum_j log P(x_j | c)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Integer codes; NaN entries are skipped (they contribute 0).
    class_log_prior : array-like of shape (n_classes,)
    feature_log_prob : list of n_features arrays of shape (n_classes, K_j)

    Returns
    -------
    jll : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> log_prob = [np.log([[0.5, 0.5], [0.9, 0.1]])]
    >>> np.exp(categorical_jll([[1]], np.log([0.5, 0.5]), log_prob))
    array([[0.25, 0.05]])
    """
    codes = _codes(as_2d_float(X, accept_sparse=False), receiver="categorical_jll")
    if codes.shape[1] != len(feature_log_prob):
        raise ValueError(
            f"X has {codes.shape[1]} features but feature_log_prob has "
            f"{len(feature_log_prob)} (one array per feature)."
        )
    blocks = [np.asarray(b, dtype=np.float64) for b in feature_log_prob]
    sizes = np.array([b.shape[1] for b in blocks], dtype=np.int64)
    too_large = codes >= sizes
    if too_large.any():
        j = int(np.nonzero(too_large.any(axis=0))[0][0])
        raise ValueError(
            f"feature {j} has code {codes[too_large.any(axis=1), j].max()} but "
            f"only {sizes[j]} categories; CategoricalNB handles unseen categories."
        )
    unseen = np.full((len(class_log_prior), 1), np.nan)
    blocks = [np.hstack([b, unseen]) for b in blocks]
    return _jll_from_blocks(codes, class_log_prior, blocks, sizes)


class CategoricalNB(_BaseDiscreteNB):
    """Naive Bayes for categorical features coded as integers 0..K_j-1.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; 0 gives the maximum likelihood estimate.
    force_alpha : bool, default=True
        True uses alpha as given: ``alpha=0`` is the MLE (``log 0 = -inf``
        silently). False, as in scikit-learn, raises any alpha below 1e-10 to
        1e-10 with a UserWarning.
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories ``K_j`` per feature.
    missing : {"error", "skip"}, default="error"
        "skip" leaves NaN entries out of the counts and of the product.

    Attributes
    ----------
    category_count_ : list of n_features ndarrays of shape (n_classes, K_j)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    feature_log_prob_ : list of n_features ndarrays of shape (n_classes, K_j)
    n_categories_ : ndarray of shape (n_features,)
        ``K_j``, kept as a running maximum over ``partial_fit`` calls.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Notes
    -----
    X must hold integer category codes ``0, 1, 2, ...`` (integer dtype, or
    floats with whole values; NaN is a missing value when ``missing="skip"``).
    A negative or fractional value raises a ValueError: scikit-learn silently
    truncates a fraction (1.7 becomes category 1), which hides continuous
    features passed by mistake. Encode raw categories with
    ``sklearn.preprocessing.OrdinalEncoder``, bin continuous ones with
    ``KBinsDiscretizer(encode="ordinal")``.

    A row of weight 0 changes nothing: it does not widen ``n_categories_``.

    A category code ``k >= K_j`` never seen at fit gets, instead of
    scikit-learn's IndexError, the smoothed probability of a zero count,
    ``alpha / (N_cj + alpha K_j)`` (0 when alpha=0).

    Examples
    --------
    >>> X = np.array([[0, 1], [1, 1], [0, 0], [2, 0]])
    >>> model = CategoricalNB().fit(X, ["a", "a", "b", "b"])
    >>> model.predict([[0, 1], [5, 0]])
    array(['a', 'b'], dtype='<U1')
    """

    _accept_sparse = False
    # Integer codes are used as they are (no float copy).
    _input_dtypes = (np.float64, np.int64, np.int32, np.int16, np.int8, np.uint32, np.uint16, np.uint8)

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
        min_categories=None, missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.missing = missing

    def _check_values(self, X, reset):
        return _codes(X)

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.n_categories_ = np.zeros(n_features, dtype=np.int64)
        self.category_count_ = [np.zeros((n_classes, 0)) for _ in range(n_features)]

    def _count(self, codes, class_index, weights):
        codes, class_index, weights = _weighted_rows(codes, class_index, weights)
        sizes = np.maximum(
            _n_categories(codes, self.min_categories, "min_categories"), self.n_categories_
        )
        counts = _category_counts(codes, class_index, weights, len(self.classes_), sizes)
        for j, batch in enumerate(_split(counts, sizes)):
            old = self.category_count_[j]
            batch[:, : old.shape[1]] += old
            self.category_count_[j] = batch
        self.n_categories_ = sizes

    def _update_feature_log_prob(self, alpha):
        self.feature_log_prob_ = _smoothed_log_prob(self.category_count_, alpha)
        # Log-probability of a category unseen at fit: a zero count, smoothed.
        alphas = np.broadcast_to(alpha, (self.n_features_in_,))
        self._unseen_log_prob = [
            safe_log(a) - safe_log(c.sum(axis=1, keepdims=True) + a * c.shape[1])
            for c, a in zip(self.category_count_, alphas)
        ]

    def _joint_log_likelihood(self, codes):
        blocks = [
            np.hstack([known, unseen])
            for known, unseen in zip(self.feature_log_prob_, self._unseen_log_prob)
        ]
        return _jll_from_blocks(codes, self.class_log_prior_, blocks, self.n_categories_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags
