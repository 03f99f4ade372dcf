"""Bag of words: tokens, a vocabulary, and sparse count / presence vectors.

The functions are deliberately small so that notebook 3 can teach each step:
``tokenize`` turns a string into words, ``build_vocabulary`` numbers the
words, ``count_vectors`` and ``binary_vectors`` turn documents into the
``X`` matrices that multinomial and Bernoulli naive Bayes expect.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from nbkit.text import _as_token_lists, build_vocabulary, tokenize

__all__ = ["tokenize", "build_vocabulary", "count_vectors", "binary_vectors"]

def _check_vocabulary(vocabulary) -> int:
    """Validate ``word -> index`` and return the number of columns."""
    if not isinstance(vocabulary, Mapping):
        raise ValueError(
            "vocabulary must be a dict word -> column index, e.g. from "
            f"build_vocabulary(docs); got {type(vocabulary).__name__}"
        )
    indices = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(vocabulary))
    if not np.array_equal(np.sort(indices), np.arange(len(vocabulary))):
        raise ValueError(
            "vocabulary indices must be exactly 0 .. len(vocabulary)-1, each used once; "
            "build it with build_vocabulary(docs)"
        )
    return len(vocabulary)


def count_vectors(docs, vocabulary: Mapping[str, int]) -> sp.csr_matrix:
    """Count how often each vocabulary word occurs in each document.

    Words that are not in ``vocabulary`` are ignored (they get no column):
    a test document is described only by the words seen in training.

    Parameters
    ----------
    docs : iterable of str or of list of str
        Raw documents (tokenized with :func:`tokenize`) or token lists.
    vocabulary : dict of str to int
        ``word -> column index`` with indices ``0 .. len(vocabulary)-1``,
        e.g. from :func:`build_vocabulary`.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, len(vocabulary)), dtype int64
        ``X[i, j]`` is the number of times word ``j`` occurs in document ``i``.

    Raises
    ------
    ValueError
        If ``vocabulary`` is not a valid ``word -> index`` mapping or
        ``docs`` is not a list of documents.

    Examples
    --------
    >>> vocabulary = {"lottery": 0, "you": 1}
    >>> X = count_vectors(["You! Lottery! Lottery! Lottery!!", "see you"], vocabulary)
    >>> X.toarray()
    array([[3, 1],
           [0, 1]])
    """
    n_features = _check_vocabulary(vocabulary)
    token_lists = _as_token_lists(docs)
    # Build the CSR index arrays directly (one entry per token occurrence)
    # and let scipy add up repeated (row, column) pairs once at the end.
    indptr = [0]
    indices: list[int] = []
    lookup = vocabulary.get
    for tokens in token_lists:
        indices.extend(col for col in map(lookup, tokens) if col is not None)
        indptr.append(len(indices))
    indices_arr = np.asarray(indices, dtype=np.int64)
    data = np.ones(len(indices_arr), dtype=np.int64)
    X = sp.csr_matrix(
        (data, indices_arr, np.asarray(indptr, dtype=np.int64)),
        shape=(len(token_lists), n_features),
    )
    X.sum_duplicates()
    return X


def binary_vectors(docs, vocabulary: Mapping[str, int]) -> sp.csr_matrix:
    """Mark which vocabulary words occur (1) or not (0) in each document.

    The presence/absence representation of Bernoulli naive Bayes; repeated
    words count once. Out-of-vocabulary words are ignored, as in
    :func:`count_vectors`.

    Parameters
    ----------
    docs : iterable of str or of list of str
        Raw documents (tokenized with :func:`tokenize`) or token lists.
    vocabulary : dict of str to int
        ``word -> column index`` with indices ``0 .. len(vocabulary)-1``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, len(vocabulary)), dtype int64
        ``X[i, j]`` is 1 if word ``j`` occurs in document ``i``, else 0.

    Examples
    --------
    >>> vocabulary = {"lottery": 0, "you": 1}
    >>> binary_vectors(["You! Lottery! Lottery! Lottery!!", "hi"], vocabulary).toarray()
    array([[1, 1],
           [0, 0]])
    """
    X = count_vectors(docs, vocabulary)
    X.data = np.ones_like(X.data)
    return X
