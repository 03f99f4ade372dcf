"""Tests of the SMS Spam Collection loader, without any network.

Each test writes a small zip in the real format (a member
``SMSSpamCollection`` of ``label<TAB>text`` lines) and serves it through a
``file://`` URL; "offline" is a closed port on 127.0.0.1. Runtime: < 1 s.
"""

import hashlib
import re
import socket
import zipfile

import numpy as np
import pytest

from nbkit.datasets import ChecksumMismatchError, DatasetUnavailableError, load_sms_spam
from nbkit.datasets.corpus import SMS_SPAM_SHA256, SMS_SPAM_URL, get_data_home

LINES = [
    "ham\tGo until jurong point, crazy.. Available only in bugis n great world",
    "spam\tFree entry in 2 a wkly comp to win FA Cup final tkts 21st May 2005.",
    "ham\tÜ dun say so early hor... U c already then say...",
    "",  # a trailing blank line is tolerated
]


def _write_zip(path, lines=LINES, member="SMSSpamCollection"):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, "\n".join(lines).encode("utf-8"))
        archive.writestr("readme", "the real zip has a readme too")
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def mirror(tmp_path):
    """A local 'server' (a file:// URL) holding a small zip, and its checksum."""
    source = tmp_path / "mirror" / "smsspamcollection.zip"
    source.parent.mkdir()
    checksum = _write_zip(source)
    return source.as_uri(), checksum


@pytest.fixture
def closed_port_url(monkeypatch):
    """An http URL on 127.0.0.1 where nothing listens (connection refused)."""
    # A proxy from the environment would otherwise receive the request.
    for variable in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                     "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/smsspamcollection.zip"


def test_downloads_verifies_and_parses(tmp_path, mirror):
    url, checksum = mirror
    data = load_sms_spam(data_home=tmp_path / "cache", url=url, sha256=checksum)
    assert data.documents[0].startswith("Go until jurong")
    assert data.documents[2] == "Ü dun say so early hor... U c already then say..."
    np.testing.assert_array_equal(data.y, [0, 1, 0])
    assert data.target_names.tolist() == ["ham", "spam"]
    assert data.frame["label"].tolist() == ["ham", "spam", "ham"]
    cached = tmp_path / "cache" / "sms_spam" / "smsspamcollection.zip"
    assert cached.exists() and data.filename == str(cached)
    assert "CC BY 4.0" in data.description


def test_second_load_uses_the_cache(tmp_path, mirror, closed_port_url):
    url, checksum = mirror
    load_sms_spam(data_home=tmp_path, url=url, sha256=checksum)
    # The mirror is unreachable now: only the cache can answer.
    data = load_sms_spam(data_home=tmp_path, url=closed_port_url, sha256=checksum)
    assert len(data.documents) == 3


def test_offline_raises_a_clear_oserror(tmp_path, closed_port_url):
    with pytest.raises(DatasetUnavailableError) as info:
        load_sms_spam(data_home=tmp_path, url=closed_port_url)
    assert isinstance(info.value, OSError)
    message = str(info.value)
    assert "Could not download" in message and "offline" in message
    assert "by hand" in message and str(tmp_path / "sms_spam" / "smsspamcollection.zip") in message
    assert not list((tmp_path / "sms_spam").iterdir()), "no partial file may be left behind"


def test_missing_file_url_raises(tmp_path):
    url = (tmp_path / "does-not-exist.zip").as_uri()
    with pytest.raises(DatasetUnavailableError, match="Could not download"):
        load_sms_spam(data_home=tmp_path / "cache", url=url)


def test_download_with_wrong_checksum_is_not_kept(tmp_path, mirror):
    url, checksum = mirror
    wrong = "0" * 64
    with pytest.raises(ChecksumMismatchError, match=f"SHA-256 {checksum}, expected {wrong}"):
        load_sms_spam(data_home=tmp_path / "cache", url=url, sha256=wrong)
    assert not list((tmp_path / "cache" / "sms_spam").iterdir())


def test_corrupted_cache_is_detected(tmp_path, mirror):
    url, checksum = mirror
    data = load_sms_spam(data_home=tmp_path, url=url, sha256=checksum)
    with open(data.filename, "ab") as cached:
        cached.write(b"tampered")
    with pytest.raises(ChecksumMismatchError, match="Delete it to download again"):
        load_sms_spam(data_home=tmp_path, url=url, sha256=checksum)


def test_no_download_when_not_allowed(tmp_path, mirror):
    url, checksum = mirror
    with pytest.raises(DatasetUnavailableError, match="download_if_missing=False"):
        load_sms_spam(data_home=tmp_path, download_if_missing=False, url=url, sha256=checksum)


def test_a_file_placed_by_hand_is_used(tmp_path):
    placed = tmp_path / "sms_spam" / "smsspamcollection.zip"
    placed.parent.mkdir()
    checksum = _write_zip(placed)
    data = load_sms_spam(data_home=tmp_path, download_if_missing=False, sha256=checksum)
    assert len(data.documents) == 3


def test_default_cache_follows_nbcore_data(tmp_path, mirror, monkeypatch):
    url, checksum = mirror
    monkeypatch.setenv("NBCORE_DATA", str(tmp_path / "env-cache"))
    assert get_data_home() == tmp_path / "env-cache"
    load_sms_spam(url=url, sha256=checksum)
    assert (tmp_path / "env-cache" / "sms_spam" / "smsspamcollection.zip").exists()


def test_default_cache_without_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("NBCORE_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home() == tmp_path / ".cache" / "nbcore"


def test_sha256_none_skips_the_check(tmp_path, mirror):
    url, _ = mirror
    assert len(load_sms_spam(data_home=tmp_path, url=url, sha256=None).documents) == 3


def test_malformed_line_names_its_number(tmp_path):
    source = tmp_path / "bad.zip"
    checksum = _write_zip(source, lines=["ham\tfine", "spam fine but no tab"])
    with pytest.raises(ValueError, match=r"line 2: expected 'ham<TAB>text'"):
        load_sms_spam(data_home=tmp_path / "c", url=source.as_uri(), sha256=checksum)


def test_zip_without_the_member(tmp_path):
    source = tmp_path / "other.zip"
    checksum = _write_zip(source, member="spam.csv")
    with pytest.raises(ValueError, match="SMSSpamCollection"):
        load_sms_spam(data_home=tmp_path / "c", url=source.as_uri(), sha256=checksum)


def test_pinned_constants_look_right():
    assert re.fullmatch(r"[0-9a-f]{64}", SMS_SPAM_SHA256)
    assert SMS_SPAM_URL.startswith("https://archive.ics.uci.edu/")
