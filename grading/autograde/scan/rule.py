"""The rule on ready-made libraries, as the grader applies it.

The rule itself (its words, :class:`LibraryRule`, the allow-list and what counts as
dynamic) lives in the student kit, :mod:`nbkit.librule.rule`, so that ``nbkit check``
and the grader give the same verdict; this module re-exports it and adds what only the
grader has: the course's config and the instructor's overrules.
"""

from __future__ import annotations

from grading.core.errors import NbgError
from nbkit.librule import rule as _kit_rule
from nbkit.librule.rule import (  # noqa: F401 (the rule itself lives in the student kit, shared with nbkit check)
    DEFAULT_ALLOWED,
    DYNAMIC_PATHS,
    NOT_REBINDING,
    RULE_TEXT,
    LibraryRule,
    is_dynamic_path,
    is_under,
)


def exercise_libraries(notebook, where: str) -> dict:
    """The ``metadata["nbg"]["libraries"]`` of a source notebook, checked (see
    :func:`nbkit.librule.rule.exercise_libraries`); a malformed entry is an :class:`NbgError`."""
    try:
        return _kit_rule.exercise_libraries(notebook, where)
    except ValueError as error:
        raise NbgError(str(error)) from None


_EXERCISES = {}


def library_rule(course, assignment, student=None, notebook_id=None) -> LibraryRule:
    """The rule for one notebook of ``assignment``: the course's settings, the source notebook's per-exercise
    lists, and the overrules recorded for ``student``."""
    import nbformat

    from grading.core import overrules

    settings = course.settings
    exercises = {}
    for path in course.source_notebooks(assignment):
        if notebook_id is not None and path.stem != notebook_id:
            continue
        info = path.stat()
        key = (str(path), info.st_mtime_ns, info.st_size)
        if key not in _EXERCISES:  # read once per source notebook, not once per submission
            _EXERCISES[key] = exercise_libraries(nbformat.read(str(path), as_version=4),
                                                 str(path.relative_to(course.root)))
        exercises.update(_EXERCISES[key])
    overruled = {}
    if student is not None:
        overruled = {o.function: o.reason for o in overrules.read_overrules(course)
                     if o.assignment == assignment and o.student == student}
    return LibraryRule(tuple(settings.allowed_libraries), tuple(settings.forbidden_libraries), exercises, overruled)


def graded_functions(course, assignment) -> list:
    """The names the solution cells of an assignment's source notebooks define (the answers), sorted."""
    import ast

    import nbformat

    names = set()
    for path in course.source_notebooks(assignment):
        for cell in nbformat.read(str(path), as_version=4).cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
                try:
                    tree = ast.parse(cell.source)
                except SyntaxError:
                    continue
                for node in tree.body:
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(node.name)
                    elif isinstance(node, ast.Assign):
                        names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return sorted(names)
