"""``nbg serve tokens``: issued, stored only as hashes, revocable; usage mistakes are exit 2 and create nothing."""

from __future__ import annotations

import csv
import stat

import pytest

from grading.cli import main
from grading.practice.identity import TokenIdentity, token_store
from grading.core.course import Course
from tests.grading.fixtures import write_course


@pytest.fixture
def course(tmp_path):
    return Course(write_course(tmp_path / "course"))


def _tokens(path) -> dict:
    with open(path, newline="") as handle:
        return {row["student"]: row["token"] for row in csv.DictReader(handle)}


def test_tokens_are_handed_out_once_stored_as_hashes_and_revocable(course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nalice,Alice\nbob,Bob\n")
    out = tmp_path / "tokens.csv"
    assert main(["--course", str(course.root), "serve", "tokens", "--roster", str(roster), "--out", str(out)]) == 0
    tokens = _tokens(out)
    stored = token_store(course).path
    assert sorted(tokens) == ["alice", "bob"] and stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600 and not any(t in stored.read_text() for t in tokens.values())
    identity = TokenIdentity(course)
    assert identity.student({"Authorization": f"token {tokens['alice']}"}) == "alice"
    assert identity.student({"Authorization": f"Bearer {tokens['bob']}"}) == "bob"
    assert identity.student({"Authorization": f"token {tokens['alice']}x"}) is None
    assert main(["--course", str(course.root), "serve", "tokens", "--revoke", "alice", "--revoke", "zed"]) == 1
    assert "alice: revoked" in capsys.readouterr().out
    assert identity.student({"Authorization": f"token {tokens['alice']}"}) is None
    assert identity.student({"Authorization": f"token {tokens['bob']}"}) == "bob"
    again = tmp_path / "again.csv"  # a new token replaces the old one
    assert main(["--course", str(course.root), "serve", "tokens", "--student", "bob", "--out", str(again)]) == 0
    assert identity.student({"Authorization": f"token {tokens['bob']}"}) is None
    assert identity.student({"Authorization": f"token {_tokens(again)['bob']}"}) == "bob"


@pytest.mark.parametrize("extra, message", [
    ([], "give --out FILE"),
    (["--roster", "{missing}", "--out", "{out}"], "cannot read the roster"),
    (["--roster", "{bad}", "--out", "{out}"], "needs an `id` column"),
    (["--student", "alice", "--out", "{exists}"], "exists: give a new file"),
])
def test_usage_mistakes_are_exit_2_and_issue_nothing(course, tmp_path, capsys, extra, message):
    (tmp_path / "bad.csv").write_text("student\nalice\n")
    (tmp_path / "exists.csv").write_text("keep me\n")
    names = {"missing": tmp_path / "nope.csv", "bad": tmp_path / "bad.csv", "out": tmp_path / "t.csv",
             "exists": tmp_path / "exists.csv"}
    argv = ["--course", str(course.root), "serve", "tokens", *[a.format(**names) for a in extra]]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not token_store(course).path.exists() and not (tmp_path / "t.csv").exists()
    assert (tmp_path / "exists.csv").read_text() == "keep me\n"
