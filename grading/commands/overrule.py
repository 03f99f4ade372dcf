"""``nbg overrule``: the instructor overrules (or, with ``--undo``, restores) a finding of the rule on
ready-made libraries for one student's graded function.

The overrule is a line of ``<course>/overrules.csv`` (:mod:`grading.core.overrules`); the submission
becomes pending, and the next ``nbg autograde`` of it grades the function's tests as they ran (the
feedback and the report say the finding was overruled, and why).
"""

from __future__ import annotations

from grading.core import overrules, state
from grading.core.course import Course
from grading.core.errors import NbgError
from grading.core.records import now


def add_arguments(parser) -> None:
    parser.add_argument("assignment", metavar="ASSIGNMENT", help="assignment id")
    parser.add_argument("students", nargs=1, metavar="STUDENT", help="student id")
    parser.add_argument("function", metavar="FUNCTION", help="the graded function whose finding you overrule")
    parser.add_argument("--reason", default=None,
                        help="why (required unless --undo; shown to the student in the feedback and in the report)")
    parser.add_argument("--undo", action="store_true",
                        help="remove the overrule: the finding counts again at the next autograde")
    parser.epilog = ("The overrule is recorded in overrules.csv in the course folder (back it up with the "
                     "gradebook). Then run `nbg autograde ASSIGNMENT --student STUDENT`: the submission is "
                     "pending until graded again.")


def run(args) -> int:
    from grading.autograde.scan.rule import graded_functions  # loads grading.autograde (nbgrader): only here

    course = Course(args.course, db_url=args.db)
    student = args.students[0]
    known = graded_functions(course, args.assignment)
    if args.function not in known:
        raise NbgError(f"{args.function!r} is not a graded function of {args.assignment}: the graded functions "
                       f"are {', '.join(known) or 'none'}")
    if args.undo and args.reason:
        raise NbgError("give either --reason (overrule) or --undo (remove an overrule), not both")
    if not args.undo and not (args.reason or "").strip():
        raise NbgError('say why with --reason "..." (the student reads it in the feedback)')
    recorded = overrules.read_overrules(course)
    key = (args.assignment, student, args.function)
    others = [o for o in recorded if o.key != key]
    if args.undo:
        if len(others) == len(recorded):
            raise NbgError(f"no overrule of {args.function} for {student} in {args.assignment} to undo")
        overrules.write_overrules(course, others)
        done = f"removed the overrule of {args.function} for {student} in {args.assignment}"
    else:
        reason = " ".join(args.reason.split())
        overrules.write_overrules(course, [*others, overrules.Overrule(*key, reason, now())])
        done = f"overruled the library finding on {args.function} for {student} in {args.assignment} ({reason})"
    pending = state.mark_for_regrade(course, student, args.assignment)
    print(done + f"; recorded in {overrules.overrules_path(course).name}")
    if pending:
        print(f"run `nbg autograde {args.assignment} --student {student}` to grade it again with this decision")
    else:
        print(f"it applies when {student}'s {args.assignment} is graded (`nbg autograde {args.assignment} "
              f"--student {student}`)")
    return 0
