"""``nbg collect``'s byte limits on a download: a zip bomb (small on disk, large expanded), a zip
whose header lies about an entry's size, and a folder that outgrows the limit while it is read.
Each refusal names the file and the limit, nothing is written, and the CLI exits 1. No kernels;
the largest archive holds 60 MB of zeros (about 60 KB on disk): a few seconds in all.
"""

import datetime as dt
import struct
import tracemalloc
import zipfile

import fixtures
import nbformat
import pytest

from grading.cli import main
from grading.collect import DownloadRefused, collect
from grading.core.course import Course

NB = fixtures.FIXTURE_ASSIGNMENT
T1 = dt.datetime(2026, 9, 30, 10, 0, 0)
MB = 1_000_000


def notebook_bytes(kind="perfect"):
    return nbformat.writes(fixtures.student_notebook(fixtures.source_notebook(), kind)).encode()


def blackboard(display, student, when=T1):
    return f"{display}_{student}_attempt_{when:%Y-%m-%d-%H-%M-%S}_{NB}.ipynb"


def padded_notebook(size):
    """A valid notebook of ``size`` bytes: the perfect answer with a long run of spaces in its metadata."""
    nb = fixtures.student_notebook(fixtures.source_notebook(), "perfect")
    nb.metadata["padding"] = ""
    base = len(nbformat.writes(nb).encode())
    nb.metadata["padding"] = " " * (size - base)
    data = nbformat.writes(nb).encode()
    assert len(data) == size
    return data


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def lie_about_size(path, name, declared):
    """Rewrite the uncompressed size of entry ``name`` in both its local and central headers."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    struct.pack_into("<I", data, info.header_offset + 22, declared)  # local file header
    central = data.find(b"PK\x01\x02")
    while central >= 0:  # the central directory record of this entry
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if bytes(data[central + 46:central + 46 + name_length]) == name.encode():
            struct.pack_into("<I", data, central + 24, declared)
            break
        central = data.find(b"PK\x01\x02", central + 4)
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo(name).file_size == declared
    return path


@pytest.fixture
def course(tmp_path):
    fixtures.write_course(tmp_path / "course")
    return Course(tmp_path / "course")


def test_the_default_limits_come_from_the_course_config(course):
    assert course.settings.collect_max_bytes == 2_000_000_000
    assert course.settings.collect_max_file_bytes == 50_000_000
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.Nbg.collect_max_bytes = 1234\nc.Nbg.collect_max_file_bytes = 99\n")
    settings = Course(course.root).settings
    assert (settings.collect_max_bytes, settings.collect_max_file_bytes) == (1234, 99)


def test_a_zip_bomb_is_refused_whole_and_nothing_is_written(course, tmp_path, capsys):
    """Three notebooks of 20 MB (spaces: ~20 KB each on disk) against a limit of 50 MB set in the
    course config: the declared sizes refuse the download before any byte is decompressed."""
    bomb = padded_notebook(20 * MB)
    source = make_zip(tmp_path / "bomb.zip", [(blackboard(f"S{i}, Sam", str(i)), bomb) for i in range(3)]
                      + [(blackboard("Fine, Fay", "6"), notebook_bytes())])
    assert source.stat().st_size < 200_000
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.Nbg.collect_max_bytes = 50_000_000\n")
    with pytest.raises(DownloadRefused) as refused:
        collect(Course(course.root), NB, source)
    message = str(refused.value)
    assert str(source) in message and "50,000,000" in message and "c.Nbg.collect_max_bytes" in message
    assert "nothing was collected" in message
    assert not course.submitted_root.exists() or fixtures.file_tree(course.submitted_root) == []
    code = main(["--course", str(course.root), "collect", NB, str(source)])
    err = capsys.readouterr().err
    assert code == 1 and "c.Nbg.collect_max_bytes" in err and "bomb.zip" in err
    assert not course.submitted_root.exists() or fixtures.file_tree(course.submitted_root) == []
    # The same download under the default limit is collected: the limit, not the archive, refused it.
    report = collect(course, NB, source)
    assert sorted(s for s, _, _ in report.collected) == ["0", "1", "2", "6"]


def test_a_notebook_over_the_per_entry_limit_is_rejected_by_name(course, tmp_path):
    source = make_zip(tmp_path / "big.zip", [(blackboard("Big, Bo", "5"), padded_notebook(3 * MB)),
                                             (blackboard("Fine, Fay", "6"), notebook_bytes())])
    report = collect(course, NB, source, max_file_bytes=2 * MB)
    assert [s for s, _, _ in report.collected] == ["6"]
    reason = dict(report.rejected)[blackboard("Big, Bo", "5")]
    assert "over the 2000000-byte limit (c.Nbg.collect_max_file_bytes)" in reason
    assert not course.submitted_dir("5", NB).exists()


def test_an_oversized_resubmission_lets_no_older_copy_stand_in(course, tmp_path):
    """Jane's newer file is over the limit: her older one is not collected in its place."""
    newer = blackboard("Doe, Jane", "12345", T1 + dt.timedelta(hours=5))
    source = make_zip(tmp_path / "resubmitted.zip", [(blackboard("Doe, Jane", "12345"), notebook_bytes()),
                                                    (newer, padded_notebook(3 * MB)),
                                                    (blackboard("Fine, Fay", "6"), notebook_bytes())])
    report = collect(course, NB, source, max_file_bytes=2 * MB)
    assert [s for s, _, _ in report.collected] == ["6"]
    rejected = dict(report.rejected)
    assert "c.Nbg.collect_max_file_bytes" in rejected[newer]
    assert f"12345's {newer} was rejected: nothing of 12345's submission" in rejected[blackboard("Doe, Jane", "12345")]
    assert not (course.submitted_root / "12345").exists()


