"""Canvas: its submission download and its gradebook import CSV.

Download ("Download Submissions" of an assignment): one zip, one file per
submitted file, named ``lastfirst_[LATE_]userid_submissionid_<original name>``
with ``-N`` before the extension when the student resubmitted a file of the
same name (``doejane_LATE_12345_67890_01_bayes_mle_map-1.ipynb``). The
student id is ``userid``, Canvas's numeric user id: the ``ID`` column of
Canvas's gradebook export (so ``nbg export --roster-id ID``). The name has no
time; the zip entry's date is used.

Import (``canvas.csv``): ``Student, ID, SIS User ID, SIS Login ID, Section``,
then one column per assignment, then a ``Points Possible`` row. Canvas
matches students by ``ID`` (or the SIS ids, or the name) and assignment
columns by the id in ``Name (123)`` or else by exact name; an assignment it
does not have is created with the points of the ``Points Possible`` row. When
the roster is a Canvas export with a column ``<assignment> (<id>)``, that
header is reused so the grades land in that assignment.
"""

from __future__ import annotations

import re

from grading.core.errors import NbgError
from grading.core.text import format_points
from grading.lms.layout import Layout, check_everyone_graded_is_listed

NAME = "canvas"
LAYOUT = Layout(
    name="Canvas",
    pattern=(r"(?:^|/)(?P<name>[^/_]+)_(?:(?P<late>LATE)_)?(?P<student>\d+)_(?P<submission>\d+)_"
             r"(?P<file>[^/]+?)(?:-(?P<attempt>\d+))?(?P<ext>\.[^./]+)$"),
    example="doejane_LATE_12345_67890_01_bayes_mle_map-1.ipynb",
    student_part="the Canvas user id (the number after the name and LATE_)",
    roster_id="ID",
    time_from="the zip entry's date (Canvas's names carry no time)",
)

IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
IDS = ("ID", "SIS User ID", "SIS Login ID")
_TITLE_AND_ID = re.compile(r"^(.*)\s+\((\d+)\)$")


def rows(grades, roster_header, roster, assignments, roster_name="roster", id_column=""):
    """The rows of Canvas's gradebook import CSV (header, Points Possible, students)."""
    if "Student" not in roster_header or not any(c in roster_header for c in IDS):
        raise NbgError(f"a Canvas roster needs the columns 'Student' and one of {list(IDS)} "
                       "(Canvas's gradebook export has them)")
    check_everyone_graded_is_listed(grades, roster, roster_name, id_column)
    columns = []
    for assignment in assignments:
        # Reuse "<assignment> (<Canvas id>)" from a Canvas export, so the import updates it.
        matches = [h for h in roster_header
                   if (m := _TITLE_AND_ID.match(h)) and m.group(1).strip() == assignment]
        columns.append(matches[0] if matches else assignment)
    out = [[*IDENTITY, *columns],
           ["Points Possible", "", "", "", "", *(format_points(grades.max_scores[a]) for a in assignments)]]
    for student, row in roster.items():
        out.append([row.get(c, "") for c in IDENTITY]
                   + [format_points(grades.score(student, a)) for a in assignments])
    return out
