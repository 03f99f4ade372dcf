"""The source notebooks follow the nbgrader conventions, and the release leaks nothing.

The metadata checks read the committed notebooks (fast); the release checks
run ``nbgrader generate_assignment`` once for every assignment in a scratch
copy of the course (slow, a few seconds per notebook).
"""

import re
from pathlib import Path

import nbformat
import pytest

from .conftest import (
    CODE_STUB,
    MARKERS,
    TEXT_STUB,
    autograded_points,
    delimited_blocks,
    grade_cells,
    is_autograded_test,
    leaked_lines,
    nbgrader_meta,
    notebook_params,
    read_notebook,
)

# A sanity range only: points follow the work a notebook asks (README), so a shorter one carries fewer.
MIN_POINTS, MAX_POINTS = 15, 40


# ---------------------------------------------------------------- the checkers
# The checks below are only as good as these helpers; show they can fail.


def test_leaked_lines_finds_solution_left_in_the_release():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
    leaked = "def f(x):\n    return 2 * x"
    cleared = "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert leaked_lines(source, leaked, "BEGIN SOLUTION", "END SOLUTION") == ["return 2 * x"]
    assert leaked_lines(source, cleared, "BEGIN SOLUTION", "END SOLUTION") == []


def test_leaked_lines_allows_skeleton_lines_outside_the_block():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    y = 2 * x\n    ### END SOLUTION\n    return y"
    release = "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n    return y"
    assert leaked_lines(source, release, "BEGIN SOLUTION", "END SOLUTION") == []


def test_autograded_points_counts_code_grade_cells_only():
    nb = nbformat.v4.new_notebook()
    test_cell = nbformat.v4.new_code_cell("assert True")
    test_cell.metadata["nbgrader"] = {"grade": True, "solution": False, "points": 3}
    written = nbformat.v4.new_markdown_cell("YOUR ANSWER HERE")
    written.metadata["nbgrader"] = {"grade": True, "solution": True, "points": 2}
    nb.cells = [test_cell, written]
    assert autograded_points(nb) == 3


# ------------------------------------------------------------ source metadata


@pytest.mark.parametrize("path", notebook_params())
def test_notebook_uses_the_python3_kernel(path):
    nb = read_notebook(path)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", (
        f"{path.name}: set the kernel to 'python3' (kernelspec.name)"
    )


@pytest.mark.parametrize("path", notebook_params())
def test_graded_cells_have_schema_3_and_unique_grade_ids(path):
    nb = read_notebook(path)
    cells = grade_cells(nb)
    assert cells, f"{path.name} has no nbgrader cells"
    for cell in cells:
        meta = nbgrader_meta(cell)
        assert meta.get("schema_version") == 3, f"{meta['grade_id']}: nbgrader schema_version must be 3"
    ids = [nbgrader_meta(cell)["grade_id"] for cell in cells]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"{path.name}: grade_ids used twice: {duplicates}"


@pytest.mark.parametrize("path", notebook_params())
def test_test_cells_are_locked_and_have_points(path):
    nb = read_notebook(path)
    tests = [cell for cell in nb.cells if is_autograded_test(cell)]
    assert tests, f"{path.name} has no autograded test cells"
    for cell in tests:
        meta = nbgrader_meta(cell)
        assert meta.get("locked"), f"{meta['grade_id']}: a test cell must be locked (read-only)"
        if meta["grade_id"].endswith("_visible"):  # the lectures' numbers: a student could hard-code them (issue 21)
            assert float(meta.get("points", 0)) == 0, f"{meta['grade_id']}: a visible test gives no points"
        else:
            assert float(meta.get("points", 0)) > 0, f"{meta['grade_id']}: a hidden test cell needs points"


@pytest.mark.parametrize("path", notebook_params())
def test_markers_only_in_cells_of_the_right_role(path):
    """nbgrader only clears solutions in solution cells and hidden tests in test cells."""
    nb = read_notebook(path)
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        where = meta.get("grade_id", f"cell {index}")
        if "BEGIN SOLUTION" in cell.source:
            assert meta.get("solution"), f"{where}: has solution markers but is not a solution cell"
        if "BEGIN HIDDEN TESTS" in cell.source:
            assert is_autograded_test(cell), f"{where}: hidden tests outside a test cell"
        if meta.get("solution") and cell.cell_type == "code":
            assert "BEGIN SOLUTION" in cell.source, f"{where}: solution cell without ### BEGIN SOLUTION"


@pytest.mark.parametrize("path", notebook_params())
def test_instruction_markdown_cells_are_locked(path):
    nb = read_notebook(path)
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        if cell.cell_type == "markdown" and not meta.get("solution"):
            first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
            assert meta.get("locked"), f"markdown cell {index} ({first_line[:50]!r}) should be locked"


@pytest.mark.parametrize("path", notebook_params())
def test_autograded_points_in_range(path):
    points = autograded_points(read_notebook(path))
    assert MIN_POINTS <= points <= MAX_POINTS, (
        f"{path.name}: {points:g} autograded points, expected {MIN_POINTS} to {MAX_POINTS}"
    )


