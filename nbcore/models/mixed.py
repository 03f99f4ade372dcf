"""Naive Bayes over a table whose columns follow different event models.

The naive assumption makes the likelihood a product over features, so each
column can have its own model: a Gaussian for a measurement, a categorical
distribution for a colour, a Bernoulli for a yes/no answer. The joint
log-likelihood is the class log prior, counted once, plus each group's sum of
per-feature log-likelihoods::

    jll[c] = log P(c) + sum_{gaussian j} log N(x_j; theta_cj, var_cj)
                      + sum_{categorical j} log P(x_j | c)
                      + sum_{bernoulli j} log P(x_j | c)

:class:`MixedNB` fits nbcore's GaussianNB, CategoricalNB and BernoulliNB on
the column groups and adds up their log-likelihoods.
"""

import numpy as np
import pandas as pd
from pandas.api import types as pd_types
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from nbcore._validation import check_missing_option, check_prior, check_sample_weight
from nbcore.models.bernoulli import BernoulliNB
from nbcore.models.categorical import CategoricalNB
from nbcore.estimation import log_normalize
from nbcore.models.gaussian import GaussianNB

__all__ = ["MixedNB", "infer_event_model"]

EVENT_MODELS = ("gaussian", "categorical", "bernoulli")
# an integer column with at most this many distinct values is categorical
MAX_INTEGER_CATEGORIES = 10


def infer_event_model(column):
    """The event model MixedNB infers from a pandas column's dtype.

    The rule:

    - bool (``bool`` or pandas ``"boolean"``) -> ``"bernoulli"``
    - ``category`` -> ``"categorical"``
    - float -> ``"gaussian"`` (even if the values happen to be whole numbers)
    - string or object -> ``"categorical"``
    - integer with at most ``MAX_INTEGER_CATEGORIES`` (10) distinct values ->
      ``"categorical"``; with more it is ambiguous (a count? a measurement?
      an identifier?) and raises.
    - anything else (dates, complex numbers, ...) raises.

    Parameters
    ----------
    column : pandas.Series

    Returns
    -------
    str
        One of ``"gaussian"``, ``"categorical"``, ``"bernoulli"``.

    Raises
    ------
    ValueError
        For an ambiguous or unsupported column; the message says to pass
        ``models=``.

    Examples
    --------
    >>> import pandas as pd
    >>> infer_event_model(pd.Series([1.5, 2.0])), infer_event_model(pd.Series(["red", "blue"]))
    ('gaussian', 'categorical')
    >>> infer_event_model(pd.Series([True, False]))
    'bernoulli'
    """
    dtype = column.dtype
    if pd_types.is_bool_dtype(dtype):
        return "bernoulli"
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd_types.is_float_dtype(dtype):
        return "gaussian"
    if pd_types.is_integer_dtype(dtype):
        n_values = column.nunique(dropna=True)
        if n_values <= MAX_INTEGER_CATEGORIES:
            return "categorical"
        raise ValueError(
            f"Column {column.name!r} holds {n_values} distinct integers: it could be "
            "a count, a measurement or a category, so its model is ambiguous; pass "
            f"models={{{column.name!r}: 'gaussian'}} (or 'categorical') to MixedNB."
        )
    if pd_types.is_string_dtype(dtype) or pd_types.is_object_dtype(dtype):
        return "categorical"
    raise ValueError(
        f"Column {column.name!r} has dtype {dtype}, which MixedNB does not model; "
        "convert it (e.g. a date to a number) and pass models={column: 'gaussian' | "
        "'categorical' | 'bernoulli'}, or drop the column."
    )


