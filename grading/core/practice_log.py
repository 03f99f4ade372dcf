"""The practice service's attempts: one row per checked function, in the gradebook's database.

A table of its own, ``nbg_practice_attempt``, beside nbgrader's tables (SQLite
or PostgreSQL, the URL of :attr:`grading.core.course.Course.db_url`): nbgrader
never reads it, so nothing here can reach a grade. Written by ``nbg serve``
(:mod:`grading.practice`), read by the budget and by ``nbg report``'s "Learning
from practice" (:mod:`grading.report.practice`).

Columns: the student, assignment and graded function; ``attempt``, the
student's request number for that assignment (1, 2, ...: it seeds the practice
inputs); ``at`` (UTC); ``passed`` (every test cell of the function passed);
``cells`` (JSON ``{grade_id: true/false}``); ``mistakes`` (the catalogue's ids
the diagnosis named, space-separated, ``""`` when none).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import sqlalchemy as sa

TABLE = "nbg_practice_attempt"
_METADATA = sa.MetaData()
ATTEMPTS = sa.Table(
    TABLE, _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("student", sa.String(128), nullable=False, index=True),
    sa.Column("assignment", sa.String(128), nullable=False),
    sa.Column("function", sa.String(128), nullable=False),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("at", sa.DateTime, nullable=False),
    sa.Column("passed", sa.Boolean, nullable=False),
    sa.Column("cells", sa.Text, nullable=False, default="{}"),
    sa.Column("mistakes", sa.Text, nullable=False, default=""),
)


@dataclasses.dataclass(frozen=True)
class Attempt:
    """One checked function of one request."""

    student: str
    assignment: str
    function: str
    attempt: int
    at: dt.datetime  # naive UTC
    passed: bool
    cells: dict = dataclasses.field(default_factory=dict)
    mistakes: tuple = ()


_ENGINES = {}


def engine(url):
    """One engine per URL, the table created if missing (SQLite waits for a busy database)."""
    if url not in _ENGINES:
        connect_args = {"timeout": 30} if url.startswith("sqlite:") else {}
        created = sa.create_engine(url, connect_args=connect_args, pool_pre_ping=True)
        _METADATA.create_all(created, tables=[ATTEMPTS])
        _ENGINES[url] = created
    return _ENGINES[url]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)


def record_attempts(url, attempts) -> None:
    """Insert ``attempts`` (a list of :class:`Attempt`) in one transaction."""
    rows = [{"student": a.student, "assignment": a.assignment, "function": a.function, "attempt": a.attempt,
             "at": a.at, "passed": bool(a.passed), "cells": json.dumps(a.cells, sort_keys=True),
             "mistakes": " ".join(a.mistakes)} for a in attempts]
    if rows:
        with engine(url).begin() as connection:
            connection.execute(ATTEMPTS.insert(), rows)


def read_attempts(url, assignment=None, student=None) -> list:
    """Every attempt (of one assignment / student when given), oldest first."""
    query = sa.select(ATTEMPTS).order_by(ATTEMPTS.c.at, ATTEMPTS.c.attempt, ATTEMPTS.c.id)
    if assignment is not None:
        query = query.where(ATTEMPTS.c.assignment == assignment)
    if student is not None:
        query = query.where(ATTEMPTS.c.student == student)
    with engine(url).connect() as connection:
        return [Attempt(r.student, r.assignment, r.function, r.attempt, r.at, bool(r.passed),
                        json.loads(r.cells or "{}"), tuple((r.mistakes or "").split()))
                for r in connection.execute(query)]


def has_attempts(url) -> bool:
    """Whether the database holds the table with a row (without creating it: ``nbg report`` reads only)."""
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).is_file():
        return False  # connecting would create the file
    try:
        probe = sa.create_engine(url, poolclass=sa.pool.NullPool)
        try:
            if not sa.inspect(probe).has_table(TABLE):
                return False
            with probe.connect() as connection:
                return connection.execute(sa.select(ATTEMPTS.c.id).limit(1)).first() is not None
        finally:
            probe.dispose()
    except sa.exc.SQLAlchemyError:
        return False


def checks_since(url, student, assignment, since) -> dict:
    """function -> (checks since ``since``, the oldest of them) of one student and assignment."""
    query = (sa.select(ATTEMPTS.c.function, sa.func.count(), sa.func.min(ATTEMPTS.c.at))
             .where(ATTEMPTS.c.student == student, ATTEMPTS.c.assignment == assignment, ATTEMPTS.c.at >= since)
             .group_by(ATTEMPTS.c.function))
    with engine(url).connect() as connection:
        return {function: (count, oldest) for function, count, oldest in connection.execute(query)}


def last_attempt_number(url, student, assignment) -> int:
    """The student's highest request number for the assignment (0 before the first)."""
    query = sa.select(sa.func.max(ATTEMPTS.c.attempt)).where(
        ATTEMPTS.c.student == student, ATTEMPTS.c.assignment == assignment)
    with engine(url).connect() as connection:
        return connection.execute(query).scalar() or 0
