"""What a piece of student code uses, read from its syntax tree with Python's scoping rules.

:func:`uses` walks one statement (a ``def``, a ``class``, an assignment...) and
returns the module paths it reaches (resolved through ``import x as y``, ``from x
import y`` and attribute chains, in the function's own scope first, then the
notebook's), the modules its import statements name, the constructs that load or
reach code the grader cannot read (``eval``, ``exec``, ``__import__`` of a computed
name, ``getattr`` with a computed name, ``globals()``, ``__dict__``, ...) and the
global names it reads. A literal ``exec("...")`` or ``__import__("x")`` is read as
the code or the import it is; a string annotation as the expression it holds.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re

from .rule import DYNAMIC_ATTRIBUTES, DYNAMIC_BUILTINS

BUILTIN_NAMES = frozenset(dir(builtins))
# IPython magics that cannot run or load code: %matplotlib inline, %time, ...
SAFE_MAGICS = frozenset({"matplotlib", "precision", "pprint", "who", "whos", "config", "pwd",
                         "pdoc", "pinfo", "pinfo2", "psearch", "page", "xmode", "colors", "magic", "lsmagic",
                         "autoreload"})
# Builtins that only read, print or measure their arguments: an attribute read into them cannot rebind a name.
READ_ONLY_CALLS = frozenset({"print", "repr", "str", "len", "type", "isinstance", "format", "ascii", "id", "hash",
                             "bool", "sorted", "list", "tuple", "callable", "hasattr"})
CODE_MAGICS = frozenset({"time", "timeit", "capture"})  # they run the code they are given: it is read
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


@dataclasses.dataclass
class Uses:
    """What one statement uses (see :func:`uses`)."""

    paths: list = dataclasses.field(default_factory=list)  # dotted module/attribute paths it reaches
    imports: list = dataclasses.field(default_factory=list)  # modules its import statements name
    dynamic: list = dataclasses.field(default_factory=list)  # (words, rebinding: bool)
    globals: set = dataclasses.field(default_factory=set)  # global names it reads


def _literal_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _literal_strings(node):
    """The strings of a literal list, tuple or set of strings, else None."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts:
        values = [_literal_str(e) for e in node.elts]
        if all(v is not None for v in values):
            return tuple(values)
    return None


