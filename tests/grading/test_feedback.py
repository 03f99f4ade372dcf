"""``nbg feedback``: the student's code, visible tests and hidden-test failure
messages are shown; the hidden tests' source never is.

Runtime: ~15 s for the shared graded class (built once per session, see
graded_class.py), then ~5 s.
"""

import html
import json
import re
from pathlib import Path

import fixtures
import nbformat
import pytest
from graded_class import STUDENTS, copy_course, graded_class_root

from grading import Course
from grading.feedback import (
    HIDDEN_FRAME_PLACEHOLDER,
    HideHiddenTests,
    clean_traceback,
    generate_feedback,
    secret_lines,
)
from grading.core.cells import split_hidden_region


def page_text(path):
    """What a reader sees: the HTML without tags (syntax highlighting splits code
    into many <span>s, so a raw-HTML search would miss leaked source)."""
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


def hidden_lines():
    """Every line between BEGIN and END HIDDEN TESTS in the fixture's source."""
    lines = []
    for cell_source in (fixtures.ADD_HIDDEN, fixtures.MEAN_HIDDEN):
        _, hidden = split_hidden_region(cell_source)
        lines.extend(line.strip() for line in hidden if line.strip())
    return lines


@pytest.fixture(scope="module")
def feedback_course(tmp_path_factory):
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path_factory.mktemp("fb"))
    course = Course(root)
    written = generate_feedback(course)
    return course, written


def test_one_page_per_graded_submission(feedback_course):
    course, written = feedback_course
    assert sorted(written) == sorted(
        course.root / "feedback" / student / "ps_fixture" / "ps_fixture.html"
        for student in STUDENTS
    )


def test_no_page_contains_hidden_test_source(feedback_course):
    _, written = feedback_course
    secrets = hidden_lines()
    assert len(secrets) == 6  # 3 lines per hidden cell: the check below is not vacuous
    for path in written:
        text = page_text(path)
        for snippet in fixtures.HIDDEN_SOURCE_SNIPPETS:
            assert snippet not in text, (path, snippet)
        for line in secrets:
            assert line not in text, (path, line)


def test_stock_nbgrader_feedback_does_leak_hidden_tests(feedback_course, tmp_path):
    # The leak our feedback removes (nbgrader #917): if this ever stops
    # failing, the check above may have gone blind rather than nbgrader fixed.
    course, _ = feedback_course
    root = copy_course(course.root, tmp_path)
    result = fixtures._api(root).generate_feedback("ps_fixture", "wrong_hidden")
    assert result["success"], result.get("log")
    text = page_text(root / "feedback" / "wrong_hidden" / "ps_fixture" / "ps_fixture.html")
    assert fixtures.HIDDEN_SOURCE_SNIPPETS[0] in text


def test_hidden_failure_message_and_scores_are_shown(feedback_course):
    course, _ = feedback_course
    text = page_text(course.root / "feedback" / "wrong_hidden" / "ps_fixture" / "ps_fixture.html")
    assert fixtures.HIDDEN_FAILURE_MESSAGES["test_add_hidden"] in text
    assert "AssertionError" in text
    assert "Score: 4.0 / 6.0" in text  # nbgrader's header: 6 - 2 for add's hidden test
    # The student's own code and the visible tests are there.
    assert "return abs(a) + abs(b)" in text
    assert 'add(2, 3) should be 5' in text
    # The release version of the hidden cell: its docstring, no markers.
    assert "Check add on negative and fractional numbers" in text
    assert "BEGIN HIDDEN TESTS" not in text


def test_late_penalty_is_shown(feedback_course):
    course, _ = feedback_course
    text = page_text(course.root / "feedback" / "late_perfect" / "ps_fixture" / "ps_fixture.html")
    assert "Late submission penalty" in text


def test_grading_log_problem_is_noted_at_the_top(feedback_course, tmp_path):
    course = Course(copy_course(feedback_course[0].root, tmp_path))
    record = {
        "student": "blank", "assignment": "ps_fixture", "notebook": "ps_fixture",
        "status": "kernel_died", "reason": "the kernel died in cell mean_solution",
        "seconds": 1.0, "sandboxed": False, "score": 0, "max_score": 6,
        "needs_attention": True,
    }
    course.grading_log_path.write_text(json.dumps(record) + "\n")
    written = generate_feedback(course, students=["blank", "perfect"])
    assert [p.parts[-3] for p in written] == ["blank", "perfect"]
    blank = page_text(written[0])
    assert "Grading note (kernel_died)" in blank
    assert "the kernel died in cell mean_solution" in blank
    assert "Grading note" not in page_text(written[1])


def test_selecting_an_assignment_nobody_has_writes_nothing(feedback_course):
    course, _ = feedback_course
    assert generate_feedback(course, assignments=["no_such_assignment"]) == []


