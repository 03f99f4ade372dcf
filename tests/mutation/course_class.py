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
from grading.core.source import defined_functions, replace_functions
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


def _solution(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if line.strip() not in MARKERS)


def solution_cells(source_notebook) -> dict:
    """function name -> grade_id of the solution cell that defines it."""
    cells = {}
    for cell in source_notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            for name in defined_functions(_solution(cell.source)):
                cells[name] = meta["grade_id"]
    return cells


IMPORTS = (ast.Import, ast.ImportFrom)


def _bound_names(node) -> set:
    """Names a top-level statement binds (assignments, definitions, imports, loop targets)."""
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _free_names(node) -> set:
    """Names ``node`` reads that it does not bind itself (parameters, locals, loop and
    comprehension targets, imports, definitions): what it needs from earlier cells."""
    loaded, bound = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
    return loaded - bound


def _parsed(source: str):
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _given_definitions(given: list, graded: list) -> list:
    """Each given cell's source cut to the statements the graded cells can need.

    ``given`` and ``graded`` are code cells' sources. Kept: every import, and any other
    top-level statement (a definition, an assignment) that binds a name a graded cell or
    another kept statement reads without binding it (to a fixed point). Dropped: what only
    demonstrates (experiments, plots, prints), which takes most of a notebook's run time.
    A cell that does not parse is kept whole.
    """
    trees = [_parsed(source) for source in given]
    needed = set()
    for source in graded:
        tree = _parsed(source)
        needed |= _free_names(tree) if tree is not None else set()
    keep = [[isinstance(node, IMPORTS) for node in tree.body] if tree is not None else None for tree in trees]
    changed = True
    while changed:
        changed = False
        for tree, flags in zip(trees, keep):
            if tree is None:
                continue
            for index, node in enumerate(tree.body):
                if not flags[index] and _bound_names(node) & needed:
                    flags[index] = changed = True
                if flags[index] and not _free_names(node) <= needed:
                    needed |= _free_names(node)
                    changed = True
    cut = []
    for source, tree, flags in zip(given, trees, keep):
        if tree is None:
            cut.append(source)
            continue
        lines = source.splitlines()
        starts = [min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) for node in tree.body]
        cut.append("\n".join("\n".join(lines[start - 1:node.end_lineno])
                             for node, start, kept in zip(tree.body, starts, flags) if kept))
    return cut


def submission(source_notebook, replacements: dict):
    """The source notebook with solutions unmarked and, in ``{grade_id: {function: source}}``'s
    cells, those functions replaced.

    Given code cells are cut to what the graded cells need (:func:`_given_definitions`) to
    keep CI's time: tests are self-contained and answers need only the given imports,
    definitions and the values they use, which are kept; a cell left empty is dropped. A cut
    cell loses its nbgrader metadata, as if the student had deleted the locked cell and typed
    what was kept into a cell of their own: the grader does not restore or penalise either. The
    ``solution`` student of :func:`grade_course_class` runs the source notebook whole.
    """
    notebook = nbformat.from_dict(source_notebook)
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            cell.source = replace_functions(_solution(cell.source), replacements.get(meta["grade_id"], {}))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    is_given = [not cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata.get("nbgrader", {}).get("solution")
                for cell in code]
    given = [cell for cell, flag in zip(code, is_given) if flag]
    graded = [cell.source for cell, flag in zip(code, is_given) if not flag]
    for cell, source in zip(given, _given_definitions([cell.source for cell in given], graded)):
        if source != cell.source:
            # nbgrader restores a locked cell's source from the gradebook by its grade_id (and
            # re-adds only missing grade and task cells): a cut cell is the student's own.
            cell.metadata.pop("nbgrader", None)
        cell.source = source
    notebook.cells = [cell for cell in notebook.cells if cell.cell_type != "code" or cell.source.strip()]
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
    messages: dict  # (student, assignment) -> {grade id: the error's evalue} of the cells that failed
    counterexamples: dict  # (student, assignment) -> {grade id: the cell's nbg_counterexample metadata}


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
    diagnoses, failed, messages, counterexamples = {}, {}, {}, {}
    for assignment, students in plans.items():
        for student in [*students, *HONEST]:
            graded_nb = nbformat.read(course.autograded_dir(student, assignment) / f"{assignment}.ipynb", as_version=4)
            diagnoses[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id"): list(cell.metadata["nbg_diagnosis"])
                for cell in graded_nb.cells if cell.metadata.get("nbg_diagnosis")}
            failed[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id") for cell in graded_nb.cells
                if any(output.get("output_type") == "error" for output in cell.get("outputs", []))}
            messages[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id"): output.get("evalue", "")
                for cell in graded_nb.cells for output in cell.get("outputs", []) if output.get("output_type") == "error"}
            counterexamples[(student, assignment)] = {
                cell.metadata.get("nbgrader", {}).get("grade_id"): dict(cell.metadata["nbg_counterexample"])
                for cell in graded_nb.cells if cell.metadata.get("nbg_counterexample")}
    return CourseClass(course, summary, plans, scores, statuses, diagnoses, failed, messages, counterexamples)
