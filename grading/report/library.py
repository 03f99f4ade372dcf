"""The rule on ready-made libraries in the report: per student the graded functions whose tests got 0
points (or whose finding the instructor overruled), a count per function, and the overrules.

Read from the autograded notebooks' ``nbg_library`` metadata (written by the grading process, see
:mod:`nbkit.librule.library`) and ``overrules.csv`` (:mod:`grading.core.overrules`).
"""

from __future__ import annotations

from grading.core import overrules as overrule_file


def _entries(course, student, assignment) -> list:
    import nbformat

    found = []
    for path in sorted(course.autograded_dir(student, assignment).glob("*.ipynb")):
        try:
            notebook = nbformat.read(str(path), as_version=4)
        except Exception:
            continue
        found += [dict(entry, notebook=path.stem) for entry in notebook.metadata.get("nbg_library") or []]
    return found


def library_section(course) -> dict:
    """``{"rows": [...], "counts": [...], "overrules": [...]}`` for the report's template."""
    rows, counts = [], {}
    root = course.autograded_root
    for student_dir in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            for entry in _entries(course, student_dir.name, assignment_dir.name):
                what = "; ".join(f"{f.get('what')} ({f.get('cell')})" for f in entry.get("findings", []))
                outcome = f"overruled: {entry['overruled']}" if entry.get("overruled") else \
                    f"0 points on {', '.join(entry.get('tests', []))}"
                rows.append((student_dir.name, assignment_dir.name, entry.get("function", ""), what, outcome))
                key = (assignment_dir.name, entry.get("function", ""))
                zeroed, overruled = counts.get(key, (0, 0))
                counts[key] = (zeroed + (not entry.get("overruled")), overruled + bool(entry.get("overruled")))
    try:
        recorded = overrule_file.read_overrules(course)
    except ValueError as error:  # a hand-edited file the report can still mention
        recorded, rows = [], rows + [("-", "-", "-", str(error), "overrules.csv not read")]
    return {
        "rows": rows,
        "counts": [(a, f, z, o) for (a, f), (z, o) in sorted(counts.items())],
        "overrules": [(o.assignment, o.student, o.function, o.reason, o.recorded_at) for o in recorded],
    }
