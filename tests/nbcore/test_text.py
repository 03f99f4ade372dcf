"""Tests of nbcore.text (tokens, vocabulary, sparse count/presence vectors).

Expected values are typed by hand; scikit-learn's CountVectorizer is the
oracle for the counting on larger corpora. Runtime: about 2 s.
"""

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from nbcore.text import binary_vectors, build_vocabulary, count_vectors, tokenize

IIR_DOCS = [
    "Chinese Beijing Chinese",
    "Chinese Chinese Shanghai",
    "Chinese Macao",
    "Tokyo Japan Chinese",
]


# --- tokenize -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("You! Lottery! Lottery! Lottery!!", ["you", "lottery", "lottery", "lottery"]),
        ("Hi, wanna have dinner?", ["hi", "wanna", "have", "dinner"]),
        ("Win lottery; get rich today!", ["win", "lottery", "get", "rich", "today"]),
        ("Don't STOP", ["don't", "stop"]),
        ("'quoted' text", ["quoted", "text"]),
        ("call 0800-123 now", ["call", "0800", "123", "now"]),
        ("snake_case words", ["snake", "case", "words"]),
        ("Café crème", ["café", "crème"]),
        ("", []),
        ("!!! ... ???", []),
    ],
)
def test_tokenize_follows_the_documented_rule(text, expected):
    assert tokenize(text) == expected


def test_tokenize_rejects_a_list():
    with pytest.raises(ValueError, match="one document as a str"):
        tokenize(["two", "documents"])


# --- build_vocabulary -----------------------------------------------------------


def test_build_vocabulary_iir_is_sorted_and_numbered():
    assert build_vocabulary(IIR_DOCS) == {
        "beijing": 0, "chinese": 1, "japan": 2, "macao": 3, "shanghai": 4, "tokyo": 5,
    }


def test_build_vocabulary_accepts_token_lists_like_raw_text():
    token_lists = [doc.lower().split() for doc in IIR_DOCS]
    assert build_vocabulary(token_lists) == build_vocabulary(IIR_DOCS)


def test_build_vocabulary_min_count_uses_total_occurrences():
    # "chinese" occurs 5 times; every other word once.
    assert build_vocabulary(IIR_DOCS, min_count=2) == {"chinese": 0}
    # Two occurrences in ONE document are enough.
    assert build_vocabulary(["a a", "b"], min_count=2) == {"a": 0}


@pytest.mark.parametrize("min_count", [0, -1, 1.5, True, "2"])
def test_build_vocabulary_rejects_bad_min_count(min_count):
    with pytest.raises(ValueError, match="min_count must be a positive integer"):
        build_vocabulary(IIR_DOCS, min_count=min_count)


def test_build_vocabulary_rejects_a_single_string():
    with pytest.raises(ValueError, match=r"wrap it in a list"):
        build_vocabulary("Chinese Beijing Chinese")


def test_build_vocabulary_rejects_documents_that_are_not_text():
    with pytest.raises(ValueError, match="document 1 is a int"):
        build_vocabulary(["fine", 3])


# --- count_vectors / binary_vectors --------------------------------------------


def test_count_vectors_iir_by_hand():
    vocabulary = build_vocabulary(IIR_DOCS)
    X = count_vectors(IIR_DOCS + ["Chinese Chinese Chinese Tokyo Japan"], vocabulary)
    assert sp.isspmatrix_csr(X)
    assert X.dtype == np.int64
    #                  beijing chinese japan macao shanghai tokyo
    expected = np.array([[1, 2, 0, 0, 0, 0],
                         [0, 2, 0, 0, 1, 0],
                         [0, 1, 0, 1, 0, 0],
                         [0, 1, 1, 0, 0, 1],
                         [0, 3, 1, 0, 0, 1]])
    np.testing.assert_array_equal(X.toarray(), expected)


def test_count_vectors_ignores_unknown_words_and_keeps_empty_rows():
    vocabulary = {"lottery": 0, "you": 1}
    X = count_vectors(["you won the lottery lottery", "", "nothing known"], vocabulary)
    np.testing.assert_array_equal(X.toarray(), [[2, 1], [0, 0], [0, 0]])


def test_count_vectors_accepts_token_lists_and_generators():
    vocabulary = {"a": 0, "b": 1}
    X = count_vectors([["b", "a", "b"], (t for t in ["a"])], vocabulary)
    np.testing.assert_array_equal(X.toarray(), [[1, 2], [1, 0]])


def test_count_vectors_stores_no_duplicate_entries():
    X = count_vectors(["a a a b a"], {"a": 0, "b": 1})
    assert X.has_canonical_format
    assert X.nnz == 2


def test_binary_vectors_marks_presence_only():
    vocabulary = build_vocabulary(IIR_DOCS)
    X = binary_vectors(["Chinese Chinese Chinese Tokyo Japan", "Macao"], vocabulary)
    assert sp.isspmatrix_csr(X)
    np.testing.assert_array_equal(X.toarray(), [[0, 1, 1, 0, 0, 1], [0, 0, 0, 1, 0, 0]])


@pytest.mark.parametrize(
    "vocabulary, message",
    [
        (["a", "b"], "dict word -> column index"),
        ({"a": 0, "b": 2}, "exactly 0 .. len"),
        ({"a": 1, "b": 1}, "exactly 0 .. len"),
    ],
)
def test_count_vectors_rejects_a_bad_vocabulary(vocabulary, message):
    with pytest.raises(ValueError, match=message):
        count_vectors(["a b"], vocabulary)


def _random_corpus(n_docs, seed):
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(300)])
    lengths = rng.integers(0, 30, size=n_docs)
    return [" ".join(rng.choice(words, size=n)) for n in lengths]


def test_counts_match_scikit_learn_countvectorizer():
    docs = _random_corpus(400, seed=0)
    oracle = CountVectorizer(tokenizer=str.split, lowercase=False, token_pattern=None)
    expected = oracle.fit_transform(docs)
    vocabulary = build_vocabulary(docs)
    assert vocabulary == oracle.vocabulary_
    X = count_vectors(docs, vocabulary)
    np.testing.assert_array_equal(X.toarray(), expected.toarray())
    np.testing.assert_array_equal(binary_vectors(docs, vocabulary).toarray(),
                                  (expected.toarray() > 0).astype(int))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=8), max_size=6))
def test_row_sums_count_the_in_vocabulary_tokens(token_lists):
    vocabulary = {"a": 0, "b": 1, "c": 2}  # "d" is out of vocabulary
    X = count_vectors(token_lists, vocabulary)
    assert X.shape == (len(token_lists), 3)
    expected = [sum(t != "d" for t in tokens) for tokens in token_lists]
    np.testing.assert_array_equal(np.asarray(X.sum(axis=1)).ravel(), expected)
    B = binary_vectors(token_lists, vocabulary)
    assert (B.toarray() <= np.minimum(X.toarray(), 1)).all()
    assert (B.toarray() >= np.minimum(X.toarray(), 1)).all()


def test_fast_enough_for_tens_of_thousands_of_documents():
    docs = _random_corpus(20_000, seed=1)
    start = time.perf_counter()
    vocabulary = build_vocabulary(docs)
    X = count_vectors(docs, vocabulary)
    elapsed = time.perf_counter() - start
    assert X.shape == (20_000, len(vocabulary))
    # About 0.3 s on a laptop; the bound only catches per-cell Python loops.
    assert elapsed < 10, f"20,000 documents took {elapsed:.1f} s"
