"""Audit of one mistake across the course: rows (or blocks) in np.unique order instead of ``classes`` order.

Review item C11 ("one mistake, one weight"). For every function that takes ``classes`` and whose
catalogue entry (``course/mistakes/<id>.py``) names this mistake's mutant (``row_order``), one submission: that function replaced
by the mutant, every other function the instructor's. All are graded in one real ``autograde`` run
(sandboxed, tests in the judge); the table lists, per function, the points of each hidden cell, the
fraction of the function's points the mistake costs, and whether the visible test catches it.
A script, not a test (it grades 9 submissions through the sandbox: a few minutes). From the root:

    .venv/bin/python -m tests.mutation.audit_row_order [--np-unique-y]

The catalogue's mutants get the order wrong and nothing else; ``--np-unique-y`` grades them as a
student writes them, with the rows taken from ``np.unique(y)``, which also drops a class absent
from ``y`` (a mistake of its own, weighed on the edges cell).
"""

from __future__ import annotations

import argparse
import ast
import shutil
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
# the order-only mutant's code -> the same mistake as written with np.unique(y)
AS_WRITTEN = {"np.unique(np.asarray(classes))": "np.unique(np.concatenate([np.asarray(y_true), np.asarray(y_pred)]))",
              "np.unique(classes)": "np.unique(y)"}


def _suite():
    from tests.mutation import course_class  # the catalogue's tools: CASES, solution_cells, submission

    return course_class


def row_order_mutants() -> dict:
    """(assignment, function) -> the catalogue's mutant of this mistake (its case's ``row_order``)."""
    return {(assignment, function): case["row_order"]
            for assignment, cases in _suite().CASES.items() for function, case in cases.items() if "row_order" in case}


def audit(workdir: Path, np_unique_y: bool = False) -> list:
    from grading.autograde import autograde
    from grading.core.course import Course
    from grading.release import build_release

    suite = _suite()
    row_order = row_order_mutants()
    assignments = sorted({a for a, _ in row_order})
    root = workdir / "course"
    (root / "source").mkdir(parents=True)
    shutil.copy(ROOT / "course" / "nbgrader_config.py", root)
    for assignment in assignments:
        shutil.copytree(ROOT / "course" / "source" / assignment, root / "source" / assignment,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copytree(ROOT / "course" / "mistakes", root / "mistakes", ignore=shutil.ignore_patterns("__pycache__"))
    course = Course(root)
    build_release(course, assignments, handout=False)
    students = {}
    for (assignment, function), mutant in row_order.items():
        cases = suite.CASES[assignment]
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        where = suite.solution_cells(source)[function]
        student = f"{function.replace('_', '-')}-row-order"
        folder = course.submitted_dir(student, assignment)
        folder.mkdir(parents=True)
        code = cases[function]["mutants"][mutant]
        labels = {"y", "y_true"} & {a.arg for a in ast.parse(code).body[-1].args.args}
        for order_only, as_written in AS_WRITTEN.items() if np_unique_y and labels else ():  # no y: as it is
            code = code.replace(order_only, as_written)
        nbformat.write(suite.submission(source, {where: {function: code}}), str(folder / f"{assignment}.ipynb"))
        students[(assignment, function)] = (student, cases[function]["tests"])
    autograde(course, workers=2)
    rows = []
    with course.gradebook() as gradebook:
        for (assignment, function), (student, tests) in students.items():
            grades = {g.name: (g.auto_score, g.max_score)
                      for g in gradebook.find_submission(assignment, student).notebooks[0].grades}
            graded = nbformat.read(course.autograded_dir(student, assignment) / f"{assignment}.ipynb", as_version=4)
            failed = {c.metadata.get("nbgrader", {}).get("grade_id") for c in graded.cells
                      if any(o.get("output_type") == "error" for o in c.get("outputs", []))}
            hidden = [t for t in tests if not t.endswith("_visible")]
            total = sum(grades[t][1] for t in hidden)
            lost = sum(grades[t][1] - grades[t][0] for t in hidden)
            visible = [t for t in tests if t.endswith("_visible")]
            rows.append((assignment, function, row_order[(assignment, function)],
                         {t.removeprefix(f"test_{function}_"): grades[t] for t in hidden}, lost, total,
                         "catches it" if set(visible) & failed else "passes"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np-unique-y", action="store_true", help="the mutants as written with np.unique(y)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="row-order-audit-") as scratch:
        rows = audit(Path(scratch), np_unique_y=args.np_unique_y)
    print("| notebook | function | mutant | hidden cells (score / max) | lost | fraction | visible test |")
    print("|---|---|---|---|---|---|---|")
    for assignment, function, mutant, cells, lost, total, visible in rows:
        shown = ", ".join(f"{name} {score:g}/{top:g}" for name, (score, top) in cells.items())
        print(f"| {assignment[:2]} | `{function}` | `{mutant}` | {shown} | {lost:g} / {total:g} | "
              f"{lost / total:.0%} | {visible} |")


if __name__ == "__main__":
    main()
