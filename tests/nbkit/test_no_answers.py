"""The student kit holds no answers: no graded function, no nbcore, no estimator.

What students install must not contain an implementation of any function a
notebook grades. The graded names are read from the source notebooks'
solution cells, so a new graded function is covered without editing this test.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "nbkit"


def graded_function_names() -> set[str]:
    names = set()
    for path in sorted((ROOT / "course" / "source").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("solution"):
                tree = ast.parse("".join(cell["source"]))
                names |= {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    return names


def kit_modules() -> list[Path]:
    return sorted(KIT.rglob("*.py"))


def test_graded_names_are_found():
    names = graded_function_names()
    # One per notebook, as a check that the reader sees the solution cells at all.
    assert {"posterior", "class_log_prior", "count_vectors", "binary_vectors", "gaussian_mean_var",
            "softmax", "combine_jlls"} <= names


@pytest.mark.parametrize("path", kit_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_kit_defines_no_graded_function(path):
    graded = graded_function_names()
    tree = ast.parse(path.read_text())
    defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert not defined & graded, f"{path.name} defines graded function(s) {sorted(defined & graded)}"
    # No naive Bayes estimator either: one would embed every answer of its notebook.
    assert not {name for name in defined if name.endswith("NB")}, f"{path.name} defines an estimator"


@pytest.mark.parametrize("path", kit_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_kit_does_not_import_nbcore(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            continue
        assert not any(m == "nbcore" or m.startswith("nbcore.") for m in modules), (
            f"{path.name} imports {modules}"
        )


def test_importing_the_whole_kit_loads_no_nbcore():
    modules = sorted({".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                      for p in kit_modules()})
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules)
            + "sys.exit(sorted(m for m in sys.modules if m.split('.')[0] == 'nbcore') or 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr or run.stdout


def test_no_cell_a_student_sees_names_the_reference():
    """Outside solutions and hidden tests (stripped from the release), no cell names nbcore."""
    import re

    for path in sorted((ROOT / "course" / "source").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            visible = "".join(cell["source"])
            for begin, end in (("BEGIN SOLUTION", "END SOLUTION"), ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")):
                visible = re.sub(rf"### {begin}.*?### {end}", "", visible, flags=re.S)
            # the course-wide rule on libraries (issue 21) names nbcore as a library students may not use
            visible = visible.replace("uses another library (scikit-learn, nbcore, ...)", "")
            assert "nbcore" not in visible, (path.name, cell["metadata"].get("nbgrader", {}).get("grade_id"))