def _stated_points(nb):
    """What the text says: the introduction's "N by the autograder", each exercise heading's
    "(N points)" with the functions it is about (those it names in backticks, else those the
    solution cells under it define, up to the next exercise), and the README row's "A + B"."""
    intro = nb.cells[0].source
    auto = re.search(r"\*\*Points\.\*\*(?: \d+:)? (\d+(?:\.\d+)?) by the autograder", intro)
    headings = []  # [named functions, points, functions defined under it]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for m in re.finditer(r"^#+ Exercise [\d.]+: (.*)\((\d+(?:\.\d+)?) points?\)", cell.source, re.M):
                headings.append((re.findall(r"`(\w+)[(`]", m.group(1)), float(m.group(2)), []))
        elif headings and nbgrader_meta(cell).get("solution"):
            headings[-1][2].extend(re.findall(r"^def (\w+)\(", cell.source, re.M))
    return float(auto.group(1)) if auto else None, [(named or defined, n) for named, n, defined in headings]


@pytest.mark.parametrize("path", notebook_params())
def test_stated_points_are_the_points_of_the_cells(path):
    """Review C8 (points in proportion, stated once): the points the introduction, each exercise
    heading and the README's table state are those the grade cells carry."""
    nb = read_notebook(path)
    cells = {nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c).get("points", 0))
             for c in nb.cells if nbgrader_meta(c).get("grade")}
    auto = autograded_points(nb)
    by_hand = sum(p for c in nb.cells if c.cell_type == "markdown"
                  for p in [float(nbgrader_meta(c).get("points", 0))] if nbgrader_meta(c).get("grade"))
    stated_auto, headings = _stated_points(nb)
    assert stated_auto == auto, f"{path.name}: the introduction says {stated_auto} by the autograder, cells carry {auto:g}"
    for names, stated in headings:
        assert names, f"{path.name}: an exercise of {stated:g} points names no function and has no solution cell under it"
        carried = sum(v for grade_id, v in cells.items() for f in names if grade_id.rsplit("_", 1)[0] == f"test_{f}")
        assert carried == stated, f"{path.name}: exercise on {names} says {stated:g} points, its cells carry {carried:g}"
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    row = re.search(rf"^\| `{path.parent.name}` \|.*\| (\d+(?:\.\d+)?) \+ (\d+(?:\.\d+)?)\b", readme, re.M)
    assert row and (float(row.group(1)), float(row.group(2))) == (auto, by_hand), (
        f"README's row for {path.parent.name}: {row and row.groups()}, cells carry {auto:g} + {by_hand:g}")


@pytest.mark.parametrize("path", notebook_params())
def test_notebook_has_a_plot(path):
    nb = read_notebook(path)
    images = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert images, f"{path.name}: no image/png output (execute the notebook; add a plot)"


# ------------------------------------------------------------------- release


def _release_of(released_course, path):
    release = released_course / "release" / path.parent.name / path.name
    assert release.exists(), f"nbgrader did not release {path.parent.name}/{path.name}"
    return read_notebook(release)


@pytest.mark.slow
@pytest.mark.parametrize("path", notebook_params())
def test_release_has_no_markers_and_no_outputs(released_course, path):
    release = _release_of(released_course, path)
    for index, cell in enumerate(release.cells):
        for marker in MARKERS:
            assert marker not in cell.source, f"release cell {index} still contains {marker!r}"
        assert not cell.get("outputs"), f"release cell {index} has stored outputs"


@pytest.mark.slow
@pytest.mark.parametrize("path", notebook_params())
def test_release_solution_cells_became_stubs(released_course, path):
    source = read_notebook(path)
    release = {nbgrader_meta(c).get("grade_id"): c for c in _release_of(released_course, path).cells}
    for cell in source.cells:
        meta = nbgrader_meta(cell)
        if not meta.get("solution"):
            continue
        released = release.get(meta["grade_id"])
        assert released is not None, f"{meta['grade_id']} is missing from the release"
        if cell.cell_type == "code":
            body = "\n".join(line.strip() for line in released.source.splitlines())
            assert CODE_STUB in body, f"{meta['grade_id']}: release cell is not the code stub"
            leaks = leaked_lines(cell.source, released.source, "BEGIN SOLUTION", "END SOLUTION")
            assert not leaks, f"{meta['grade_id']}: solution lines leak into the release: {leaks}"
        elif "BEGIN SOLUTION" in cell.source:
            # Text outside the markers (e.g. the question) stays; the answer becomes the stub.
            assert TEXT_STUB in released.source, f"{meta['grade_id']}: no {TEXT_STUB!r} in the release"
            leaks = leaked_lines(cell.source, released.source, "BEGIN SOLUTION", "END SOLUTION")
            assert not leaks, f"{meta['grade_id']}: answer lines leak into the release: {leaks}"
        else:
            assert released.source.strip() == TEXT_STUB, f"{meta['grade_id']}: not the answer stub"


@pytest.mark.slow
@pytest.mark.parametrize("path", notebook_params())
def test_release_has_no_solution_or_hidden_test_text(released_course, path):
    source = read_notebook(path)
    release_text = "\n".join(cell.source for cell in _release_of(released_course, path).cells)
    for cell in source.cells:
        where = nbgrader_meta(cell).get("grade_id", "a cell")
        for begin, end in (("BEGIN SOLUTION", "END SOLUTION"), ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")):
            for block in delimited_blocks(cell.source, begin, end):
                if block.strip():
                    assert block not in release_text, f"{where}: text between {begin}/{end} is in the release"
    release = {nbgrader_meta(c).get("grade_id"): c for c in _release_of(released_course, path).cells}
    for cell in source.cells:
        meta = nbgrader_meta(cell)
        if "BEGIN HIDDEN TESTS" in cell.source:
            leaks = leaked_lines(
                cell.source, release[meta["grade_id"]].source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
            )
            assert not leaks, f"{meta['grade_id']}: hidden test lines in the release: {leaks}"
