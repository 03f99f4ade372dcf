"""``nbg validate``: honest verdicts and exit codes, on the fixture and the real course.

Fixture tests: about 15 s. The real-assignment test is ``slow`` (it executes
every source notebook of course/source and its release: minutes).
"""

import shutil
from pathlib import Path

import nbformat
import pytest

import fixtures
from grading.cli import main
from grading.core.course import Course
from grading.release import build_release
from grading.validate import validate

REPO = Path(__file__).resolve().parents[2]
REAL_SOURCE = REPO / "course" / "source"


def test_source_passes_and_release_fails(tmp_path):
    fixtures.write_course(tmp_path)
    build_release(Course(tmp_path))

    result = validate([tmp_path / "source", tmp_path / "release"])

    assert [(nb.path.parent.parent.name, nb.kind, nb.ok) for nb in result.notebooks] == [
        ("source", "source", True), ("release", "release", True)]
    # Source: the 4 test cells; release: the 2 visible ones (hidden ones are emptied).
    assert [nb.tests_checked for nb in result.notebooks] == [4, 2]
    assert result.exit_code == 0


def test_wrong_solution_fails_with_the_failing_tests_named(tmp_path, capsys):
    path = tmp_path / "wrong.ipynb"
    nbformat.write(fixtures.wrong_source_notebook(), path)

    assert main(["validate", str(path)]) == 1

    out = capsys.readouterr().out
    assert "FAIL" in out and "test_add_visible raised AssertionError: add(2, 3) should be 5" in out
    assert "test_add_hidden raised AssertionError" in out
    assert "test_mean_visible" not in out


def test_release_whose_test_passes_on_blank_is_invalid(tmp_path):
    notebook = fixtures.student_notebook(fixtures.source_notebook(), "perfect")
    for cell in notebook.cells:  # drop the solution markers: it now looks like a release
        cell.source = cell.source.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", "")
    nbformat.write(notebook, tmp_path / "leaky_release.ipynb")

    verdict = validate([tmp_path / "leaky_release.ipynb"]).notebooks[0]

    assert verdict.kind == "release" and not verdict.ok
    assert any("test_add_visible passes on the blank release" in p for p in verdict.problems)


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        validate([tmp_path / "nope.ipynb"])


# Two real assignments suffice here: every assignment's source passing and
# release failing is already checked through nbgrader itself in
# tests/notebooks/test_autograde_roundtrip.py; this checks validate's verdicts.
REAL_SAMPLE = ["02_categorical_nb", "05_gaussian_nb"]


@pytest.mark.slow
def test_real_assignments_source_pass_and_release_fail(tmp_path):
    root = tmp_path / "course"
    for assignment in REAL_SAMPLE:
        shutil.copytree(REAL_SOURCE / assignment, root / "source" / assignment)
    shutil.copy(REAL_SOURCE.parent / "nbgrader_config.py", root)
    build_release(Course(root))

    result = validate([root / "source", root / "release"], workers=2)

    assert result.ok, result.format()
    assert len(result.notebooks) == 2 * len(REAL_SAMPLE)
