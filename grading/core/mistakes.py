"""The catalogue of known mistakes: ``<course>/mistakes/<assignment>.py``, the instructor's.

One file per assignment, beside ``source/`` (never inside it: nothing of it is
released, and it never reaches the student's kernel). It defines ``ASSIGNMENT``
and ``CASES``: for each graded function ``{"tests": [grade_id, ...],
"correct": {style: source}, "mutants": {mistake_id: source},
"explanations": {mistake_id: words for the student}}``, and optionally ``"probes": [arguments, ...]``:
each the source of one call's argument list (``"np.array([0.2, 0.5, 0.3])"``, ``"3, 3, 1, 1, level=0.8"``),
inputs that tell the mistakes apart, on which the judge confirms a diagnosis before naming it. Every source is a full
replacement of the function's definition.

The same file is the mutation suite's input (``tests/mutation/``: every mutant
must lose points on its function's tests) and the judge's catalogue at grading
time (:func:`judge_catalogue`: when a test cell fails, the judge replays the
cell's calls of the student's function on each mistake; see
:mod:`grading.execution.diagnosis_runtime`). :func:`catalogue_problems` is the
consistency check: a mistake cannot be tested but not explained, or explained
but not tested.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

FOLDER = "mistakes"
JUDGE_FILE = ".nbg_mistakes.json"  # the catalogue's name in the judge's folder (never the kernel's)
MAX_EXPLANATION = 400  # characters: one or two sentences


def catalogue_path(course_root: Path, assignment: str) -> Path:
    return Path(course_root) / FOLDER / f"{assignment}.py"


def catalogue_ids(course_root: Path) -> list:
    """The assignments that have a catalogue, sorted."""
    return sorted(p.stem for p in (Path(course_root) / FOLDER).glob("[0-9A-Za-z]*.py"))


def load_cases(path: Path) -> dict:
    """``CASES`` of one catalogue file (the instructor's code, run in the grading process)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"nbg_mistakes_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if getattr(module, "ASSIGNMENT", None) != path.stem:
        raise ValueError(f"{path.name} declares ASSIGNMENT = {getattr(module, 'ASSIGNMENT', None)!r}, "
                         f"expected {path.stem!r}")
    return module.CASES


def catalogue_problems(cases: dict) -> list:
    """What breaks the rule "every mistake tested is explained, every explanation is a tested mistake"."""
    problems = []
    for function, case in cases.items():
        mutants, explained = set(case.get("mutants", {})), case.get("explanations", {})
        for missing in sorted(mutants - set(explained)):
            problems.append(f"{function}: mistake {missing!r} has no explanation")
        for extra in sorted(set(explained) - mutants):
            problems.append(f"{function}: explanation {extra!r} names no mutant")
        for mistake, text in explained.items():
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{function}: mistake {mistake!r} has an empty explanation")
            elif len(text) > MAX_EXPLANATION:
                problems.append(f"{function}: the explanation of {mistake!r} is over {MAX_EXPLANATION} characters")
    return problems


NOT_NEEDED = ("matplotlib", "IPython", "ipywidgets")  # plotting: slow to import, never in a mistake


def _without_magics(source: str) -> str:
    """IPython's ``%magic`` and ``!shell`` lines blanked, so the rest of the cell parses as Python."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _setup_source(source_notebook) -> list:
    """The given (non-answer, non-test) cells' imports and function definitions: what a mistake's
    code may use besides the other graded functions."""
    lines = []
    for cell in source_notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("solution") or meta.get("grade"):
            continue
        source = _without_magics(cell.source)
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] \
                if isinstance(node, ast.ImportFrom) else []
            if any(m.split(".")[0] in NOT_NEEDED for m in modules):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                lines.append(ast.get_source_segment(source, node))
    return [line for line in lines if line]


def judge_catalogue(cases: dict, source_notebook=None) -> dict:
    """What the judge needs, as JSON-ready data: per function its tests, a reference (the first
    correct variant), and each mistake's code and explanation; plus the notebook's given set-up."""
    functions = {}
    for function, case in cases.items():
        explanations = case.get("explanations", {})
        functions[function] = {
            "tests": list(case.get("tests", [])),
            "reference": next(iter(case["correct"].values())),
            "mistakes": {mistake: {"source": source, "explanation": explanations.get(mistake, "")}
                         for mistake, source in case.get("mutants", {}).items()},
            "probes": [str(probe) for probe in case.get("probes", [])],
        }
    setup = _setup_source(source_notebook) if source_notebook is not None else []
    return {"setup": setup, "functions": functions}
