"""A loader for a real public text corpus: the SMS Spam Collection (UCI).

The corpus (Almeida, Gomez Hidalgo & Yamakami, 2011; CC BY 4.0) is 5,574
SMS messages labelled ham or spam. It does not ship with any package, so
:func:`load_sms_spam` downloads the UCI zip once into a cache directory,
checks its SHA-256 against a pinned value, and reads the messages straight
from the zip on every later call. Nothing here runs in the course's tests or
notebooks in CI (they use :func:`nbkit.datasets.make_spam_corpus`).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

__all__ = [
    "DatasetUnavailableError",
    "ChecksumMismatchError",
    "SMS_SPAM_URL",
    "SMS_SPAM_SHA256",
    "get_data_home",
    "load_sms_spam",
]

SMS_SPAM_URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
# SHA-256 of the UCI zip above (the same bytes as the older
# .../machine-learning-databases/00228/smsspamcollection.zip). Not computed
# here (no network when this was written): it is the value pinned by several
# independent public projects that download this file (e.g. Julia's
# MLDatasets.jl), which also report 5,574 messages, 4,827 ham and 747 spam.
SMS_SPAM_SHA256 = "1587ea43e58e82b14ff1f5425c88e17f8496bfcdb67a583dbff9eefaf9963ce3"
SMS_SPAM_ZIP_NAME = "smsspamcollection.zip"
SMS_SPAM_MEMBER = "SMSSpamCollection"
_LABELS = ("ham", "spam")
_DOWNLOAD_TIMEOUT_SECONDS = 30


class DatasetUnavailableError(OSError):
    """The dataset is not in the cache and could not be downloaded."""


class ChecksumMismatchError(DatasetUnavailableError):
    """A downloaded or cached file does not have the expected SHA-256."""


def get_data_home(data_home=None) -> Path:
    """The cache directory for downloaded datasets.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Use this directory. When None: ``$NBCORE_DATA`` if set, else
        ``~/.cache/nbcore``.

    Returns
    -------
    path : pathlib.Path
        The directory (not created here).

    Examples
    --------
    >>> get_data_home("/tmp/somewhere").as_posix()
    '/tmp/somewhere'
    """
    if data_home is None:
        data_home = os.environ.get("NBCORE_DATA") or Path("~/.cache/nbcore").expanduser()
    return Path(data_home).expanduser()


def read_shipped_gzip(path: Path, sha256: str) -> bytes:
    """The uncompressed bytes of a data file shipped in the kit, checked against its SHA-256.

    Raises DatasetUnavailableError when the file is missing and ChecksumMismatchError when it is
    not gzip, cut short, or not the shipped data; each says to reinstall the kit.
    """
    try:
        data = gzip.decompress(Path(path).read_bytes())
    except FileNotFoundError:
        raise DatasetUnavailableError(f"{path} is missing: reinstall the course kit (nbkit)") from None
    except (OSError, EOFError) as error:  # not gzip, or cut short
        raise ChecksumMismatchError(f"{path} is damaged ({error}): reinstall the course kit (nbkit)") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ChecksumMismatchError(f"{path} has SHA-256 {actual}, expected {sha256}: the data was "
                                    "changed or damaged; reinstall the course kit (nbkit)")
    return data


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _how_to_place(url: str, path: Path) -> str:
    return (
        f"To install it by hand, download {url} on a machine with internet access "
        f"and copy the zip, unchanged, to {path} (or pass data_home= / set "
        "NBCORE_DATA to the folder that holds it)."
    )


def _download(url: str, path: Path, sha256: str | None) -> None:
    """Fetch ``url`` into ``path`` atomically, verifying the checksum first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, suffix=".part")
    tmp_path = Path(tmp_name)
    try:
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(
                url, timeout=_DOWNLOAD_TIMEOUT_SECONDS
            ) as response:
                for block in iter(lambda: response.read(1 << 16), b""):
                    out.write(block)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise DatasetUnavailableError(
                f"Could not download the SMS Spam Collection from {url} ({exc}). "
                "Are you offline? " + _how_to_place(url, path)
            ) from exc
        if sha256 is not None:
            actual = _sha256(tmp_path)
            if actual != sha256:
                raise ChecksumMismatchError(
                    f"The file downloaded from {url} has SHA-256 {actual}, expected "
                    f"{sha256}; it was not saved (corrupt download, or the file "
                    "changed upstream). " + _how_to_place(url, path)
                )
        os.replace(tmp_path, path)
    finally:
        tmp_path.unlink(missing_ok=True)


