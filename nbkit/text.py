"""Words from text: the tokenizer and vocabulary the course's datasets use.

Not graded: notebook 3 asks for ``count_vectors`` and notebook 4 for
``binary_vectors``, which turn the tokens and the vocabulary built here into
the ``X`` matrices of multinomial and Bernoulli naive Bayes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["tokenize", "build_vocabulary"]

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
