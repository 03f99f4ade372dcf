"""A static scan of a submitted notebook, run by the grading process before execution.

It looks for three ways an answer can earn points it does not deserve, which
no sandbox stops because they happen inside the student's own kernel:

*delegation*
    a graded answer that imports ``nbcore`` or ``sklearn.naive_bayes`` (the
    reference the hidden tests compare against) and uses it;
*monkeypatching*
    code that changes what the tests rely on: assigning, ``setattr``-ing or
    deleting attributes of ``numpy`` (``numpy.testing`` included),
    ``builtins``, ``nbcore``, ``scipy`` or ``sklearn``; editing
    ``sys.modules``; or rebinding, at the top level, a builtin or an
    instructor-defined name that the tests use (``isinstance = ...``);
*always-equal objects*
    a class whose ``__eq__`` returns a constant true value (or ``__ne__`` a
    false one), so ``assert answer == expected`` passes for any answer.

Only the cells a student could have written are scanned: solution cells and
cells the student added; the instructor's cells (restored from the gradebook
before grading) are not. Merely using numpy, or importing a module under a
common alias, is never a finding: only the patterns above are.

Consequences: none for the score. The tests run in the judge, outside the
student's kernel (:mod:`grading.execution.judge_runtime`), so a monkeypatch or an always-equal
object cannot change a verdict, and nbcore is not there to delegate to; the
scan is a second signal that flags the notebook for review (status
``flagged``) and names the findings and the test cells they concern in the
feedback and the report. Names are resolved by scope: a function's own
``reference`` variable is not the tests' ``reference`` module.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses

FORBIDDEN_MODULES = ("nbcore", "sklearn.naive_bayes")
PROTECTED_MODULES = ("numpy", "builtins", "nbcore", "scipy", "sklearn")
BUILTIN_NAMES = frozenset(dir(builtins)) - {"__name__", "__doc__", "_"}


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

    @property
    def flagged(self) -> bool:
        return bool(self.flagged_tests)

    def reason(self) -> str:
        """One sentence per finding, then the test cells to review."""
        if not self.flagged_tests:
            return ""
        reasons = list(dict.fromkeys(self.flagged_tests.values()))  # unique, in order
        cells = ", ".join(sorted(self.flagged_tests))
        return ("flagged for review: the answer scan found " + "; ".join(reasons)
                + f" (test cells concerned: {cells}; their scores are the judge's, unchanged)")


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _label(cell, index) -> str:
    grade_id = _nbgrader(cell).get("grade_id")
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


def _imported_modules(node):
    """Modules an import statement or a literal ``__import__``/``import_module`` call names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        func = _dotted(node.func) or ""
        if func in ("__import__", "importlib.import_module", "import_module") and isinstance(node.args[0].value, str):
            return [node.args[0].value]
    return []


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


def _names_used(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _local_names(node) -> set:
    """Names a function binds itself (parameters, assignments), minus its ``global`` ones:
    a local ``reference`` is not the tests' ``reference`` module."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set()
    arguments = node.args
    local = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    local |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    declared_global = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            local.add(sub.id)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            declared_global.update(sub.names)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)) and sub is not node:
            local.update((a.asname or a.name).split(".")[0] for a in sub.names)
    return local - declared_global


def _root_name(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _uses_forbidden(node, aliases) -> str | None:
    local = _local_names(node)
    for sub in ast.walk(node):
        for module in _imported_modules(sub):
            if _is_under(module, FORBIDDEN_MODULES):
                return module
        if isinstance(sub, (ast.Name, ast.Attribute)):
            if _root_name(sub) in local:
                continue
            resolved = aliases.resolve(sub)
            if resolved and _is_under(resolved, FORBIDDEN_MODULES):
                return resolved
    return None


def _top_names(tree) -> set:
    """Names a cell binds at its top level, imports included."""
    bound = set()
    for node in tree.body:
        bound.update(_bound_names(node))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


def _free_names(tree) -> set:
    """Names a cell reads without binding them itself (so it takes them from earlier cells)."""
    return _names_used(tree) - _top_names(tree)


def _instructor_cells(source_cells) -> dict:
    """grade_id -> source of the instructor's cells that students cannot change."""
    return {
        cell["name"]: cell["source"]
        for cell in source_cells
        if cell.get("locked") or (cell.get("grade") and not cell.get("solution"))
    }


def scan_notebook(notebook, source_cells=()) -> ScanResult:
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

    Returns
    -------
    ScanResult
    """
    instructor = _instructor_cells(source_cells)
    aliases = _Aliases()
    test_cells, student_cells = [], []  # (index, grade_id, free names) / (index, label, tree)
    setup_names = set()  # what the instructor's non-test cells define for the tests
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        meta = _nbgrader(cell)
        tree = parse_cell(cell.source)
        if meta.get("grade_id") in instructor and cell.source == instructor[meta["grade_id"]]:
            if tree is None:
                continue
            aliases.record_imports(tree)
            if meta.get("grade"):
                test_cells.append((index, meta["grade_id"], _free_names(tree)))
            else:
                setup_names |= _top_names(tree)
        elif tree is not None:
            aliases.record_imports(tree)
            student_cells.append((index, _label(cell, index), tree))
    # What the tests take from earlier cells and the student must not replace: builtins and
    # what the instructor's cells define, but not the answers the student is asked to write.
    answers = set().union(set(), *(_top_names(parse_cell(c["source"]) or ast.Module(body=[], type_ignores=[]))
                                   for c in source_cells if c.get("solution")))
    tools = (BUILTIN_NAMES | setup_names) - answers
    tools &= set().union(set(), *(names for _, _, names in test_cells))

    result = ScanResult()
    definitions = {}  # answer name -> (cell index, label, AST node)
    for index, label, tree in student_cells:
        definitions.update({name: (index, label, node) for name, node in _top_level_definitions(tree).items()})
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:  # `from nbcore.estimation import posterior`
                    if _is_under(f"{node.module}.{alias.name}", FORBIDDEN_MODULES) or \
                            _is_under(node.module, FORBIDDEN_MODULES):
                        definitions[alias.asname or alias.name] = (index, label, node)
            for name in _bound_names(node):
                if name in tools:
                    result.findings.append(Finding(index, label, "rebinding",
                                                   f"rebinds `{name}`, which the tests use", (name,)))
        result.findings += [Finding(index, label, "monkeypatch", detail) for detail in _monkeypatches(tree, aliases)]
        result.findings += [Finding(index, label, "always_equal", f"class {name} compares equal to anything", (name,))
                            for name in _always_equal_classes(tree)]
    result.findings += _delegating_answers(result.findings, definitions, aliases)
    _flag_tests(result, test_cells)
    return result


def _delegating_answers(findings, definitions, aliases) -> list:
    """A finding per answer that delegates or returns always-equal objects, directly
    or through a helper it uses."""
    flagged = {name: f.detail for f in findings if f.kind == "always_equal" for name in f.names}
    new = []
    for name, (index, label, node) in definitions.items():
        module = _uses_forbidden(node, aliases)
        if module and name not in flagged:
            flagged[name] = f"`{name}` uses {module}"
            new.append(Finding(index, label, "delegation", flagged[name], (name,)))
    changed = True
    while changed:
        changed = False
        for name, (index, label, node) in definitions.items():
            helpers = sorted(_names_used(node) & set(flagged) - {name})
            if name not in flagged and helpers:
                flagged[name] = f"`{name}` uses `{helpers[0]}` ({flagged[helpers[0]]})"
                new.append(Finding(index, label, "delegation", flagged[name], (name,)))
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