def _parse_messages(raw: bytes, source: str) -> tuple[list[str], list[str]]:
    """Split ``label<TAB>text`` lines into labels and texts."""
    labels, texts = [], []
    for line_number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        label, sep, text = line.partition("\t")
        if not sep or label not in _LABELS:
            raise ValueError(
                f"{source}, line {line_number}: expected 'ham<TAB>text' or "
                f"'spam<TAB>text', got {line[:60]!r}"
            )
        labels.append(label)
        texts.append(text)
    return labels, texts


def load_sms_spam(
    data_home=None,
    download_if_missing: bool = True,
    *,
    url: str = SMS_SPAM_URL,
    sha256: str | None = SMS_SPAM_SHA256,
) -> Bunch:
    """Load the SMS Spam Collection, downloading it into the cache on first use.

    The zip is kept as downloaded in ``<data_home>/sms_spam/smsspamcollection.zip``;
    its SHA-256 is checked after the download and again on every load, so
    a corrupt or substituted file is never used silently.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Cache directory; see :func:`get_data_home`.
    download_if_missing : bool, default=True
        If False, raise instead of downloading when the zip is not cached.
    url : str, default=SMS_SPAM_URL
        Where to download the zip from (any URL ``urllib`` opens, e.g. a
        ``file://`` mirror).
    sha256 : str or None, default=SMS_SPAM_SHA256
        Expected SHA-256 (hex) of the zip. None skips the check (only for a
        file you have verified yourself).

    Returns
    -------
    data : Bunch
        ``documents`` (list of str), ``y`` (0 = ham, 1 = spam), ``classes``,
        ``target_names`` (``["ham", "spam"]``), ``frame`` (columns
        ``label``, ``text``), ``filename`` and ``description``.

    Raises
    ------
    DatasetUnavailableError
        (an ``OSError``) when the zip is not cached and cannot be downloaded
        (offline, or ``download_if_missing=False``); the message says where
        to put the file by hand.
    ChecksumMismatchError
        When the downloaded or cached zip has the wrong SHA-256.
    ValueError
        When the zip does not hold a well-formed ``SMSSpamCollection`` file.

    Notes
    -----
    Typical use (downloads about 200 kB the first time, so it is not run
    as a doctest)::

        data = load_sms_spam()
        len(data.documents)  # 5574 messages, 747 of them spam
    """
    path = get_data_home(data_home) / "sms_spam" / SMS_SPAM_ZIP_NAME
    if not path.exists():
        if not download_if_missing:
            raise DatasetUnavailableError(
                f"The SMS Spam Collection is not in the cache ({path}) and "
                "download_if_missing=False. " + _how_to_place(url, path)
            )
        _download(url, path, sha256)
    elif sha256 is not None:
        actual = _sha256(path)
        if actual != sha256:
            raise ChecksumMismatchError(
                f"The cached file {path} has SHA-256 {actual}, expected {sha256}. "
                "Delete it to download again. " + _how_to_place(url, path)
            )
    try:
        with zipfile.ZipFile(path) as archive:
            raw = archive.read(SMS_SPAM_MEMBER)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(
            f"{path} is not a zip holding a file named {SMS_SPAM_MEMBER!r} ({exc}). "
            + _how_to_place(url, path)
        ) from exc
    labels, texts = _parse_messages(raw, f"{path}:{SMS_SPAM_MEMBER}")
    y = np.array([_LABELS.index(label) for label in labels], dtype=np.int64)
    return Bunch(
        documents=texts,
        y=y,
        classes=np.arange(2),
        target_names=np.array(_LABELS),
        frame=pd.DataFrame({"label": labels, "text": texts}),
        filename=str(path),
        description=(
            "SMS Spam Collection v.1 (Almeida, Gomez Hidalgo & Yamakami, 2011; "
            f"UCI Machine Learning Repository, doi:10.24432/C5CC84; CC BY 4.0), from {url}. "
            f"{len(texts)} messages, {int(y.sum())} spam."
        ),
    )
