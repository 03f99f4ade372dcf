"""The real course graded once per test run: the mutation catalogue and the honest students.

One class of every assignment in ``course/source`` (or those named in
``NBG_MUTATION_ONLY``), graded in ONE sandboxed ``grading.autograde.autograde``
run (2 workers) with the catalogue of known mistakes (``course/mistakes/``) for
the diagnosis. Its students, per assignment:

* ``solution``: the instructor's source notebook as it is (every demonstration
  runs); ``blank``: the release untouched. Stock nbgrader grades the same two in
  ``tests/notebooks/test_autograde_roundtrip.py``;
* ``correct-k``: every graded function replaced by its k-th correct variant (the
  last one again when it has fewer);
* ``mutant-j``: every function that has a j-th mutant gets it, the others keep
  the instructor's answer;
* ``hardcoded``: every graded function returns, from a table, what the visible
  tests expect (:mod:`tests.mutation.hardcoded`).

The session fixture ``course_class`` (``tests/conftest.py``) builds it on first
use; the mutation suite, the real-assignments test of ``nbg autograde`` and the
diagnosis figures all read the same gradebook and autograded notebooks, so no
submission is graded twice in a test run.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import os
import shutil
from pathlib import Path

import nbformat

from grading.autograde import AutogradeSummary, autograde
from grading.core.course import Course
from grading.release import build_release
from tests import honest_times
from tests.mutation.hardcoded import hardcoded_answer, record_visible_calls

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "course"
CASES_DIR = COURSE / "mistakes"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HONEST = ("solution", "blank")  # the source notebook as it is, the release untouched


def load_cases() -> dict:
    """assignment -> CASES, for every case file present (or those named, comma-separated, in
    ``NBG_MUTATION_ONLY``: a quicker run while working on some notebooks; CI runs them all)."""

    only = {name for name in os.environ.get("NBG_MUTATION_ONLY", "").split(",") if name}
    found = {}
    for path in sorted(CASES_DIR.glob("[0-9]*.py")):
        if only and path.stem not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"mutation_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found[module.ASSIGNMENT] = module.CASES
    return found


def _defined_functions(source: str) -> set:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def _solution(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if line.strip() not in MARKERS)


def solution_cells(source_notebook) -> dict:
    """function name -> grade_id of the solution cell that defines it."""
    cells = {}
    for cell in source_notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            for name in _defined_functions(_solution(cell.source)):
                cells[name] = meta["grade_id"]
    return cells


def _defines_or_imports(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    return any(isinstance(node, kinds) for node in tree.body)


def _replace_functions(solution: str, variants: dict) -> str:
    """``solution`` with the definition of each function named in ``variants`` replaced by
    that variant's code (a cell may define several graded functions)."""
    lines = solution.splitlines()
    nodes = [node for node in ast.parse(solution).body
             if isinstance(node, ast.FunctionDef) and node.name in variants]
    for node in sorted(nodes, key=lambda n: n.lineno, reverse=True):
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        lines[start:node.end_lineno] = variants[node.name].strip("\n").splitlines()
    return "\n".join(lines)


def submission(source_notebook, replacements: dict):
    """The source notebook with solutions unmarked and, in ``{grade_id: {function: source}}``'s
    cells, those functions replaced.

    Given code cells that only demonstrate (load data, plot, print) are left out
    to keep CI's time: tests are self-contained and answers need only the given
    imports and definitions, which are kept. A student may delete such cells; the
    grader does not restore or penalise them.
    """
    notebook = nbformat.from_dict(source_notebook)
    kept = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            cell.source = _replace_functions(_solution(cell.source), replacements.get(meta["grade_id"], {}))
        elif cell.cell_type == "code" and not meta.get("grade") and not _defines_or_imports(cell.source):
            continue
        kept.append(cell)
    notebook.cells = kept
    return notebook


