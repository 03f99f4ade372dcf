"""Blackboard: its submission download (Grade Center > Assignment File Download).

One zip with, per attempt, ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>.txt``
(the attempt's details) and ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>``
for each file the student attached. The student id is the username (the
part just before ``_attempt_``); the time is the attempt's, from the name.
Grades go back through Blackboard's own Grade Center upload of ``grades.csv``
(no layout of its own here).
"""

from __future__ import annotations

from grading.lms.layout import Layout

NAME = "blackboard"
LAYOUT = Layout(
    name="Blackboard",
    pattern=(r"(?:^|/)(?:(?P<name>[^/]*)_)?(?P<student>[^/_]+)_attempt_"
             r"(?P<timestamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<file>[^/]+?))?(?P<ext>\.[^./]+)$"),
    example="01_bayes_mle_map_jdoe_attempt_2026-10-01-10-00-00_01_bayes_mle_map.ipynb",
    student_part="the Blackboard username (the part just before _attempt_)",
    roster_id="Username",
    time_from="",
)
rows = None  # no import CSV of its own
