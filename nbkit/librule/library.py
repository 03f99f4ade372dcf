"""The rule on ready-made libraries applied to one submitted notebook (see :mod:`.rule` for the rule).

A *graded function* is an answer the student is asked to write (a name a solution
cell of the source notebook defines, or a name the tests look up that a submitted
solution cell defines); its test cells are the ones that look it up. For each graded
function the scan reads, in the submitted source and before anything runs:

* its own code and, transitively, every helper function, class or global it reads
  that the student defined in any cell (each statement that binds the name, stores
  into it, calls a method on it or passes it to one of the student's functions):
  a module or attribute path outside the allow-list, or a construct that loads or
  reaches code the grader cannot read (``exec``, ``__import__`` of a computed name,
  ``getattr`` with a computed name, ``globals()``, ``__dict__``, ``sys.modules``,
  pickle, ``importlib``, estimator discovery...) is a finding;
* every student cell: a construct in it that can rebind a name while the notebook
  runs (``globals()["posterior"] = ...``, ``exec`` or ``eval`` of code built at run
  time, ``setattr`` on a module, ``sys.modules``, a namespace's ``__dict__``, pickle...)
  is a finding for every graded function with a test cell after it; so is an import
  of a module that is not installed (the student's own file, whose code is not read).
  Reading is not: ``getattr(model, name)`` over a literal list of names, or an
  attribute read by a computed name only to print, format or measure it
  (``print(name, getattr(model, name))``), cannot rebind a graded name.

Merely importing or using another library in a cell that only explores is no finding.
"""

from __future__ import annotations

import ast
from copy import copy as shallow_copy

from .rule import NOT_REBINDING, LibraryRule, installed_module, is_dynamic_path, is_under
from .walk import BUILTIN_NAMES, _bound_in, uses


def _installed(module: str) -> bool:
    """The top-level module of ``module`` is in the standard library or installed (its code is not the
    student's; a file in the current folder is not installed)."""
    return installed_module(module.split(".")[0])


def _global_writes(stmt) -> set:
    """Names a statement's functions declare ``global`` (they rebind them when called)."""
    return {name for node in ast.walk(stmt) if isinstance(node, ast.Global) for name in node.names}


def _only_alias(stmt, name):
    """An import statement reduced to the alias that binds ``name``."""
    if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return stmt
    reduced = shallow_copy(stmt)
    reduced.names = [a for a in stmt.names if (a.asname or a.name.split(".")[0]) == name] or stmt.names
    return reduced


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _touched(stmt, student_functions) -> set:
    """Names a statement may change in place: stored into, a method called on, or passed to a
    function of the student's."""
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(_root(node))
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                names.add(_root(node.func.value))
            if isinstance(node.func, ast.Name) and node.func.id in student_functions:
                names.update(_root(arg) for arg in [*node.args, *(k.value for k in node.keywords)])
    names.discard(None)
    return names


