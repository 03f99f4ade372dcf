"""A static scan of a submitted notebook, run by the grading process before execution.

It looks for ways an answer can earn points it does not deserve, which
no sandbox stops because they happen inside the student's own kernel:

*delegation* (the rule on ready-made libraries, below)
    a graded answer that uses a library outside the allow-list (``nbcore``,
    scikit-learn, ...) or loads code in a way the grader cannot read;
*monkeypatching*
    code that changes what the tests rely on: assigning, ``setattr``-ing or
    deleting attributes of ``numpy`` (``numpy.testing`` included),
    ``builtins``, ``nbcore``, ``scipy`` or ``sklearn``; editing
    ``sys.modules``; or rebinding, at the top level, a name the tests look up in
    the kernel (an instructor-defined tool such as ``check_array``);
*always-equal objects*
    a class whose ``__eq__`` returns a constant true value (or ``__ne__`` a
    false one), so ``assert answer == expected`` passes for any answer.

Only the cells a student could have written are scanned: solution cells and
cells the student added; the instructor's cells (restored from the gradebook
before grading) are not. Merely using numpy, or importing a module under a
common alias, is never a finding: only the patterns above are.

The rule on ready-made libraries (:mod:`.rule`, :mod:`.library`) is the one finding
with a consequence for the score: a graded function that uses a library outside
the allow-list, or loads code the grader cannot read, gets 0 points on every test
cell that looks it up (``ScanResult.zero_tests``), unless the instructor overruled
it (``nbg overrule``). The names the tests look up in the kernel are computed with
:mod:`symtable` (:func:`names_looked_up`): what a test cell binds itself, or takes from
the judge's builtins, is not the student's to protect.

Consequences of the other findings: none for the score. The tests run in the judge, outside the
student's kernel (:mod:`grading.execution.judge_runtime`), so a monkeypatch or an always-equal
object cannot change a verdict, and nbcore is not there to delegate to; the
scan is a second signal that flags the notebook for review (status
``flagged``) and names the findings and the test cells they concern in the
feedback and the report. Names are resolved by scope: a function's own
``reference`` variable is not the tests' ``reference`` module.
"""

from __future__ import annotations

import ast
import dataclasses

from grading.autograde.scan.rule import RULE_TEXT, LibraryRule, library_rule
from nbkit.librule.cells import (
    _bound_names,
    _names_used,
    library_verdicts,
    names_looked_up,
    parse_cell,
    split_cells,
    top_names,
)

__all__ = ["RULE_TEXT", "Finding", "LibraryRule", "ScanResult", "library_reason", "library_rule",
           "parse_cell", "scan_notebook", "names_looked_up"]

PROTECTED_MODULES = ("numpy", "builtins", "nbcore", "scipy", "sklearn")


@dataclasses.dataclass(frozen=True)
class Finding:
    """One suspicious construct in a student's cell."""

    cell_index: int
    cell_label: str
    kind: str  # "delegation", "monkeypatch", "rebinding" or "always_equal"
    detail: str
    names: tuple = ()  # answers it makes untrustworthy (delegation, always_equal)


@dataclasses.dataclass
class ScanResult:
    """The findings of one notebook and the test cells they concern (flagged for review)."""

    findings: list = dataclasses.field(default_factory=list)
    flagged_tests: dict = dataclasses.field(default_factory=dict)  # test grade_id -> why
    library: list = dataclasses.field(default_factory=list)  # see nbkit.librule.library.library_findings

    @property
    def zero_tests(self) -> dict:
        """test grade_id -> graded function: the cells that get 0 points under the library rule."""
        return {test: entry["function"] for entry in self.library if not entry["overruled"]
                for test in entry["tests"]}

    @property
    def flagged(self) -> bool:
        return bool(self.flagged_tests) or bool(self.zero_tests)

    def reason(self) -> str:
        """One sentence per finding, then the test cells to review."""
        parts = [library_reason(entry) for entry in self.library if not entry["overruled"]]
        if self.flagged_tests:
            reasons = list(dict.fromkeys(self.flagged_tests.values()))  # unique, in order
            cells = ", ".join(sorted(self.flagged_tests))
            parts.append("flagged for review: the answer scan found " + "; ".join(reasons)
                         + f" (test cells concerned: {cells}; their scores are the judge's, unchanged)")
        return "; ".join(parts)

    def overruled_note(self) -> str:
        """What the instructor's overrules changed (for a record whose status stays ok)."""
        return "; ".join(f"library rule: the finding on {e['function']} was overruled by the instructor "
                         f"({e['overruled']})" for e in self.library if e["overruled"])


