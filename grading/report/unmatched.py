"""The failures no known mistake explains, grouped by what their counterexamples show.

The catalogue (``<course>/mistakes/``) grows from what the grader sees: a failed test cell of a
catalogued function whose failure the judge matched to no known mistake keeps its counterexample's
record in its metadata (``nbg_counterexample``: :mod:`grading.execution.evidence.behaviour`),
with a *signature* that says which part of the result differs and how (the shape, a flipped sign,
a constant factor or offset, rows in another order, NaN or inf, an exception, ...). Here those
cells are grouped by (assignment, function, signature), a cell without a counterexample under
"no counterexample"; a group counts its students and cells, and is named by a short id stable
across runs (a hash of the three). ``nbg mistakes`` lists the groups; ``nbg mistakes --group ID``
prints a group's smallest counterexample and a sample of its students' code for the function,
read from their submitted notebooks (:func:`function_source`), which the instructor turns into a
catalogued mistake with its words (docs/instructor.md, "Known mistakes").

A cell failed when it lost points or, for a visible test (no points), when it has an error output.
Students whose function never ran (the stub as given, a crashed notebook) are left out, as in the
report's table of mistakes (:func:`grading.report.mistakes.never_ran`).
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field

from grading.core import mistakes as catalogue
from grading.report.mistakes import never_ran, read_cells

NO_COUNTEREXAMPLE = "no counterexample"
MAX_SOURCE_LINES = 80  # of a student's function in a sample


@dataclass
class Failure:
    student: str
    grade_id: str
    message: str  # the cell's error as the student read it
    counterexample: dict | None  # the cell's nbg_counterexample, when it is this function's


@dataclass
class Group:
    id: str
    assignment: str
    function: str
    signature: str
    failures: list = field(default_factory=list)

    @property
    def students(self) -> list:
        return sorted({f.student for f in self.failures})

    def smallest(self) -> Failure | None:
        """The failure whose counterexample holds the fewest values (a shown one first)."""
        shown = [f for f in self.failures if f.counterexample]
        return min(shown, key=lambda f: (not f.counterexample.get("shown"), f.counterexample.get("values", 0),
                                         f.student, f.grade_id), default=None)


def group_id(assignment, function, signature) -> str:
    return hashlib.sha1(f"{assignment}\0{function}\0{signature}".encode()).hexdigest()[:6]


def unmatched_groups(course, grades, assignments=None) -> list:
    """The groups of failed cells no known mistake explains, the most students first."""
    failed_cells = {}
    for cell in grades.cells:
        if cell.passed is False and cell.cell_type == "code":
            failed_cells.setdefault((cell.student, cell.assignment), set()).add(cell.grade_id)
    groups = {}
    for assignment in grades.assignments:
        path = catalogue.catalogue_path(course.root, assignment)
        if (assignments and assignment not in assignments) or not path.is_file():
            continue
        read = {}
        for function, case in catalogue.load_cases(path).items():
            tests = set(case.get("tests", []))
            for student in grades.students:
                if student not in read:
                    read[student] = read_cells(course, student, assignment)
                _, errors, metadata = read[student]
                # a visible test has no points, so the gradebook keeps no failure of it: its error output does
                cells = (failed_cells.get((student, assignment), set()) | set(errors)) & tests
                if not cells:
                    continue
                if never_ran(function, cells, errors):
                    continue
                for grade_id in sorted(cells):
                    meta = metadata.get(grade_id, {})
                    if any(str(d).startswith(function + "/") for d in meta.get("nbg_diagnosis", []) or []):
                        continue  # a known mistake explains it
                    example = meta.get("nbg_counterexample")
                    example = example if isinstance(example, dict) and example.get("function") == function else None
                    signature = str(example.get("signature") or NO_COUNTEREXAMPLE) if example else NO_COUNTEREXAMPLE
                    key = (assignment, function, signature)
                    if key not in groups:
                        groups[key] = Group(group_id(*key), *key)
                    groups[key].failures.append(Failure(student, grade_id, errors.get(grade_id, ("", ""))[1], example))
    return sorted(groups.values(), key=lambda g: (-len(g.students), g.assignment, g.function, g.signature))


def _without_magics(source: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def function_source(course, student, assignment, function) -> str | None:
    """The student's definition of ``function`` in their submitted notebook (the last one, as a
    notebook run leaves it), cut to :data:`MAX_SOURCE_LINES` lines; None when none is found."""
    import nbformat

    found = None
    for path in sorted(course.submitted_dir(student, assignment).glob("*.ipynb")):
        try:
            notebook = nbformat.read(str(path), as_version=4)
        except Exception:
            continue
        for cell in notebook.cells:
            if cell.get("cell_type") != "code":
                continue
            source = _without_magics(str(cell.get("source", "")))
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                continue
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
                    lines = source.splitlines()
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
                    found = lines[start:node.end_lineno]
    if found is None:
        return None
    cut = found[:MAX_SOURCE_LINES]
    return "\n".join(cut) + (f"\n... ({len(found) - MAX_SOURCE_LINES} more lines)" if len(found) > MAX_SOURCE_LINES else "")


def as_text(value) -> str:
    """``value`` safe to print to a terminal: control characters (escape sequences, bells, carriage
    returns) written as Python escapes, so a student's code or result cannot drive the terminal."""
    return "".join(ch if ch.isprintable() or ch in "\n\t" else ch.encode("unicode_escape").decode("ascii")
                   for ch in str(value))
