"""The ``nbg`` command line: which subcommand runs, and what an error looks like."""

from __future__ import annotations

import pytest

import grading.commands.status
from grading.cli import main
from grading.core.errors import NbgError


def test_a_course_folder_named_like_a_subcommand_is_read_as_the_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "report" / "source").mkdir(parents=True)  # a course folder named like a subcommand
    monkeypatch.chdir(tmp_path)
    code = main(["--course", "report", "export", "--format", "canvas"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unrecognized arguments" not in err
    assert "nbg export: error: --format canvas needs --roster" in err


def test_a_users_mistake_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    def refuse(args):
        raise NbgError("no assignment here: check --course")

    monkeypatch.setattr(grading.commands.status, "run", refuse)
    (tmp_path / "source").mkdir()
    assert main(["--course", str(tmp_path), "status"]) == 2
    assert capsys.readouterr().err == "nbg status: error: no assignment here: check --course\n"


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch):
    def bug(args):
        raise ValueError("operands could not be broadcast together")  # e.g. from NumPy deep inside

    monkeypatch.setattr(grading.commands.status, "run", bug)
    (tmp_path / "source").mkdir()
    with pytest.raises(ValueError, match="broadcast"):
        main(["--course", str(tmp_path), "status"])


def test_every_error_the_library_raises_for_the_user_is_an_nbg_error():
    """The one-line errors of the steps are NbgErrors, so that the CLI prints them, and
    still ValueErrors for library callers."""
    from grading.core.database import DatabaseError
    from grading.core.lock import CourseBusy

    assert issubclass(NbgError, ValueError)
    assert issubclass(CourseBusy, NbgError) and issubclass(DatabaseError, NbgError)