class MixedNB(ClassifierMixin, BaseEstimator):
    """Naive Bayes with a Gaussian, categorical or Bernoulli model per column.

    Parameters
    ----------
    models : dict or sequence of str, default=None
        The event model of each column: ``"gaussian"``, ``"categorical"`` or
        ``"bernoulli"``. A dict maps a column name (for a DataFrame) or a
        column index to a model; a sequence gives one model per column. For a
        DataFrame, columns left out are inferred from their dtype (see
        :func:`infer_event_model`); for an array every column must be given.
    alpha : float, default=1.0
        Additive smoothing of the categorical and Bernoulli columns.
    var_smoothing : float, default=1e-9
        Added variance of the Gaussian columns, as in GaussianNB: a fraction
        of the largest variance among the Gaussian columns.
    priors : array-like of shape (n_classes,), default=None
        Fixed class priors; None: the class frequencies.
    missing : {"error", "skip"}, default="error"
        "skip": a missing entry (NaN, None, pd.NA) is left out of the
        estimates and out of the product, for every event model.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    models_ : dict
        Column (name, or index for an array) -> event model, in column order.
    estimators_ : dict
        Event model -> the fitted nbcore estimator of its columns (fitted
        with a uniform prior: the class prior is counted once, here).
    columns_ : dict
        Event model -> positions of its columns.
    categories_ : dict
        Categorical column position -> its known values; value ``k`` of the
        list is coded ``k``. A value never seen in training is handled as
        CategoricalNB handles an unseen category (a smoothed zero count).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({
    ...     "age": [23.0, 35.0, 41.0, 52.0, 29.0, 60.0],
    ...     "colour": ["red", "blue", "red", "green", "red", "blue"],
    ...     "owns_car": [False, True, True, True, False, True],
    ... })
    >>> y = ["no", "yes", "yes", "yes", "no", "yes"]
    >>> model = MixedNB().fit(X, y)
    >>> model.models_
    {'age': 'gaussian', 'colour': 'categorical', 'owns_car': 'bernoulli'}
    >>> new = pd.DataFrame({"age": [25.0], "colour": ["purple"], "owns_car": [False]})
    >>> model.predict(new)   # "purple" was never seen: a smoothed zero count
    array(['no'], dtype='<U3')
    """

    def __init__(self, *, models=None, alpha=1.0, var_smoothing=1e-9, priors=None,
                 missing="error"):
        self.models = models
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.priors = priors
        self.missing = missing

    # ----------------------------------------------------------- the columns
    def _resolve_models(self, X):
        """Column -> event model, from ``models`` and, for a DataFrame, dtypes."""
        is_frame = isinstance(X, pd.DataFrame)
        labels = list(X.columns) if is_frame else list(range(X.shape[1]))
        given = self.models
        if given is None:
            given = {}
        elif not isinstance(given, dict):
            given = list(given)
            if len(given) != len(labels):
                raise ValueError(
                    f"models lists {len(given)} event models but X has {len(labels)} "
                    "columns; give one per column, or a dict {column: model}."
                )
            given = dict(zip(labels, given))
        resolved = {}
        for key, model in given.items():
            if key in labels:
                position = labels.index(key)
            elif isinstance(key, (int, np.integer)) and 0 <= key < len(labels):
                position = int(key)
            else:
                raise ValueError(
                    f"models names column {key!r}, which X does not have; its "
                    f"columns are {labels}."
                )
            if model not in EVENT_MODELS:
                raise ValueError(
                    f"Unknown event model {model!r} for column {key!r}; use one of "
                    f"{EVENT_MODELS}."
                )
            resolved[position] = model
        for position, label in enumerate(labels):
            if position in resolved:
                continue
            if not is_frame:
                raise ValueError(
                    f"No event model for column {position}: MixedNB infers models "
                    "only from a DataFrame's dtypes; for an array pass models="
                    "{column index: 'gaussian' | 'categorical' | 'bernoulli'} for "
                    "every column."
                )
            resolved[position] = infer_event_model(X.iloc[:, position])
        return {labels[p]: resolved[p] for p in range(len(labels))}

    def _columns(self, X, reset):
        """X as a list of 1-D columns, checked against the fitted layout."""
        if isinstance(X, pd.DataFrame):
            names = np.asarray(X.columns, dtype=object)
            if reset:
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                missing_names = [n for n in self.feature_names_in_ if n not in list(names)]
                if missing_names:
                    raise ValueError(
                        f"X lacks the column(s) {missing_names} the model was fitted on."
                    )
                X = X[list(self.feature_names_in_)]
            columns = [X.iloc[:, j] for j in range(X.shape[1])]
        else:
            X = np.asarray(X, dtype=object if not _is_numeric(X) else np.float64)
            if X.ndim != 2:
                raise ValueError(
                    f"X must be 2-D of shape (n_samples, n_features), got shape "
                    f"{X.shape}; reshape a single sample with X.reshape(1, -1)."
                )
            if reset and hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            columns = [pd.Series(X[:, j]) for j in range(X.shape[1])]
        if reset:
            self.n_features_in_ = len(columns)
        elif len(columns) != self.n_features_in_:
            raise ValueError(
                f"X has {len(columns)} columns but MixedNB was fitted with "
                f"{self.n_features_in_}."
            )
        return columns

    def _encode(self, columns, learn):
        """One float matrix per event model; NaN marks a missing entry.

        Categorical values become codes; with ``learn`` new values extend
        ``categories_`` (so partial_fit can meet new categories), otherwise
        they get the code ``len(categories)``, an unseen category.
        """
        labels = list(self.models_)
        blocks = {}
        for model, positions in self.columns_.items():
            block = np.empty((len(columns[0]) if columns else 0, len(positions)))
            for k, j in enumerate(positions):
                column, label = columns[j], labels[j]
                is_missing = column.isna().to_numpy()
                if is_missing.any() and self.missing != "skip":
                    raise ValueError(
                        f"Column {label!r} has missing values; set missing='skip' to "
                        "leave them out of the product, or impute them first."
                    )
                if model == "categorical":
                    block[:, k] = self._category_codes(j, column, is_missing, learn)
                else:
                    block[:, k] = _as_float(column, label, is_missing)
                    if model == "bernoulli":
                        _check_binary(block[:, k], label)
            blocks[model] = block
        return blocks

    def _category_codes(self, j, column, is_missing, learn):
        categories = self.categories_[j]
        index = {value: code for code, value in enumerate(categories)}
        values = column.to_numpy(dtype=object)
        if learn:
            new = [v for v in pd.unique(values[~is_missing]) if v not in index]
            if new:
                new = _sorted_if_possible(new)
                index.update({v: len(categories) + i for i, v in enumerate(new)})
                categories.extend(new)
        unseen = len(categories)
        codes = np.array([index.get(v, unseen) for v in values], dtype=np.float64)
        codes[is_missing] = np.nan
        return codes

    # --------------------------------------------------------------- fitting
    def _start(self, X, columns, classes):
        """Decide the column layout and create the sub-models."""
        check_missing_option(self.missing)
        self.models_ = self._resolve_models(X if isinstance(X, pd.DataFrame) else
                                            np.empty((0, len(columns))))
        self.columns_ = {}
        for position, model in enumerate(self.models_.values()):
            self.columns_.setdefault(model, []).append(position)
        self.columns_ = {m: self.columns_[m] for m in EVENT_MODELS if m in self.columns_}
        self.categories_ = {}
        for j in self.columns_.get("categorical", []):
            dtype = columns[j].dtype
            declared = list(dtype.categories) if isinstance(dtype, pd.CategoricalDtype) else []
            self.categories_[j] = declared
        self.classes_ = classes
        n_classes = len(classes)
        uniform = np.full(n_classes, 1.0 / n_classes)
        # uniform priors in the parts: log P(c) is added once, in predict_joint_log_proba
        factories = {
            "gaussian": lambda: GaussianNB(
                priors=uniform, var_smoothing=self.var_smoothing, missing=self.missing
            ),
            "categorical": lambda: CategoricalNB(
                alpha=self.alpha, fit_prior=False, missing=self.missing
            ),
            "bernoulli": lambda: BernoulliNB(
                alpha=self.alpha, binarize=None, fit_prior=False, missing=self.missing
            ),
        }
        self.estimators_ = {model: factories[model]() for model in self.columns_}
        self.class_count_ = np.zeros(n_classes)

    def _learn(self, columns, y, sample_weight):
        weights = check_sample_weight(sample_weight, len(y))
        known = np.isin(y, self.classes_)
        if not known.all():
            raise ValueError(
                f"Label(s) {np.unique(y[~known]).tolist()} in y are not in classes "
                f"{self.classes_.tolist()}; pass every label in classes at the first "
                "call of partial_fit."
            )
        blocks = self._encode(columns, learn=True)
        for model, estimator in self.estimators_.items():
            if model == "categorical":
                # declared (pandas) categories count even when not observed
                estimator.min_categories = np.array(
                    [max(len(self.categories_[j]), 1) for j in self.columns_[model]]
                )
            estimator.partial_fit(blocks[model], y, classes=self.classes_,
                                  sample_weight=weights)
        self.class_count_ += np.array([weights[y == c].sum() for c in self.classes_])
        if self.priors is not None:
            prior = check_prior(self.priors, len(self.classes_), "priors")
        else:
            prior = self.class_count_ / self.class_count_.sum()
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(prior)
        return self

    def fit(self, X, y, sample_weight=None):
        """Fit every column's event model.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : MixedNB
        """
        y = _check_y(y)
        columns = self._columns(X, reset=True)
        _check_lengths(columns, y)
        self._start(X, columns, np.unique(y))
        return self._learn(columns, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch; batch after batch equals ``fit``.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that can appear; required at the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : MixedNB
        """
        y = _check_y(y)
        first_call = not hasattr(self, "classes_")
        if first_call and classes is None:
            raise ValueError(
                "classes must be passed at the first call of partial_fit "
                "(every label that can appear, e.g. np.unique(y_all))."
            )
        columns = self._columns(X, reset=first_call)
        _check_lengths(columns, y)
        if first_call:
            self._start(X, columns, np.unique(classes))
        return self._learn(columns, y, sample_weight)

    # ------------------------------------------------------------ prediction
    def predict_joint_log_proba(self, X):
        """``log P(c) + sum over all columns of log P(x_j | c)``.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        jll : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        blocks = self._encode(self._columns(X, reset=False), learn=False)
        n_samples = len(next(iter(blocks.values()))) if blocks else 0
        jll = np.tile(self.class_log_prior_, (n_samples, 1))
        for model, estimator in self.estimators_.items():
            # each part carries its (uniform, finite) prior: take it out
            jll += estimator.predict_joint_log_proba(blocks[model])
            jll -= estimator.class_log_prior_
        return jll

    def predict_log_proba(self, X):
        """Log posterior ``log P(c | x)``, shape (n_samples, n_classes)."""
        return log_normalize(self.predict_joint_log_proba(X))

    def predict_proba(self, X):
        """Posterior ``P(c | x)``, shape (n_samples, n_classes); rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of maximum posterior probability, shape (n_samples,)."""
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]


