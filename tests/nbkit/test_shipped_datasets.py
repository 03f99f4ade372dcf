"""What every data file shipped in the kit shares (``corpus.read_shipped_gzip``), tested once per file.

Spambase and the SpamAssassin messages: a changed byte is refused with the pinned checksum and the
words that say to reinstall; a recompressed copy of the same bytes is accepted; a truncated or
missing file says what to do; neither the loader nor a recipe can reach the network; the kit's
wheel ships the file byte for byte beside its licence. What each file holds is tested in
``test_spambase.py`` and ``test_spamassassin.py``.
"""

from __future__ import annotations

import ast
import dataclasses
import gzip
import zipfile
from pathlib import Path
from typing import Callable

import pytest

from nbkit.datasets import load_spamassassin, load_spambase
from nbkit.datasets.corpus import ChecksumMismatchError, DatasetUnavailableError
from nbkit.datasets.spamassassin import SPAMASSASSIN_FILE
from nbkit.datasets.spambase import SPAMBASE_FILE


@dataclasses.dataclass(frozen=True)
class Shipped:
    file: Path
    load: Callable
    edit: tuple  # (bytes, bytes): one change to the decompressed data
    checksum_start: str  # the pinned SHA-256's first characters, as the error quotes them
    size: Callable  # the loaded data -> (rows, positives), to see a copy was read whole
    expected_size: tuple
    modules: tuple  # the code that reads or builds the file
    shipped: tuple  # what the wheel must hold beside it


DATASETS = {
    "spambase": Shipped(
        SPAMBASE_FILE, load_spambase, (b"\n0,0.64,0.64,", b"\n0,0.65,0.64,"), "43cbe9a4",
        lambda data: (data[0].shape[0], int(data[1].sum())), (4601, 1813),
        ("spambase.py",), ("spambase.csv.gz", "spambase_LICENSE.txt", "spambase.py")),
    "spamassassin": Shipped(
        SPAMASSASSIN_FILE, load_spamassassin, (b"Re: New Sequences Window", b"Re: New Sequences Widow"), "50eea432",
        lambda mail: (len(mail.documents), int(mail.y.sum())), (5793, 1689),
        ("spamassassin.py", "build_spamassassin.py"),
        ("spamassassin.csv.gz", "spamassassin_LICENSE.txt", "spamassassin.py", "build_spamassassin.py")),
}
parametrized = pytest.mark.parametrize("dataset", DATASETS.values(), ids=DATASETS.keys())


def _write_gz(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data, compresslevel=1, mtime=0))  # other bytes on disk, the same data inside
    return path


@parametrized
def test_a_changed_byte_is_refused_and_a_recompressed_copy_is_accepted(dataset, tmp_path):
    data = gzip.decompress(dataset.file.read_bytes())
    old, new = dataset.edit
    changed = data.replace(old, new, 1)
    assert changed != data
    with pytest.raises(ChecksumMismatchError, match=f"expected {dataset.checksum_start}.*reinstall the course kit"):
        dataset.load(_write_gz(tmp_path / "changed.csv.gz", changed))
    copy = _write_gz(tmp_path / "copy.csv.gz", data)
    assert copy.read_bytes() != dataset.file.read_bytes()
    assert dataset.size(dataset.load(copy)) == dataset.expected_size


@parametrized
def test_a_truncated_or_missing_file_says_what_to_do(dataset, tmp_path):
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(dataset.file.read_bytes()[:5000])
    with pytest.raises(ChecksumMismatchError, match="is damaged .*reinstall the course kit"):
        dataset.load(cut)
    with pytest.raises(DatasetUnavailableError, match="is missing: reinstall the course kit"):
        dataset.load(tmp_path / "nowhere.csv.gz")


@parametrized
def test_the_loader_and_any_recipe_never_reach_the_network(dataset):
    for name in dataset.modules:
        tree = ast.parse(dataset.file.with_name(name).read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"urllib", "http", "socket", "requests", "ssl"}, (name, imported)


@pytest.fixture(scope="module")
def kit_wheel(tmp_path_factory):
    from grading.release.handout import build_kit_wheel

    return build_kit_wheel(tmp_path_factory.mktemp("wheel"))


@parametrized
def test_the_wheel_ships_the_file_byte_for_byte_with_its_licence(dataset, kit_wheel):
    with zipfile.ZipFile(kit_wheel) as wheel:
        assert {f"nbkit/datasets/{name}" for name in dataset.shipped} <= set(wheel.namelist())
        assert wheel.read(f"nbkit/datasets/{dataset.file.name}") == dataset.file.read_bytes()
