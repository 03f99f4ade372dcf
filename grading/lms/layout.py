"""What every LMS module shares: the download :class:`Layout` and the roster reader.

A :class:`Layout` describes how one LMS names the files of its "download all
submissions" archive: a regular expression searched in each file's path
(forward slashes) with a named group ``student`` (the part that becomes the
nbgrader student id) and optionally ``timestamp`` (the submission time),
``file`` (the student's own file name, matched against the notebook names),
``late`` (the LMS marked the file late) and ``attempt`` (a resubmission
number: a higher one is newer).
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path

from grading.core.errors import NbgError


@dataclasses.dataclass(frozen=True)
class Layout:
    """How one LMS names the files of its submission download."""

    name: str  # "Canvas"
    pattern: str  # regex, see the module docstring
    example: str  # a file name in this layout
    student_part: str  # which part of the name became the student id
    roster_id: str = ""  # the column of the LMS's gradebook export holding that id ("" when none)
    time_from: str = ""  # where the submission time comes from when the name has none

    @property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern)


def read_roster(path, id_column="student_id"):
    """Read a roster CSV: (header, {nbgrader student id: row dict}), in file order.

    Canvas's ``Points Possible`` row and its ``Muted``/``Manual Posting`` row
    are skipped, so a Canvas gradebook export can be used as it is.
    """
    path = Path(path)
    if not path.is_file():
        raise NbgError(f"no roster file {path}: give --roster the LMS's gradebook export or a CSV "
                       "with one row per student")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = [h.strip() for h in (reader.fieldnames or [])]
        reader.fieldnames = header
        if id_column not in header:
            raise NbgError(f"{path} has no column {id_column!r} (it has {header}); "
                           "name the column holding the nbgrader student ids with --roster-id")
        roster = {}
        for line, row in enumerate(reader, start=2):
            first = (row.get(header[0]) or "").strip()
            if "Points Possible" in first:
                continue
            if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", v or "", re.I) for v in row.values()):
                continue
            student = (row.get(id_column) or "").strip()
            if not student:
                raise NbgError(f"{path}, line {line}: empty {id_column!r}")
            if student in roster:
                raise NbgError(f"{path}, line {line}: student {student!r} appears twice")
            roster[student] = {k: (v or "").strip() for k, v in row.items() if k is not None}
    return header, roster


def check_everyone_graded_is_listed(grades, roster, path_hint, id_column=""):
    graded = sorted({student for student, _ in grades.submissions})
    missing = [s for s in graded if s not in roster]
    if missing:
        sample = ", ".join(list(roster)[:3])
        raise NbgError(f"student(s) {missing} have grades but are not in the roster {path_hint} "
                       f"(its column {id_column!r} holds ids like {sample}): add them, or name with "
                       "--roster-id the column holding the ids `nbg collect` printed")
