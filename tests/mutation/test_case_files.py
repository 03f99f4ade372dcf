"""The mutation case files are complete and well formed (a static check, no kernel).

For every assignment with a case file: every function that a solution cell defines has a
case; each case names existing test cells, has at least two correct variants and an
input-overwriting mutant, and every source parses and defines the function it replaces.
"""

import ast
from pathlib import Path

import nbformat
import pytest

from tests.mutation.cases import assignment_ids, load_cases

ROOT = Path(__file__).resolve().parents[2]


def _notebook(assignment_id):
    return nbformat.read(str(ROOT / "course" / "source" / assignment_id / f"{assignment_id}.ipynb"), as_version=4)


def _graded_functions(nb):
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            names |= {node.name for node in ast.parse(cell.source).body if isinstance(node, ast.FunctionDef)}
    return names


def _test_cell_ids(nb):
    return {cell.metadata["nbgrader"]["grade_id"] for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution")}


@pytest.mark.parametrize("assignment_id", assignment_ids())
def test_every_graded_function_has_complete_cases(assignment_id):
    nb = _notebook(assignment_id)
    cases = load_cases(assignment_id)
    assert set(cases) == _graded_functions(nb), "cases must cover exactly the functions the solution cells define"
    test_cells = _test_cell_ids(nb)
    for name, case in cases.items():
        assert case["tests"] and set(case["tests"]) <= test_cells, f"{name}: unknown test cells {case['tests']}"
        assert len(case["correct"]) >= 2, f"{name}: needs at least two correct variants"
        assert any(label.startswith("overwrites") for label in case["mutants"]), f"{name}: needs an overwrites_input mutant"
        for label, source in {**case["correct"], **case["mutants"]}.items():
            defined = {node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
            assert name in defined, f"{name}: variant {label!r} does not define {name}()"


def test_unknown_assignment_is_a_clear_error():
    with pytest.raises(ValueError, match="no mutation cases for 'no_such_assignment'"):
        load_cases("no_such_assignment")


@pytest.mark.parametrize("assignment_id", assignment_ids())
def test_every_mistake_is_explained_and_every_explanation_is_a_mistake(assignment_id):
    from grading.core.mistakes import catalogue_problems

    assert catalogue_problems(load_cases(assignment_id)) == []


def test_the_consistency_check_finds_an_unexplained_and_an_untested_mistake():
    from grading.core.mistakes import catalogue_problems

    cases = {"f": {"mutants": {"a": "def f(): pass", "b": "def f(): pass"},
                   "explanations": {"a": "Right words.", "c": "Words for no mutant.", }}}
    assert catalogue_problems(cases) == ["f: mistake 'b' has no explanation", "f: explanation 'c' names no mutant"]
    cases["f"]["explanations"] = {"a": " ", "b": "x" * 401}
    assert len(catalogue_problems(cases)) == 2


@pytest.mark.parametrize("assignment_id", assignment_ids())
def test_the_judge_builds_every_mistake_with_the_notebooks_given_imports(assignment_id, tmp_path):
    """What the judge gets: the given cells' imports and helpers (a cell that starts with
    ``%matplotlib inline`` included), and every reference and mistake compiles and defines its
    function there."""
    import json

    from grading.core.mistakes import JUDGE_FILE, judge_catalogue
    from grading.execution.diagnosis_runtime import Diagnoser, Recorder

    cases = load_cases(assignment_id)
    catalogue = judge_catalogue(cases, _notebook(assignment_id))
    assert "import numpy as np" in catalogue["setup"]
    (tmp_path / JUDGE_FILE).write_text(json.dumps(catalogue))
    built = Diagnoser(Recorder(str(tmp_path)))._functions()
    for function, case in cases.items():
        reference, mistakes = built[function]
        assert callable(reference), function
        assert set(mistakes) == set(case["mutants"]), function


def test_the_setup_keeps_imports_of_a_cell_with_a_magic():
    from grading.core.mistakes import judge_catalogue

    assert "import re" in judge_catalogue(load_cases("03_multinomial_nb"), _notebook("03_multinomial_nb"))["setup"]
