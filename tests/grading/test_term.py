"""A term's round trip as docs/instructor.md's "Running a term" tells it, through the ``nbg`` command line.

A course folder of its own with two assignments (one not yet handed in); a Canvas
download (``LATE_``, a ``-1`` resubmission, a truncated notebook); ``collect``, ``autograde``
(twice), ``status``, ``feedback``; Canvas's gradebook export as the roster and
``export --format canvas --roster-id ID``, the id ``collect`` printed. Kernels run
(unsandboxed, 2 at a time): about 20 s.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import zipfile

import nbformat
import pytest

import fixtures

pytestmark = pytest.mark.slow
NB = fixtures.FIXTURE_ASSIGNMENT
LATER = "ps_later"
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,ps_fixture (1001),ps_later (1002)\n"
    "    Points Possible,,,,,6.00,6.00\n"
    '"Doe, Jane",12345,S1,jdoe,Section A,,\n'
    '"Roe, Rick",777,S2,rroe,Section A,,\n'
    '"Broken, Bob",4242,S3,bbroken,Section A,,\n'
    '"Absent, Ann",999,S4,aabsent,Section A,,\n'
)


def nbg(root, *args):
    done = subprocess.run([sys.executable, "-m", "grading", "--course", str(root), *args],
                          capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def test_canvas_round_trip_as_the_readme_tells_it(tmp_path):
    root = tmp_path / "ml101"  # the instructor's own course folder, outside the repository
    fixtures.write_course(root)
    fixtures.write_course(root, assignment=LATER)
    with (root / "nbgrader_config.py").open("a") as config:  # late work scores 0 (due 2026-10-01 12:00)
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    release = fixtures.stock_generate_assignment(root)
    fixtures.stock_generate_assignment(root, LATER)
    perfect = nbformat.writes(fixtures.student_notebook(release, "perfect"))
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for name, text, when in (
            (f"doejane_12345_67890_{NB}.ipynb", perfect, (2026, 9, 30, 9, 0, 0)),
            (f"roerick_LATE_777_5555_{NB}-1.ipynb", perfect, (2026, 10, 2, 9, 0, 0)),
            (f"brokenbob_4242_1111_{NB}.ipynb", perfect[: len(perfect) // 2], (2026, 9, 30, 9, 0, 0)),
        ):
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)

    code, out, err = nbg(root, "collect", NB, str(download))
    assert code == 0, out + err
    assert "3 submission(s) collected" in out and "--roster-id 'ID'" in out
    assert "777: ps_fixture (2026-10-02 09:00:00 UTC;" in out and "marked late by Canvas" in out

    code, out, err = nbg(root, "autograde", "-j", "2", "--unsafe-no-sandbox", "--quiet")
    assert code == 1, out + err
    assert "ATTENTION 4242/ps_fixture/ps_fixture: invalid_notebook" in out
    # Nothing changed: a second run grades nothing, and still says what needs attention.
    code, out, err = nbg(root, "autograde", "--unsafe-no-sandbox", "--quiet")
    assert code == 1, out + err
    assert "0 notebook(s) graded" in out and "STILL NEEDS ATTENTION 4242/ps_fixture" in out
    code, out, err = nbg(root, "status")
    assert code == 1 and "ATTENTION 4242" in out

    code, out, err = nbg(root, "report")
    assert code == 1 and "1 notebook(s) need attention" in out and "4242/ps_fixture/ps_fixture" in out
    code, out, err = nbg(root, "feedback")
    assert code == 0, out + err
    page = (root / "feedback" / "4242" / NB / f"{NB}.html").read_text()
    assert "Score: 0" in page and "not a notebook Jupyter can open" in page and "Why:" in page
    assert (root / "feedback" / "12345" / NB / f"{NB}.html").is_file()

    (tmp_path / "canvas_export.csv").write_text(CANVAS_EXPORT)
    # The login is not the id collect took from Canvas's names: refused, saying so, nothing written.
    code, out, err = nbg(root, "export", "--format", "canvas", "--roster", str(tmp_path / "canvas_export.csv"),
                         "--roster-id", "SIS Login ID")
    assert code == 2 and "holds ids like jdoe, rroe, bbroken" in err and "`nbg collect` printed" in err
    assert not (root / "exports").exists()
    code, out, err = nbg(root, "export", "--format", "canvas", "--roster", str(tmp_path / "canvas_export.csv"),
                         "--roster-id", "ID")
    assert code == 1, out + err
    lines = out.splitlines()
    assert lines[0].startswith(f"WARNING 4242/{NB}/{NB}: invalid_notebook") and "it counts 0" in lines[0]
    assert f"not written (nobody submitted yet; --all-assignments writes them): {LATER}" in out
    with (root / "exports" / "canvas.csv").open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ps_fixture (1001)"]
    scores = {row[1]: row[5] for row in rows[2:]}
    assert scores["12345"] == "6" and scores["4242"] == "0" and scores["999"] == ""
    assert scores["777"] == "0"  # late by the zip entry's date: the course's penalty applies
    with (root / "exports" / "grades.csv").open() as handle:
        assert next(csv.reader(handle)) == ["student", NB, "total"]


def test_ctrl_c_is_one_line_and_an_interrupted_forced_run_stays_pending(tmp_path):
    import json
    import signal
    import time

    root = tmp_path / "course"
    fixtures.make_class(root, {"a_loop": "infinite_loop", "perfect": "perfect"})
    code, out, err = nbg(root, "autograde", "-j", "1", "--unsafe-no-sandbox", "--quiet")
    assert "2 notebook(s) graded" in out, out + err
    state = root / ".nbg_state" / "autograde" / NB / "a_loop.json"
    run = subprocess.Popen([sys.executable, "-m", "grading", "--course", str(root), "autograde", "--force",
                            "-j", "1", "--unsafe-no-sandbox", "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while json.loads(state.read_text())["hash"] != "regrade-requested" and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2)  # a_loop's kernel is starting or looping (its cell's timeout is 5 s)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130
    assert err == "nbg autograde: interrupted; re-run to finish (nothing committed is lost)\n"
    code, out, err = nbg(root, "status")
    assert code == 1 and "pending (run `nbg autograde ps_fixture`): a_loop, perfect" in out
