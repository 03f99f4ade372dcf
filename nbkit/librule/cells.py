"""A notebook's code cells as the library rule reads them: whose each cell is, and what each test looks up.

One reading for the grader and for ``nbkit check``: :func:`split_cells` sorts the code
cells into the instructor's (setup and test cells, restored as released) and the
student's (answers and cells the student added), and :func:`library_verdicts` applies
the rule (:mod:`.library`) to them. The grader passes the gradebook's source of the
instructor's cells; ``nbkit check`` the release notebook's own cells and the names its
hidden tests look up, which the release records in ``metadata["nbg"]["rule"]``.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import symtable

from .library import NotebookCode, library_findings
from .rule import LibraryRule

BUILTIN_NAMES = frozenset(dir(builtins)) - {"__name__", "__doc__", "_"}


def nbgrader_meta(cell) -> dict:
    meta = (cell.get("metadata", {}) or {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def cell_label(cell, index) -> str:
    grade_id = nbgrader_meta(cell).get("grade_id")
    return f"cell {index} ({grade_id})" if grade_id else f"cell {index}"


def parse_cell(source: str):
    """The AST of a cell (IPython magics transformed away), or None if it does not parse."""
    try:
        return ast.parse(source)
    except SyntaxError:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return ast.parse(TransformerManager().transform_cell(source))
    except Exception:
        return None  # the cell fails when it runs; nothing to scan


def _bound_names(node):
    """Names a top-level statement binds, imports excepted (re-importing numpy is fine)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    names = []
    for target in targets:
        names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return names


def _names_used(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def top_names(tree) -> set:
    """Names a cell binds at its top level, imports included."""
    bound = set()
    for node in tree.body:
        bound.update(_bound_names(node))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


def _free_names(tree) -> set:
    """Names a cell reads without binding them itself (so it takes them from earlier cells)."""
    return _names_used(tree) - top_names(tree)


def names_looked_up(source: str, bound_before=()) -> set:
    """The names a test cell looks up in the student's kernel (:class:`StudentNamespace` of the
    judge): read, at its top level or in its functions, without being bound by the cell itself
    (or by an earlier test cell, whose names stay in the judge), builtins and dunder names excepted
    (the judge takes those from its own builtins)."""
    try:
        table = symtable.symtable(source, "<test>", "exec")
    except (SyntaxError, ValueError):
        tree = parse_cell(source)
        return set() if tree is None else _free_names(tree) - BUILTIN_NAMES - set(bound_before)
    bound = {s.get_name() for s in table.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}
    read = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    stack = list(table.get_children())
    while stack:
        child = stack.pop()
        stack.extend(child.get_children())
        read |= {s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced()}
        if child.get_type() == "class":  # a class body's unbound names are looked up globally too
            read |= {s.get_name() for s in child.get_symbols()
                     if s.is_referenced() and not (s.is_assigned() or s.is_imported() or s.is_local())}
    return {name for name in read - bound - set(bound_before)
            if name not in BUILTIN_NAMES and not name.startswith("__")}


@dataclasses.dataclass
class NotebookCells:
    """The parsed code cells of one notebook, sorted by whose they are."""

    student_cells: list = dataclasses.field(default_factory=list)  # (index, label, tree)
    setup_trees: list = dataclasses.field(default_factory=list)  # the instructor's cells that are no test
    test_cells: list = dataclasses.field(default_factory=list)  # (index, grade_id, names looked up)
    solution_names: set = dataclasses.field(default_factory=set)  # names the answer cells bind
    trees: list = dataclasses.field(default_factory=list)  # (index, tree, the instructor's) in notebook order


def split_cells(notebook, instructor: dict, tests: dict, looked_up: dict | None = None) -> NotebookCells:
    """Sort ``notebook``'s code cells.

    Parameters
    ----------
    instructor : dict
        grade_id -> source of the instructor's cells (locked and test cells): a cell with that grade_id and
        that source is the instructor's, not scanned.
    tests : dict
        grade_id -> source of the test cells, which the grader puts back as they are (an edited test cell
        counts as its original).
    looked_up : dict, optional
        grade_id -> names a test cell looks up, when its source does not show them (a release notebook's
        hidden tests); default: read from the source (:func:`names_looked_up`).
    """
    cells = NotebookCells()
    test_bound = set()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None
        source = tests[grade_id] if grade_id in tests else cell["source"]
        tree = parse_cell(source)
        if grade_id in instructor and source == instructor[grade_id]:
            if tree is None:
                continue
            cells.trees.append((index, tree, True))
            if meta.get("grade"):
                names = (set(looked_up[grade_id]) if looked_up is not None and grade_id in looked_up
                         else names_looked_up(source, test_bound))
                cells.test_cells.append((index, grade_id, names))
                test_bound |= top_names(tree)
            else:
                cells.setup_trees.append(tree)
        elif tree is not None:
            cells.trees.append((index, tree, False))
            cells.student_cells.append((index, cell_label(cell, index), tree))
            if meta.get("solution"):
                cells.solution_names |= top_names(tree)
    return cells


def graded_names(cells: NotebookCells, answers) -> set:
    """The graded functions: the answers the source notebook asks for, and any name a student's answer
    cell binds that a test looks up."""
    looked_up = set().union(set(), *(names for _, _, names in cells.test_cells))
    return set(answers) | (cells.solution_names & looked_up)


def library_verdicts(cells: NotebookCells, answers, rule: LibraryRule) -> list:
    """The rule's findings, one entry per graded function that has one (see :func:`.library.library_findings`)."""
    return library_findings(NotebookCode(cells.student_cells, cells.setup_trees), graded_names(cells, answers),
                            cells.test_cells, rule)


def _instructor_sources(source_notebook) -> tuple[dict, dict]:
    """(grade_id -> source of the locked and test cells, grade_id -> source of the test cells) of a source
    notebook."""
    instructor, tests = {}, {}
    for cell in source_notebook.cells:
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id")
        if cell.cell_type != "code" or not grade_id:
            continue
        if meta.get("locked") or (meta.get("grade") and not meta.get("solution")):
            instructor[grade_id] = cell.source
        if meta.get("grade") and not meta.get("solution"):
            tests[grade_id] = cell.source
    return instructor, tests


def release_rule(source_notebook, allowed, forbidden) -> dict:
    """What ``nbkit check`` needs to apply the rule to a release notebook as the grader does: the course's
    lists, the graded functions and the names each test cell looks up (the hidden ones' sources are not in
    the release). Names only, no test's code; ``nbg release`` writes it to ``metadata["nbg"]["rule"]``."""
    instructor, tests = _instructor_sources(source_notebook)
    cells = split_cells(source_notebook, instructor, tests)
    looked_up = {grade_id: sorted(names) for _, grade_id, names in cells.test_cells}
    answers = set()
    for cell in source_notebook.cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("solution"):
            answers |= top_names(parse_cell(cell.source) or ast.Module(body=[], type_ignores=[]))
    tested = set().union(set(), *looked_up.values())
    return {"allowed": list(allowed), "forbidden": list(forbidden), "answers": sorted(answers & tested),
            "tests": looked_up}