def _bound_in(body_nodes) -> tuple[set, dict, set]:
    """(names bound, import aliases, names declared global/nonlocal) by statements of one scope,
    not looking inside nested scopes."""
    bound, aliases, declared = set(), {}, set()
    stack = list(body_nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                bound.add(name)
                aliases[name] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    bound.add(alias.asname or alias.name)
                    if node.module and not node.level:
                        aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return bound - declared, {k: v for k, v in aliases.items() if k not in declared}, declared


def _arguments(args: ast.arguments) -> set:
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


@dataclasses.dataclass
class _Frame:
    kind: str  # "module", "function", "class", "comprehension"
    local: set
    aliases: dict


class _Walker:
    def __init__(self, global_aliases: dict, shadowed: set):
        self.global_aliases = global_aliases  # top-level name -> set of module paths (any cell)
        self.shadowed = shadowed  # builtin names the notebook rebinds at the top level
        self.out = Uses()
        self.literal_names = {}  # loop variable -> the literal strings it runs over (in the loop's body)
        self.read_only = set()  # ids of nodes whose value is only read (printed, formatted, measured)

    # -- names -------------------------------------------------------------------------------
    def resolve(self, name, frames):
        """("local", alias or None) or ("global", None)."""
        for depth, frame in enumerate(reversed(frames)):
            if frame.kind == "module":
                break
            if frame.kind == "class" and depth > 0:
                continue
            if name in frame.local:
                return "local", frame.aliases.get(name)
        return "global", None

    def module_paths(self, name, frames) -> list:
        """The module paths a name may hold (an import alias), [] for anything else."""
        where, alias = self.resolve(name, frames)
        if where == "local":
            return [alias] if alias else []
        self.out.globals.add(name)
        return sorted(self.global_aliases.get(name, ()))

    def is_builtin(self, name, frames) -> bool:
        return (name in BUILTIN_NAMES or name == "__builtins__") and name not in self.shadowed \
            and name not in self.global_aliases and self.resolve(name, frames)[0] == "global"

    def dynamic(self, words, rebinding=True):
        self.out.dynamic.append((words, rebinding))

    # -- the walk ----------------------------------------------------------------------------
    def visit(self, node, frames):
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is not None:
            return method(node, frames)
        for child in ast.iter_child_nodes(node):
            self.visit(child, frames)

    def visit_many(self, nodes, frames):
        for node in nodes:
            if node is not None:
                self.visit(node, frames)

    def annotation(self, node, frames):
        text = _literal_str(node)
        if text is not None:  # evaluated by typing.get_type_hints, functools.singledispatch...
            try:
                node = ast.parse(text, mode="eval")
            except SyntaxError:
                return
        if node is not None:
            self.visit(node, frames)

    def visit_For(self, node, frames):
        """``for name in ['theta_', 'var_']: ... getattr(model, name)`` reads those literal names."""
        values = _literal_strings(node.iter)
        name = node.target.id if isinstance(node.target, ast.Name) else None
        if values is None or name is None or name in _bound_in(node.body)[0]:
            self.visit_many([node.target, node.iter, *node.body, *node.orelse], frames)
            return
        self.visit_many([node.target, node.iter], frames)
        saved = dict(self.literal_names)
        self.literal_names[name] = values
        self.visit_many(node.body, frames)
        self.literal_names = saved
        self.visit_many(node.orelse, frames)

    visit_AsyncFor = visit_For

    def _new_scope(self, visit, *args):
        """Visit a function's or comprehension's body without the enclosing loops' literal names."""
        saved, self.literal_names = self.literal_names, {}
        try:
            visit(*args)
        finally:
            self.literal_names = saved

    def visit_JoinedStr(self, node, frames):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.read_only.add(id(value.value))
        self.visit_many(node.values, frames)

    def visit_FunctionDef(self, node, frames):
        self._new_scope(self._visit_function, node, frames)

    def _visit_function(self, node, frames):
        args = node.args
        self.visit_many([*node.decorator_list, *args.defaults, *args.kw_defaults], frames)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.annotation(arg.annotation, frames)
        self.annotation(node.returns, frames)
        bound, aliases, _ = _bound_in(node.body)
        frame = _Frame("function", bound | _arguments(args), aliases)
        self.visit_many(node.body, [*frames, frame])

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node, frames):
        self._new_scope(self._visit_lambda, node, frames)

    def _visit_lambda(self, node, frames):
        self.visit_many([*node.args.defaults, *node.args.kw_defaults], frames)
        bound, aliases, _ = _bound_in([node.body])
        self.visit(node.body, [*frames, _Frame("function", bound | _arguments(node.args), aliases)])

    def visit_ClassDef(self, node, frames):
        self.visit_many([*node.decorator_list, *node.bases, *(k.value for k in node.keywords)], frames)
        bound, aliases, _ = _bound_in(node.body)
        self.visit_many(node.body, [*frames, _Frame("class", bound, aliases)])

    def _comprehension(self, node, elements, frames):
        self._new_scope(self._visit_comprehension, node, elements, frames)

    def _visit_comprehension(self, node, elements, frames):
        first, *rest = node.generators
        self.visit(first.iter, frames)
        targets = set()
        for generator in node.generators:
            targets |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        inner = [*frames, _Frame("comprehension", targets, {})]
        self.visit(first.target, inner)
        self.visit_many(first.ifs, inner)
        for generator in rest:
            self.visit_many([generator.target, generator.iter, *generator.ifs], inner)
        self.visit_many(elements, inner)

    def visit_ListComp(self, node, frames):
        self._comprehension(node, [node.elt], frames)

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node, frames):
        self._comprehension(node, [node.key, node.value], frames)

    def visit_AnnAssign(self, node, frames):
        self.annotation(node.annotation, frames)
        self.visit_many([node.target, node.value], frames)

    def visit_Import(self, node, frames):
        for alias in node.names:
            self.out.imports.append(alias.name)

    def visit_ImportFrom(self, node, frames):
        if node.level or not node.module:
            self.dynamic(f"a relative import (from {'.' * node.level}{node.module or ''} import ...)")
            return
        self.out.imports.append(node.module)
        for alias in node.names:
            self.out.paths.append(node.module if alias.name == "*" else f"{node.module}.{alias.name}")

    def visit_Name(self, node, frames):
        if self.is_builtin(node.id, frames):
            if node.id == "__builtins__" or node.id in DYNAMIC_BUILTINS - {"getattr", "setattr", "delattr"}:
                self.dynamic(f"`{node.id}`")
            elif node.id in ("getattr", "setattr", "delattr"):
                self.dynamic(f"`{node.id}` passed around (its attribute name is not in the code)")
            elif node.id == "get_ipython":
                self.dynamic("`get_ipython()` (IPython's shell runs code and rebinds names)")
            return
        if node.id == "get_ipython" and self.resolve(node.id, frames)[0] == "global":
            self.dynamic("`get_ipython()` (IPython's shell runs code and rebinds names)")
            return
        if isinstance(node.ctx, ast.Load):
            self.out.paths.extend(self.module_paths(node.id, frames))

    def visit_Attribute(self, node, frames):
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        chain.reverse()
        for attr in chain:
            if attr in DYNAMIC_ATTRIBUTES:
                self.dynamic(f"`.{attr}`", rebinding=id(node) not in self.read_only)
        if isinstance(base, ast.Name):
            if self.is_builtin(base.id, frames) or base.id == "get_ipython":
                self.visit_Name(base, frames)
                return
            for path in self.module_paths(base.id, frames):
                self.out.paths.append(".".join([path, *chain]))
        else:
            self.visit(base, frames)

    def visit_Call(self, node, frames):
        func = node.func
        if isinstance(func, ast.Name) and func.id in READ_ONLY_CALLS and self.is_builtin(func.id, frames):
            self.read_only.update(id(arg) for arg in [*node.args, *(k.value for k in node.keywords)])
        for keyword in node.keywords:
            if keyword.arg == "allow_pickle" and not (isinstance(keyword.value, ast.Constant) and not keyword.value.value):
                self.dynamic("pickled objects loaded with `allow_pickle`")
        if isinstance(func, ast.Name) and self.is_builtin(func.id, frames) and func.id in DYNAMIC_BUILTINS:
            if self._dynamic_call(func.id, node, frames):
                self.visit_many([*node.args, *(k.value for k in node.keywords)], frames)
                return
        if self._safe_magic(node, frames):
            return
        self.visit(func, frames)
        self.visit_many([*node.args, *(k.value for k in node.keywords)], frames)

    def _safe_magic(self, node, frames) -> bool:
        """``%matplotlib inline``, ``%load_ext autoreload``, ``%%time`` (whose code is read as code)..."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("run_line_magic", "magic", "run_cell_magic")
                and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "get_ipython" and node.args):
            return False
        words = [_literal_str(arg) for arg in node.args]
        name = (words[0] or "").split(" ")[0]
        if func.attr == "run_cell_magic":
            if name not in CODE_MAGICS or len(words) < 3 or words[2] is None:
                return False
            try:
                self.visit(ast.parse(words[2]), frames)
            except SyntaxError:
                pass
            return True
        if name in CODE_MAGICS and len(words) > 1:  # %time and %timeit run the rest of the line
            code = re.sub(r"^(\s*-[A-Za-z]+(\s+\d+)?)*", "", words[1] or "").strip()
            try:
                self.visit(ast.parse(code), frames)
            except SyntaxError:
                self.dynamic(f"`%{name}` of code the grader cannot parse")
            return True
        return name in SAFE_MAGICS or (name == "load_ext" and len(words) > 1 and words[1] == "autoreload")

    def _dynamic_call(self, name, node, frames) -> bool:
        """Handle a call of a builtin that may run code; True when it was handled."""
        first = node.args[0] if node.args else None
        if name in ("exec", "eval", "compile"):
            text = _literal_str(first)
            if text is None:
                self.dynamic(f"`{name}` of code built at run time")
                return True
            for mode in ("exec", "eval"):
                try:
                    self.visit(ast.parse(text, mode=mode), frames)
                    return True
                except SyntaxError:
                    continue
            return True
        if name == "__import__":
            text = _literal_str(first)
            if text is None:
                self.dynamic("`__import__` of a name computed at run time")
            else:
                self.out.imports.append(text)
                self.out.paths.append(text)
            return True
        if name in ("getattr", "setattr", "delattr"):
            attr = _literal_str(node.args[1]) if len(node.args) > 1 else None
            # (each scope starts without its enclosing loops' names: a parameter of that name is not the loop's)
            names = self.literal_names.get(node.args[1].id) \
                if len(node.args) > 1 and isinstance(node.args[1], ast.Name) else None
            if attr is None and names is not None:  # a loop over literal names: each is read as written
                for each in names:
                    self._dynamic_call(name, ast.Call(func=node.func, args=[first, ast.Constant(each),
                                                                            *node.args[2:]], keywords=[]), frames)
                return True
            if attr is None:
                # Reading an attribute to print or measure it cannot rebind a name; anything else may
                # (getattr(f, name) may be f.__globals__).
                self.dynamic(f"`{name}` with a computed name",
                             rebinding=name != "getattr" or id(node) not in self.read_only)
            elif attr in DYNAMIC_ATTRIBUTES or not attr.isidentifier():
                self.dynamic(f"`{name}(..., {attr!r})`")
            elif first is not None:
                if isinstance(first, ast.Name):
                    self.out.paths.extend(f"{p}.{attr}" for p in self.module_paths(first.id, frames))
                elif isinstance(first, ast.Attribute):
                    before = len(self.out.paths)
                    self.visit(first, frames)
                    self.out.paths.extend(f"{p}.{attr}" for p in self.out.paths[before:])
            return True
        if name == "vars" and node.args:  # vars(obj) of an object is fine, of a module it is its namespace
            before = len(self.out.paths)
            self.visit(first, frames)
            if len(self.out.paths) > before:  # the argument names a module (or a module's attribute)
                self.dynamic("`vars()` of a module")
            self.visit_many(node.args[1:], frames)
            return True
        self.dynamic(f"`{name}()`")
        return True


def uses(node, global_aliases=None, shadowed=()) -> Uses:
    """What ``node`` (one top-level statement of a cell) uses; see the module's docstring.

    Parameters
    ----------
    node : ast.AST
    global_aliases : dict, optional
        top-level name -> set of the module paths the notebook's imports bind it to.
    shadowed : iterable of str
        Builtin names the notebook rebinds at the top level (they are not the builtins).
    """
    walker = _Walker(global_aliases or {}, set(shadowed))
    walker.visit(node, [_Frame("module", set(), {})])
    return walker.out
