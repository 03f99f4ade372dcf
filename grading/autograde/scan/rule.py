"""The rule on ready-made libraries: what a graded function may use, and what it may not.

The notebooks state it: *graded functions compute with NumPy, SciPy, pandas and
Python's standard library for maths and data structures; an exercise names any
other library it allows or forbids. A graded function that uses another library
or loads code in a way the grader cannot read gets 0 points for that function.*

:class:`LibraryRule` holds the allow-list by module prefix (:data:`DEFAULT_ALLOWED`,
``c.Nbg.allowed_libraries`` course-wide), the course's ``c.Nbg.forbidden_libraries``,
each exercise's own ``allow``/``forbid`` lists (the SOURCE notebook's
``metadata["nbg"]["libraries"]``, never the submission's) and the instructor's
overrules (:mod:`grading.core.overrules`). A dotted name matches a module or an
attribute path: ``scipy.special`` matches ``scipy.special.softmax``; a forbidden
name wins over an allowed one. Names are also resolved to the objects they name in
the grading process (only for allowed modules), so ``numpy.testing._private.utils.os``
is the module ``os`` and a forbidden ``scipy.special.softmax`` is forbidden under any
of its paths.
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
