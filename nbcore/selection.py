"""Feature selection for text: the mutual information of a word and the class (IIR 13.5).

A word is scored by how much knowing whether it occurs in a document tells about
the document's class. Keeping only the best-scoring words removes words whose
counts differ between the classes by chance alone.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["mutual_information"]


def mutual_information(X, y, classes):
    """Mutual information (in nats) between each word's presence and the class.

    With ``N`` documents, ``N_cu`` of them in class ``c`` with presence ``u`` of
    word ``j`` (``u = 1``: the word occurs, ``X[i, j] > 0``), ``N_c`` in class
    ``c`` and ``N_u`` with presence ``u``::

        I_j = sum over c, u of (N_cu / N) log(N N_cu / (N_c N_u)),

    with ``0 log 0 = 0``. Divide by ``log(2)`` for bits (IIR eq. 13.17).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Counts or 0/1 presence; only ``X > 0`` matters.
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
        A class absent from ``y`` contributes nothing.

    Returns
    -------
    ndarray of shape (n_features,), non-negative.

    Examples
    --------
    A word in every spam message and in no ham message tells the class
    exactly: its mutual information is the class entropy, log 2 for two
    equally frequent classes. A word in half of each class tells nothing.

    >>> X = [[1, 1], [3, 0], [0, 1], [0, 0]]
    >>> mutual_information(X, ["spam", "spam", "ham", "ham"], ["ham", "spam"]).round(5)
    array([0.69315, 0.     ])
    """
    present = sp.csr_matrix(X) > 0 if sp.issparse(X) else np.asarray(X) > 0
    y = np.asarray(y)
    n_samples = present.shape[0]
    n_present = np.asarray(present.sum(axis=0), dtype=np.float64).ravel()
    information = np.zeros(present.shape[1])
    for c in np.asarray(classes):
        in_class = y == c
        n_class = float(in_class.sum())
        if n_class == 0:
            continue
        present_in_class = np.asarray(present[in_class].sum(axis=0), dtype=np.float64).ravel()
        for n_cu, n_u in ((present_in_class, n_present), (n_class - present_in_class, n_samples - n_present)):
            with np.errstate(divide="ignore", invalid="ignore"):
                term = n_cu / n_samples * np.log(n_samples * n_cu / (n_class * n_u))
            information += np.where(n_cu > 0, term, 0.0)
    return np.maximum(information, 0.0)
