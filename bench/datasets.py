"""Synthetic data sets for the nbcore vs scikit-learn benchmark (seeded, built in memory).

Only the shapes and the kind of data matter for timing, but each set has
real class structure so that the fitted models are not degenerate.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

N_CLASSES = 5
SEED = 20240601


def gaussian_data(n_samples, n_features, n_classes=N_CLASSES, seed=SEED):
    """Dense float64 features: one normal per class with shifted means.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), C-contiguous float64
    y : ndarray of shape (n_samples,), int64 labels 0..n_classes-1
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_samples)
    class_means = rng.normal(0.0, 1.0, (n_classes, n_features))
    X = rng.standard_normal((n_samples, n_features))
    X += class_means[y]
    return X, y


def categorical_data(n_samples, n_features, n_categories=10, n_classes=N_CLASSES, seed=SEED):
    """Integer category codes 0..n_categories-1, each class with its own distribution.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), int64 codes
    y : ndarray of shape (n_samples,), int64 labels
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_samples)
    # Per class and feature, a cumulative distribution over the categories.
    probabilities = rng.dirichlet(np.ones(n_categories), (n_classes, n_features))
    cumulative = np.cumsum(probabilities, axis=2)
    uniform = rng.random((n_samples, n_features))
    X = (uniform[:, :, np.newaxis] > cumulative[y]).sum(axis=2)
    return np.minimum(X, n_categories - 1).astype(np.int64), y


def zipf_probabilities(n_words, exponent=1.0):
    """Probability of the word of rank r: proportional to 1 / r**exponent."""
    weights = 1.0 / np.arange(1, n_words + 1) ** exponent
    return weights / weights.sum()


def tokens_for_distinct_words(probabilities, distinct_words):
    """Tokens a document needs to hold ``distinct_words`` different words on average.

    The expected number of distinct words among ``t`` draws is
    ``sum_j 1 - (1 - p_j)**t``, increasing in ``t``: solved by bisection.
    """
    if distinct_words >= len(probabilities):
        raise ValueError(
            f"distinct_words={distinct_words} must be below the vocabulary size "
            f"{len(probabilities)}"
        )
    log_miss = np.log1p(-probabilities)

    def expected_distinct(tokens):
        return float(np.sum(-np.expm1(tokens * log_miss)))

    low, high = 1, 2
    while expected_distinct(high) < distinct_words:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if expected_distinct(middle) < distinct_words:
            low = middle
        else:
            high = middle
    return high


def zipf_documents(
    n_documents, n_words, distinct_words=100, n_classes=N_CLASSES, exponent=1.0, seed=SEED
):
    """Text-like sparse word counts: Zipf-distributed words, ~``distinct_words`` per document.

    Each document draws the same number of tokens from a Zipf law over word
    ranks; class ``c`` maps rank ``r`` to word ``(r + c * shift) % n_words``,
    so the classes use different frequent words.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_words), float64 counts
        Sorted indices, no duplicates (canonical CSR, as a vectorizer gives).
    y : ndarray of shape (n_documents,), int64 labels
    """
    rng = np.random.default_rng(seed)
    probabilities = zipf_probabilities(n_words, exponent)
    tokens_per_document = tokens_for_distinct_words(probabilities, distinct_words)
    y = rng.integers(0, n_classes, n_documents)
    cumulative = np.cumsum(probabilities)
    cumulative[-1] = 1.0
    shift = max(1, n_words // (2 * n_classes) + 1)
    rows = np.repeat(np.arange(n_documents, dtype=np.int64), tokens_per_document)
    # Drawn in chunks of documents to bound the memory of the temporaries.
    chunks = []
    chunk_documents = max(1, 2_000_000 // tokens_per_document)
    for start in range(0, n_documents, chunk_documents):
        stop = min(n_documents, start + chunk_documents)
        ranks = np.searchsorted(cumulative, rng.random((stop - start) * tokens_per_document))
        offsets = np.repeat(y[start:stop] * shift, tokens_per_document)
        chunks.append((ranks + offsets) % n_words)
    words = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    counts = sp.coo_matrix(
        (np.ones(len(words)), (rows, words)), shape=(n_documents, n_words)
    ).tocsr()
    counts.sum_duplicates()
    counts.sort_indices()
    return counts, y


def smoke_notebook():
    """A one-function nbgrader source notebook, for the smoke run."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    def meta(grade_id, **flags):
        return {"nbgrader": {"grade_id": grade_id, "schema_version": 3, "locked": False,
                             "solution": False, "grade": False, **flags}}

    notebook = new_notebook(cells=[
        new_markdown_cell("Write `add(a, b)`.", metadata=meta("intro", locked=True)),
        new_code_cell("def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION",
                      metadata=meta("add", solution=True)),
        new_code_cell('"""add adds."""\nassert add(1, 2) == 3',
                      metadata=meta("test_add", grade=True, locked=True, points=1)),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook

