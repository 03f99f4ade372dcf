"""Mutation testing of the hidden tests, graded through the real pipeline.

For every graded function, ``course/mistakes/<assignment>.py`` (the catalogue of known mistakes) holds
correct variants in different styles and mutants, one per mistake the
function's hidden test says it catches (plus one that overwrites its inputs).
Submissions are built from the release notebook with the instructor's answers
filled in, then one function at a time replaced:

* ``correct-k``: every function replaced by its k-th correct variant (the
  last one again when it has fewer): every test cell must get full marks;
* ``mutant-j``: every function that has a j-th mutant gets it, the others keep
  the instructor's answer: each mutated function must lose points on one of
  its own test cells at least, and every test cell of a function that is not
  mutated in that submission must keep full marks (no collateral loss).

All submissions of all assignments are graded in one sandboxed
``grading.autograde.autograde`` run (2 workers), so many cases share each
kernel start: the session's shared class of the real course
(:mod:`tests.mutation.course_class`, fixture ``course_class``), which the
real-assignments test of ``nbg autograde`` reads too.
"""

from __future__ import annotations

import os

import nbformat
import pytest

from grading.commands.autograde import format_table
from tests.mutation.course_class import CASES, COURSE, HARDCODED, solution_cells

pytestmark = pytest.mark.slow


def test_every_graded_function_of_every_notebook_has_cases():

    only = {name for name in os.environ.get("NBG_MUTATION_ONLY", "").split(",") if name}
    for path in sorted((COURSE / "source").glob("*/*.ipynb")):
        assignment = path.parent.name
        if only and assignment not in only:
            continue  # NBG_MUTATION_ONLY: the case files of the others are not loaded
        assert assignment in CASES, f"no course/mistakes/{assignment}.py"
        graded = set(solution_cells(nbformat.read(path, as_version=4)))
        assert graded == set(CASES[assignment]), (assignment, graded ^ set(CASES[assignment]))
        for function, case in CASES[assignment].items():
            assert len(case["correct"]) >= 2, f"{assignment}.{function}: fewer than 2 correct variants"
            assert case["mutants"], f"{assignment}.{function}: no mutant"
            assert any("input" in name or "overwrit" in name or "in_place" in name for name in case["mutants"]), (
                f"{assignment}.{function}: no mutant that overwrites its inputs")


@pytest.fixture(scope="module")
def graded(course_class):
    return course_class.plans, course_class.scores, course_class.statuses, course_class.diagnoses, course_class.failed


def _cases_params():
    return [(a, f) for a, cases in CASES.items() for f in cases]


@pytest.mark.parametrize("assignment", sorted(CASES))
def test_correct_variants_get_full_marks(graded, assignment):
    plans, scores, statuses, _, _ = graded
    for student in [s for s in plans[assignment] if s.startswith("correct-")]:
        lost = {cell: score for cell, score in scores[(student, assignment)].items() if score[0] != score[1]}
        assert not lost, (assignment, student, lost, statuses[(student, assignment)])


@pytest.mark.parametrize("assignment, function", _cases_params())
def test_each_mutant_loses_points_on_its_own_tests_only(graded, assignment, function):
    plans, scores, _, _, _ = graded
    cases = CASES[assignment]
    own = set(cases[function]["tests"])
    for student, (_, what) in plans[assignment].items():
        if not student.startswith("mutant-"):
            continue
        cells = scores[(student, assignment)]
        if function in what:
            lost_own = [c for c in own if cells[c][0] < cells[c][1]]
            assert lost_own, f"{assignment}.{function}: mutant {what[function]!r} loses no point ({student})"
        else:  # not mutated here: its tests keep full marks whatever the other mutants do
            lost = {c: cells[c] for c in own if cells[c][0] < cells[c][1]}
            assert not lost, (f"{assignment}.{function} is correct in {student} but loses {lost} "
                              f"(mutants there: {what})")


@pytest.mark.parametrize("assignment, function", _cases_params())
def test_a_mutant_that_misses_an_edge_case_keeps_the_core_points(graded, assignment, function):
    """Partial credit: a case's ``keeps`` maps a mutant to the test cells it must still pass in
    full (its function's core computation is right; only an edge case or an input kind is
    missed), so one missed secondary check never costs the whole function."""
    plans, scores, _, _, _ = graded
    keeps = CASES[assignment][function].get("keeps", {})
    assert set(keeps) <= set(CASES[assignment][function]["mutants"]), f"{function}: keeps names unknown mutants"
    for student, (_, what) in plans[assignment].items():
        if student.startswith("mutant-") and what.get(function) in keeps:
            cells = scores[(student, assignment)]
            for cell in keeps[what[function]]:
                assert cells[cell][0] == cells[cell][1] > 0, (
                    f"{assignment}.{function}: mutant {what[function]!r} should keep the points of {cell}, "
                    f"got {cells[cell]}")


def test_the_row_order_mistake_costs_the_core_cell_in_every_notebook(graded):
    """Review C11, one mistake, one weight: rows (or blocks) in sorted order instead of the order of
    ``classes`` breaks every prediction, so it costs exactly its function's core cell (whose ``classes``
    are out of sorted order) and no other hidden cell (theirs are sorted): about the same share of the
    function's points in every notebook (57 to 63 %), and the visible test shows it."""
    plans, scores, _, _, failed = graded
    shares = {}
    for assignment, cases in CASES.items():
        for function, case in cases.items():
            if "row_order" not in case:
                continue
            assert case["row_order"] in case["mutants"], f"{assignment}.{function}: unknown row_order mutant"
            core, hidden = f"test_{function}_core", [c for c in case["tests"] if not c.endswith("_visible")]
            students = [s for s, (_, what) in plans[assignment].items()
                        if s.startswith("mutant-") and what.get(function) == case["row_order"]]
            assert students, f"{assignment}.{function}: the row-order mutant was not graded"
            for student in students:
                cells = scores[(student, assignment)]
                assert cells[core][0] == 0 < cells[core][1], (assignment, function, core, cells[core])
                kept = {c: cells[c] for c in hidden if c != core and cells[c][0] < cells[c][1]}
                assert not kept, f"{assignment}.{function}: the row-order mutant also loses {kept}"
                assert f"test_{function}_visible" in failed[(student, assignment)], (
                    f"{assignment}.{function}: the visible test does not show the row-order mistake")
                shares[(assignment, function)] = cells[core][1] / sum(cells[c][1] for c in hidden)
    if shares:
        print("\nrow-order mistake, share of the function's points lost:",
              ", ".join(f"{a[:2]} {f} {share:.0%}" for (a, f), share in sorted(shares.items())))
        assert max(shares.values()) - min(shares.values()) <= 0.1, shares


def test_every_function_with_several_hidden_cells_has_a_mutant_that_keeps_points():
    for assignment, cases in CASES.items():
        for function, case in cases.items():
            hidden = [cell for cell in case["tests"] if not cell.endswith("_visible")]
            if len(hidden) > 1:
                assert case.get("keeps"), f"{assignment}.{function}: no mutant shows partial credit (keeps)"


@pytest.mark.parametrize("assignment", sorted(CASES))
def test_hard_coding_what_the_notebook_shows_earns_nothing(graded, assignment):
    """The acceptance test of "no points for hard-coding": the submission whose every graded
    function returns the visible tests' results from a table gets 0 on every test cell that
    carries points, while its visible tests pass (so the table really holds the worked numbers)."""
    plans, scores, statuses, _, failed = graded
    cells = scores[(HARDCODED, assignment)]
    earned = {cell: score for cell, score in cells.items() if score[1] > 0 and score[0] > 0}
    assert not earned, f"{assignment}: hard-coded answers earn points on {earned}"
    own = {cell for case in CASES[assignment].values() for cell in case["tests"]}
    assert all(cells[cell][0] == 0 for cell in own if cell in cells), assignment
    visible = {cell for cell in cells if cell.endswith("_visible")}
    assert visible, f"{assignment}: no visible test cells (named test_<function>_visible)"
    assert not visible & failed[(HARDCODED, assignment)], (
        f"{assignment}: the hard-coded answers fail visible tests {sorted(visible & failed[(HARDCODED, assignment)])}: "
        "the table does not reproduce what the notebook shows", statuses[(HARDCODED, assignment)])


def diagnosis_figures(plans, scores, diagnoses, failed) -> dict:
    """How the judge's diagnosis did on the whole suite: per mutant, what its function's failed
    cells were diagnosed as; correct variants diagnosed; diagnoses on passed cells."""
    figures = {"exact": [], "within_set": [], "missed": [], "wrong": [], "set_sizes": [],
               "correct_diagnosed": [], "on_passed_cells": []}
    for assignment, students in plans.items():
        for student, (_, what) in students.items():
            found = diagnoses[(student, assignment)]
            # whether a cell passed is read from its outputs: a 0-point cell (a visible test)
            # scores 0 of 0 either way
            figures["on_passed_cells"] += [(assignment, student, cell) for cell in found
                                           if cell not in failed[(student, assignment)]]
            if student == HARDCODED:
                continue
            if student.startswith("correct-"):
                figures["correct_diagnosed"] += [(assignment, student, found)] if found else []
                continue
            for function, mistake in what.items():
                own = CASES[assignment][function]["tests"]
                named = sorted({d for cell in own for d in found.get(cell, []) if d.startswith(function + "/")})
                key = (assignment, function, mistake)
                if f"{function}/{mistake}" not in named:
                    figures["wrong" if named else "missed"].append((*key, named))
                else:
                    figures["exact" if len(named) == 1 else "within_set"].append(key)
                    figures["set_sizes"].append(len(named))
    return figures


def test_diagnosis_names_every_mutant_and_no_correct_variant(graded):
    """Every catalogued mistake is diagnosed as itself (alone or within a named set), no
    correct variant and no passed cell gets a diagnosis; the figures are printed."""
    plans, scores, _, diagnoses, failed = graded
    figures = diagnosis_figures(plans, scores, diagnoses, failed)
    total = sum(len(figures[k]) for k in ("exact", "within_set", "missed", "wrong"))
    sizes = figures["set_sizes"]
    print(f"\ndiagnosis of {total} mutants: {len(figures['exact'])} exactly, {len(figures['within_set'])} "
          f"within a set (mean set size {sum(sizes) / max(len(sizes), 1):.2f}, precision "
          f"{len(sizes) / max(sum(sizes), 1):.3f}), {len(figures['missed'])} not diagnosed, "
          f"{len(figures['wrong'])} diagnosed as something else; correct variants diagnosed: "
          f"{len(figures['correct_diagnosed'])}; diagnoses on passed cells: {len(figures['on_passed_cells'])}")
    for kind in ("within_set", "missed", "wrong"):
        for item in figures[kind]:
            print(f"  {kind}: {item}")
    assert not figures["correct_diagnosed"], figures["correct_diagnosed"]
    assert not figures["on_passed_cells"], figures["on_passed_cells"]
    assert not figures["wrong"], figures["wrong"]
    assert not figures["missed"], figures["missed"]


def test_real_assignments_solution_scores_full_in_the_sandbox(course_class):
    """Every source notebook, graded by nbg (sandboxed, tests in the judge), scores
    as stock nbgrader does (tests/notebooks/test_autograde_roundtrip.py grades the same
    two students with stock nbgrader): the instructor's solution gets every automatic
    point, the untouched release none. The two students are in the session's class of
    the real course (tests/mutation/course_class.py), graded once with the mutation suite
    (moved here from tests/grading/test_autograde.py, whose other tests share another class)."""
    course, records = course_class.course, course_class.summary.records
    assignments = sorted(course_class.plans)
    honest = [r for r in records if r.student in ("solution", "blank")]
    assert sorted((r.student, r.assignment) for r in honest) == sorted(
        (student, assignment) for student in ("solution", "blank") for assignment in assignments)
    assert all(r.status == "ok" for r in honest), format_table(course_class.summary)
    assert all(record.sandboxed for record in records)
    with course.gradebook() as gradebook:
        for assignment in assignments:
            solution = gradebook.find_submission(assignment, "solution").notebooks[0].grades
            # Written answers (markdown grade cells) wait for the instructor.
            auto = [g for g in solution if g.cell_type == "code"]
            assert auto and all(g.auto_score == g.max_score for g in auto), assignment
            assert all(g.needs_manual_grade for g in solution if g.cell_type == "markdown")
            # The untouched release: 0 on every test, as stock nbgrader gives it (tests/notebooks).
            blank = gradebook.find_submission(assignment, "blank").notebooks[0].grades
            assert all(g.auto_score == 0 for g in blank if g.cell_type == "code"), assignment


