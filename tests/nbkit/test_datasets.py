"""Tests of nbkit.datasets: the worked tables, the bundled sets, the generators.

The worked tables are checked against counts typed from the lecture notes
(in ../shared/seeds), not against anything nbcore computes. Runtime: about 4 s.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import datasets as sk_datasets

from nbkit import datasets
from nbkit.datasets.synthetic import HAM_WORDS, SHARED_WORDS, SPAM_WORDS
from nbcore.text import count_vectors

WORKED_TABLES = [datasets.car_theft, datasets.play_tennis]
WORKED_TEXTS = [datasets.iir_china_documents, datasets.seven_emails]
COMMON_FIELDS = {"frame", "X", "y", "classes", "target_names", "feature_names",
                 "query", "X_query", "description"}


# --- every worked example ---------------------------------------------------------


@pytest.mark.parametrize("loader", WORKED_TABLES + WORKED_TEXTS + [datasets.five_customers])
def test_worked_examples_share_one_layout(loader):
    data = loader()
    assert COMMON_FIELDS <= set(data)
    n_samples, n_features = data.X.shape
    assert data.y.shape == (n_samples,)
    assert len(data.frame) == n_samples
    assert data.X_query.shape == (1, n_features)
    assert len(data.feature_names) == n_features
    np.testing.assert_array_equal(data.classes, np.arange(len(data.target_names)))
    assert set(data.y) == set(data.classes)
    assert isinstance(data.description, str) and len(data.description) > 40


@pytest.mark.parametrize("loader", WORKED_TABLES + WORKED_TEXTS + [datasets.five_customers,
                                                                   datasets.medical_test])
def test_worked_examples_are_fresh_copies(loader):
    # A notebook that edits its copy must not change the next student's data.
    key = "X" if "X" in loader() else "prior"
    first = loader()[key]
    (first.data if sp.issparse(first) else first)[...] = 0
    second = loader()[key]
    assert (second.data if sp.issparse(second) else second).any()


@pytest.mark.parametrize("loader", WORKED_TABLES)
def test_categorical_codes_decode_back_to_the_table(loader):
    data = loader()
    for j, name in enumerate(data.feature_names):
        decoded = data.categories[j][data.X[:, j]]
        np.testing.assert_array_equal(decoded, data.frame[name].to_numpy())
        assert data.n_categories[j] == len(data.categories[j])
        assert data.encoder[name] == {v: k for k, v in enumerate(data.categories[j])}
    np.testing.assert_array_equal(data.target_names[data.y], data.frame[data.target_name])
    query_codes = [data.encoder[name][data.query[name]] for name in data.feature_names]
    np.testing.assert_array_equal(data.X_query, [query_codes])


def _count(frame, **conditions):
    mask = np.ones(len(frame), dtype=bool)
    for column, value in conditions.items():
        mask &= (frame[column] == value).to_numpy()
    return int(mask.sum())


def test_car_theft_counts_match_the_lecture():
    frame = datasets.car_theft().frame
    assert _count(frame, Stolen="Yes") == 5 and _count(frame, Stolen="No") == 5
    assert _count(frame, Color="Red", Stolen="Yes") == 3
    assert _count(frame, Color="Red", Stolen="No") == 2
    assert _count(frame, Type="SUV", Stolen="Yes") == 1
    assert _count(frame, Type="SUV", Stolen="No") == 3
    assert _count(frame, Origin="Domestic", Stolen="Yes") == 2
    assert _count(frame, Origin="Domestic", Stolen="No") == 3


def test_play_tennis_counts_match_mitchell():
    data = datasets.play_tennis()
    frame = data.frame
    assert list(frame.index[:2]) == ["D1", "D2"]
    assert _count(frame, PlayTennis="Yes") == 9 and _count(frame, PlayTennis="No") == 5
    for feature, value, yes, no in [("Outlook", "Sunny", 2, 3), ("Temperature", "Cool", 3, 1),
                                    ("Humidity", "High", 3, 4), ("Wind", "Strong", 3, 3),
                                    ("Outlook", "Overcast", 4, 0)]:
        assert _count(frame, **{feature: value, "PlayTennis": "Yes"}) == yes
        assert _count(frame, **{feature: value, "PlayTennis": "No"}) == no
    assert data.query == {"Outlook": "Sunny", "Temperature": "Cool",
                          "Humidity": "High", "Wind": "Strong"}


def test_iir_documents_counts():
    data = datasets.iir_china_documents()
    china = data.y == data.target_names.tolist().index("china")
    chinese = data.vocabulary["chinese"]
    assert china.sum() == 3
    assert data.X[china].sum() == 8 and data.X[~china].sum() == 3
    assert data.X[china][:, chinese].sum() == 5 and data.X[~china][:, chinese].sum() == 1
    assert sp.issparse(data.X) and sp.issparse(data.X_query)
    np.testing.assert_array_equal(data.X_binary.toarray(), (data.X.toarray() > 0).astype(int))
    np.testing.assert_array_equal(data.X_query_binary.toarray(), [[0, 1, 1, 0, 0, 1]])


def test_seven_emails_counts_match_the_lecture():
    data = datasets.seven_emails()
    spam = data.y == data.target_names.tolist().index("spam")
    assert spam.sum() == 3 and (~spam).sum() == 4
    assert sorted(data.vocabulary) == sorted(
        "buy lottery wanna get rich today win hi see you at dinner have nice".split())
    counts = {name: data.X[rows].toarray().sum(axis=0) for name, rows in
              [("spam", spam), ("ham", ~spam)]}
    column = data.vocabulary
    # The lecture's table: spam buy 1, lottery 2, wanna 1, dinner 0; ham lottery 1, dinner 4, you 2.
    assert counts["spam"][column["buy"]] == 1 and counts["spam"][column["lottery"]] == 2
    assert counts["spam"][column["wanna"]] == 1 and counts["spam"][column["dinner"]] == 0
    assert counts["ham"][column["lottery"]] == 1 and counts["ham"][column["dinner"]] == 4
    assert counts["ham"][column["you"]] == 2 and counts["spam"][column["you"]] == 0
    assert counts["spam"].sum() == 11 and counts["ham"].sum() == 16
    query = data.X_query.toarray()[0]
    assert query[column["lottery"]] == 3 and query[column["you"]] == 1 and query.sum() == 4


def test_five_customers_values():
    data = datasets.five_customers()
    np.testing.assert_array_equal(data.X[1], [9.77, 6.82, 0.55])
    np.testing.assert_array_equal(data.target_names[data.y],
                                  ["drop out", "complete", "drop out", "drop out", "complete"])
    np.testing.assert_array_equal(data.X_query, [[2.51, 4.38, 2.51]])
    assert data.frame["outcome"].tolist()[0] == "drop out"


def test_medical_test_numbers():
    data = datasets.medical_test()
    np.testing.assert_array_equal(data.prior, [0.008, 0.992])
    np.testing.assert_array_equal(data.likelihood, [0.98, 0.03])
    assert data.target_names.tolist() == ["cancer", "no cancer"]
    np.testing.assert_allclose(data.frame["P(- | h)"], [0.02, 0.97])


# --- bundled with scikit-learn -------------------------------------------------------


@pytest.mark.parametrize("loader, shape, n_classes", [
    (datasets.load_iris, (150, 4), 3),
    (datasets.load_wine, (178, 13), 3),
    (datasets.load_breast_cancer, (569, 30), 2),
    (datasets.load_digits, (1797, 64), 10),
])
def test_bundled_loaders(loader, shape, n_classes):
    data = loader()
    assert data.X.shape == shape and data.X.dtype == np.float64
    assert len(data.feature_names) == shape[1]
    np.testing.assert_array_equal(data.classes, np.arange(n_classes))
    assert len(data.target_names) == n_classes
    assert isinstance(data.frame, pd.DataFrame)


def test_digits_categorical_codes():
    data = datasets.load_digits_categorical()
    raw = sk_datasets.load_digits()
    assert data.X.dtype == np.int64
    np.testing.assert_array_equal(data.X, raw.data)
    assert data.n_categories == [17] * 64
    assert data.X.min() == 0 and data.X.max() == 16


@pytest.mark.parametrize("threshold", [0, 8, 15.5])
def test_digits_binary_threshold_is_strict(threshold):
    data = datasets.load_digits_binary(threshold)
    raw = sk_datasets.load_digits().data
    np.testing.assert_array_equal(data.X, (raw > threshold).astype(np.int64))
    assert data.threshold == threshold


@pytest.mark.parametrize("threshold", [-1, 16, 20])
def test_digits_binary_rejects_useless_thresholds(threshold):
    with pytest.raises(ValueError, match=r"threshold must lie in \[0, 16\)"):
        datasets.load_digits_binary(threshold)


# --- synthetic text --------------------------------------------------------------


def test_make_text_corpus_is_deterministic_per_seed():
    a = datasets.make_text_corpus(n_docs=50, vocab_size=40, seed=7)
    b = datasets.make_text_corpus(n_docs=50, vocab_size=40, seed=7)
    c = datasets.make_text_corpus(n_docs=50, vocab_size=40, seed=8)
    assert (a.X != b.X).nnz == 0 and a.documents == b.documents
    np.testing.assert_array_equal(a.word_probs, b.word_probs)
    assert not np.array_equal(a.word_probs, c.word_probs)


def test_make_text_corpus_true_parameters_are_distributions():
    data = datasets.make_text_corpus(n_docs=10, vocab_size=30, n_classes=3,
                                     class_prior=[0.2, 0.3, 0.5], seed=0)
    assert data.word_probs.shape == (3, 30)
    assert (data.word_probs > 0).all()
    np.testing.assert_allclose(data.word_probs.sum(axis=1), 1.0)
    np.testing.assert_array_equal(data.class_prior, [0.2, 0.3, 0.5])


def test_make_text_corpus_documents_give_back_the_counts():
    data = datasets.make_text_corpus(n_docs=60, vocab_size=50, n_classes=3, seed=2)
    assert data.feature_names.tolist() == sorted(data.feature_names.tolist())
    assert len(set(data.feature_names.tolist())) == 50
    recounted = count_vectors(data.documents, data.vocabulary)
    assert (recounted != data.X).nnz == 0


def test_make_text_corpus_lengths():
    fixed = datasets.make_text_corpus(n_docs=30, doc_length=7, fixed_length=True, seed=0)
    np.testing.assert_array_equal(np.asarray(fixed.X.sum(axis=1)).ravel(), 7)
    varied = datasets.make_text_corpus(n_docs=2000, vocab_size=20, doc_length=30, seed=0)
    lengths = np.asarray(varied.X.sum(axis=1)).ravel()
    assert lengths.min() >= 1
    assert abs(lengths.mean() - 30) < 1.0  # standard error about 0.12


def test_make_text_corpus_estimates_converge_to_the_truth():
    data = datasets.make_text_corpus(n_docs=4000, vocab_size=30, doc_length=50,
                                     class_prior=[0.3, 0.7], seed=3)
    empirical_prior = np.bincount(data.y) / len(data.y)
    np.testing.assert_allclose(empirical_prior, [0.3, 0.7], atol=0.03)
    for c in range(2):
        counts = np.asarray(data.X[data.y == c].sum(axis=0)).ravel()
        np.testing.assert_allclose(counts / counts.sum(), data.word_probs[c], atol=0.005)


def test_make_text_corpus_zero_spread_means_identical_classes():
    data = datasets.make_text_corpus(n_docs=5, vocab_size=10, class_spread=0.0,
                                     zipf_exponent=0.0, seed=0)
    np.testing.assert_allclose(data.word_probs, 0.1)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_docs": 0}, "n_docs must be a positive integer"),
    ({"vocab_size": 1}, "at least 2"),
    ({"n_classes": 2, "class_prior": [0.5, 0.6]}, "class_prior must be 2 non-negative"),
    ({"doc_length": 2.5}, "doc_length must be a positive integer"),
    ({"class_spread": -1.0}, "must be >= 0"),
])
def test_make_text_corpus_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        datasets.make_text_corpus(**kwargs)


def test_spam_word_lists_are_disjoint():
    assert not set(SPAM_WORDS) & set(HAM_WORDS)
    assert not set(SHARED_WORDS) & (set(SPAM_WORDS) | set(HAM_WORDS))


def test_make_spam_corpus_truth_and_top_words():
    data = datasets.make_spam_corpus(n_docs=3000, seed=0)
    assert data.target_names.tolist() == ["ham", "spam"]
    np.testing.assert_allclose(data.word_probs.sum(axis=1), 1.0)
    spam_cols = [data.vocabulary[w] for w in SPAM_WORDS]
    ham_cols = [data.vocabulary[w] for w in HAM_WORDS]
    true_log_odds = np.log(data.word_probs[1]) - np.log(data.word_probs[0])
    assert true_log_odds[spam_cols].min() > 0 > true_log_odds[ham_cols].max()
    # The words an add-one count estimate ranks most spam-indicative are spam words.
    counts = np.vstack([np.asarray(data.X[data.y == c].sum(axis=0)).ravel() for c in (0, 1)])
    smoothed = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
    top = np.argsort(np.log(smoothed[1]) - np.log(smoothed[0]))[-10:]
    assert set(data.feature_names[top]) <= set(SPAM_WORDS)
    assert abs(data.y.mean() - 0.3) < 0.03


@pytest.mark.parametrize("kwargs, message", [
    ({"spam_fraction": 1.0}, "strictly between 0 and 1"),
    ({"boost": 0.5}, "boost must be >= 1"),
])
def test_make_spam_corpus_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        datasets.make_spam_corpus(**kwargs)


# --- synthetic Gaussians ---------------------------------------------------------


@pytest.mark.parametrize("shared", [True, False])
def test_make_gaussian_classes_estimates_converge(shared):
    data = datasets.make_gaussian_classes(n_samples=20_000, n_features=3, n_classes=3,
                                          shared_variance=shared, seed=4)
    assert data.theta.shape == data.var.shape == (3, 3)
    assert (data.var[0] == data.var[1]).all() == shared
    for c in range(3):
        Xc = data.X[data.y == c]
        np.testing.assert_allclose(Xc.mean(axis=0), data.theta[c], atol=0.05)
        np.testing.assert_allclose(Xc.var(axis=0), data.var[c], rtol=0.06)
    np.testing.assert_allclose(np.bincount(data.y) / 20_000, 1 / 3, atol=0.015)


def test_make_gaussian_classes_is_deterministic_and_validates():
    a = datasets.make_gaussian_classes(n_samples=10, seed=1)
    b = datasets.make_gaussian_classes(n_samples=10, seed=1)
    np.testing.assert_array_equal(a.X, b.X)
    with pytest.raises(ValueError, match="n_classes must be at least 2"):
        datasets.make_gaussian_classes(n_classes=1)
    with pytest.raises(ValueError, match="class_prior"):
        datasets.make_gaussian_classes(class_prior=[1.0])
