"""Seeded synthetic data whose true parameters are known.

Each generator returns the sampled data together with the parameters it
was drawn from (``class_prior``, ``word_probs``, ``theta``, ``var``), so a
notebook can show estimates converging to the truth as the sample grows.
The same ``seed`` always gives the same data.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

__all__ = ["make_text_corpus", "make_spam_corpus", "make_gaussian_classes"]

# Two-letter syllables in alphabetical order; fake words are fixed-width
# strings of them, so sorting the words alphabetically keeps their index order.
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def _fake_words(n_words: int) -> list[str]:
    """``n_words`` distinct pronounceable words, alphabetically sorted."""
    width = 1
    while len(_SYLLABLES) ** width < n_words:
        width += 1
    words = ("".join(parts) for parts in itertools.product(_SYLLABLES, repeat=width))
    return list(itertools.islice(words, n_words))


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check_class_prior(class_prior, n_classes):
    """Validate a user prior, or return the uniform one."""
    if class_prior is None:
        return np.full(n_classes, 1.0 / n_classes)
    class_prior = np.asarray(class_prior, dtype=np.float64)
    if (
        class_prior.shape != (n_classes,)
        or np.any(class_prior < 0)
        or not np.isclose(class_prior.sum(), 1.0)
    ):
        raise ValueError(
            f"class_prior must be {n_classes} non-negative numbers summing to 1 "
            f"(one per class), got {class_prior.tolist()}"
        )
    return class_prior


def _sample_corpus(word_probs, class_prior, n_docs, doc_length, fixed_length, rng, words):
    """Draw labels, lengths and words; return y, sparse counts and documents."""
    n_classes, n_features = word_probs.shape
    y = rng.choice(n_classes, size=n_docs, p=class_prior)
    if fixed_length:
        lengths = np.full(n_docs, doc_length, dtype=np.int64)
    else:
        # At least one word per document; mean length doc_length.
        lengths = 1 + rng.poisson(doc_length - 1, size=n_docs)
    # Draw all tokens of one class at once (memory O(total tokens), not
    # O(n_docs * n_features)); the tokens of document i fill
    # tokens[starts[i]:starts[i + 1]], i.e. the CSR layout of row i.
    tokens = np.empty(lengths.sum(), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    token_class = np.repeat(y, lengths)
    for c in range(n_classes):
        in_class = token_class == c
        tokens[in_class] = rng.choice(n_features, size=int(in_class.sum()), p=word_probs[c])
    X = sp.csr_matrix(
        (np.ones_like(tokens), tokens, starts.astype(np.int64)), shape=(n_docs, n_features)
    )
    X.sum_duplicates()
    return y, X, _documents(words, tokens, starts)


def _documents(words, tokens, starts):
    """Document ``i`` is its words ``tokens[starts[i]:starts[i + 1]]`` joined by spaces.

    When the words all have the same width (the fake words of ``make_text_corpus``), the
    whole corpus is written as one string in one go (a lookup table of the words' bytes,
    each followed by a space) and each document is a slice of it: a join per document
    cost seconds on the corpora of notebook 4's length experiment."""
    if len({len(word) for word in words}) > 1 or not all(word.isascii() for word in words):
        word_array = np.asarray(words)
        return [" ".join(word_array[tokens[start:end]]) for start, end in zip(starts[:-1], starts[1:])]
    step = len(words[0]) + 1
    table = np.frombuffer("".join(f"{word} " for word in words).encode("ascii"), dtype=np.uint8)
    text = table.reshape(len(words), step)[tokens].tobytes().decode("ascii")
    bounds = (starts * step).tolist()
    return [text[start : end - 1] for start, end in zip(bounds[:-1], bounds[1:])]


