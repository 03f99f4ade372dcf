"""The report's "Run time" section: notebooks that ran many times as long as an honest run.

From the grading log (:mod:`grading.autograde.budget` records each notebook's own run time,
the honest time it was compared with, its budget and its slowest cells): the notebooks flagged
for their run time and those stopped at their time budget, slowest first.
"""

from __future__ import annotations

from grading.core.records import Status

COLUMNS = ("student", "assignment", "notebook", "status", "ran (s)", "without CPU waits (s)", "honest run (s)",
           "ratio", "budget (s)", "slowest cells")


HONEST_WORDS = "an honest run takes"  # in the reason of a notebook flagged as slow or stopped at its budget


def slow_rows(records) -> list:
    """Table rows of the current records flagged for their run time or stopped at their budget."""
    rows = []
    for record in records:
        honest, unloaded = record.get("honest_unloaded_seconds"), record.get("unloaded_seconds")
        run, budget = record.get("run_seconds"), record.get("budget_seconds")
        if not honest or run is None or unloaded is None:
            continue
        # The grader's own verdict (autograde/budget.py): flagged as slow, or stopped at the budget.
        if HONEST_WORDS not in str(record.get("reason", "")) or record.get("status") not in (Status.FLAGGED,
                                                                                            Status.TIMEOUT):
            continue
        cells = ", ".join(f"{label} {float(seconds):.1f} s" for label, seconds in record.get("slowest_cells") or [])
        rows.append([record.get("student", ""), record.get("assignment", ""), record.get("notebook", ""),
                     record.get("status", ""), f"{run:.1f}", f"{unloaded:.1f}", f"{honest:.1f}",
                     f"{unloaded / honest:.1f}x", f"{budget:g}" if budget is not None else "-", cells])
    return sorted(rows, key=lambda row: (-float(row[7][:-1]), row[0], row[1], row[2]))
