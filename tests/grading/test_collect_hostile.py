"""``nbg collect`` on hostile LMS downloads: nothing written outside the course, no student's
submission replaced by a file that only claims the student's id, every refusal named, and an
exit code that says so (1). No kernels: runtime a few seconds (one 51 MB entry of zeros).
"""

import datetime as dt
import stat
import zipfile

import fixtures
import nbformat
import pytest

from grading.cli import main
from grading.collect import MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES, collect
from grading.core.course import Course
from grading.core.errors import NbgError

NB = fixtures.FIXTURE_ASSIGNMENT
T1 = dt.datetime(2026, 9, 30, 10, 0, 0)
T2 = dt.datetime(2026, 9, 30, 18, 30, 0)


def notebook_bytes(kind):
    return nbformat.writes(fixtures.student_notebook(fixtures.source_notebook(), kind)).encode()


def blackboard(display, student, when):
    return f"{display}_{student}_attempt_{when:%Y-%m-%d-%H-%M-%S}_{NB}.ipynb"


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            if isinstance(data, zipfile.ZipInfo):
                archive.writestr(data, name)
            else:
                archive.writestr(name, data)
    return path


@pytest.fixture
def course(tmp_path):
    fixtures.write_course(tmp_path / "course")
    return Course(tmp_path / "course")


def test_a_file_claiming_anothers_id_replaces_nothing(course, tmp_path):
    """Jane (12345) handed in; a later file under another name claims 12345 too."""
    first = make_zip(tmp_path / "first.zip", [(blackboard("Doe, Jane", "12345", T1), notebook_bytes("perfect"))])
    assert not collect(course, NB, first).needs_attention
    janes = (course.submitted_dir("12345", NB) / f"{NB}.ipynb").read_bytes()
    second = make_zip(tmp_path / "second.zip", [
        (blackboard("Doe, Jane", "12345", T1), notebook_bytes("perfect")),
        (blackboard("Eve, Evil", "12345", T2), notebook_bytes("blank")),
        (blackboard("Roe, Rick", "777", T1), notebook_bytes("wrong_hidden")),
    ])
    report = collect(course, NB, second)
    assert (course.submitted_dir("12345", NB) / f"{NB}.ipynb").read_bytes() == janes  # nothing lost
    assert [s for s, _, _ in report.collected] == ["777"]  # the rest of the class, exactly
    assert report.needs_attention
    rejected = dict(report.rejected)
    assert set(rejected) == {blackboard("Doe, Jane", "12345", T1), blackboard("Eve, Evil", "12345", T2)}
    assert all("claim student id '12345' under different names" in r for r in rejected.values())
    assert "Eve, Evil" in report.format() and "REJECTED (2)" in report.format()


def test_unsafe_entries_are_refused_by_name_and_nothing_lands_outside(course, tmp_path):
    link = zipfile.ZipInfo(blackboard("Link, Lee", "3", T1))
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    deep = "/".join(["d"] * (MAX_DEPTH + 1)) + "/" + blackboard("Deep, Dee", "4", T1)
    entries = [
        ("../../" + blackboard("Slip, Sam", "1", T1), notebook_bytes("perfect")),
        ("/tmp/" + blackboard("Abs, Al", "2", T1), notebook_bytes("perfect")),
        ("/etc/passwd", link),  # a symbolic link whose target would be /etc/passwd
        (deep, notebook_bytes("perfect")),
        (blackboard("Bomb, Bo", "5", T1), b"\0" * (MAX_FILE_BYTES + 1)),  # compresses to ~50 KB
        (blackboard("Fine, Fay", "6", T1), notebook_bytes("perfect")),
    ]
    source = make_zip(tmp_path / "download.zip", entries)
    outside_before = fixtures.file_tree(tmp_path.parent)
    report = collect(course, NB, source)
    assert [s for s, _, _ in report.collected] == ["6"]
    reasons = dict(report.rejected)
    assert "zip slip" in reasons["../../" + blackboard("Slip, Sam", "1", T1)]
    assert "absolute path" in reasons["/tmp/" + blackboard("Abs, Al", "2", T1)]
    assert "symbolic link" in reasons[blackboard("Link, Lee", "3", T1)]
    assert f"over the limit of {MAX_DEPTH}" in reasons[deep]
    assert "byte limit" in reasons[blackboard("Bomb, Bo", "5", T1)]
    assert report.needs_attention and "REJECTED (5)" in report.format()
    new = set(fixtures.file_tree(tmp_path.parent)) - set(outside_before)
    submitted = f"{tmp_path.name}/course/submitted"
    assert all(p == submitted or p.startswith(submitted + "/6") for p in new), new


def test_too_many_entries_refuse_the_zip_whole(course, tmp_path):
    source = make_zip(tmp_path / "many.zip", [(f"x/{i}.txt", b"") for i in range(MAX_ENTRIES + 1)])
    with pytest.raises(NbgError, match=f"over the limit of {MAX_ENTRIES}"):
        collect(course, NB, source)
    assert not course.submitted_root.exists() or not any(course.submitted_root.iterdir())


def test_two_files_for_one_student_keep_the_newer_and_name_the_older(course, tmp_path):
    source = make_zip(tmp_path / "twice.zip", [
        (blackboard("Doe, Jane", "12345", T2), notebook_bytes("perfect")),
        (blackboard("Doe, Jane", "12345", T1), notebook_bytes("blank")),
        ("notes.txt", b"not a notebook"),
    ])
    report = collect(course, NB, source)
    assert (course.submitted_dir("12345", NB) / f"{NB}.ipynb").read_bytes() == notebook_bytes("perfect")
    assert report.superseded == [(blackboard("Doe, Jane", "12345", T1),
                                  f"12345's {NB} here is older than {blackboard('Doe, Jane', '12345', T2)}")]
    text = report.format()
    assert "superseded (1)" in text and "notes.txt: not a notebook" in text
    assert report.needs_attention  # the stray file is named and counted


def test_the_cli_names_the_refusals_and_exits_1(course, tmp_path, capsys):
    source = make_zip(tmp_path / "download.zip", [
        ("../" + blackboard("Slip, Sam", "1", T1), notebook_bytes("perfect")),
        (blackboard("Fine, Fay", "6", T1), notebook_bytes("perfect")),
    ])
    code = main(["--course", str(course.root), "collect", NB, str(source)])
    out = capsys.readouterr().out
    assert code == 1
    assert "../" + blackboard("Slip, Sam", "1", T1) in out and "zip slip" in out
