"""``nbg collect``: submissions from an LMS download (zip or folder) into submitted/."""

from __future__ import annotations

import sys

from grading.collect import FOLDER_PATTERN, LAYOUT_CHOICES, DownloadRefused, collect
from grading.core.course import Course


def add_arguments(parser):
    parser.add_argument("assignment", help="assignment id")
    parser.add_argument("source", help=(
        "folder of notebooks or LMS zip download; its notebooks are read up to c.Nbg.collect_max_bytes in all "
        "(default 2 GB; over it nothing is collected, exit code 1) and c.Nbg.collect_max_file_bytes each "
        "(default 50 MB; a larger one is rejected by name) of the course's nbgrader_config.py"))
    layouts = "; ".join(f"{key}: {layout.example}" for key, layout in LAYOUT_CHOICES.items())
    parser.add_argument(
        "--layout", choices=list(LAYOUT_CHOICES), default=None,
        help=f"read the names in this layout only (default: recognise each LMS's). {layouts}",
    )
    parser.add_argument(
        "--pattern", default=None,
        help=("instead of a layout, a regex with a named group 'student' (and optionally 'timestamp', "
              "'file', 'late', 'attempt') searched in each file's path; "
              f"for <student>/<notebook>.ipynb folders use --layout folder ({FOLDER_PATTERN!r})"),
    )


def run(args) -> int:
    course = Course(args.course, db_url=args.db)
    try:
        report = collect(course, args.assignment, args.source, pattern=args.pattern, layout=args.layout)
    except DownloadRefused as refusal:  # the download, not the command line: it needs attention
        print(f"nbg collect: refused: {refusal}", file=sys.stderr)
        return 1
    print(report.format())
    return 1 if report.needs_attention else 0
