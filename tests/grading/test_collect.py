"""``nbg collect``: LMS zips and folders into nbgrader's submitted/ folder.

No kernels: runtime about 5 s.
"""

import datetime as dt
import stat
import zipfile

import nbformat
import pytest

import fixtures
from grading.collect import FOLDER_PATTERN, collect
from grading.core.course import Course

NB = "ps_fixture"


@pytest.fixture
def course(tmp_path):
    fixtures.write_course(tmp_path / "course")
    return Course(tmp_path / "course")


def _notebook_bytes(kind="perfect"):
    notebook = fixtures.student_notebook(fixtures.source_notebook(), kind)
    return nbformat.writes(notebook).encode()


def _lms_name(display, student, when, suffix=f"{NB}.ipynb"):
    return f"{display}_{student}_attempt_{when:%Y-%m-%d-%H-%M-%S}_{suffix}"


T1 = dt.datetime(2026, 9, 30, 10, 0, 0)
T2 = dt.datetime(2026, 9, 30, 18, 30, 0)


def _lms_zip(path, entries):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def _timestamp(course, student):
    return (course.submitted_dir(student, NB) / "timestamp.txt").read_text()


def test_lms_zip_with_nested_folders_and_odd_names(course, tmp_path):
    zip_path = _lms_zip(tmp_path / "download.zip", [
        (f"gradebook_NB101/Section A/{_lms_name('Doe, Jane', '12345', T1)}", _notebook_bytes("blank")),
        (f"gradebook_NB101/Section A/{_lms_name('Doe, Jane', '12345', T2)}", _notebook_bytes("perfect")),
        (f"gradebook_NB101/Section B/{_lms_name('Ünïcode Ö. Name', 's-777', T1)}", _notebook_bytes()),
        ("gradebook_NB101/Section B/readme.txt", b"the LMS adds this"),
        (f"gradebook_NB101/{_lms_name('Roe, Rick', '999', T1, 'homework.ipynb')}", b"{}"),
        ("__MACOSX/._junk", b"junk"),
    ])

    report = collect(course, NB, zip_path)

    assert [(s, nbs) for s, nbs, _ in report.collected] == [("12345", [NB]), ("s-777", [NB])]
    # The later of Jane's two attempts wins, with its timestamp from the name.
    submitted = course.submitted_dir("12345", NB) / f"{NB}.ipynb"
    assert submitted.read_bytes() == _notebook_bytes("perfect")
    assert _timestamp(course, "12345") == "2026-09-30 18:30:00.000000 UTC"
    assert sorted(name.rsplit("/", 1)[-1] for name, _ in report.unmatched) == [
        _lms_name("Roe, Rick", "999", T1, "homework.ipynb"), "readme.txt"]
    assert report.ignored == ["__MACOSX/._junk"]
    assert report.needs_attention
    text = report.format()
    assert "NOT MATCHED (2)" in text and "readme.txt: not a notebook (.ipynb); the name fits none of the layouts" in text


def test_zip_slip_and_symlinks_are_rejected_and_nothing_escapes(course, tmp_path):
    link = zipfile.ZipInfo(_lms_name("Link", "555", T1))
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    zip_path = tmp_path / "evil.zip"
    with zipfile.ZipFile(zip_path, "w") as archive:
        archive.writestr(f"../../{_lms_name('Evil', '666', T1)}", _notebook_bytes())
        archive.writestr(f"/abs/{_lms_name('Abs', '667', T1)}", _notebook_bytes())
        archive.writestr(link, "../../gradebook.db")
        archive.writestr(_lms_name("Good", "100", T1), _notebook_bytes())

    report = collect(course, NB, zip_path)

    reasons = dict(report.rejected)
    assert "zip slip" in reasons[f"../../{_lms_name('Evil', '666', T1)}"]
    assert "absolute path" in reasons[f"/abs/{_lms_name('Abs', '667', T1)}"]
    assert "symbolic link" in reasons[_lms_name("Link", "555", T1)]
    assert [s for s, _, _ in report.collected] == ["100"]
    written = sorted(p.relative_to(course.root).as_posix() for p in course.root.rglob("*") if p.is_file())
    assert written == ["gradebook.db", "nbgrader_config.py", f"source/{NB}/{NB}.ipynb",
                       f"submitted/100/{NB}/{NB}.ipynb", f"submitted/100/{NB}/timestamp.txt"]
    assert not any(p.name.startswith(("Evil", "Abs")) for p in tmp_path.rglob("*"))


def test_never_overwrites_a_newer_submission_with_an_older_one(course, tmp_path):
    newer = _lms_zip(tmp_path / "newer.zip", [(_lms_name("Doe, Jane", "12345", T2), _notebook_bytes("perfect"))])
    older = _lms_zip(tmp_path / "older.zip", [(_lms_name("Doe, Jane", "12345", T1), _notebook_bytes("blank"))])
    collect(course, NB, newer)

    report = collect(course, NB, older)

    assert report.collected == []
    assert report.kept_newer[0][0] == "12345"
    assert (course.submitted_dir("12345", NB) / f"{NB}.ipynb").read_bytes() == _notebook_bytes("perfect")
    assert _timestamp(course, "12345") == "2026-09-30 18:30:00.000000 UTC"

    # The newer one does replace an older one.
    collect(course, NB, older)  # no-op
    later = dt.datetime(2026, 10, 2, 8, 0, 0)
    latest = _lms_zip(tmp_path / "latest.zip", [(_lms_name("Doe, Jane", "12345", later), _notebook_bytes("blank"))])
    assert [s for s, _, _ in collect(course, NB, latest).collected] == ["12345"]
    assert _timestamp(course, "12345") == "2026-10-02 08:00:00.000000 UTC"


def test_folder_source_with_per_student_folders(course, tmp_path):
    source = tmp_path / "inbox"
    (source / "alice").mkdir(parents=True)
    (source / "alice" / f"{NB}.ipynb").write_bytes(_notebook_bytes())
    (source / "bob").mkdir()
    (source / "bob" / f"{NB}.ipynb").symlink_to(course.root / "gradebook.db")

    report = collect(course, NB, source, pattern=FOLDER_PATTERN)

    assert [s for s, _, _ in report.collected] == ["alice"]
    assert report.rejected == [(f"bob/{NB}.ipynb", "symbolic link: refusing to follow it")]
    assert (course.submitted_dir("alice", NB) / "timestamp.txt").exists()


def test_unsafe_student_ids_are_not_used_as_folders(course, tmp_path):
    source = tmp_path / "inbox"
    (source / ".hidden").mkdir(parents=True)
    (source / ".hidden" / f"{NB}.ipynb").write_bytes(_notebook_bytes())
    report = collect(course, NB, source, pattern=FOLDER_PATTERN)
    assert report.collected == []
    assert "not a safe folder name" in report.unmatched[0][1]


def test_bad_arguments_are_clear_errors(course, tmp_path):
    with pytest.raises(ValueError, match=r"named group \(\?P<student>"):
        collect(course, NB, tmp_path, pattern=r"(\d+)")
    with pytest.raises(ValueError, match="neither a folder nor a zip"):
        collect(course, NB, tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="unknown assignment .nope.: the course has ps_fixture"):
        collect(course, "nope", tmp_path)
