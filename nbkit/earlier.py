"""A function you wrote in an earlier notebook, for a later notebook's demonstrations.

    from nbkit import earlier
    pooled_variance = earlier.function("05_gaussian_nb", "pooled_variance", fallback=lda_diagonal)

reads your saved notebook 5 (``05_gaussian_nb.ipynb`` next to this notebook, or in
``../05_gaussian_nb/``), defines the functions of its answer cells (with the notebook's imports)
and returns a function that calls yours. The first call also calls ``fallback`` (a stand-in
built on scikit-learn or SciPy) and compares: while your notebook is not there, your function is
not written yet (``NotImplementedError``), fails, or gives another result, the stand-in is used
from then on and one line says why, so that every figure can be read at any time. Nothing here
is graded: each notebook is graded alone, where the earlier notebooks are absent.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np


def _notebook_path(notebook: str, folder: Path) -> Path | None:
    for path in (folder / f"{notebook}.ipynb", folder.parent / notebook / f"{notebook}.ipynb"):
        if path.is_file():
            return path
    return None


def _answer_definitions(path: Path, name: str):
    """The notebook's imports and the functions of its answer cells, run in a fresh namespace;
    ``name`` from there, or None when no answer cell defines it."""
    cells = [cell for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    imports, definitions = [], []
    for cell in cells:
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            continue
        imports += [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            definitions += [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    if name not in {node.name for node in definitions}:
        return None
    namespace: dict = {"__name__": f"earlier_{path.stem}"}
    for node in imports:
        try:  # an import that fails here (a module the later notebook lacks) is not needed by the answer
            exec(compile(ast.Module([node], []), str(path), "exec"), namespace)
        except Exception:
            pass
    exec(compile(ast.Module(definitions, []), str(path), "exec"), namespace)
    return namespace[name]


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-7, atol=1e-9,
                                equal_nan=True))
    except (TypeError, ValueError):
        return False


def function(notebook: str, name: str, fallback, folder: str | Path = "."):
    """Your ``name`` from ``notebook``'s saved file, checked against ``fallback`` on its first call
    (see the module's text); ``folder`` is where the later notebook runs (its working folder)."""
    label = f"your {name} from notebook {notebook[:2].lstrip('0')}"
    path = _notebook_path(notebook, Path(folder).resolve())  # resolved: the parent of "." is "."
    state = {"use": None, "why": None}
    if path is None:
        state["why"] = f"{notebook}.ipynb is not next to this notebook or in ../{notebook}/"
    else:
        try:
            yours = _answer_definitions(path, name)
        except Exception as error:  # any error in the student's file: the stand-in
            yours, state["why"] = None, f"{notebook}.ipynb does not run ({type(error).__name__}: {error})"
        if yours is None and state["why"] is None:
            state["why"] = f"no answer cell of {notebook}.ipynb defines {name}"

    def call(*args, **kwargs):
        if state["use"] is None and state["why"] is not None:
            state["use"] = fallback
            print(f"({state['why']}: a stand-in is used below)")
        if state["use"] is None:
            expected = fallback(*args, **kwargs)
            try:
                result = yours(*args, **kwargs)
            except NotImplementedError:
                state["why"] = f"{name} is not written yet in {notebook}.ipynb"
            except Exception as error:  # the student's function fails: the stand-in
                state["why"] = f"{label} fails here ({type(error).__name__}: {error}); run its tests"
            else:
                if _same(result, expected):
                    print(f"({label} is used below)")
                    state["use"] = yours
                    return result
                state["why"] = f"{label} gives another result than the stand-in here; run its tests"
            state["use"] = fallback
            print(f"({state['why']}: a stand-in is used below)")
            return expected
        return state["use"](*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"{label} (or its stand-in); see nbkit.earlier."
    return call