def test_failed_hidden_cells_show_a_counterexample_the_mutant_really_gets_wrong(course_class):
    """Issue 33 on the whole catalogue, read from the class's graded notebooks (no grading of its own):
    a mutant's failed hidden cells show a counterexample whose call, run here apart from the judge,
    makes the mutant and the reference differ, holding no more values than the test's input; no
    correct variant, solution or passed cell shows one. Figures printed (the fit_logistic tests
    pass the test's own function: calling the student again with it is left to the test)."""
    from grading.core.mistakes import judge_catalogue
    from tests.grading.test_counterexamples import SIZES, differ, replayed
    from tests.grading.test_diagnosis_coincidences import _build, _given_setup

    shown, cells, mutants, covered, values, misses, sizes = 0, 0, set(), set(), [], [], []
    for assignment, students in course_class.plans.items():
        source = nbformat.read(COURSE / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        hidden = {c.metadata.get("nbgrader", {}).get("grade_id") for c in source.cells
                  if "BEGIN HIDDEN TESTS" in c.source}
        catalogue = judge_catalogue(CASES[assignment], source)
        base = _given_setup(catalogue)
        references = {f: _build(e["reference"], f, base) for f, e in catalogue["functions"].items()}
        for student in [*students, "solution"]:
            messages = course_class.messages[(student, assignment)]
            what = students[student][1] if student in students else {}
            wrong = {f: m for f, m in what.items() if m != "correct"} if student.startswith("mutant-") else {}
            for grade_id, message in messages.items():
                owner = next((f for f in wrong if grade_id in CASES[assignment][f]["tests"]), None)
                if owner is None:  # a right answer's failed cell (the hard-coding student's are wrong answers)
                    assert student == HARDCODED or "A smaller input on which your" not in message, (
                        assignment, student, grade_id)
                    continue
                if grade_id not in hidden or owner == "fit_logistic":
                    continue
                cells += 1
                mutants.add((assignment, owner, wrong[owner]))
                if "A smaller input on which your" not in message:
                    misses.append((assignment, owner, wrong[owner], grade_id))
                    continue
                shown += 1
                covered.add((assignment, owner, wrong[owner]))
                small, original = (int(n) for n in SIZES.search(message).groups())
                assert small <= original, message
                values.append((small, original))
                replaced = {f: code for functions in students[student][0].values() for f, code in functions.items()}
                mutant = _build(replaced[owner], owner, {**base, **references})
                mine, right = replayed(message, owner, {**base, **references}, mutant, references[owner])
                assert differ(*mine, *right), (assignment, owner, wrong[owner], grade_id, message)
                record = course_class.counterexamples[(student, assignment)].get(grade_id)
                assert record and record["shown"] and record["call"] in message, (assignment, owner, grade_id)
                if record["original_size"]:  # array inputs: rows x features of the largest array argument
                    small, original = (record["size"][0] * record["size"][1],
                                       record["original_size"][0] * record["original_size"][1])
                    assert small <= original, (assignment, owner, grade_id, record)
                    sizes.append((small, original))
    values.sort(key=lambda pair: pair[0] / pair[1])
    print(f"\ncounterexamples: {shown} of {cells} failed hidden cells, {len(covered)} of {len(mutants)} mutants; "
          f"median {values[len(values) // 2][0]} values shown against {sorted(v[1] for v in values)[len(values) // 2]} "
          f"in the test's input; strictly smaller: {sum(1 for s, o in values if s < o)}")
    median = (sorted(s for s, _ in sizes)[len(sizes) // 2], sorted(o for _, o in sizes)[len(sizes) // 2])
    print(f"counterexamples with array inputs: {len(sizes)}; median rows x features {median[0]} against "
          f"{median[1]} in the test's input; strictly smaller: {sum(1 for s, o in sizes if s < o)}")
    for miss in misses:
        print("  none:", miss)
    assert len(covered) >= 0.95 * len(mutants), (len(covered), len(mutants))
    assert sizes and median[0] < median[1], median
