"""Bag of words: tokens, a vocabulary, and sparse count / presence vectors.

The functions are deliberately small so that notebook 3 can teach each step:
``tokenize`` turns a string into words, ``build_vocabulary`` numbers the
words, ``count_vectors`` and ``binary_vectors`` turn documents into the
``X`` matrices that multinomial and Bernoulli naive Bayes expect.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["tokenize", "build_vocabulary", "count_vectors", "binary_vectors"]

# A token is a run of letters/digits (any script, no underscore); an apostrophe
# between two such runs stays inside the word so "don't" is one token.
_TOKEN_PATTERN = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def tokenize(text: str) -> list[str]:
    """Split a text into lower-case word tokens.

    The rule: lower-case the text, then every maximal run of letters and
    digits is a token; an apostrophe *between* two such runs is kept inside
    the token ("don't"). Everything else (spaces, punctuation, symbols,
    underscores) separates tokens and is dropped.

    Parameters
    ----------
    text : str
        The document.

    Returns
    -------
    tokens : list of str
        The tokens in the order they occur (repetitions kept).

    Raises
    ------
    ValueError
        If ``text`` is not a string.

    Examples
    --------
    >>> tokenize("You! Lottery! Lottery! Lottery!!")
    ['you', 'lottery', 'lottery', 'lottery']
    >>> tokenize("Don't miss: WIN 1000 pounds_now")
    ["don't", 'miss', 'win', '1000', 'pounds', 'now']
    """
    if not isinstance(text, str):
        raise ValueError(
            f"tokenize expects one document as a str, got {type(text).__name__}; "
            "to tokenize several documents call it once per document"
        )
    return _TOKEN_PATTERN.findall(text.lower())


def _as_token_lists(docs) -> list[Sequence[str]]:
    """Tokenize raw strings; pass token lists through unchanged."""
    if isinstance(docs, str):
        raise ValueError(
            "docs must be a list of documents, got a single str; "
            "wrap it in a list: [text]"
        )
    if sp.issparse(docs) or isinstance(docs, np.ndarray) and docs.ndim != 1:
        raise ValueError(
            "docs must be a list of documents (strings or lists of tokens), "
            f"got an array of shape {getattr(docs, 'shape', None)}"
        )
    token_lists = []
    for i, doc in enumerate(docs):
        if isinstance(doc, str):
            token_lists.append(tokenize(doc))
            continue
        tokens = list(doc) if isinstance(doc, Iterable) else None
        if tokens is not None and all(isinstance(t, str) for t in tokens):
            token_lists.append(tokens)
        else:
            raise ValueError(
                f"document {i} is a {type(doc).__name__}; each document must be a "
                "str or a list of str tokens"
            )
    return token_lists


def build_vocabulary(docs, min_count: int = 1) -> dict[str, int]:
    """Number the distinct words of a corpus, in alphabetical order.

    Parameters
    ----------
    docs : iterable of str or of list of str
        Raw documents (tokenized with :func:`tokenize`) or documents that are
        already lists of tokens (used as they are).
    min_count : int, default=1
        Keep a word only if it occurs at least ``min_count`` times in the
        whole corpus (total occurrences, not number of documents).

    Returns
    -------
    vocabulary : dict of str to int
        ``word -> column index``; the words are sorted, so index 0 is the
        alphabetically first word.

    Raises
    ------
    ValueError
        If ``min_count`` is not a positive integer or ``docs`` is not a list
        of documents.

    Examples
    --------
    >>> build_vocabulary(["Chinese Beijing Chinese", "Tokyo Japan Chinese"])
    {'beijing': 0, 'chinese': 1, 'japan': 2, 'tokyo': 3}
    >>> build_vocabulary([["b", "a", "b"], ["c"]], min_count=2)
    {'b': 0}
    """
    if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer, got {min_count!r}")
    counts = Counter()
    for tokens in _as_token_lists(docs):
        counts.update(tokens)
    kept = sorted(word for word, count in counts.items() if count >= min_count)
    return {word: index for index, word in enumerate(kept)}


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
