"""Moodle: its submission download and a CSV for its grade import.

Download (assignment > "Download all submissions"): one zip with a folder per
participant, ``Firstname Lastname_<participant id>_assignsubmission_file_/``,
holding the files as the student uploaded them. The student id is the
participant id (the number before ``_assignsubmission``), which is the
``Participant <id>`` of the assignment's grading worksheet (the grade import
below needs a roster column with that number). The names carry no time; the
zip entry's date is used.

Import (``moodle.csv``): the roster's identity columns among ``First name,
Last name, ID number, Email address, Username``, then one column per
assignment. In Moodle's import ("CSV file"), map ``ID number``/``Email
address``/``Username`` to the user field of the same name and each
assignment column to its grade item; create the grade items with the maximum
grade printed by ``nbg export`` (Moodle refuses grades above an item's maximum).
"""

from __future__ import annotations

from grading.core.errors import NbgError
from grading.core.text import format_points
from grading.lms.layout import Layout, check_everyone_graded_is_listed

NAME = "moodle"
LAYOUT = Layout(
    name="Moodle",
    pattern=(r"(?:^|/)(?P<name>[^/]+?)_(?P<student>\d+)_assignsubmission_[a-z]+_?/"
             r"(?:[^/]+/)*(?P<file>[^/]+?)(?P<ext>\.[^./]+)$"),
    example="Jane Doe_4321_assignsubmission_file_/01_bayes_mle_map.ipynb",
    student_part="the Moodle participant id (the number before _assignsubmission)",
    roster_id="",
    time_from="the zip entry's date (Moodle's names carry no time)",
)

IDENTITY = ("First name", "Last name", "ID number", "Email address", "Username")
IDS = ("ID number", "Email address", "Username")


def rows(grades, roster_header, roster, assignments, roster_name="roster", id_column=""):
    """The rows of a CSV for Moodle's grade import (header, then one row per student)."""
    identity = [c for c in IDENTITY if c in roster_header]
    if not any(c in identity for c in IDS):
        raise NbgError(f"a Moodle roster needs one of the columns {list(IDS)} "
                       "(Moodle's grade export has 'ID number' and 'Email address')")
    check_everyone_graded_is_listed(grades, roster, roster_name, id_column)
    out = [[*identity, *assignments]]
    for student, row in roster.items():
        out.append([row.get(c, "") for c in identity]
                   + [format_points(grades.score(student, a)) for a in assignments])
    return out
