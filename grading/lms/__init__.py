"""Grades in the CSV layouts that Canvas's and Moodle's gradebook imports accept.

Both need the LMS's own student identifiers, which nbgrader does not have:
they come from a *roster*, a CSV with one row per student. The simplest
roster is the LMS's own gradebook export (Canvas: Grades > Export; Moodle:
Grades > Export > Plain text file); ``id_column`` names its column that
holds the nbgrader student id (e.g. ``SIS Login ID`` when students submit
under their login).

Canvas (``canvas.csv``)
    ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per
    assignment, then a ``Points Possible`` row. Canvas matches students by
    ``ID`` (or the SIS ids, or the name) and assignment columns by the id in
    ``Name (123)`` or else by exact name; an assignment it does not have is
    created with the points of the ``Points Possible`` row. When the roster
    is a Canvas export with a column ``<assignment> (<id>)``, that header is
    reused so the grades land in that assignment.
Moodle (``moodle.csv``)
    The roster's identity columns among ``First name, Last name, ID number,
    Email address, Username``, then one column per assignment. In Moodle's
    import ("CSV file"), map ``ID number``/``Email address``/``Username`` to
    the user field of the same name and each assignment column to its grade
    item; create the grade items with the maximum grade printed by ``nbg
    export`` (Moodle refuses grades above an item's maximum).

Scores are after the late penalty (what ``grades.csv`` holds); an empty cell
is "did not submit", which both LMSes leave ungraded.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from grading.core.errors import NbgError
from grading.core.text import format_points

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_IDS = ("ID", "SIS User ID", "SIS Login ID")
MOODLE_IDENTITY = ("First name", "Last name", "ID number", "Email address", "Username")
MOODLE_IDS = ("ID number", "Email address", "Username")
_CANVAS_TITLE_AND_ID = re.compile(r"^(.*)\s+\((\d+)\)$")


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


def _check_everyone_graded_is_listed(grades, roster, path_hint):
    graded = sorted({student for student, _ in grades.submissions})
    missing = [s for s in graded if s not in roster]
    if missing:
        raise NbgError(f"student(s) {missing} have grades but are not in the roster {path_hint}: "
                         "add them (or check --roster-id)")


def canvas_rows(grades, roster_header, roster, roster_name="roster"):
    """The rows of Canvas's gradebook import CSV (header, Points Possible, students)."""
    if "Student" not in roster_header or not any(c in roster_header for c in CANVAS_IDS):
        raise NbgError(f"a Canvas roster needs the columns 'Student' and one of {list(CANVAS_IDS)} "
                         "(Canvas's gradebook export has them)")
    _check_everyone_graded_is_listed(grades, roster, roster_name)
    columns = []
    for assignment in grades.assignments:
        # Reuse "<assignment> (<Canvas id>)" from a Canvas export, so the import updates it.
        matches = [h for h in roster_header
                   if (m := _CANVAS_TITLE_AND_ID.match(h)) and m.group(1).strip() == assignment]
        columns.append(matches[0] if matches else assignment)
    rows = [[*CANVAS_IDENTITY, *columns],
            ["Points Possible", "", "", "", "",
             *(format_points(grades.max_scores[a]) for a in grades.assignments)]]
    for student, row in roster.items():
        rows.append([row.get(c, "") for c in CANVAS_IDENTITY]
                    + [format_points(grades.score(student, a)) for a in grades.assignments])
    return rows


def moodle_rows(grades, roster_header, roster, roster_name="roster"):
    """The rows of a CSV for Moodle's grade import (header, then one row per student)."""
    identity = [c for c in MOODLE_IDENTITY if c in roster_header]
    if not any(c in identity for c in MOODLE_IDS):
        raise NbgError(f"a Moodle roster needs one of the columns {list(MOODLE_IDS)} "
                         "(Moodle's grade export has 'ID number' and 'Email address')")
    _check_everyone_graded_is_listed(grades, roster, roster_name)
    rows = [[*identity, *grades.assignments]]
    for student, row in roster.items():
        rows.append([row.get(c, "") for c in identity]
                    + [format_points(grades.score(student, a)) for a in grades.assignments])
    return rows


FORMATS = {"canvas": canvas_rows, "moodle": moodle_rows}


def write_lms_csv(grades, lms, roster_path, id_column, out_path) -> Path:
    """Write ``grades`` for ``lms`` ("canvas" or "moodle") to ``out_path``."""
    if lms not in FORMATS:
        raise NbgError(f"unknown LMS format {lms!r}; use one of {sorted(FORMATS)}")
    header, roster = read_roster(roster_path, id_column)
    rows = FORMATS[lms](grades, header, roster, roster_name=str(roster_path))
    out_path = Path(out_path)
    with out_path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return out_path