def test_a_header_that_lies_about_the_size_reads_no_more_than_it_declares(course, tmp_path):
    """The zip says 1,000 bytes; the entry inflates to 60 MB. The declared total passes, the entry
    is rejected by name as unreadable, at most a chunk of it is ever held in memory, and no
    partial file of that student is written; the rest of the class is collected."""
    liar = blackboard("Liar, Lou", "7")
    source = make_zip(tmp_path / "liar.zip", [(liar, b" " * (60 * MB)), (blackboard("Fine, Fay", "6"), notebook_bytes())])
    lie_about_size(source, liar, 1000)
    tracemalloc.start()
    try:
        report = collect(course, NB, source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * MB, peak  # the 60 MB were never decompressed
    assert [s for s, _, _ in report.collected] == ["6"]
    reason = dict(report.rejected)[liar]
    assert reason.startswith("could not be read") and "CRC" in reason, reason
    assert not (course.submitted_root / "7").exists()
    assert not list(course.submitted_root.glob(".*collect-*"))  # no staging folder left behind
    assert report.needs_attention


def test_a_download_that_outgrows_the_limit_while_read_leaves_nothing(course, tmp_path):
    """A folder declares nothing up front: the bytes actually read are counted. The first students'
    files fit, the third takes the total over the limit; no student's submission is written,
    including an existing one that would have been replaced."""
    source = tmp_path / "download"
    for student in ("a1", "a2", "a3"):
        (source / student).mkdir(parents=True)
        (source / student / f"{NB}.ipynb").write_bytes(padded_notebook(2 * MB))
    existing = course.submitted_dir("a1", NB)
    existing.mkdir(parents=True)
    (existing / f"{NB}.ipynb").write_bytes(b"the older submission")
    (existing / "timestamp.txt").write_text("2020-01-01 00:00:00.000000 UTC")
    before = {p: p.read_bytes() for p in course.submitted_root.rglob("*") if p.is_file()}
    with pytest.raises(DownloadRefused, match=r"reading a3/.* past 5,000,000 bytes.*c\.Nbg\.collect_max_bytes"):
        collect(course, NB, source, layout="folder", max_bytes=5 * MB)
    after = {p: p.read_bytes() for p in course.submitted_root.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in course.submitted_root.iterdir()) == ["a1"]  # no staging folder left
