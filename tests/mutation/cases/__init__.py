"""Mutation cases: the course's catalogue of known mistakes, ``course/mistakes/<assignment_id>.py``.

Each module defines ``ASSIGNMENT`` (the assignment id) and ``CASES``: a dict mapping
a graded function's name to ``{"tests": [grade_id, ...], "correct": {style: source},
"mutants": {mistake: source}, "explanations": {mistake: text}}`` (see
``grading.core.mistakes``: the grader's diagnosis reads the same files). Every source is a full replacement for the solution
cell that defines the function. The file names start with digits, so they are loaded
by path rather than imported.
"""

import importlib.util
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parents[3] / "course" / "mistakes"


def load_cases(assignment_id):
    """Return the ``CASES`` dict of ``<assignment_id>.py``.

    Raises
    ------
    ValueError
        If there is no case file for ``assignment_id``, or it declares another assignment.
    """
    path = CASES_DIR / f"{assignment_id}.py"
    if not path.is_file():
        known = ", ".join(sorted(assignment_ids())) or "none"
        raise ValueError(f"no mutation cases for {assignment_id!r} (known: {known})")
    spec = importlib.util.spec_from_file_location(f"mutation_cases_{assignment_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.ASSIGNMENT != assignment_id:
        raise ValueError(f"{path.name} declares ASSIGNMENT = {module.ASSIGNMENT!r}, expected {assignment_id!r}")
    return module.CASES


def assignment_ids():
    """Ids of the assignments that have a case file, sorted."""
    return sorted(path.stem for path in CASES_DIR.glob("[0-9]*.py"))


def all_cases():
    """``{assignment_id: CASES}`` for every case file."""
    return {assignment: load_cases(assignment) for assignment in assignment_ids()}
