"""``nbg collect``: submissions from an LMS download (zip or folder) into submitted/."""

from __future__ import annotations

from grading.collect import DEFAULT_PATTERN, FOLDER_PATTERN, collect
from grading.core.course import Course


def add_arguments(parser):
    parser.add_argument("assignment", help="assignment id")
    parser.add_argument("source", help="folder of notebooks or LMS zip download")
    parser.add_argument(
        "--pattern", default=DEFAULT_PATTERN,
        help=("regex with a named group 'student' (and optionally 'timestamp') searched in each "
              "file's path; default fits 'Name_ID_attempt_YYYY-MM-DD-HH-MM-SS_<notebook>.ipynb'; "
              f"for <student>/<notebook>.ipynb folders use {FOLDER_PATTERN!r}"),
    )


def run(args) -> int:
    report = collect(Course(args.course, db_url=args.db), args.assignment, args.source, pattern=args.pattern)
    print(report.format())
    return 1 if report.needs_attention else 0
