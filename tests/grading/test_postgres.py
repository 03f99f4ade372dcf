"""A PostgreSQL gradebook: same scores as SQLite, one grader at a time, nothing lost to a kill.

A throw-away PostgreSQL server (Debian's binaries, started here, reachable
only through a unix socket in its temporary folder) holds the gradebooks;
the course config names it with a plain ``postgresql://`` URL, as an
instructor would. Graders run as ``nbg`` subprocesses so that they can run
side by side and be killed. Oracle: the hand-derived cell scores of
``fixtures`` and the SQLite grades of the same class.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

import fixtures
import servers
import small_class
from grading import cli
from grading.autograde import autograde
from grading.core.course import Course
from grading.core.lock import unfinished_run
from grading.release import generate_assignment

NBG = str(servers.BIN / "nbg")
RUN_TIMEOUT = 300  # seconds one grading run of the small class may take here


@pytest.fixture(scope="module")
def postgres():
    with servers.postgres_server() as server:
        yield server


@pytest.fixture(scope="module")
def sqlite_scores(tmp_path_factory):
    course = Course(small_class.fresh_copy(tmp_path_factory, "sqlite"))
    autograde(course, workers=2)
    scores = small_class.cell_scores(course)
    assert scores == small_class.hand_derived_scores()
    return scores


def _postgres_course(tmp_path_factory, postgres, name) -> Course:
    """The small class with its gradebook in a new database, named in the course config."""
    root = small_class.fresh_copy(tmp_path_factory, name)
    url = postgres.create_database(name)
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.CourseDirectory.db_url = {url!r}\n")
    course = Course(root)
    assert course.db_url.startswith("postgresql+psycopg://")  # the driver the postgres extra installs
    with course.gradebook() as gradebook:
        gradebook.update_or_create_assignment(fixtures.FIXTURE_ASSIGNMENT, duedate=fixtures.DUEDATE)
    generate_assignment(course, fixtures.FIXTURE_ASSIGNMENT)  # the notebooks, in this gradebook
    return course


def _nbg(course, *args, **popen):
    return subprocess.Popen([NBG, "--course", str(course.root), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def _finish(process, timeout=RUN_TIMEOUT):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def _wait_for(predicate, what, timeout=RUN_TIMEOUT):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.1)


def _row_counts(course) -> dict:
    import sqlalchemy

    engine = sqlalchemy.create_engine(course.db_url, poolclass=sqlalchemy.pool.NullPool)
    try:
        with engine.connect() as connection:
            return {table: connection.execute(sqlalchemy.text(f"SELECT count(*) FROM {table}")).scalar()
                    for table in ("submitted_assignment", "submitted_notebook", "grade")}
    finally:
        engine.dispose()


@pytest.mark.slow
def test_postgres_gradebook_gets_the_sqlite_scores_cell_by_cell(tmp_path_factory, postgres, sqlite_scores):
    course = _postgres_course(tmp_path_factory, postgres, "same_scores")
    started = time.monotonic()
    code, out, err = _finish(_nbg(course, "autograde", "-j", "2", "--quiet"))
    print(f"nbg autograde on PostgreSQL: {time.monotonic() - started:.1f} s")
    assert code == 1, err  # 1: the infinite loop's timeout needs attention
    assert "3 notebook(s) graded" in out
    assert small_class.cell_scores(course) == sqlite_scores
    students = len(small_class.STUDENTS)
    assert _row_counts(course) == {"submitted_assignment": students, "submitted_notebook": students,
                                   "grade": students * len(fixtures.GRADE_CELLS)}


@pytest.mark.slow
def test_one_grader_at_a_time_and_a_killed_grader_loses_nothing(tmp_path_factory, postgres, sqlite_scores):
    course = _postgres_course(tmp_path_factory, postgres, "locked")
    elsewhere = Course(small_class.fresh_copy(tmp_path_factory, "locked_elsewhere"))  # same database, other folder
    (elsewhere.root / "nbgrader_config.py").write_text((course.root / "nbgrader_config.py").read_text())
    started = time.monotonic()
    # A long cell timeout keeps the infinite loop (and so this run) going while we look; the
    # run is killed long before it ends, so it costs nothing.
    first = _nbg(course, "autograde", "-j", "2", "--quiet", "--timeout", str(RUN_TIMEOUT // 2),
                 start_new_session=True)
    try:
        _wait_for(lambda: unfinished_run(course) is not None, "the first grader's lock")
        same_folder = _nbg(course, "autograde", "--quiet")
        same_database = _nbg(elsewhere, "autograde", "--quiet")
        export = _nbg(course, "export")
        tried = time.monotonic()
        results = {name: _finish(p) for name, p in
                   [("same_folder", same_folder), ("same_database", same_database), ("export", export)]}
        assert first.poll() is None, "the first grader ended before the others were tried"
        print(f"a second grader (twice) and an export tried beside the first: {time.monotonic() - tried:.1f} s")
        code, _, err = results["same_folder"]
        assert code == 2 and "is grading the course" in err and len(err.strip().splitlines()) == 1, err
        code, _, err = results["same_database"]
        assert code == 2 and "PostgreSQL advisory lock" in err and len(err.strip().splitlines()) == 1, err
        code, _, err = results["export"]
        assert code == 0 and "warning:" in err and "is grading this course now" in err, err

        state = course.root / ".nbg_state" / "autograde" / fixtures.FIXTURE_ASSIGNMENT
        _wait_for(lambda: state.is_dir() and any(state.glob("*.json")), "the first committed submission")
        assert first.poll() is None, "the grader finished before it could be killed"
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(30)
    committed = sorted(path.stem for path in state.glob("*.json"))
    assert 0 < len(committed) < len(small_class.STUDENTS), committed

    code, _, err = _finish(_nbg(course, "export"))
    assert code == 0 and "did not finish" in err, err

    code, out, err = _finish(_nbg(course, "autograde", "-j", "2", "--quiet"))
    assert code == 1, err
    assert f"{len(committed)} submission(s) unchanged and skipped" in out, out
    assert small_class.cell_scores(course) == sqlite_scores
    students, cells = len(small_class.STUDENTS), len(fixtures.GRADE_CELLS)
    assert _row_counts(course) == {"submitted_assignment": students, "submitted_notebook": students,
                                   "grade": students * cells}
    code, out, err = _finish(_nbg(course, "export"))
    # finished, no warning; exit 1 because the class's infinite loop still needs attention
    assert (code, err) == (1, "") and "need attention (listed above)" in out, (code, out, err)
    print(f"two graders, a kill and a re-run on PostgreSQL: {time.monotonic() - started:.1f} s")


COMMANDS = [["release"], ["autograde"], ["export"], ["report"], ["feedback"], ["validate"],
            ["collect", "ps_fixture", "submissions.zip"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_unusable_database_is_one_line_and_exit_2(command, postgres, tmp_path, capsys):
    (tmp_path / "source").mkdir()  # a course folder: the database is what is wrong
    code = cli.main(["--course", str(tmp_path), "--db", postgres.url("no_such_database"), *command])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert f"nbg {command[0]}: error: cannot use the gradebook" in err and "does not exist" in err


def test_a_missing_driver_is_named_with_how_to_install_it(tmp_path, capsys):
    (tmp_path / "source").mkdir()
    (tmp_path / "nbgrader_config.py").write_text(
        'c.CourseDirectory.db_url = "postgresql+psycopg2://grader@/gradebook?host=/nowhere"\n')
    code = cli.main(["--course", str(tmp_path), "export"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "needs the database driver 'psycopg2'" in err and "pip install" in err
