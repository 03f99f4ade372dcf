"""What the grader's answer scan will flag: a ready-made naive Bayes in your code.

A graded function must compute its result itself. The grader reads the
cells a student writes (answer cells and added cells) and flags for review
an answer that uses ``sklearn.naive_bayes`` or the course's reference
library; this looks for the same imports, statically (nothing is run).
"""

from __future__ import annotations

import ast

from .cells import cell_role, label
from .findings import OK, WARNING, Finding

# The ready-made naive Bayes implementations the grader's scan looks for.
READY_MADE = ("sklearn.naive_bayes", "nbcore")


def _is_ready_made(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in READY_MADE)


def _parse(source: str):
    try:
        return ast.parse(source)
    except SyntaxError:
        pass
    try:  # IPython syntax (magics, !commands)
        from IPython.core.inputtransformer2 import TransformerManager

        return ast.parse(TransformerManager().transform_cell(source))
    except Exception:
        return None


def _modules(node) -> list:
    """Modules an import statement, or a literal ``__import__``/``import_module`` call, names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("__import__", "import_module"):
            return [node.args[0].value]
    return []


def _attribute_chain(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def uses_of_ready_made(tree) -> list:
    """``(function or None, module)`` for each place ``tree`` imports or reaches a ready-made naive Bayes."""
    found = []

    def visit(node, function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            function = node.name
        modules = [m for m in _modules(node) if _is_ready_made(m)]
        chain = _attribute_chain(node) if isinstance(node, ast.Attribute) else None
        if chain and _is_ready_made(chain) and not isinstance(getattr(node, "ctx", None), ast.Store):
            modules.append(chain)
        if modules:
            found.append((function, min(modules, key=len)))
            if isinstance(node, ast.Attribute):
                return  # sklearn.naive_bayes.GaussianNB: one use, not two
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return list(dict.fromkeys(found))


def check_ready_made(notebook) -> Finding:
    """A warning for each cell a student writes that uses a ready-made naive Bayes."""
    details = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or cell_role(cell) not in ("answer", None):
            continue  # the given cells and the tests are the instructor's
        tree = _parse(cell.source)
        for function, module in uses_of_ready_made(tree) if tree is not None else []:
            where = f"in {function}()" if function else "at the top of the cell"
            details.append(f"{label(notebook, index)} uses {module} {where}")
    if not details:
        return Finding(OK, "own code", "no answer uses a ready-made naive Bayes.")
    return Finding(WARNING, "own code", "your code uses a ready-made naive Bayes: the grader flags this for "
                   "review, and an answer that calls one instead of computing earns no points.", details,
                   advice="Compute the result in your function (with NumPy). If you compared your answer "
                   "with scikit-learn, delete that comparison before you submit.")