def plan(cases: dict, source_notebook) -> dict:
    """student -> ({grade_id: {function: source}}, {function: "correct" | mutant name})."""
    where = solution_cells(source_notebook)
    missing = sorted(set(cases) - set(where))
    assert not missing, f"case file names functions no solution cell defines: {missing}"
    students = {}
    n_correct = max(len(case["correct"]) for case in cases.values())
    for k in range(n_correct):
        replacements, what = {}, {}
        for function, case in cases.items():
            variants = list(case["correct"].values())
            replacements.setdefault(where[function], {})[function] = variants[min(k, len(variants) - 1)]
            what[function] = "correct"
        students[f"correct-{k}"] = (replacements, what)
    n_mutants = max(len(case["mutants"]) for case in cases.values())
    for j in range(n_mutants):
        replacements, what = {}, {}
        for function, case in cases.items():
            mutants = list(case["mutants"].items())
            if j < len(mutants):
                name, source = mutants[j]
                replacements.setdefault(where[function], {})[function] = source
                what[function] = name
        students[f"mutant-{j}"] = (replacements, what)
    return students


HARDCODED = "hardcoded"  # the student who hard-codes what the notebook shows (tests/mutation/hardcoded.py)


def hardcoded_plan(cases: dict, source_notebook):
    """Every graded function replaced by a table of the visible tests' calls and results."""
    where = solution_cells(source_notebook)
    calls = record_visible_calls(submission(source_notebook, {}), list(cases))
    replacements = {}
    for function in cases:
        replacements.setdefault(where[function], {})[function] = hardcoded_answer(function, calls[function])
    return replacements, {function: HARDCODED for function in cases}


CASES = load_cases()


@dataclasses.dataclass
class CourseClass:
    """What the one grading run of the real course left, for the tests to read."""

    course: Course
    summary: AutogradeSummary
    plans: dict  # assignment -> {student: (replacements, {function: "correct" | mistake})}
    scores: dict  # (student, assignment) -> {grade cell: (auto score, max score)} (code cells)
    statuses: dict  # (student, assignment) -> record status
    diagnoses: dict  # (student, assignment) -> {test cell: [function/mistake, ...]}
    failed: dict  # (student, assignment) -> grade ids of the cells with an error output


def grade_course_class(folder: Path) -> CourseClass:
    """Write and grade the class in ``folder`` (made empty by the caller); see the module's docstring."""
    root = Path(folder) / "course"
    root.mkdir(parents=True)
    shutil.copy(COURSE / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(COURSE / "source", root / "source",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copytree(CASES_DIR, root / "mistakes", ignore=shutil.ignore_patterns("__pycache__"))  # for the diagnosis
    course = Course(root)
    build_release(course, sorted(CASES))
    plans = {}
    for assignment, cases in CASES.items():
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        plans[assignment] = plan(cases, source)
        plans[assignment][HARDCODED] = hardcoded_plan(cases, source)
        for student, (replacements, _) in plans[assignment].items():
            folder = course.submitted_dir(student, assignment)
            folder.mkdir(parents=True)
            nbformat.write(submission(source, replacements), str(folder / f"{assignment}.ipynb"))
        for student, origin in zip(HONEST, ("source", "release")):
            folder = course.submitted_dir(student, assignment)
            folder.mkdir(parents=True)
            shutil.copy(root / origin / assignment / f"{assignment}.ipynb", folder)
    honest_times.share(root)  # measured once per run: later courses of the same notebooks read its cache
    summary = autograde(course, workers=2)
    statuses = {(r.student, r.assignment): r.status for r in summary.records}
    scores = {}
    with course.gradebook() as gradebook:
        for assignment, students in plans.items():
            for student in [*students, *HONEST]:
                notebook = gradebook.find_submission(assignment, student).notebooks[0]
                scores[(student, assignment)] = {
                    g.name: (g.auto_score, g.max_score) for g in notebook.grades if g.cell_type == "code"}
    diagnoses, failed = {}, {}
    for assignment, students in plans.items():
        for student in students:
            graded_nb = nbformat.read(course.autograded_dir(student, assignment) / f"{assignment}.ipynb", as_version=4)
            diagnoses[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id"): list(cell.metadata["nbg_diagnosis"])
                for cell in graded_nb.cells if cell.metadata.get("nbg_diagnosis")}
            failed[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id") for cell in graded_nb.cells
                if any(output.get("output_type") == "error" for output in cell.get("outputs", []))}
    return CourseClass(course, summary, plans, scores, statuses, diagnoses, failed)
