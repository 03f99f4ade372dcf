"""Python source of a notebook's code cells: the functions a cell defines, and replacing one.

No heavy import here: ``nbg demo --help`` loads this module (through the demo's students) and must
stay fast (tests/grading/test_cli_startup.py).
"""

from __future__ import annotations

import ast


def defined_functions(source: str) -> set:
    """The names of the top-level functions a code cell defines (none when it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def replace_functions(source: str, replacements: dict) -> str:
    """``source`` with each top-level function named in ``replacements`` (name -> code) replaced by
    that code, decorators included; the rest of the cell as it was (a cell may define several)."""
    lines = source.split("\n")
    nodes = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name in replacements]
    for node in sorted(nodes, key=lambda node: node.lineno, reverse=True):
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        lines[start:node.end_lineno] = replacements[node.name].strip("\n").split("\n")
    return "\n".join(lines)
