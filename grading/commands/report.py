"""``nbg report``: one HTML page of how the class did."""

from __future__ import annotations

from pathlib import Path

from grading.core.course import Course
from grading.core.lock import warn_if_unfinished
from grading.core.records import needing_attention


def add_arguments(parser) -> None:
    """Options of ``nbg report``."""
    parser.add_argument(
        "--out", default=None, help="HTML file to write (default: <course root>/report.html)"
    )
    parser.add_argument("--similarity-threshold", type=float, default=None, metavar="SHARE",
                        help="list pairs sharing at least this share of their answer code (default: 0.8)")


def run(args) -> int:
    """Entry point of ``nbg report``; returns the exit code (1: a notebook needs attention)."""
    from grading.report import write_report  # numpy, matplotlib, the gradebook: only when it runs

    course = Course(args.course, db_url=args.db)
    warn_if_unfinished(course, "report")  # the page carries the same warning (write_report)
    out_path = Path(args.out) if args.out else course.root / "report.html"
    print(f"report: {write_report(course, out_path, args.similarity_threshold)}")
    attention = needing_attention(course)
    if attention:
        print(f"{len(attention)} notebook(s) need attention (the report's table says why): "
              + ", ".join(f"{r['student']}/{r['assignment']}/{r['notebook']}" for r in attention))
    return 1 if attention else 0
