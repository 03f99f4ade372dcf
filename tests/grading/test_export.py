"""``nbg export``: grades.csv and cells.csv from the gradebook of a graded class.

Expected values are written by hand from the fixture's hand-derived scores
(``fixtures.EXPECTED_SCORES`` / ``EXPECTED_CELL_SCORES``). Runtime: ~15 s
for the shared graded class (built once per session), then ~5 s.
"""

import csv

import fixtures
import pytest
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.core.text import format_points
from grading.export import export_grades


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = graded_class_root(tmp_path_factory)
    out_dir = tmp_path_factory.mktemp("exports")
    grades_csv, cells_csv = export_grades(Course(root), out_dir)
    with grades_csv.open(newline="") as handle:
        grades = list(csv.reader(handle))
    with cells_csv.open(newline="") as handle:
        cells = list(csv.DictReader(handle))
    return grades, cells


def test_grades_csv_has_one_row_per_student_and_one_column_per_assignment(exported):
    grades, _ = exported
    assert grades[0] == ["student", "ps_fixture", "total"]
    assert grades[1:] == [
        ["absent", "", "0"],  # in the gradebook, submitted nothing: empty cell
        ["blank", "0", "0"],
        ["edits_test_cell", "3", "3"],  # add wrong (test restored), mean right
        ["infinite_loop", "3", "3"],  # mean's cell timed out: add's 3 kept
        ["kernel_dies", "3", "3"],  # kernel died in mean's cell: add's 3 kept
        ["late_perfect", "0", "0"],  # 6 points, penalty "zero" takes all 6
        ["perfect", "6", "6"],
        ["stderr_output", "6", "6"],  # mean printed to stderr during the tests: the judge ignores it
        ["syntax_error", "3", "3"],
        ["wrong_hidden", "4", "4"],  # add's hidden test fails (2 points)
    ]


def test_cells_csv_has_every_grade_cell_of_every_submission(exported):
    _, cells = exported
    assert list(cells[0]) == [
        "student", "assignment", "notebook", "grade_id", "score", "max_score", "passed"
    ]
    by_key = {(row["student"], row["grade_id"]): row for row in cells}
    assert len(cells) == 9 * 4  # 9 graded submissions x 4 test cells; absent has none
    points = {"test_add_visible": "1", "test_add_hidden": "2",
              "test_mean_visible": "1", "test_mean_hidden": "2"}
    kinds = {"late_perfect": "perfect"}
    for student in (*fixtures.SUBMISSION_KINDS, "late_perfect"):
        expected = fixtures.EXPECTED_CELL_SCORES[kinds.get(student, student)]
        for grade_id, score in zip(fixtures.GRADE_CELLS, expected):
            row = by_key[(student, grade_id)]
            assert row["assignment"] == row["notebook"] == "ps_fixture"
            assert row["max_score"] == points[grade_id]
            assert float(row["score"]) == score, (student, grade_id)
            assert row["passed"] == ("1" if score == float(points[grade_id]) else "0")


def test_cells_csv_keeps_raw_scores_of_late_work(exported):
    # The penalty applies to the assignment total, not to the cells: the
    # per-cell file still says which questions the late student got right.
    _, cells = exported
    late = [row for row in cells if row["student"] == "late_perfect"]
    assert {row["passed"] for row in late} == {"1"}


def test_export_refuses_a_file_as_output_folder(tmp_path_factory, tmp_path):
    root = graded_class_root(tmp_path_factory)
    not_a_folder = tmp_path / "grades.txt"
    not_a_folder.write_text("")
    with pytest.raises(ValueError, match="give a folder"):
        export_grades(Course(root), not_a_folder)


def test_export_without_a_gradebook_says_what_to_do(tmp_path_factory, tmp_path):
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path)
    (root / "gradebook.db").unlink()
    with pytest.raises(ValueError, match="no gradebook at .*run `nbg release` and `nbg autograde`"):
        export_grades(Course(root), tmp_path / "out")
    assert not (root / "gradebook.db").exists()  # no empty gradebook left behind


@pytest.mark.parametrize(
    "value, text", [(3.0, "3"), (0, "0"), (2.5, "2.5"), (None, ""), (2 / 3, "0.666667")]
)
def test_format_points(value, text):
    assert format_points(value) == text


def test_cli_export_writes_both_files(tmp_path_factory, tmp_path):
    import subprocess
    import sys

    root = graded_class_root(tmp_path_factory)
    done = subprocess.run(
        [sys.executable, "-m", "grading", "--course", str(root), "export", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    # The class has a dead kernel, an infinite loop and an edited test: listed first, exit 1.
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("WARNING ") and "3 notebook(s) need attention" in done.stdout
    assert (tmp_path / "grades.csv").read_text().startswith("student,ps_fixture,total")
    assert str(tmp_path / "cells.csv") in done.stdout
