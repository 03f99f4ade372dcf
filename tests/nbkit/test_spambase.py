"""Spambase ships in the kit: what the file holds (a damaged copy, the network and the wheel: test_shipped_datasets.py)."""

from __future__ import annotations

import gzip
import hashlib

import numpy as np
import pytest

from nbkit.datasets import load_spambase
from nbkit.datasets.spambase import SPAMBASE_FILE, SPAMBASE_SHA256

LICENSE = SPAMBASE_FILE.with_name("spambase_LICENSE.txt")


@pytest.fixture(scope="module")
def spambase():
    return load_spambase()


def test_the_shipped_file_has_the_pinned_checksum_and_its_licence_says_so():
    data = gzip.decompress(SPAMBASE_FILE.read_bytes())
    assert hashlib.sha256(data).hexdigest() == SPAMBASE_SHA256
    text = LICENSE.read_text()
    assert SPAMBASE_SHA256 in text
    for needed in ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/", "https://doi.org/10.24432/C53G6X",
                   "Hopkins", "r-cran-kernlab 0.9-32-1"):
        assert needed in text, needed
    assert SPAMBASE_FILE.stat().st_size < 1_000_000


def test_shapes_types_and_class_balance(spambase):
    X, y, feature_names = spambase
    assert X.shape == (4601, 57) and X.dtype == np.float64
    assert y.shape == (4601,) and y.dtype == np.int64 and set(np.unique(y)) == {0, 1}
    assert int(y.sum()) == 1813 and int((y == 0).sum()) == 2788
    assert feature_names.shape == (57,) and len(set(feature_names)) == 57
    assert feature_names[0] == "word_freq_make" and feature_names[47] == "word_freq_conference"
    assert list(feature_names[48:54]) == [f"char_freq_{c}" for c in ";([!$#"]
    assert list(feature_names[54:]) == ["capital_run_length_average", "capital_run_length_longest",
                                        "capital_run_length_total"]


def test_values_are_the_uci_data(spambase):
    X, y, _ = spambase
    # The first e-mail of UCI's spambase.data (spam) and the last (not spam).
    first = np.zeros(57)
    first[[1, 2, 11]] = 0.64
    first[[4, 15]] = 0.32
    first[[17, 18, 20, 51, 54, 55, 56]] = [1.29, 1.93, 0.96, 0.778, 3.756, 61, 278]
    np.testing.assert_array_equal(X[0], first)
    assert y[0] == 1 and y[-1] == 0
    assert X[-1, 18] == 4.6 and X[-1, 56] == 40
    # Percentages, and capital-letter statistics (runs of at least one letter).
    assert X[:, :54].min() == 0 and X[:, :54].max() <= 100
    assert X[:, 54:].min() >= 1
    np.testing.assert_array_equal(X[:, 55:], np.round(X[:, 55:]))  # longest run and total are counts
    assert not np.isnan(X).any()


def test_gaussian_and_binarized_bernoulli_naive_bayes_learn_it(spambase):
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import BernoulliNB, GaussianNB

    X, y, _ = spambase
    gaussian = cross_val_score(GaussianNB(), X, y, cv=5).mean()
    bernoulli = cross_val_score(BernoulliNB(), (X[:, :54] > 0).astype(int), y, cv=5).mean()
    majority = (y == 0).mean()
    assert 0.75 < gaussian < 0.9 and 0.85 < bernoulli < 0.95 and majority < 0.61, (gaussian, bernoulli)