def library_reason(entry) -> str:
    """The grading log's words for one graded function's finding."""
    first = entry["findings"][0]
    more = f" (and {len(entry['findings']) - 1} more)" if len(entry["findings"]) > 1 else ""
    return (f"library rule: {entry['function']} gets 0 points on {', '.join(entry['tests'])}: it {first['what']} "
            f"in {first['cell']}{more} (the instructor can overrule this: nbg overrule)")


def _dotted(node) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _is_under(module: str, roots) -> bool:
    return any(module == root or module.startswith(root + ".") for root in roots)


class _Aliases:
    """Which names refer to which modules (``np`` -> ``numpy``), across cells."""

    def __init__(self):
        self.modules = {"__builtins__": "builtins"}

    def record_imports(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.modules[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def resolve(self, node) -> str | None:
        """The full dotted name an expression refers to, if it starts at a known alias."""
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in self.modules:
            return None
        return self.modules[head] + (f".{rest}" if rest else "")



def _monkeypatches(tree, aliases):
    """Descriptions of every patch of a protected module in a cell."""
    found = []

    def protected(target) -> str | None:
        resolved = aliases.resolve(target)
        if resolved and _is_under(resolved, PROTECTED_MODULES):
            return resolved
        return None

    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and protected(target.value):
                found.append(f"replaces {protected(target.value)}.{target.attr}")
            elif isinstance(target, ast.Subscript):
                container = aliases.resolve(target.value) or ""
                if container == "sys.modules":
                    found.append("edits sys.modules")
                elif isinstance(target.value, ast.Attribute) and target.value.attr == "__dict__" \
                        and protected(target.value.value):
                    found.append(f"edits {protected(target.value.value)}.__dict__")
                elif isinstance(target.value, ast.Call) and _dotted(target.value.func) == "vars" \
                        and target.value.args and protected(target.value.args[0]):
                    found.append(f"edits vars({protected(target.value.args[0])})")
                elif protected(target.value):  # __builtins__["len"] = ...
                    found.append(f"edits {protected(target.value)}")
        if isinstance(node, ast.Call):
            func = _dotted(node.func) or ""
            if func in ("setattr", "delattr") and node.args and protected(node.args[0]):
                found.append(f"calls {func} on {protected(node.args[0])}")
            elif isinstance(node.func, ast.Attribute) and aliases.resolve(node.func.value) == "sys.modules" \
                    and node.func.attr in ("update", "pop", "setdefault", "clear", "popitem",
                                           "__setitem__", "__delitem__"):
                found.append(f"edits sys.modules ({node.func.attr})")
    return found


def _always_equal_classes(tree):
    """Classes defining ``__eq__`` that returns a constant true value (or ``__ne__`` a false one)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            for name, value in _method_returns(item):
                if (name == "__eq__" and value) or (name == "__ne__" and value is False):
                    found.append(node.name)
    return found


def _method_returns(item):
    """(method name, constant it always returns) for ``def __eq__`` or ``__eq__ = lambda``."""
    if isinstance(item, ast.FunctionDef):
        body = [s for s in item.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Constant):
            yield item.name, body[0].value.value
    elif isinstance(item, ast.Assign) and isinstance(item.value, ast.Lambda) and isinstance(item.value.body, ast.Constant):
        for target in item.targets:
            if isinstance(target, ast.Name):
                yield target.id, item.value.body.value


def _top_level_definitions(tree):
    """name -> AST node of every function or class defined, or name assigned, at the top level."""
    definitions = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for name in _bound_names(node):
                definitions[name] = node
    return definitions


def _instructor_cells(source_cells) -> dict:
    """grade_id -> source of the instructor's cells that students cannot change."""
    return {
        cell["name"]: cell["source"]
        for cell in source_cells
        if cell.get("locked") or (cell.get("grade") and not cell.get("solution"))
    }


def scan_notebook(notebook, source_cells=(), rule: LibraryRule | None = None) -> ScanResult:
    """Scan a (sanitized) submitted notebook.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The submission after nbgrader restored the locked and test cells.
    source_cells : iterable of dict
        The gradebook's source cells: ``name`` (grade_id), ``source``,
        ``locked``, ``grade``, ``solution``. A cell whose grade_id and source
        match a locked or test cell there is the instructor's and is not
        scanned.
    rule : LibraryRule, optional
        The rule on ready-made libraries for this notebook (default: the default allow-list).

    Returns
    -------
    ScanResult
    """
    rule = rule or LibraryRule()
    instructor = _instructor_cells(source_cells)
    tests = {c["name"]: c["source"] for c in source_cells if c.get("grade") and not c.get("solution")
             and c.get("cell_type", "code") == "code"}  # nbgrader puts them back as they are in the source
    cells = split_cells(notebook, instructor, tests)
    aliases = _Aliases()
    for _, tree, _ in cells.trees:
        aliases.record_imports(tree)
    test_cells, student_cells, setup_trees = cells.test_cells, cells.student_cells, cells.setup_trees
    solution_names = cells.solution_names
    # What the tests look up in the kernel and the student must not replace, minus the answers
    # the student is asked to write.
    answers = set().union(set(), *(top_names(parse_cell(c["source"]) or ast.Module(body=[], type_ignores=[]))
                                   for c in source_cells if c.get("solution")))
    looked_up = set().union(set(), *(names for _, _, names in test_cells))
    tools = looked_up - answers - solution_names
    setup_modules = {}
    for tree in setup_trees:
        for name, path in _import_bindings(tree).items():
            setup_modules[name] = path

    result = ScanResult()
    definitions = {}  # name -> (cell index, label, AST node)
    for index, label, tree in student_cells:
        definitions.update({name: (index, label, node) for name, node in _top_level_definitions(tree).items()})
        for node in tree.body:
            for name in _bound_names(node):
                if name in tools:
                    result.findings.append(Finding(index, label, "rebinding",
                                                   f"rebinds `{name}`, which the tests use", (name,)))
            for name, path in _import_bindings(ast.Module(body=[node], type_ignores=[])).items():
                if name in tools and setup_modules.get(name, path) != path:
                    result.findings.append(Finding(index, label, "rebinding",
                                                   f"imports {path} as `{name}`, which the tests use", (name,)))
        result.findings += [Finding(index, label, "monkeypatch", detail) for detail in _monkeypatches(tree, aliases)]
        result.findings += [Finding(index, label, "always_equal", f"class {name} compares equal to anything", (name,))
                            for name in _always_equal_classes(tree)]
    result.findings += _always_equal_answers(result.findings, definitions)
    _flag_tests(result, test_cells)
    result.library = library_verdicts(cells, answers, rule)
    return result


def _import_bindings(tree) -> dict:
    """name -> module path of a cell's top-level imports."""
    bound = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _always_equal_answers(findings, definitions) -> list:
    """A finding per function that returns always-equal objects through a helper it uses."""
    flagged = {name: f.detail for f in findings if f.kind == "always_equal" for name in f.names}
    new = []
    changed = True
    while changed:
        changed = False
        for name, (index, label, node) in definitions.items():
            helpers = sorted(_names_used(node) & set(flagged) - {name})
            if name not in flagged and helpers:
                flagged[name] = f"`{name}` uses `{helpers[0]}` ({flagged[helpers[0]]})"
                new.append(Finding(index, label, "always_equal", flagged[name], (name,)))
                changed = True
    return new


def _flag_tests(result, test_cells):
    """Test cells that cannot be trusted, with the finding that explains why."""
    for index, grade_id, used in test_cells:
        for finding in result.findings:
            if finding.kind == "monkeypatch":
                applies = index > finding.cell_index  # it ran in the patched kernel
            elif finding.kind == "rebinding":
                applies = index > finding.cell_index and bool(used & set(finding.names))
            else:
                applies = bool(used & set(finding.names))
            if applies:
                result.flagged_tests[grade_id] = f"{finding.cell_label}: {finding.detail}"
                break
