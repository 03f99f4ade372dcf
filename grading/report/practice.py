"""Learning from practice: what the practice service's attempts say (:mod:`grading.core.practice_log`).

Three tables, from the attempts alone (one row per checked function of a request, oldest first):

per graded function
    the students who practised it, how many of them passed, and the attempts to a first pass
    (that function's attempts up to and including the first that passed): median and range.
per catalogued mistake
    the students whose attempt the diagnosis named it in; how many fixed it (an attempt of the same
    function passed after the first that named it); for those, the attempts and the minutes from the
    first naming attempt to that pass (medians).
diagnosed against undiagnosed failures
    every failed attempt, split by whether a mistake was named: how many, the share followed by a pass
    of the same function, and the median attempts to that pass. Does naming the mistake shorten the way?

Also ``exports/practice_functions.csv``, ``practice_mistakes.csv`` and ``practice_failures.csv``.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from grading.core.csvfile import write_csv

FUNCTION_COLUMNS = ("assignment", "function", "students_practised", "students_passed",
                    "attempts_to_first_pass_median", "attempts_to_first_pass_min", "attempts_to_first_pass_max")
MISTAKE_COLUMNS = ("assignment", "function", "mistake", "students_made", "students_fixed",
                   "attempts_to_fix_median", "minutes_to_fix_median")
FAILURE_COLUMNS = ("failures", "count", "followed_by_a_pass", "attempts_to_pass_median")


def _median(values):
    return statistics.median(values) if values else None


def _by_student_and_function(attempts) -> dict:
    runs = {}
    for attempt in sorted(attempts, key=lambda a: (a.at, a.attempt)):
        runs.setdefault((attempt.assignment, attempt.function), {}).setdefault(attempt.student, []).append(attempt)
    return runs


def function_rows(attempts) -> list:
    rows = []
    for (assignment, function), students in sorted(_by_student_and_function(attempts).items()):
        to_pass = [next(i for i, a in enumerate(run, 1) if a.passed) for run in students.values()
                   if any(a.passed for a in run)]
        rows.append({"assignment": assignment, "function": function, "students_practised": len(students),
                     "students_passed": len(to_pass), "attempts_to_first_pass_median": _median(to_pass),
                     "attempts_to_first_pass_min": min(to_pass, default=None),
                     "attempts_to_first_pass_max": max(to_pass, default=None)})
    return rows


def mistake_rows(attempts) -> list:
    found = {}
    for (assignment, function), students in _by_student_and_function(attempts).items():
        for run in students.values():
            for mistake in dict.fromkeys(m for a in run for m in a.mistakes):
                first = next(i for i, a in enumerate(run) if mistake in a.mistakes)
                fixed = next((i for i in range(first + 1, len(run)) if run[i].passed), None)
                entry = found.setdefault((assignment, function, mistake), {"made": 0, "attempts": [], "minutes": []})
                entry["made"] += 1
                if fixed is not None:
                    entry["attempts"].append(fixed - first)
                    entry["minutes"].append((run[fixed].at - run[first].at).total_seconds() / 60)
    return [{"assignment": a, "function": f, "mistake": m, "students_made": e["made"],
             "students_fixed": len(e["attempts"]), "attempts_to_fix_median": _median(e["attempts"]),
             "minutes_to_fix_median": _median(e["minutes"])}
            for (a, f, m), e in sorted(found.items(), key=lambda item: (-item[1]["made"], item[0]))]


def failure_rows(attempts) -> list:
    kinds = {"diagnosed": [], "undiagnosed": []}
    for students in _by_student_and_function(attempts).values():
        for run in students.values():
            for i, attempt in enumerate(run):
                if attempt.passed:
                    continue
                later = next((j for j in range(i + 1, len(run)) if run[j].passed), None)
                kinds["diagnosed" if attempt.mistakes else "undiagnosed"].append(None if later is None else later - i)
    return [{"failures": kind, "count": len(found), "followed_by_a_pass": sum(x is not None for x in found),
             "attempts_to_pass_median": _median([x for x in found if x is not None])}
            for kind, found in kinds.items()]


def learning_from_practice(attempts) -> dict | None:
    """The three tables (lists of dicts keyed by the CSV columns), or None without attempts."""
    attempts = list(attempts)
    if not attempts:
        return None
    return {"functions": function_rows(attempts), "mistakes": mistake_rows(attempts),
            "failures": failure_rows(attempts), "students": len({a.student for a in attempts}),
            "attempts": len({(a.student, a.assignment, a.attempt) for a in attempts})}


def write_practice_csvs(figures, folder) -> list:
    """``practice_functions.csv``, ``practice_mistakes.csv``, ``practice_failures.csv`` in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, key, columns in (("practice_functions.csv", "functions", FUNCTION_COLUMNS),
                               ("practice_mistakes.csv", "mistakes", MISTAKE_COLUMNS),
                               ("practice_failures.csv", "failures", FAILURE_COLUMNS)):
        rows = [list(columns)] + [["" if row[c] is None else _plain(row[c]) for c in columns]
                                  for row in figures[key]]
        written.append(write_csv(folder / name, rows))  # safe to open in a spreadsheet
    return written


def _plain(value):
    return f"{value:g}" if isinstance(value, float) else value


def practice_section(course):
    """The report's figures from the course's gradebook database, or None when nobody practised."""
    from grading.core.practice_log import has_attempts, read_attempts

    if not has_attempts(course.db_url):
        return None
    figures = learning_from_practice(read_attempts(course.db_url))
    write_practice_csvs(figures, course.root / "exports")
    return {key: figures[key] if key in ("students", "attempts") else
            [{c: "-" if v is None else _plain(round(v, 1) if isinstance(v, float) else v) for c, v in row.items()}
             for row in figures[key]] for key in figures}