# --- the sanitiser on its own -------------------------------------------------

def test_split_hidden_region_hides_everything_after_an_unclosed_begin():
    release, hidden = split_hidden_region("a = 1\n### BEGIN HIDDEN TESTS\nb = 2\nc = 3")
    assert release == "a = 1"
    assert hidden == ["b = 2", "c = 3"]


def test_secret_lines_ignore_short_and_public_lines():
    hidden = ["assert f(3) == 9, 'f squares'", "else:", "import numpy as np"]
    assert secret_lines(hidden, public_text="import numpy as np") == {
        "assert f(3) == 9, 'f squares'"
    }


def test_clean_traceback_keeps_student_frames_and_the_message():
    traceback = [
        "-----",
        "AssertionError     Traceback (most recent call last)",
        "Cell In[4], line 3\n      2 x = 1\n----> 3 check(f(2))\n",
        "Cell In[1], line 2, in f(x)\n----> 2     return x * 3\n",
        "AssertionError: f(2) should be 4",
    ]
    cleaned = clean_traceback(traceback, secrets={"check(f(2))"}, hidden_counts={4})
    assert cleaned == [
        "-----",
        "AssertionError     Traceback (most recent call last)",
        HIDDEN_FRAME_PLACEHOLDER,
        "Cell In[1], line 2, in f(x)\n----> 2     return x * 3\n",
        "AssertionError: f(2) should be 4",
    ]


def test_clean_traceback_drops_a_frame_quoting_hidden_code_from_another_cell():
    # A hidden helper called from a later cell: the execution count does not
    # match, the quoted line does.
    traceback = ["hdr", "Cell In[9], line 1\n----> 1 _secret_helper(data)\n", "ValueError: bad"]
    cleaned = clean_traceback(traceback, secrets={"_secret_helper(data)"}, hidden_counts=set())
    assert cleaned == ["hdr", HIDDEN_FRAME_PLACEHOLDER, "ValueError: bad"]


def test_real_kernel_death_and_timeout_are_noted(feedback_course):
    course, _ = feedback_course
    died = page_text(course.root / "feedback" / "kernel_dies" / "ps_fixture" / "ps_fixture.html")
    assert "Grading note (kernel_died)" in died and "later cells" in died
    looped = page_text(course.root / "feedback" / "infinite_loop" / "ps_fixture" / "ps_fixture.html")
    assert "Grading note (timeout)" in looped and "ran on" in looped
    assert "Grading note" not in page_text(
        course.root / "feedback" / "perfect" / "ps_fixture" / "ps_fixture.html"
    )


REAL_NOTEBOOKS = sorted(
    (Path(__file__).resolve().parents[2] / "course" / "source").glob("*/*.ipynb")
)


@pytest.mark.parametrize("path", REAL_NOTEBOOKS, ids=lambda p: p.stem)
def test_hidden_tests_of_every_real_notebook_are_removed(path):
    # The committed source notebooks are executed: render each as feedback
    # would (hidden regions removed, outputs scrubbed) and look for its
    # hidden lines. ~1 s per notebook.
    from nbconvert import HTMLExporter

    notebook = nbformat.read(path, as_version=4)
    secrets = set()
    for cell in notebook.cells:
        _, hidden = split_hidden_region(cell.source)
        secrets |= {line.strip() for line in hidden if len(line.strip()) >= 8}
    release_text = "\n".join(split_hidden_region(cell.source)[0] for cell in notebook.cells)
    secrets = {line for line in secrets if line not in release_text}  # not shown to students
    assert secrets, f"{path.name} has no hidden tests"
    notebook, _ = HideHiddenTests().preprocess(notebook, {})
    body, _ = HTMLExporter().from_notebook_node(notebook)
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    assert [line for line in secrets if line in text] == []


def test_grading_notes_for_the_student_leave_the_graders_load_to_the_report():
    from grading.feedback import for_the_student

    reason = ("cell 12 (test_x) timed out after 30 s; timed out while other notebooks ran on the same machine "
              "(3 other notebooks overlapped its run); graded again alone at the end of the run (the same "
              "happened), and that result was kept")
    assert for_the_student(reason) == "cell 12 (test_x) timed out after 30 s"



def test_maths_becomes_mathml_and_unknown_latex_stays_as_written():
    import nbformat

    from grading.feedback import MathWithoutNetwork

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Costs \\$5; the mean $\\mu_c$ and $$\\frac{1}{N}\\sum_i x_i$$ and $\\notacommand{x}$"),
    ])
    MathWithoutNetwork().preprocess(nb, {})
    text = nb.cells[0].source
    assert text.startswith("Costs \\$5; the mean <math") and text.count("<math") == 2
    assert 'display="block"' in text and "<mfrac>" in text
    assert "$\\notacommand{x}$" in text
