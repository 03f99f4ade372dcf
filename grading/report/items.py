"""Item analysis of the autograded test cells: does each test measure what the others measure?

For one assignment, the items are its autograded code test cells and the
class is the students with a graded submission. With ``x[s, j]`` the points
student ``s`` got on item ``j``:

- *facility* of an item: the fraction of students who passed it (full points);
- *discrimination*: the item-rest correlation, the Pearson correlation across
  students between ``x[:, j]`` and the rest score ``sum_k x[:, k] - x[:, j]``.
  Near zero or negative, the item does not separate the students who do well on
  the rest of the assignment from those who do not: a test that measures
  something else (or is broken, or everyone passes by luck). Undefined (shown
  as "-") when every student scored the same on the item or on the rest;
- *Cronbach's alpha* of the assignment: ``k / (k - 1) * (1 - sum_j var(x_j) /
  var(sum_j x_j))`` (sample variances), how consistently the items measure one
  thing; about 0.7 or more is usual for a test, but a short assignment whose
  functions build on different skills may have less and be fine.

Items are flagged when their discrimination is below :data:`FLAG_BELOW`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLAG_BELOW = 0.1  # item-rest correlation at or under which a test cell is flagged


@dataclass
class Item:
    grade_id: str
    facility: float
    discrimination: float  # NaN when undefined
    flagged: bool


@dataclass
class Analysis:
    assignment: str
    students: int
    alpha: float  # NaN when undefined (fewer than 2 items or no spread)
    items: list


def _correlation(a, b) -> float:
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def analyse(points, passed, grade_ids, assignment="") -> Analysis:
    """Item analysis of one assignment.

    Parameters
    ----------
    points : array of shape (n_students, n_items)
        Points per student and item.
    passed : array of bool, same shape
        Whether the student got the item's full points.
    grade_ids : list of str
        The items' names, in column order.
    """
    x = np.asarray(points, dtype=float)
    passed = np.asarray(passed, dtype=bool)
    n, k = x.shape
    total = x.sum(axis=1)
    items = []
    for j, grade_id in enumerate(grade_ids):
        r = _correlation(x[:, j], total - x[:, j]) if n > 2 else float("nan")
        items.append(Item(grade_id, float(passed[:, j].mean()) if n else float("nan"), r,
                          bool(not np.isnan(r) and r <= FLAG_BELOW)))
    alpha = float("nan")
    if k >= 2 and n >= 2 and total.var(ddof=1) > 0:
        alpha = float(k / (k - 1) * (1 - x.var(axis=0, ddof=1).sum() / total.var(ddof=1)))
    return Analysis(assignment, n, alpha, items)


def class_item_analysis(grades, order=None) -> list:
    """:func:`analyse` per assignment from :class:`grading.grades.read.ClassGrades` (code test cells
    with a score; ``order`` maps assignment -> {grade_id: position})."""
    by_assignment = {}
    for cell in grades.cells:
        if cell.passed is None or cell.cell_type != "code":
            continue
        by_assignment.setdefault(cell.assignment, {})[(cell.student, cell.grade_id)] = cell
    analyses = []
    for assignment in sorted(by_assignment):
        cells = by_assignment[assignment]
        positions = (order or {}).get(assignment, {})
        grade_ids = sorted({g for _, g in cells}, key=lambda g: (positions.get(g, len(positions)), g))
        students = sorted({s for s, _ in cells})
        students = [s for s in students if all((s, g) in cells for g in grade_ids)]
        points = [[cells[(s, g)].score for g in grade_ids] for s in students]
        passed = [[bool(cells[(s, g)].passed) for g in grade_ids] for s in students]
        if students:
            analyses.append(analyse(np.reshape(points, (len(students), len(grade_ids))),
                                    np.reshape(passed, (len(students), len(grade_ids))), grade_ids, assignment))
    return analyses