class NotebookCode:
    """The code of one notebook as the library rule reads it."""

    def __init__(self, student_cells, instructor_trees):
        """``student_cells``: [(index, label, tree)]; ``instructor_trees``: the instructor's non-test cells."""
        self.student_cells = student_cells
        self.aliases, self.shadowed = {}, set()
        for tree in [*instructor_trees, *(t for _, _, t in student_cells)]:
            bound, aliases, _ = _bound_in(tree.body)
            for name, path in aliases.items():
                self.aliases.setdefault(name, set()).add(path)
            self.shadowed |= (bound - set(aliases)) & BUILTIN_NAMES
        self.bindings, self.touches = {}, {}
        for index, label, tree in student_cells:
            for stmt in tree.body:
                for name in _bound_in([stmt])[0] | _global_writes(stmt):
                    self.bindings.setdefault(name, []).append((index, label, _only_alias(stmt, name)))
        functions = set(self.bindings)
        for index, label, tree in student_cells:
            for stmt in tree.body:
                for name in _touched(stmt, functions) & functions:
                    if all(s is not stmt for _, _, s in self.bindings[name]):
                        self.touches.setdefault(name, []).append((index, label, stmt))
        self._uses = {}

    def _only_imported(self, name) -> bool:
        return all(isinstance(stmt, (ast.Import, ast.ImportFrom)) for _, _, stmt in self.bindings[name])

    def uses(self, stmt):
        if id(stmt) not in self._uses:
            self._uses[id(stmt)] = (stmt, uses(stmt, self.aliases, self.shadowed))
        return self._uses[id(stmt)][1]

    def taints(self) -> list:
        """(cell index, label, words) of every construct in a student cell that can rebind names
        while the notebook runs."""
        found = []
        for index, label, tree in self.student_cells:
            for stmt in tree.body:
                used = self.uses(stmt)
                words = [w for w, rebinding in used.dynamic if rebinding]  # reading cannot rebind
                words += [f"`{p}`" for p in used.paths if is_dynamic_path(p) and not is_under(p, NOT_REBINDING)]
                words += [f"`import {m}` (not an installed library: the grader does not read its code)"
                          for m in used.imports if not _installed(m)]
                found += [(index, label, w) for w in dict.fromkeys(words)]
        return found

    def closure_findings(self, function, rule: LibraryRule) -> list:
        """(cell label, kind, words) for the graded function's own code and its helpers."""
        found, seen, queue = [], set(), [function]
        while queue:
            name = queue.pop(0)
            if name in seen:
                continue
            seen.add(name)
            via = "" if name == function else f" (through `{name}`)"
            for index, label, stmt in self.bindings.get(name, []) + self.touches.get(name, []):
                used = self.uses(stmt)
                for path in dict.fromkeys(used.paths):
                    why = rule.why_not(function, path)
                    if why:
                        found.append((label, why[0], why[1] + via))
                for module in dict.fromkeys(used.imports):
                    if not _installed(module):
                        found.append((label, "dynamic", f"imports {module}, which is not an installed library "
                                                        f"(the grader does not read its code){via}"))
                    elif is_dynamic_path(module):
                        found.append((label, "dynamic", f"imports {module}, which loads or reaches code the "
                                                        f"grader cannot read{via}"))
                    elif not rule.import_allowed(function, module):
                        found.append((label, "library", f"imports {module}, outside the allowed libraries{via}"))
                for words, _ in used.dynamic:
                    found.append((label, "dynamic", f"uses {words}, code the grader cannot read{via}"))
                queue.extend(sorted(g for g in used.globals if g in self.bindings and g not in seen
                                    and not self._only_imported(g)))  # an import's uses are checked where used
        return list(dict.fromkeys(found))


def library_findings(code: NotebookCode, graded, test_cells, rule: LibraryRule) -> list:
    """One entry per graded function with a finding: ``{"function", "tests", "findings": [{"cell",
    "kind", "what"}], "overruled"}`` (JSON-able: it goes into the autograded notebook's metadata).

    ``test_cells``: [(cell index, grade_id, names the cell looks up in the kernel)].
    """
    taints = code.taints()
    results = []
    for function in sorted(graded):
        tests = [(index, grade_id) for index, grade_id, names in test_cells if function in names]
        if not tests:
            continue
        found = code.closure_findings(function, rule)
        if function not in code.bindings and function not in code.aliases:
            found_before = [t for t in taints if t[0] < max(i for i, _ in tests)]
            if found_before:
                found.append((found_before[0][1], "dynamic", "is defined nowhere the grader can read (the notebook "
                                                             f"runs {found_before[0][2]})"))
        own = {words for _, _, words in found}
        last_test = max(index for index, _ in tests)
        for index, label, words in taints:
            text = f"can be replaced at run time by {words} (code the grader cannot read, before its tests run)"
            if index < last_test and not any(words in w for w in own):
                found.append((label, "dynamic", text))
        if found:
            results.append({
                "function": function, "tests": [grade_id for _, grade_id in tests],
                "findings": [{"cell": label, "kind": kind, "what": words} for label, kind, words in
                             list(dict.fromkeys(found))[:12]],
                "overruled": rule.overruled.get(function, ""),
            })
    return results