def make_text_corpus(
    n_docs: int = 500,
    vocab_size: int = 1000,
    n_classes: int = 2,
    doc_length: int = 50,
    seed: int = 0,
    *,
    zipf_exponent: float = 1.0,
    class_spread: float = 1.0,
    class_prior=None,
    fixed_length: bool = False,
) -> Bunch:
    """A corpus drawn from known per-class word distributions (the multinomial model).

    The true word distribution of class ``c`` is a Zipf-like base
    distribution (word ``j`` has weight ``1 / (j + 1) ** zipf_exponent``)
    multiplied by a class-specific log-normal factor
    ``exp(class_spread * z_cj)``, ``z_cj ~ N(0, 1)``, then normalised. Each
    document draws its class from ``class_prior``, its length from
    ``1 + Poisson(doc_length - 1)`` (or exactly ``doc_length``), and its
    words independently from its class's distribution.

    Parameters
    ----------
    n_docs : int, default=500
        Number of documents.
    vocab_size : int, default=1000
        Number of distinct words (columns of ``X``).
    n_classes : int, default=2
        Number of classes.
    doc_length : int, default=50
        Mean number of words per document.
    seed : int, default=0
        Seed of ``numpy.random.default_rng``; the same seed gives the same corpus.
    zipf_exponent : float, default=1.0
        How fast word frequencies decay with rank (0 = all words equally likely).
    class_spread : float, default=1.0
        How different the classes' word distributions are (0 = identical).
    class_prior : array-like of shape (n_classes,), default=None
        True class probabilities; uniform when None.
    fixed_length : bool, default=False
        Give every document exactly ``doc_length`` words.

    Returns
    -------
    data : Bunch
        ``X`` (scipy.sparse CSR counts, int64, (n_docs, vocab_size)), ``y``,
        ``documents`` (the words as strings; :func:`nbkit.text.tokenize`
        gives them back), ``feature_names`` (the fake words, alphabetical, so
        column ``j`` is the ``j``-th word), ``vocabulary``, ``classes``,
        ``target_names``, the TRUE ``class_prior`` (n_classes,) and
        ``word_probs`` (n_classes, vocab_size; rows sum to 1), and
        ``description``.

    Raises
    ------
    ValueError
        If a size is not a positive integer, ``vocab_size`` or ``n_classes``
        is below 2, or ``class_prior`` is not a probability vector.

    Examples
    --------
    >>> data = make_text_corpus(n_docs=4, vocab_size=20, doc_length=5, seed=1)
    >>> data.X.shape, data.word_probs.shape
    ((4, 20), (2, 20))
    >>> bool(abs(data.word_probs.sum(axis=1) - 1).max() < 1e-12)
    True
    >>> data.feature_names[:3].tolist()
    ['ba', 'be', 'bi']
    """
    for value, name in [(n_docs, "n_docs"), (vocab_size, "vocab_size"),
                        (n_classes, "n_classes"), (doc_length, "doc_length")]:
        _check_positive_int(value, name)
    if vocab_size < 2 or n_classes < 2:
        raise ValueError(
            f"vocab_size and n_classes must be at least 2, got {vocab_size} and {n_classes}"
        )
    if zipf_exponent < 0 or class_spread < 0:
        raise ValueError("zipf_exponent and class_spread must be >= 0")
    class_prior = _check_class_prior(class_prior, n_classes)
    rng = np.random.default_rng(seed)

    base = 1.0 / np.arange(1, vocab_size + 1) ** zipf_exponent
    weights = base * np.exp(class_spread * rng.standard_normal((n_classes, vocab_size)))
    word_probs = weights / weights.sum(axis=1, keepdims=True)

    words = _fake_words(vocab_size)
    y, X, documents = _sample_corpus(
        word_probs, class_prior, n_docs, doc_length, fixed_length, rng, words
    )
    return Bunch(
        X=X,
        y=y,
        documents=documents,
        feature_names=np.array(words),
        vocabulary={word: j for j, word in enumerate(words)},
        classes=np.arange(n_classes),
        target_names=np.array([f"class_{c}" for c in range(n_classes)]),
        class_prior=class_prior,
        word_probs=word_probs,
        description=(
            f"Synthetic multinomial corpus: {n_docs} documents, {vocab_size} words, "
            f"{n_classes} classes, mean length {doc_length}, seed {seed}; "
            "class_prior and word_probs are the true parameters."
        ),
    )


