"""The instructor's overrules of the rule on ready-made libraries, ``<course>/overrules.csv``.

One line per (assignment, student, graded function) whose finding the instructor
overruled, with the reason and when (``nbg overrule``). The answer scan reads it
(an overruled finding stays in the feedback and the report, but costs no point);
the report lists it. It is the instructor's own decision, like ``extensions.csv``:
back it up with the gradebook (``.nbg_state/`` can be rebuilt, this file cannot).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
from pathlib import Path

from grading.core.csvfile import unquote_cell, write_csv
from grading.core.errors import NbgError
from nbkit.librule.rule import RULE_TEXT  # noqa: F401 (the rule as the notebooks state it; the feedback quotes it)

FILENAME = "overrules.csv"
COLUMNS = ("assignment", "student", "function", "reason", "recorded_at")


@dataclasses.dataclass(frozen=True)
class Overrule:
    assignment: str
    student: str
    function: str
    reason: str
    recorded_at: str = ""

    @property
    def key(self) -> tuple:
        return self.assignment, self.student, self.function


def overrules_path(course) -> Path:
    return Path(course.root) / FILENAME


def read_overrules(course) -> list:
    """Every overrule, oldest first; a missing file is none. A file whose header is not
    :data:`COLUMNS` is an :class:`NbgError` saying what it must hold."""
    path = overrules_path(course)
    if not path.is_file():
        return []
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    if not rows:
        return []
    if tuple(rows[0]) != COLUMNS:
        raise NbgError(f"{path}: the first line must be {','.join(COLUMNS)} (written by `nbg overrule`), "
                       f"got {','.join(rows[0])}")
    found = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(row):
            continue
        if len(row) != len(COLUMNS):
            raise NbgError(f"{path}, line {number}: expected {len(COLUMNS)} columns ({','.join(COLUMNS)})")
        found.append(Overrule(*(unquote_cell(cell) for cell in row)))
    return found


def write_overrules(course, overrules) -> Path:
    """Replace the file by ``overrules`` (written to a temporary file first, then renamed)."""
    path = overrules_path(course)
    rows = [COLUMNS, *([o.assignment, o.student, o.function, o.reason, o.recorded_at]
                       for o in sorted(overrules, key=lambda o: o.key))]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # Safe to open in a spreadsheet, and read back exactly (a leading ' is undone on reading).
    write_csv(tmp, rows, reversible=True, lineterminator="\n")
    os.replace(tmp, path)
    return path
