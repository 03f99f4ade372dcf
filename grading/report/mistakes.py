"""The class's mistakes: per assignment and graded function, who failed it and which known
mistakes the judge recognised (``nbg_diagnosis`` in the autograded notebooks' cell metadata,
see :mod:`grading.execution.diagnosis_runtime`), with the catalogue's words.

A student whose function never ran is counted apart, as *not attempted*, not as a failure of
it: the stub left as given (its tests fail with ``NotImplementedError``), or a function whose
definition never ran (the notebook crashed or ran out of time first: ``NotExecuted``,
``KernelDied``; or its own cell failed, so the tests meet ``NameError`` on its name). A blank or
crashed notebook would otherwise count as a failure of every function."""

from __future__ import annotations

from pathlib import Path

from grading.core import mistakes as catalogue
from grading.core.csvfile import write_csv

CSV_COLUMNS = ("assignment", "function", "students_failed", "failures_diagnosed", "students_not_attempted",
               "mistake", "students", "explanation")
NOT_RUN = ("NotImplementedError", "NotExecuted", "KernelDied")


def read_cells(course, student, assignment) -> tuple:
    """The mistakes named in the student's autograded notebooks, each test cell's first error
    (``grade_id -> (ename, evalue)``), and each failed cell's metadata (``grade_id -> metadata``)."""
    import nbformat

    found, errors, metadata = set(), {}, {}
    for path in sorted(course.autograded_dir(student, assignment).glob("*.ipynb")):
        try:
            notebook = nbformat.read(str(path), as_version=4)
        except Exception:
            continue
        for cell in notebook.cells:
            found.update(str(d) for d in cell.get("metadata", {}).get("nbg_diagnosis", []) or [])
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
            if grade_id and error is not None:
                errors[grade_id] = (str(error.get("ename", "")), str(error.get("evalue", "")))
                metadata[grade_id] = dict(cell.get("metadata", {}))
    return found, errors, metadata


def never_ran(function, cells, errors) -> bool:
    """Every failed test cell of the function failed because the function never ran."""
    for grade_id in cells:
        ename, evalue = errors.get(grade_id, ("", ""))
        undefined = ename == "NameError" and f"name '{function}' is not defined" in evalue
        if ename not in NOT_RUN and not undefined:
            return False
    return True


def class_mistakes(course, grades) -> list:
    """One row per (assignment, function) with at least one student failing its tests: ``{"assignment",
    "function", "failed", "diagnosed", "not_attempted", "mistakes": [(id, students, explanation)]}``
    (``failed``: students whose function ran and failed; ``not_attempted``: students whose function never
    ran, see the module's doc); functions with the most failures first, mistakes by frequency."""
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
        read = {}
        for function, case in cases.items():
            tests = set(case.get("tests", []))
            failing = {s: failed_cells.get((s, assignment), set()) & tests for s in grades.students}
            failing = {s: cells for s, cells in failing.items() if cells}
            if not failing:
                continue
            counts, with_diagnosis, failed, not_attempted = {}, 0, 0, 0
            for student, cells in failing.items():
                if student not in read:
                    read[student] = read_cells(course, student, assignment)
                diagnosed, errors, _ = read[student]
                if never_ran(function, cells, errors):
                    not_attempted += 1
                    continue
                failed += 1
                named = [d.split("/", 1)[1] for d in diagnosed if d.startswith(function + "/")]
                with_diagnosis += bool(named)
                for mistake in named:
                    counts[mistake] = counts.get(mistake, 0) + 1
            explanations = case.get("explanations", {})
            rows.append({"assignment": assignment, "function": function, "failed": failed,
                         "diagnosed": with_diagnosis, "not_attempted": not_attempted,
                         "mistakes": [(m, n, explanations.get(m, "")) for m, n in
                                      sorted(counts.items(), key=lambda item: (-item[1], item[0]))]})
    return sorted(rows, key=lambda r: (r["assignment"], -r["failed"], -r["not_attempted"], r["function"]))


def write_mistakes_csv(rows, path) -> Path:
    """The same table, one line per (function, mistake); a function whose failures nobody's known
    mistake explains has one line with an empty mistake."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [CSV_COLUMNS]
    for row in rows:
        head = [row["assignment"], row["function"], row["failed"], row["diagnosed"], row["not_attempted"]]
        for mistake, students, explanation in row["mistakes"] or [("", "", "")]:
            lines.append([*head, mistake, students, explanation])
    return write_csv(path, lines)