# Readable words for the spam-like corpus. Each class draws its own list
# more often; the shared list is common to both (function words).
SPAM_WORDS = (
    "free win winner prize cash claim urgent offer bonus click money guaranteed "
    "lottery credit loan discount cheap deal reward voucher subscribe unsubscribe "
    "txt mobile ringtone award selected congratulations call now limited"
).split()
HAM_WORDS = (
    "meeting lunch tomorrow project report dinner thanks home later sorry "
    "love mum class lecture weekend tonight coffee bus train see soon "
    "work family birthday football movie homework remember ok"
).split()
SHARED_WORDS = (
    "the you to a i and is it in for of me my your on have be can will "
    "at this that do get so we what are not just with know go but if"
).split()


def make_spam_corpus(
    n_docs: int = 1000,
    seed: int = 0,
    *,
    spam_fraction: float = 0.3,
    doc_length: int = 15,
    boost: float = 8.0,
) -> Bunch:
    """A short-message corpus with readable words and a known spam model.

    Both classes share a Zipf-like distribution over a vocabulary of
    function words, spam-flavoured words (``SPAM_WORDS``) and
    ham-flavoured words (``HAM_WORDS``); spam multiplies the weight of the
    spam words by ``boost`` and ham does the same for the ham words. So the
    truly most spam-indicative words are known, and "list the top log-odds
    words" has a right answer.

    Parameters
    ----------
    n_docs : int, default=1000
        Number of messages.
    seed : int, default=0
        Seed of ``numpy.random.default_rng``.
    spam_fraction : float, default=0.3
        True P(spam), in (0, 1).
    doc_length : int, default=15
        Mean number of words per message.
    boost : float, default=8.0
        How much more often a class uses its own flavoured words (>= 1).

    Returns
    -------
    data : Bunch
        As :func:`make_text_corpus` (``X``, ``y``, ``documents``,
        ``feature_names``, ``vocabulary``, ``classes``, ``class_prior``,
        ``word_probs``, ``description``), with ``target_names`` ``["ham",
        "spam"]`` and the lists ``spam_words`` and ``ham_words``.

    Raises
    ------
    ValueError
        If ``spam_fraction`` is not in (0, 1) or ``boost`` is below 1.

    Examples
    --------
    >>> data = make_spam_corpus(n_docs=5, seed=3)
    >>> data.target_names.tolist(), data.X.shape[0]
    (['ham', 'spam'], 5)
    >>> data.documents[0].split()[0] in data.vocabulary
    True
    """
    _check_positive_int(n_docs, "n_docs")
    _check_positive_int(doc_length, "doc_length")
    if not 0 < spam_fraction < 1:
        raise ValueError(f"spam_fraction must lie strictly between 0 and 1, got {spam_fraction!r}")
    if boost < 1:
        raise ValueError(f"boost must be >= 1 (1 = no difference between classes), got {boost!r}")
    rng = np.random.default_rng(seed)

    words = sorted(set(SHARED_WORDS) | set(SPAM_WORDS) | set(HAM_WORDS))
    index = {word: j for j, word in enumerate(words)}
    # A seeded random rank for each word gives a Zipf-like base frequency.
    ranks = rng.permutation(len(words)) + 1
    base = 1.0 / ranks
    base[[index[w] for w in SHARED_WORDS]] *= 3.0  # function words are the most common
    weights = np.vstack([base, base])
    weights[0, [index[w] for w in HAM_WORDS]] *= boost
    weights[1, [index[w] for w in SPAM_WORDS]] *= boost
    word_probs = weights / weights.sum(axis=1, keepdims=True)
    class_prior = np.array([1.0 - spam_fraction, spam_fraction])

    y, X, documents = _sample_corpus(
        word_probs, class_prior, n_docs, doc_length, False, rng, words
    )
    return Bunch(
        X=X,
        y=y,
        documents=documents,
        feature_names=np.array(words),
        vocabulary=index,
        classes=np.arange(2),
        target_names=np.array(["ham", "spam"]),
        class_prior=class_prior,
        word_probs=word_probs,
        spam_words=list(SPAM_WORDS),
        ham_words=list(HAM_WORDS),
        description=(
            f"Synthetic spam-like messages: {n_docs} messages, {len(words)} words, "
            f"P(spam) = {spam_fraction}, mean length {doc_length}, seed {seed}; "
            "spam uses SPAM_WORDS and ham uses HAM_WORDS "
            f"{boost:g} times more often than the base rate."
        ),
    )


