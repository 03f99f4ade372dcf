"""``nbg``: the instructor's grading pipeline on top of nbgrader.

Each subcommand lives in its own module of :mod:`grading.commands` exposing
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported only
when their subcommand runs, so ``nbg --help`` stays fast and one broken step cannot break the others.

Exit codes, the same policy for every subcommand: 0 success, 1 something
needs the instructor's attention (listed; or a check failed), 2 usage errors
(argparse's convention, also for an :class:`~grading.core.errors.NbgError`
about the course or the arguments, and for a gradebook database that cannot be
reached or whose driver is missing: one line, see :mod:`grading.core.database`).
Before any step runs, ``main`` checks that ``--course`` is a course folder and
that the assignment and student ids given exist (listing the valid ones), so a
mistake creates nothing. Ctrl-C ends with one line and exit 130; output closed
early (``nbg status | head``) with one line and exit 141. Any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import warnings

from grading.core.course import Course
from grading.core.database import (
    check_database,
    describe_error,
    ensure_course_row,
    is_database_error,
)
from grading.core.errors import NbgError

# subcommand -> (module, one-line help)
SUBCOMMANDS = {
    "release": ("grading.commands.release", "build the student release (nbgrader generate_assignment), the student hand-out (kit wheel, environment files) and LMS zips"),
    "collect": ("grading.commands.collect", "bring submissions in from a folder or an LMS zip into submitted/"),
    "autograde": ("grading.commands.autograde", "grade submissions in parallel, each notebook in its own kernel"),
    "validate": ("grading.commands.validate", "check source notebooks pass their tests and release notebooks fail them"),
    "feedback": ("grading.commands.feedback", "write HTML feedback per student and notebook (no hidden-test source)"),
    "export": ("grading.commands.export", "write grades as CSV for an LMS and per test cell"),
    "report": ("grading.commands.report", "write an HTML report with plots of how the class did"),
    "mistakes": ("grading.commands.mistakes", "list the failed answers no known mistake explains, grouped by what their counterexamples show (--group ID: one group's smallest counterexample and students' code)"),
    "overrule": ("grading.commands.overrule", "overrule (or --undo) a finding of the rule on ready-made libraries for one student's graded function"),
    "status": ("grading.commands.status", "per assignment: submissions graded, pending, needing attention, awaiting manual grading"),
    "serve": ("grading.commands.serve", "the practice service: students check a notebook against the hidden tests and the diagnosis (not counted)"),
    "demo": ("grading.commands.demo", "run the whole pipeline on a generated demo class"),
}


def _parser_with_subcommands(selected=None):
    parser = argparse.ArgumentParser(
        prog="nbg",
        description="Grade nbgrader assignments: release, collect, autograde, feedback, export, report.",
    )
    parser.add_argument("--course", default=".", metavar="DIR",
                        help="course root holding source/ and nbgrader_config.py (default: .)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="gradebook SQLAlchemy URL (default: sqlite:///<course>/gradebook.db)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(module=module_name)
        if name == selected:
            # Only the chosen subcommand's module is imported.
            importlib.import_module(module_name).add_arguments(sub)
    return parser


def build_parser(command=None) -> argparse.ArgumentParser:
    """The ``nbg`` argument parser, with the arguments of ``command`` filled in."""
    return _parser_with_subcommands(command)


def _check_gradebook_server(args):
    """Connect once to a server gradebook (``--db`` or the course config), so a missing
    driver or an unreachable server is one line before any step starts."""
    if args.command == "demo":
        return  # the demo builds its own course with a SQLite gradebook
    course = Course(args.course, db_url=args.db)
    if course.configured_db_url is not None:
        check_database(course.configured_db_url)
        ensure_course_row(course.configured_db_url, course.course_id)  # nbgrader's converters need it


def _check_course(args):
    """``--course`` names a course folder (before anything connects or writes)."""
    if args.command == "demo" or (args.command == "validate" and args.paths):
        return
    Course(args.course, db_url=args.db).require_course()


def _check_ids(args):
    """The course folder, then the assignment and student ids of the command line, before any step."""
    if args.command == "demo" or (args.command == "validate" and args.paths):
        return
    course = Course(args.course, db_url=args.db)
    assignments = list(getattr(args, "assignments", None) or [])
    if getattr(args, "assignment", None):
        assignments.append(args.assignment)
    course.require_assignments(assignments)
    course.require_students(getattr(args, "students", None))


def _misplaced_global_option(argv, command):
    """A usage message when ``--course``/``--db`` follow the subcommand (argparse only says
    "unrecognized arguments"), saying where they go."""
    if command is None or command not in argv:
        return None
    at = argv.index(command)
    for i, word in enumerate(argv[at + 1:], start=at + 1):
        option = word.split("=", 1)[0]
        if option in ("--course", "--db"):
            value = word.split("=", 1)[1] if "=" in word else (argv[i + 1] if i + 1 < len(argv) else "DIR")
            rest = [w for j, w in enumerate(argv[at + 1:], start=at + 1)
                    if j != i and not (j == i + 1 and "=" not in word)]
            return (f"nbg: error: {option} goes before the subcommand: write "
                    f"`nbg {option} {value} {' '.join([command, *rest])}`")
    return None


def _quiet_after_interrupt():
    """After Ctrl-C, nothing but the one line: threads and event loops torn down at exit
    (the kernels' asyncio clients) would print their own tracebacks."""
    sys.unraisablehook = lambda unraisable: None
    sys.excepthook = lambda *exc_info: None
    import threading

    threading.excepthook = lambda exc: None
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    logging.getLogger("traitlets").setLevel(logging.CRITICAL + 1)


def _output_closed():
    """stdout's reader went away (``nbg status | head``): drop what is left to write."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _find_command(argv):
    """The subcommand named in ``argv``, read past the global options' values.

    A first pass parses only ``--course``/``--db`` and the first positional word,
    so a course folder named like a subcommand (``--course report export``) is
    read as the folder, not as the command.
    """
    first_pass = argparse.ArgumentParser(add_help=False)
    first_pass.add_argument("--course")
    first_pass.add_argument("--db")
    first_pass.add_argument("command", nargs="?")
    try:
        known, _ = first_pass.parse_known_args(argv)
    except SystemExit:  # e.g. --course without a value: the full parser says so
        return None
    return known.command if known.command in SUBCOMMANDS else None


def main(argv=None) -> int:
    """Entry point of the ``nbg`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # nbgrader's gradebook emits SQLAlchemy autoflush warnings on every run
    # (stock `nbgrader autograde` too); they say nothing to an instructor.
    warnings.filterwarnings("ignore", message=".*not in session.*", category=Warning)
    command = _find_command(argv)
    try:
        parser = build_parser(command)
    except ImportError as error:
        print(f"nbg {command}: this step is not available: {error}", file=sys.stderr)
        return 2
    misplaced = _misplaced_global_option(argv, command)
    if misplaced:
        print(misplaced, file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(args.module)
    try:
        _check_course(args)
        _check_gradebook_server(args)
        _check_ids(args)
        return int(module.run(args) or 0)
    except NbgError as error:
        print(f"nbg {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _output_closed()
        print(f"nbg {args.command}: output closed early (broken pipe); stopped", file=sys.stderr)
        return 141
    except KeyboardInterrupt:
        _quiet_after_interrupt()
        print(f"nbg {args.command}: interrupted; re-run to finish (nothing committed is lost)",
              file=sys.stderr)
        return 130
    except Exception as error:
        if not is_database_error(error):
            raise
        print(f"nbg {args.command}: error: {describe_error(error, args.db or 'the gradebook')}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
