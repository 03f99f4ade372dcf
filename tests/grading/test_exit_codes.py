"""One exit-code policy for every subcommand (no kernels; a few seconds).

A missing or wrong course folder, an unknown assignment and an unknown student
are exit 2 with one line that says what to write instead (listing the valid
ids), and create nothing; ``--course`` after the subcommand says where it goes;
output closed early is one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import fixtures
from grading.cli import main
from grading.core.course import Course

NB = fixtures.FIXTURE_ASSIGNMENT
# Every subcommand that reads a course, with the arguments it needs.
COMMANDS = {
    "release": [],
    "collect": [NB, "{zip}"],
    "autograde": ["--unsafe-no-sandbox"],
    "validate": [],
    "feedback": [],
    "export": [],
    "report": [],
    "status": [],
    "mistakes": [],
}
WITH_ASSIGNMENT = {"release": ["{a}"], "collect": ["{a}", "{zip}"], "autograde": ["{a}"], "feedback": ["{a}"],
                   "mistakes": ["--assignment", "{a}"]}
WITH_STUDENT = {"autograde": [NB, "--student", "{s}"], "feedback": [NB, "--student", "{s}"]}


def _tree(root: Path) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def course(tmp_path):
    root = fixtures.write_course(tmp_path / "course")
    course = Course(root)
    submitted = course.submitted_dir("alice", NB)
    submitted.mkdir(parents=True)
    nbformat.write(fixtures.student_notebook(fixtures.source_notebook(), "perfect"), submitted / f"{NB}.ipynb")
    (tmp_path / "download.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    return course


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_course_folder_is_exit_2_and_creates_nothing(command, tmp_path, monkeypatch, capsys, course):
    monkeypatch.chdir(tmp_path)
    before = _tree(tmp_path)
    args = [a.format(zip=tmp_path / "download.zip") for a in COMMANDS[command]]
    for where, hint in ((tmp_path / "no" / "such", "does not exist"), (tmp_path, "has no source/ folder")):
        code, out, err = _run(["--course", str(where), command, *args], capsys)
        assert code == 2, (command, out, err)
        assert err.count("\n") == 1 and hint in err and "--course must name the course folder" in err
    # Without --course, from the folder that holds the course: the message names it.
    code, out, err = _run([command, *args], capsys)
    assert code == 2 and f"write `nbg --course course {command}" not in err  # the folder is not named course/
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("command", WITH_ASSIGNMENT)
def test_a_typo_in_an_assignment_id_lists_the_valid_ones(command, tmp_path, capsys, course):
    before = _tree(tmp_path)
    args = [a.format(a="ps_fixtrue", zip=tmp_path / "download.zip") for a in WITH_ASSIGNMENT[command]]
    code, out, err = _run(["--course", str(course.root), command, *args], capsys)
    assert code == 2
    assert err == (f"nbg {command}: error: unknown assignment(s) 'ps_fixtrue': the course's assignments "
                   f"(in {course.source_root}) are {NB}\n")
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("command", WITH_STUDENT)
def test_a_typo_in_a_student_id_lists_the_valid_ones(command, tmp_path, capsys, course):
    before = _tree(tmp_path)
    args = [a.format(s="alcie") for a in WITH_STUDENT[command]]
    code, out, err = _run(["--course", str(course.root), command, *args], capsys)
    assert code == 2
    assert err == f"nbg {command}: error: unknown student(s) 'alcie': the students with a submission are alice\n"
    assert _tree(tmp_path) == before


def test_course_after_the_subcommand_says_where_it_goes(capsys, course):
    code, out, err = _run(["status", "--course", str(course.root)], capsys)
    assert code == 2
    assert err == f"nbg: error: --course goes before the subcommand: write `nbg --course {course.root} status`\n"


def test_an_unknown_database_driver_is_one_line(capsys, course):
    code, out, err = _run(["--course", str(course.root), "--db", "mysql://grader@db/ml101", "status"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "needs the database driver 'MySQLdb', which is not installed" in err


def test_output_closed_early_is_one_line(course):
    """``nbg status | head``: the reader is gone before nbg writes (its end of the pipe closed)."""
    nbg = Path(sys.executable).with_name("nbg")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([str(nbg), "--course", str(course.root), "status"], stdout=write_end,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert result.stderr == "nbg status: output closed early (broken pipe); stopped\n"
    assert result.returncode == 141


def test_nbg_mistakes_without_a_catalogue_has_no_group_and_exit_0(capsys, course):
    """No catalogue (course/mistakes/), nothing graded: no failure to group (the groups themselves:
    tests/mutation/test_unmatched_groups.py, on the session's graded class of the real course)."""
    code, out, err = _run(["--course", str(course.root), "mistakes"], capsys)
    assert (code, err) == (0, "") and out.startswith("every failure of a catalogued function is a known mistake")
    code, out, err = _run(["--course", str(course.root), "mistakes", "--group", "abc123"], capsys)
    assert code == 2 and err == ("nbg mistakes: error: no group 'abc123': the groups are none (every failure is "
                                 "a known mistake) (`nbg mistakes` lists them)\n")
    code, out, err = _run(["--course", str(course.root), "mistakes", "--sample", "-1"], capsys)
    assert code == 2 and err == "nbg mistakes: error: --sample must be 0 or more, not -1\n"
