"""One ``nbg autograde`` per course at a time, and a trace of runs that did not finish.

Two graders on one course would grade the same notebooks twice or collide in
the gradebook (a unique-constraint violation on PostgreSQL). A run holds:

* a lock file, ``<course>/.nbg_state/autograde.lock``, locked with
  ``flock`` (the course folders are written by the run, whatever the
  database); the kernel releases it when the grader exits or is killed;
* on a PostgreSQL gradebook also a session-level advisory lock
  (``pg_try_advisory_lock``) keyed on the course id, so graders on two
  machines that share the database but not the folder are refused too; the
  server releases it when the grader's connection ends.

A second run is refused with :class:`CourseBusy` (a ``ValueError``: one
line, exit 2), naming the holder. While a run holds the lock, and after a
run that was killed or interrupted until the next run finishes, a marker
file ``<course>/.nbg_state/autograde.running`` exists; ``nbg export`` and
``nbg report`` warn then (:func:`unfinished_run`), since nbgrader commits
scores cell by cell and a half-graded class would otherwise look final.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import socket
from pathlib import Path

from grading.core.database import is_postgres
from grading.core.errors import NbgError

STATE_DIRNAME = ".nbg_state"
LOCK_FILENAME = "autograde.lock"
MARKER_FILENAME = "autograde.running"


class CourseBusy(NbgError):
    """Another ``nbg autograde`` holds the course's lock."""


def lock_path(course) -> Path:
    return course.root / STATE_DIRNAME / LOCK_FILENAME


def marker_path(course) -> Path:
    return course.root / STATE_DIRNAME / MARKER_FILENAME


def advisory_key(course) -> int:
    """The advisory-lock key of a course: a signed 64-bit number from its course id.

    Examples
    --------
    >>> from grading.core.course import Course
    >>> advisory_key(Course("/tmp/a")) == advisory_key(Course("/tmp/b"))  # same (empty) course id
    True
    """
    digest = hashlib.sha256(f"nbg autograde {course.course_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _holder() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}


def _describe(holder: dict) -> str:
    if not holder:
        return "another nbg autograde"
    return f"nbg autograde (pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started')})"


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def _file_lock(course):
    path = lock_path(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CourseBusy(
                f"{_describe(_read_json(path))} is grading the course {course.root} now; wait until it "
                "ends (a killed grader releases the lock at once), then run again"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(_holder()))
        handle.flush()
        yield
    finally:
        handle.close()  # releases the flock


@contextlib.contextmanager
def _advisory_lock(course):
    import sqlalchemy

    engine = sqlalchemy.create_engine(course.db_url, poolclass=sqlalchemy.pool.NullPool)
    try:
        with engine.connect() as connection:
            key = advisory_key(course)
            acquired = connection.execute(sqlalchemy.text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar()
            connection.commit()
            if not acquired:
                raise CourseBusy(
                    f"another nbg autograde holds the lock of course {course.course_id or '(no course id)'} "
                    f"in the gradebook database (PostgreSQL advisory lock {key}); wait until it ends, then run again"
                )
            try:
                yield
            finally:
                connection.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                connection.commit()
    finally:
        engine.dispose()


@contextlib.contextmanager
def autograde_lock(course):
    """Hold the course's grading lock for one run (see the module docstring).

    Parameters
    ----------
    course : grading.core.course.Course

    Raises
    ------
    CourseBusy
        Another run holds the lock file or the database's advisory lock.
    """
    with contextlib.ExitStack() as stack:
        stack.enter_context(_file_lock(course))
        if is_postgres(course.db_url):
            stack.enter_context(_advisory_lock(course))
        marker = marker_path(course)
        marker.write_text(json.dumps(_holder()))
        finished = False
        try:
            yield
            finished = True
        except Exception:
            finished = True  # an error, not a kill: what was committed is consistent, and it was said
            raise
        finally:
            if finished:
                marker.unlink(missing_ok=True)


def _file_lock_held(course) -> bool:
    path = lock_path(course)
    if not path.exists():
        return False
    with open(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


def _advisory_lock_held(course) -> bool:
    import sqlalchemy

    key = advisory_key(course)
    # A bigint advisory key shows in pg_locks as classid (high half), objid (low half), objsubid 1.
    high, low = (key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF
    engine = sqlalchemy.create_engine(course.db_url, poolclass=sqlalchemy.pool.NullPool)
    try:
        with engine.connect() as connection:
            return bool(connection.execute(sqlalchemy.text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid::bigint = :high AND objid::bigint = :low AND objsubid = 1"),
                {"high": high, "low": low}).scalar())
    finally:
        engine.dispose()


def unfinished_run(course) -> str | None:
    """Why the gradebook may hold half-written scores now, or None.

    Returns
    -------
    str or None
        A sentence for a warning: a run holds the lock (it is under way), or
        the marker of a run that was killed or interrupted is still there.
    """
    if _file_lock_held(course):
        return f"{_describe(_read_json(lock_path(course)))} is grading this course now: scores may be incomplete"
    if is_postgres(course.db_url) and _advisory_lock_held(course):
        return "an nbg autograde run (on another machine) holds this course's lock: scores may be incomplete"
    marker = marker_path(course)
    if marker.exists():
        return (f"the {_describe(_read_json(marker))} run did not finish (killed or interrupted): "
                "run `nbg autograde` again to complete the grades")
    return None


def warn_if_unfinished(course, command) -> str | None:
    """Print a warning on stderr when :func:`unfinished_run` finds one; return it."""
    import sys

    why = unfinished_run(course)
    if why:
        print(f"nbg {command}: warning: {why}", file=sys.stderr)
    return why
