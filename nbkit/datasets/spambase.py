"""Spambase: a real e-mail spam data set, shipped with the kit (nothing is downloaded).

4,601 e-mails collected at Hewlett-Packard Labs in 1999 (Hopkins, Reeber,
Forman & Suermondt; UCI Machine Learning Repository, CC BY 4.0), each
described by 57 numbers: how often 48 words and 6 characters occur (in
percent of the e-mail's words or characters) and 3 statistics of its runs
of capital letters; 1,813 are spam. The word frequencies suit Gaussian
naive Bayes as they are, and Bernoulli naive Bayes once binarized (does the
word occur at all?). The file ``spambase.csv.gz`` beside this module holds
the data, ``spambase_LICENSE.txt`` its attribution, licence and origin;
:func:`load_spambase` checks its SHA-256 before reading it.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from nbkit.datasets.corpus import ChecksumMismatchError, read_shipped_gzip

__all__ = ["SPAMBASE_SHA256", "load_spambase"]

SPAMBASE_FILE = Path(__file__).with_name("spambase.csv.gz")
# SHA-256 of the uncompressed CSV (the data, whatever gzip level wrote the file).
SPAMBASE_SHA256 = "43cbe9a4be4f1261587a0d094f331fbfb2f20c1284d733d3a612a3692a19ab4b"
SPAMBASE_SHAPE = (4601, 57)


def load_spambase(path=None):
    """The Spambase e-mails: 57 word, character and capital-letter statistics, spam or not.

    Parameters
    ----------
    path : str or path-like, optional
        A copy of ``spambase.csv.gz`` to read (default: the one shipped in
        :mod:`nbkit.datasets`). It must have the shipped checksum.

    Returns
    -------
    X : ndarray of float64, shape (4601, 57)
        Columns 0-47: ``word_freq_WORD``, the percentage (0-100) of the
        e-mail's words that are WORD; 48-53: ``char_freq_CHAR``, the
        percentage of its characters that are CHAR (``;``, ``(``, ``[``,
        ``!``, ``$``, ``#``); 54-56: the average and longest run of capital
        letters and the total number of capital letters.
    y : ndarray of int64, shape (4601,)
        1 for spam (1,813 e-mails), 0 for not spam (2,788), in the
        original order (the spam e-mails come first: shuffle before splitting).
    feature_names : ndarray of str, shape (57,)
        The UCI attribute names, e.g. ``'word_freq_free'``, ``'char_freq_!'``.

    Raises
    ------
    DatasetUnavailableError
        The file is missing (the kit was not installed completely).
    ChecksumMismatchError
        The file's content is not the shipped data.

    Notes
    -----
    Cite as: Hopkins, M., Reeber, E., Forman, G., & Suermondt, J. (1999).
    Spambase [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C53G6X (CC BY 4.0; see ``spambase_LICENSE.txt``).

    Examples
    --------
    >>> X, y, feature_names = load_spambase()
    >>> X.shape, int(y.sum()), str(feature_names[15])
    ((4601, 57), 1813, 'word_freq_free')
    >>> binary = (X[:, :48] > 0).astype(np.int64)  # does the word occur at all?
    """
    path = SPAMBASE_FILE if path is None else Path(path)
    data = read_shipped_gzip(path, SPAMBASE_SHA256)
    text = data.decode("ascii")
    header, _, body = text.partition("\n")
    names = header.split(",")
    table = np.loadtxt(io.StringIO(body), delimiter=",", dtype=np.float64, ndmin=2)
    X = table[:, :-1]
    y = table[:, -1].astype(np.int64)
    if X.shape != SPAMBASE_SHAPE or names[-1] != "spam":  # a checksum collision is not expected; a wrong constant is
        raise ChecksumMismatchError(f"{path} holds a table of shape {X.shape}, expected {SPAMBASE_SHAPE}")
    return X, y, np.asarray(names[:-1])
