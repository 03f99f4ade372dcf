"""``nbg release``: nbgrader's student version plus a reproducible LMS zip.

Runtime: about 10 s (three nbgrader releases of the small fixture).
"""

import zipfile

import nbformat
import pytest

import fixtures
from grading.core.course import Course
from grading.release import build_release, check_no_leaks


@pytest.fixture
def course(tmp_path):
    fixtures.write_course(tmp_path)
    return Course(tmp_path)


def test_release_writes_student_version_and_zip_without_solutions(course):
    zips = build_release(course)

    assert zips == [course.root / "release_zips" / "ps_fixture.zip"]
    with zipfile.ZipFile(zips[0]) as archive:
        assert archive.namelist() == ["ps_fixture/ps_fixture.ipynb"]
        released = archive.read("ps_fixture/ps_fixture.ipynb").decode()
    assert released == (course.release_dir("ps_fixture") / "ps_fixture.ipynb").read_text()
    for secret in (*fixtures.HIDDEN_SOURCE_SNIPPETS, "return a + b", "BEGIN SOLUTION"):
        assert secret not in released
    assert "raise NotImplementedError" in released


def test_release_records_the_assignment_in_the_gradebook(course):
    build_release(course, ["ps_fixture"])

    with course.gradebook() as gradebook:
        notebook = gradebook.find_notebook("ps_fixture", "ps_fixture")
        grade_cells = sorted((cell.name, cell.max_score) for cell in notebook.grade_cells)
    # Points as written in fixtures.source_notebook(): 1 visible + 2 hidden per function.
    assert grade_cells == [
        ("test_add_hidden", 2.0), ("test_add_visible", 1.0),
        ("test_mean_hidden", 2.0), ("test_mean_visible", 1.0),
    ]


def test_release_zip_is_reproducible(course):
    first = build_release(course)[0].read_bytes()
    second = build_release(course)[0].read_bytes()
    assert first == second


def test_unknown_assignment_is_a_clear_error(course):
    with pytest.raises(ValueError, match="unknown assignment.*'nope'.*ps_fixture"):
        build_release(course, ["nope"])


def test_empty_course_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no assignments"):
        build_release(Course(tmp_path))


def test_leak_check_names_the_cell(tmp_path):
    notebook = fixtures.source_notebook()  # still has its solutions
    nbformat.write(notebook, tmp_path / "leaky.ipynb")
    with pytest.raises(ValueError, match=r"leaky.ipynb cell 1 still contains '### BEGIN SOLUTION'"):
        check_no_leaks(tmp_path)
