"""``nbg collect`` on each LMS's download layout, built from that LMS's documented naming.

No kernels: runtime a few seconds.

- Canvas: ``lastfirst_[LATE_]userid_submissionid_<original name>[-N].ipynb``, no time
  in the name (the zip entry's date is the time);
- Moodle: ``Firstname Lastname_<participant id>_assignsubmission_file_/<file>``;
- Blackboard: ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>``, plus the
  attempt's ``.txt``.
"""

import zipfile

import nbformat
import pytest

import fixtures
from grading.cli import main
from grading.collect import collect
from grading.core.course import Course
from grading.lms import LAYOUTS

NB = fixtures.FIXTURE_ASSIGNMENT


@pytest.fixture
def course(tmp_path):
    fixtures.write_course(tmp_path / "course")
    return Course(tmp_path / "course")


def _notebook(kind="perfect"):
    return nbformat.writes(fixtures.student_notebook(fixtures.source_notebook(), kind)).encode()


def _zip(path, entries):
    """entries: (name, bytes, date_time tuple)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, when in entries:
            archive.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def _submitted(course, student):
    folder = course.submitted_dir(student, NB)
    return (folder / f"{NB}.ipynb").read_bytes(), (folder / "timestamp.txt").read_text()


def test_canvas_download_with_late_and_resubmissions(course, tmp_path):
    zip_path = _zip(tmp_path / "submissions.zip", [
        (f"doejane_12345_67890_{NB}.ipynb", _notebook("blank"), (2026, 9, 30, 9, 0, 0)),
        (f"doejane_12345_67891_{NB}-1.ipynb", _notebook("perfect"), (2026, 9, 30, 9, 0, 0)),
        (f"roerick_LATE_777_5555_{NB}-2.ipynb", _notebook("perfect"), (2026, 10, 3, 9, 0, 0)),
        (f"smithann_4242_1111_{NB}.ipynb", _notebook("wrong_hidden"), (2026, 9, 29, 8, 0, 0)),
        ("smithann_4242_1112_notes.txt", b"my notes", (2026, 9, 29, 8, 0, 0)),
    ])

    report = collect(course, NB, zip_path)

    assert [s for s, _, _ in report.collected] == ["12345", "4242", "777"]
    assert not report.needs_attention, report.format()
    # Same time: the resubmission (-1) wins over the first file.
    assert _submitted(course, "12345") == (_notebook("perfect"), "2026-09-30 09:00:00.000000 UTC")
    assert _submitted(course, "777")[1] == "2026-10-03 09:00:00.000000 UTC"
    assert report.details["777"].late and not report.details["12345"].late
    assert report.details["12345"].display == "doejane"
    text = report.format()
    assert "Canvas layout" in text and "the Canvas user id" in text and "--roster-id 'ID'" in text
    assert "777: ps_fixture (2026-10-03 09:00:00 UTC; name part 'roerick'; time from the zip entry's date; " \
           "marked late by Canvas)" in text
    assert "WARNING: no submission time in the file names of 3 submission(s)" in text
    assert "smithann_4242_1112_notes.txt" in text  # listed, not silently skipped


def test_moodle_download_folder_per_participant(course, tmp_path):
    zip_path = _zip(tmp_path / "moodle.zip", [
        (f"Jane Doe_4321_assignsubmission_file_/{NB}.ipynb", _notebook("perfect"), (2026, 9, 30, 10, 0, 0)),
        (f"Élise Müller_98_assignsubmission_file_/{NB} (1).ipynb", _notebook("blank"), (2026, 9, 30, 11, 0, 0)),
        ("Rick Roe_5_assignsubmission_file_/answers.pdf", b"%PDF", (2026, 9, 30, 11, 0, 0)),
    ])

    report = collect(course, NB, zip_path)

    assert [s for s, _, _ in report.collected] == ["4321", "98"]
    assert _submitted(course, "98") == (_notebook("blank"), "2026-09-30 11:00:00.000000 UTC")
    assert report.details["98"].display == "Élise Müller"
    # Rick sent no notebook at all: that needs the instructor.
    assert report.needs_attention
    assert report.unmatched == [("Rick Roe_5_assignsubmission_file_/answers.pdf",
                                 "not a notebook (.ipynb), and '5' submitted no notebook")]
    assert "Moodle layout" in report.format() and "participant id" in report.format()


def test_blackboard_download_time_from_the_name(course, tmp_path):
    entries = []
    for student, when in (("jdoe", "2026-09-30-10-00-00"), ("jdoe", "2026-09-30-18-30-00"),
                          ("s-777", "2026-10-02-08-00-00")):
        entries.append((f"gradebook_{NB}/{NB}_{student}_attempt_{when}.txt", b"Name: ...",
                        (2027, 1, 1, 0, 0, 0)))
        entries.append((f"gradebook_{NB}/{NB}_{student}_attempt_{when}_{NB}.ipynb",
                        _notebook("perfect" if when.endswith("18-30-00") else "blank"), (2027, 1, 1, 0, 0, 0)))
    report = collect(course, NB, _zip(tmp_path / "bb.zip", entries))

    assert [s for s, _, _ in report.collected] == ["jdoe", "s-777"]
    assert not report.needs_attention, report.format()
    assert _submitted(course, "jdoe") == (_notebook("perfect"), "2026-09-30 18:30:00.000000 UTC")
    assert _submitted(course, "s-777")[1] == "2026-10-02 08:00:00.000000 UTC"
    assert "WARNING" not in report.format() and "time from the name" in report.format()


def test_every_layout_example_is_its_own(course):
    """Each layout's example fits it, and no other layout reads it as well (the order
    ``collect`` tries them never changes whose id is taken)."""
    for key, layout in LAYOUTS.items():
        assert layout.regex.search(layout.example), key
        first = next(k for k, other in LAYOUTS.items() if other.regex.search(layout.example))
        assert first == key


def test_a_custom_pattern_without_time_warns(course, tmp_path, capsys):
    (tmp_path / "in" / "alice").mkdir(parents=True)
    (tmp_path / "in" / "alice" / f"{NB}.ipynb").write_bytes(_notebook())
    code = main(["--course", str(course.root), "collect", NB, str(tmp_path / "in"),
                 "--pattern", r"(?P<student>[^/]+)/[^/]+$"])
    out = capsys.readouterr().out
    assert code == 0
    assert "alice: ps_fixture" in out and "time from the file's modification time" in out
    assert "WARNING: no submission time in the file names of 1 submission(s)" in out