def _is_numeric(X):
    try:
        np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _check_y(y):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {y.shape}.")
    check_classification_targets(y)
    return y


def _check_lengths(columns, y):
    n_samples = len(columns[0]) if columns else 0
    if n_samples != len(y):
        raise ValueError(
            f"X and y have different numbers of samples: {n_samples} and {len(y)}."
        )


def _as_float(column, label, is_missing):
    values = column.to_numpy(dtype=object)
    out = np.full(len(values), np.nan)
    try:
        out[~is_missing] = np.asarray(values[~is_missing], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"Column {label!r} holds non-numeric values, so it cannot be "
            "'gaussian' or 'bernoulli'; pass models={..: 'categorical'} for it."
        ) from None
    if np.isinf(out).any():
        raise ValueError(f"Column {label!r} contains infinity; give finite values.")
    return out


def _check_binary(values, label):
    observed = values[~np.isnan(values)]
    if not np.isin(observed, (0.0, 1.0)).all():
        raise ValueError(
            f"Column {label!r} is 'bernoulli' but holds values other than 0/1 "
            "(True/False); binarize it first, or model it as 'categorical'."
        )


def _sorted_if_possible(values):
    try:
        return sorted(values)
    except TypeError:  # values of mixed types: keep the order of appearance
        return list(values)
