"""What ``nbg`` knows of each LMS, one module per LMS, registered here.

Each module (:mod:`~grading.lms.canvas`, :mod:`~grading.lms.moodle`,
:mod:`~grading.lms.blackboard`) has ``NAME``, ``LAYOUT`` (how its "download
all submissions" names files: :class:`~grading.lms.layout.Layout`, used by
``nbg collect``) and ``rows`` (the rows of a CSV its gradebook import
accepts, used by ``nbg export --format``; ``None`` when it has none).
``nbg collect --layout`` and ``nbg export --format`` take their choices from
:data:`REGISTRY`. How much ``nbg collect`` reads of one download at most is
:mod:`~grading.lms.limits`.

Exports need the LMS's own student identifiers, which nbgrader does not have:
they come from a *roster*, a CSV with one row per student. The simplest
roster is the LMS's own gradebook export (Canvas: Grades > Export; Moodle:
Grades > Export > Plain text file); ``id_column`` names its column that
holds the nbgrader student id (for a Canvas download collected by ``nbg
collect``: ``ID``, Canvas's user id). Scores are after the late penalty
(what ``grades.csv`` holds); an empty cell is "did not submit", which the
LMSes leave ungraded.
"""

from __future__ import annotations

from pathlib import Path

from grading.core.csvfile import write_csv
from grading.core.errors import NbgError
from grading.lms import blackboard, canvas, moodle
from grading.lms.layout import Layout, read_roster

# In the order ``nbg collect`` tries the layouts: the most specific names first
# (Blackboard's "_attempt_<time>", Moodle's "_assignsubmission_" folder, then Canvas's).
REGISTRY = {module.NAME: module for module in (blackboard, moodle, canvas)}
LAYOUTS = {name: module.LAYOUT for name, module in REGISTRY.items()}
FORMATS = {name: module.rows for name, module in REGISTRY.items() if module.rows is not None}

__all__ = ["FORMATS", "LAYOUTS", "REGISTRY", "Layout", "lms_rows", "read_roster", "write_lms_csv", "write_rows"]


def canvas_rows(grades, roster_header, roster, roster_name="roster"):
    """Canvas's import rows for every assignment of ``grades`` (see :mod:`grading.lms.canvas`)."""
    return canvas.rows(grades, roster_header, roster, grades.assignments, roster_name)


def moodle_rows(grades, roster_header, roster, roster_name="roster"):
    """Moodle's import rows for every assignment of ``grades`` (see :mod:`grading.lms.moodle`)."""
    return moodle.rows(grades, roster_header, roster, grades.assignments, roster_name)


def lms_rows(grades, lms, roster_path, id_column, assignments=None) -> list:
    """The rows of ``lms``'s import CSV (a key of :data:`FORMATS`), checked against the roster:
    raises :class:`NbgError` before anything is written."""
    if lms not in FORMATS:
        raise NbgError(f"unknown LMS format {lms!r}; use one of {sorted(FORMATS)}")
    header, roster = read_roster(roster_path, id_column)
    assignments = grades.assignments if assignments is None else list(assignments)
    return FORMATS[lms](grades, header, roster, assignments, roster_name=str(roster_path), id_column=id_column)


def write_rows(rows, out_path) -> Path:
    """Write an LMS's import rows; roster fields from the LMS are made safe for a spreadsheet."""
    return write_csv(out_path, rows)


def write_lms_csv(grades, lms, roster_path, id_column, out_path, assignments=None) -> Path:
    """Write ``grades`` for ``lms`` (a key of :data:`FORMATS`) to ``out_path``.

    ``assignments`` (default: every assignment of ``grades``) are the columns written.
    """
    return write_rows(lms_rows(grades, lms, roster_path, id_column, assignments), out_path)
