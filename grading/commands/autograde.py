"""``nbg autograde``: grade submissions in parallel, then print one row per notebook."""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING

from grading.core import state
from grading.core.course import Course
from grading.core.settings import settings_help
from grading.core.text import text_table
from grading.status import course_status

if TYPE_CHECKING:
    from grading.autograde import AutogradeSummary


def still_needing_attention(course, summary, assignments, students) -> list:
    """(student, assignment, why) of the selection that need attention but were not graded
    in this run (unchanged since an earlier one), so the run's exit code covers them."""
    graded = {(r.student, r.assignment) for r in summary.records}
    found = []
    for status in course_status(course):
        if assignments and status.assignment not in assignments:
            continue
        for student, why in status.attention.items():
            if (not students or student in students) and (student, status.assignment) not in graded:
                found.append((student, status.assignment, why))
    return found


def format_table(summary: AutogradeSummary) -> str:
    """One row per graded notebook, then the totals and what needs attention."""
    rows = [
        (r.student, r.assignment, r.notebook, "-" if r.score is None else f"{r.score:g}/{r.max_score:g}",
         f"{r.status}" + (" (late)" if r.late else ""), f"{r.seconds:.1f}")
        for r in summary.records
    ]
    lines = text_table(("student", "assignment", "notebook", "score", "status", "seconds"), rows)
    lines.append(
        f"{len(summary.records)} notebook(s) graded, {len(summary.skipped)} submission(s) unchanged "
        f"and skipped, {len(summary.needs_attention)} need attention, {summary.seconds:.1f} s"
    )
    for record in summary.needs_attention:
        lines.append(f"  ATTENTION {record.student}/{record.assignment}/{record.notebook}: "
                     f"{record.status}: {record.reason}")
    for record in summary.records:
        if record.graded_alone and not record.needs_attention:
            lines.append(f"  GRADED AGAIN ALONE {record.student}/{record.assignment}/{record.notebook}: "
                         f"{record.reason}")
    return "\n".join(lines)


def add_arguments(parser):
    parser.epilog = settings_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all in source/)")
    parser.add_argument("--student", action="append", dest="students", metavar="ID",
                        help="grade only this student (repeatable)")
    parser.add_argument("-j", "--workers", type=int, default=None,
                        help="parallel kernels (default: the number of cores)")
    parser.add_argument("--timeout", type=float, default=None, dest="cell_timeout",
                        help="seconds per cell (default: c.Execute.timeout of the course config, else 30)")
    parser.add_argument("--force", action="store_true", help="grade again submissions that did not change")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run student code WITHOUT the bubblewrap sandbox, with your permissions "
                             "(only for trusted submissions; the report shows a banner)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the notebooks on this Dask scheduler (tcp://host:8786, tls://host:8786), "
                             "one at a time per worker, -j unused; default: c.Nbg.scheduler of the course "
                             "config; 'local': the local pool")
    parser.add_argument("--tls-ca-file", metavar="PEM", help="TLS: CA certificate of the Dask cluster")
    parser.add_argument("--tls-cert", metavar="PEM", help="TLS: this grader's certificate")
    parser.add_argument("--tls-key", metavar="PEM", help="TLS: this grader's private key")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--verbose", action="store_true", help="show nbgrader's log messages")


def run(args) -> int:
    # Imported here, not above: they load nbgrader and the kernels' clients, which `nbg autograde --help`
    # and a usage error do not need (see grading/cli.py).
    from grading.autograde import autograde
    from grading.commands._progress import ProgressBar

    if not args.verbose:
        # nbgrader warns for every restored cell of every submission; the summary
        # table says what matters.
        logging.getLogger("traitlets").setLevel(logging.ERROR)
    course = Course(args.course, db_url=args.db)
    if args.force:  # an interrupted forced run leaves what it did not reach pending, not forgotten
        for assignment in args.assignments or course.source_assignments():
            for student in course.submitted_students(assignment):
                if not args.students or student in args.students:
                    state.mark_for_regrade(course, student, assignment)
    bar = ProgressBar(enabled=not args.quiet)
    try:
        summary = autograde(
            course, assignments=args.assignments or None, students=args.students,
            workers=args.workers, cell_timeout=args.cell_timeout, force=args.force,
            sandboxed=not args.unsafe_no_sandbox, scheduler=args.scheduler, on_progress=bar,
            security={"tls_ca_file": args.tls_ca_file, "tls_cert": args.tls_cert, "tls_key": args.tls_key},
        )
    finally:
        bar.close()
    print(format_table(summary))
    earlier = still_needing_attention(course, summary, args.assignments, args.students)
    for student, assignment, why in earlier:
        print(f"  STILL NEEDS ATTENTION {student}/{assignment} (unchanged since an earlier run): {why}")
    return 1 if earlier else summary.exit_code
