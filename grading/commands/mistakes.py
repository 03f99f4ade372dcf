"""``nbg mistakes``: the failures no known mistake explains, grouped by their counterexamples.

Without ``--group``: one line per group (its id, assignment, function, students, cells and the
behaviour the counterexamples show), the most students first; exit 1 when there is a group (failures
the catalogue could explain once it has the mistake), 0 when every failure of a catalogued function
is a known mistake. With ``--group ID``: the group's smallest counterexample and a sample of its
students' code for the function (read from their submitted notebooks, printed as text); exit 0.
An id that names no group is exit 2, listing the ids.
"""

from __future__ import annotations

from grading.core.course import Course
from grading.core.errors import NbgError

DEFAULT_SAMPLE = 3


def add_arguments(parser) -> None:
    """Options of ``nbg mistakes``."""
    parser.add_argument("--assignment", default=None, metavar="ID", help="only this assignment's failures")
    parser.add_argument("--group", default=None, metavar="ID",
                        help="print this group's smallest counterexample and a sample of its students' code")
    parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE, metavar="N",
                        help=f"how many students' code --group prints (default: {DEFAULT_SAMPLE})")


def format_groups(groups) -> str:
    """The table ``nbg mistakes`` prints."""
    from grading.core.text import text_table
    from grading.report.unmatched import as_text

    if not groups:
        return "every failure of a catalogued function is a known mistake (or the function never ran)"
    rows = [(g.id, g.assignment, g.function, len(g.students), len(g.failures), as_text(g.signature)) for g in groups]
    lines = text_table(("group", "assignment", "function", "students", "cells", "what the counterexamples show"), rows)
    return "\n".join([*lines, "", "`nbg mistakes --group ID` prints a group's smallest counterexample and its "
                      "students' code; docs/instructor.md says how to add it to the catalogue"])


def format_group(course, group, sample) -> str:
    """One group: its smallest counterexample, then up to ``sample`` students' code for the function."""
    from grading.report.unmatched import as_text, function_source

    lines = [f"group {group.id}: {group.assignment}, {group.function}: {as_text(group.signature)}",
             f"{len(group.students)} student(s), {len(group.failures)} failed cell(s): "
             + ", ".join(sorted({f.grade_id for f in group.failures}))]
    smallest = group.smallest()
    if smallest is not None:
        example = smallest.counterexample
        lines += ["", f"smallest counterexample ({smallest.student}, {smallest.grade_id}; {example.get('values')} "
                  f"values, the test's input had {example.get('original_values')}"
                  + ("" if example.get("shown") else "; not shown to the student") + "):",
                  f"  {as_text(example.get('call', ''))}", f"  yours:    {as_text(example.get('yours', ''))}",
                  f"  expected: {as_text(example.get('expected', ''))}"]
        if example.get("differs"):
            lines.append(f"  differs:  {as_text(example['differs'])}")
    else:
        first = group.failures[0]
        lines += ["", f"no counterexample; the message {first.student} read on {first.grade_id}:",
                  *("  " + line for line in as_text(first.message).splitlines()[:12])]
    order = sorted(group.failures, key=lambda f: ((f.counterexample or {}).get("values", 10**9), f.student))
    students = list(dict.fromkeys(f.student for f in order))[:max(sample, 0)]
    for student in students:
        source = function_source(course, student, group.assignment, group.function)
        lines += ["", f"--- {student}'s {group.function} ---",
                  as_text(source) if source is not None else "(no definition found in the submitted notebook)"]
    return "\n".join(lines)


def run(args) -> int:
    """Entry point of ``nbg mistakes``; returns the exit code."""
    from grading.grades.read import read_class_grades
    from grading.report.unmatched import unmatched_groups

    if args.sample < 0:
        raise NbgError(f"--sample must be 0 or more, not {args.sample}")
    course = Course(args.course, db_url=args.db)
    groups = unmatched_groups(course, read_class_grades(course), [args.assignment] if args.assignment else None)
    if args.group is None:
        print(format_groups(groups))
        return 1 if groups else 0
    chosen = [g for g in groups if g.id == args.group.strip().lower()]
    if not chosen:
        ids = ", ".join(g.id for g in groups) or "none (every failure is a known mistake)"
        raise NbgError(f"no group {args.group!r}: the groups are {ids} (`nbg mistakes` lists them)")
    print(format_group(course, chosen[0], args.sample))
    return 0
