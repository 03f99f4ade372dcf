"""The scikit-learn bundled datasets the course uses, in nbcore's Bunch layout.

These ship inside scikit-learn, so they load offline. Each loader returns
``frame``, ``X``, ``y``, ``classes``, ``target_names``, ``feature_names``
and ``description`` (the same field names as :mod:`nbkit.datasets.worked`).
"""

from __future__ import annotations

import numpy as np
from sklearn import datasets as sk_datasets
from sklearn.utils import Bunch

__all__ = [
    "load_iris",
    "load_wine",
    "load_breast_cancer",
    "load_digits",
    "load_digits_categorical",
    "load_digits_binary",
]

# The digits are 8x8 images whose pixels hold integer intensities 0..16.
_DIGITS_MAX_PIXEL = 16


def _from_sklearn(loader) -> Bunch:
    raw = loader(as_frame=True)
    y = raw.target.to_numpy().astype(np.int64)
    target_names = np.asarray(raw.target_names) if "target_names" in raw else np.unique(y)
    return Bunch(
        frame=raw.frame,
        X=raw.data.to_numpy(dtype=np.float64),
        y=y,
        classes=np.arange(len(target_names)),
        target_names=np.asarray(target_names),
        feature_names=np.asarray(raw.feature_names),
        description=raw.DESCR,
    )


def load_iris() -> Bunch:
    """Fisher's iris: 150 flowers, 4 measurements (cm), 3 species.

    Returns
    -------
    data : Bunch
        ``X`` float64 (150, 4), ``y`` in {0, 1, 2}, ``frame``, ``classes``,
        ``target_names``, ``feature_names``, ``description``.

    Examples
    --------
    >>> data = load_iris()
    >>> data.X.shape, data.target_names.tolist()
    ((150, 4), ['setosa', 'versicolor', 'virginica'])
    """
    return _from_sklearn(sk_datasets.load_iris)


def load_wine() -> Bunch:
    """Wine recognition: 178 wines, 13 chemical measurements, 3 cultivars.

    Examples
    --------
    >>> data = load_wine()
    >>> data.X.shape, data.classes
    ((178, 13), array([0, 1, 2]))
    """
    return _from_sklearn(sk_datasets.load_wine)


def load_breast_cancer() -> Bunch:
    """Wisconsin diagnostic breast cancer: 569 tumours, 30 features, 2 classes.

    ``target_names`` is ``["malignant", "benign"]`` (scikit-learn's coding:
    ``y == 1`` is benign).

    Examples
    --------
    >>> data = load_breast_cancer()
    >>> data.X.shape, data.target_names.tolist()
    ((569, 30), ['malignant', 'benign'])
    """
    return _from_sklearn(sk_datasets.load_breast_cancer)


def load_digits() -> Bunch:
    """Handwritten digits: 1797 images of 8x8 pixels with intensities 0..16.

    ``X`` is float64 here (the Gaussian view); see
    :func:`load_digits_categorical` and :func:`load_digits_binary`.

    Examples
    --------
    >>> data = load_digits()
    >>> data.X.shape, float(data.X.max())
    ((1797, 64), 16.0)
    """
    return _from_sklearn(sk_datasets.load_digits)


def load_digits_categorical() -> Bunch:
    """Digits with each pixel as a categorical feature with 17 values (0..16).

    Returns
    -------
    data : Bunch
        As :func:`load_digits`, but ``X`` is int64 with codes 0..16, and
        ``n_categories`` is ``[17] * 64`` (every value a pixel could take,
        also those that never occur in the data).

    Examples
    --------
    >>> data = load_digits_categorical()
    >>> data.X.dtype, data.n_categories[:3]
    (dtype('int64'), [17, 17, 17])
    """
    data = load_digits()
    data.X = data.X.astype(np.int64)
    data.n_categories = [_DIGITS_MAX_PIXEL + 1] * data.X.shape[1]
    return data


def load_digits_binary(threshold: float = 8.0) -> Bunch:
    """Digits with each pixel switched on (1) when its intensity exceeds ``threshold``.

    Parameters
    ----------
    threshold : float, default=8.0
        A pixel is 1 when ``intensity > threshold`` (as scikit-learn's
        ``binarize``), else 0. Must lie in [0, 16).

    Returns
    -------
    data : Bunch
        As :func:`load_digits`, but ``X`` is int64 with values 0 and 1, and
        ``threshold`` records the threshold used.

    Raises
    ------
    ValueError
        If ``threshold`` is outside [0, 16), where every pixel would get the
        same value.

    Examples
    --------
    >>> data = load_digits_binary(threshold=8)
    >>> sorted(set(data.X.ravel().tolist()))
    [0, 1]
    """
    if not 0 <= threshold < _DIGITS_MAX_PIXEL:
        raise ValueError(
            f"threshold must lie in [0, {_DIGITS_MAX_PIXEL}) so that pixels split "
            f"into on and off, got {threshold!r}"
        )
    data = load_digits()
    data.X = (data.X > threshold).astype(np.int64)
    data.threshold = float(threshold)
    return data
