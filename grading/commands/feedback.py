"""``nbg feedback``: HTML feedback per student and notebook, without the hidden tests."""

from __future__ import annotations

import sys

from grading.core.course import Course


def add_arguments(parser) -> None:
    """Options of ``nbg feedback``."""
    parser.add_argument(
        "assignments", nargs="*", help="assignment ids (default: every autograded assignment)"
    )
    parser.add_argument(
        "--student", action="append", dest="students", help="only this student (repeatable)"
    )


def run(args) -> int:
    """Entry point of ``nbg feedback``; returns the exit code."""
    from grading.feedback import generate_feedback  # nbconvert: only when it runs

    course = Course(args.course, db_url=args.db)
    try:
        written = generate_feedback(course, args.assignments or None, args.students)
    except RuntimeError as error:
        print(f"nbg feedback: {error} (nbgrader's log above says which submission)", file=sys.stderr)
        return 1
    if not written:
        print("no autograded submissions: run `nbg autograde` first")
        return 1
    print(f"{len(written)} feedback file(s) under {course.feedback_root}")
    return 0