def make_gaussian_classes(
    n_samples: int = 200,
    n_features: int = 2,
    n_classes: int = 2,
    shared_variance: bool = True,
    seed: int = 0,
    *,
    class_sep: float = 2.0,
    class_prior=None,
) -> Bunch:
    """Samples from class-conditional Gaussians with diagonal covariance.

    Class means ``theta[c]`` are drawn from N(0, class_sep**2) per feature;
    variances from Uniform(0.5, 2) per feature, the same for every class if
    ``shared_variance`` (then naive Bayes has a linear boundary) or drawn
    per class otherwise (quadratic boundary). Each sample draws its class
    from ``class_prior``, then ``x ~ N(theta[y], diag(var[y]))``.

    Parameters
    ----------
    n_samples : int, default=200
    n_features : int, default=2
    n_classes : int, default=2
    shared_variance : bool, default=True
        One variance per feature, shared by the classes.
    seed : int, default=0
        Seed of ``numpy.random.default_rng``.
    class_sep : float, default=2.0
        Scale of the spread of the class means.
    class_prior : array-like of shape (n_classes,), default=None
        True class probabilities; uniform when None.

    Returns
    -------
    data : Bunch
        ``X`` (n_samples, n_features), ``y``, ``classes``, ``target_names``,
        ``feature_names``, the TRUE ``class_prior``, ``theta`` and ``var``
        (each (n_classes, n_features); with ``shared_variance`` the rows of
        ``var`` are equal), ``shared_variance`` and ``description``.

    Examples
    --------
    >>> data = make_gaussian_classes(n_samples=10, seed=0)
    >>> data.X.shape, data.theta.shape, bool((data.var[0] == data.var[1]).all())
    ((10, 2), (2, 2), True)
    """
    for value, name in [(n_samples, "n_samples"), (n_features, "n_features"),
                        (n_classes, "n_classes")]:
        _check_positive_int(value, name)
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}")
    class_prior = _check_class_prior(class_prior, n_classes)
    rng = np.random.default_rng(seed)

    theta = class_sep * rng.standard_normal((n_classes, n_features))
    if shared_variance:
        var = np.tile(rng.uniform(0.5, 2.0, size=n_features), (n_classes, 1))
    else:
        var = rng.uniform(0.5, 2.0, size=(n_classes, n_features))
    y = rng.choice(n_classes, size=n_samples, p=class_prior)
    X = theta[y] + np.sqrt(var[y]) * rng.standard_normal((n_samples, n_features))
    return Bunch(
        X=X,
        y=y,
        classes=np.arange(n_classes),
        target_names=np.array([f"class_{c}" for c in range(n_classes)]),
        feature_names=np.array([f"x{j}" for j in range(n_features)]),
        class_prior=class_prior,
        theta=theta,
        var=var,
        shared_variance=bool(shared_variance),
        description=(
            f"Synthetic Gaussian classes: {n_samples} samples, {n_features} features, "
            f"{n_classes} classes, shared_variance={bool(shared_variance)}, seed {seed}; "
            "class_prior, theta and var are the true parameters."
        ),
    )
