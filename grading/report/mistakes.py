"""The class's mistakes: per assignment and graded function, who failed it and which known
mistakes the judge recognised (``nbg_diagnosis`` in the autograded notebooks' cell metadata,
see :mod:`grading.execution.diagnosis_runtime`), with the catalogue's words."""

from __future__ import annotations

from pathlib import Path

from grading.core import mistakes as catalogue
from grading.core.csvfile import write_csv

CSV_COLUMNS = ("assignment", "function", "students_failed", "failures_diagnosed", "mistake", "students",
               "explanation")


def _diagnosed(course, student, assignment) -> set:
    import nbformat

    found = set()
    for path in sorted(course.autograded_dir(student, assignment).glob("*.ipynb")):
        try:
            notebook = nbformat.read(str(path), as_version=4)
        except Exception:
            continue
        for cell in notebook.cells:
            found.update(str(d) for d in cell.get("metadata", {}).get("nbg_diagnosis", []) or [])
    return found


def class_mistakes(course, grades) -> list:
    """One row per (assignment, function) with at least one student failing its tests: ``{"assignment",
    "function", "failed", "diagnosed", "mistakes": [(id, students, explanation)]}``; functions with the
    most failures first, mistakes by frequency."""
    failed_cells = {}
    for cell in grades.cells:
        if cell.passed is False and cell.cell_type == "code":
            failed_cells.setdefault((cell.student, cell.assignment), set()).add(cell.grade_id)
    rows = []
    for assignment in grades.assignments:
        path = catalogue.catalogue_path(course.root, assignment)
        if not path.is_file():
            continue
        cases = catalogue.load_cases(path)
        diagnosed = {}
        for function, case in cases.items():
            tests = set(case.get("tests", []))
            failing = [s for s in grades.students if failed_cells.get((s, assignment), set()) & tests]
            if not failing:
                continue
            counts, with_diagnosis = {}, 0
            for student in failing:
                if student not in diagnosed:
                    diagnosed[student] = _diagnosed(course, student, assignment)
                named = [d.split("/", 1)[1] for d in diagnosed[student] if d.startswith(function + "/")]
                with_diagnosis += bool(named)
                for mistake in named:
                    counts[mistake] = counts.get(mistake, 0) + 1
            explanations = case.get("explanations", {})
            rows.append({"assignment": assignment, "function": function, "failed": len(failing),
                         "diagnosed": with_diagnosis,
                         "mistakes": [(m, n, explanations.get(m, "")) for m, n in
                                      sorted(counts.items(), key=lambda item: (-item[1], item[0]))]})
    return sorted(rows, key=lambda r: (r["assignment"], -r["failed"], r["function"]))


def write_mistakes_csv(rows, path) -> Path:
    """The same table, one line per (function, mistake); a function whose failures nobody's known
    mistake explains has one line with an empty mistake."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [CSV_COLUMNS]
    for row in rows:
        head = [row["assignment"], row["function"], row["failed"], row["diagnosed"]]
        for mistake, students, explanation in row["mistakes"] or [("", "", "")]:
            lines.append([*head, mistake, students, explanation])
    return write_csv(path, lines)
