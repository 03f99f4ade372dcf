"""The feedback page and the report read well at laptop width (1366 px), in headless Chromium.

Built from the shared graded fixture class (graded_class.py: no class of its own is graded).
In a private copy, the catalogue of known mistakes gets a small file for the fixture
assignment, with the long sentences the course's catalogue has, and one failed cell of
``wrong_hidden`` carries a diagnosis as the judge writes it (the sentence after the
assertion's message, the mistake's id in ``nbg_diagnosis``): the feedback page then has a
long message and the report a mistakes table with long words. Selenium drives Debian's
Chromium (as tests/notebooks/test_handout_browser.py does) on the ``file://`` pages, offline.

The check, on every output box, ``pre`` and table cell: its text stays inside it
(``scrollWidth <= clientWidth``) and nothing reaches past the window's right edge; the
mistakes table's words column is wide enough to read (not a tower of one word per line).
Screenshots are saved in the test's tmp dir.

Runtime: ~15 s for the shared graded class (built once per session), then ~10 s.
"""

from __future__ import annotations

import textwrap

import nbformat
import pytest

from tests.chromium import headless_chromium
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.execution.diagnosis_runtime import wording
from grading.feedback import generate_feedback
from grading.report import write_report

WIDTH = 1366
# Sentences of the course's catalogue's length (course/mistakes/*.py), without a break.
LONG_WORDS = ("Your denominator adds 2 to the class's word total, as for two outcomes; it adds alpha once "
              "per word of the vocabulary, so the smoothed probabilities of a class sum to one over the "
              "vocabulary whatever its size. Check the sum of your probabilities over the words.")
OTHER_WORDS = ("You take the absolute value of the inputs before adding them, so a negative number counts "
               "as a positive one: add(-1, 1) gives 2 where the sum is 0.")
CATALOGUE = textwrap.dedent(f'''
    ASSIGNMENT = "ps_fixture"
    CASES = {{
        "add": {{
            "tests": ["test_add_visible", "test_add_hidden"],
            "correct": {{"plain": "def add(a, b):\\n    return a + b\\n"}},
            "mutants": {{
                "absolute_values": "def add(a, b):\\n    return abs(a) + abs(b)\\n",
                "denominator_plus_two": "def add(a, b):\\n    return a + b + 2\\n",
            }},
            "explanations": {{
                "absolute_values": {OTHER_WORDS!r},
                "denominator_plus_two": {LONG_WORDS!r},
            }},
        }},
    }}
''')
# An assertion message as long as the hidden tests' own (entries and values of an array).
LONG_MESSAGE = ("add(-1, 1) should be 0: entry [0, 0] of the log-likelihood table: expected "
                "-3.1060465842286813, got -2.4128994036687357; entries [0, 1], [0, 2], [1, 0] and [1, 3] "
                "differ too (4 of 12 entries), so check how every entry is computed, not only the first one")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path_factory.mktemp("pages"))
    course = Course(root)
    (root / "mistakes").mkdir()
    (root / "mistakes" / "ps_fixture.py").write_text(CATALOGUE)
    path = course.autograded_dir("wrong_hidden", "ps_fixture") / "ps_fixture.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_add_hidden")
    error = next(o for o in cell.outputs if o.output_type == "error")
    diagnosis = [{"function": "add", "mistakes": [{"id": "denominator_plus_two", "explanation": LONG_WORDS}]}]
    error.evalue = f"{LONG_MESSAGE}\n\n{wording(diagnosis)}"  # as grading.execution.kernel writes it
    error.traceback = [f"{error.ename}: {error.evalue}"]
    cell.metadata["nbg_diagnosis"] = ["add/denominator_plus_two"]
    nbformat.write(notebook, str(path))
    # a second diagnosed student: two mistakes in the table, one of them with the long words
    path = course.autograded_dir("syntax_error", "ps_fixture") / "ps_fixture.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_add_hidden")
    cell.metadata["nbg_diagnosis"] = ["add/absolute_values"]
    nbformat.write(notebook, str(path))
    (feedback,) = generate_feedback(course, students=["wrong_hidden"])
    report = write_report(course, root / "report.html")
    return feedback, report


@pytest.fixture(scope="module")
def browser():
    with headless_chromium(WIDTH, 900, offline=True) as driver:  # offline: the pages must not need the network
        yield driver


# Every box whose text could run past its edge: what overflows, with its first words.
OVERFLOWING = """
const found = [];
const width = document.documentElement.clientWidth;
for (const box of document.querySelectorAll(arguments[0])) {
  const rect = box.getBoundingClientRect();
  if (rect.width === 0) continue;  // not shown
  if (box.scrollWidth > box.clientWidth + 1 || rect.right > width + 1)
    found.push([box.tagName, box.scrollWidth, box.clientWidth, Math.round(rect.right), box.innerText.slice(0, 80)]);
}
return found;
"""
BOXES = "pre, .output_subarea, .output_area, .input_area, td, th, table"


def _open(browser, path, tmp_path, name):
    browser.get(path.as_uri())
    assert browser.execute_script("return document.documentElement.clientWidth") <= WIDTH
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(WIDTH, min(max(height + 150, 900), 8000))
    shot = tmp_path / f"{name}.png"
    browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    browser.set_window_size(WIDTH, 900)


def test_the_feedback_page_wraps_a_long_message_and_the_diagnosis(pages, browser, tmp_path):
    from selenium.webdriver.common.by import By

    feedback, _ = pages
    _open(browser, feedback, tmp_path, "feedback")
    errors = browser.find_elements(By.CSS_SELECTOR, ".output_error pre")
    shown = " ".join(" ".join(e.text.split()) for e in errors)
    assert LONG_MESSAGE in shown and LONG_WORDS in shown, shown[:2000]
    assert browser.execute_script(OVERFLOWING, BOXES) == []
    # no horizontal scroll bar on the page either
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_report_mistakes_table_reads_at_laptop_width(pages, browser, tmp_path):
    from selenium.webdriver.common.by import By

    _, report = pages
    _open(browser, report, tmp_path, "report")
    heading = browser.find_element(By.XPATH, "//h2[text()=\"The class's mistakes\"]")
    table = heading.find_element(By.XPATH, "following-sibling::table[1]")
    assert " ".join(LONG_WORDS.split()) in " ".join(table.text.split())
    assert browser.execute_script(OVERFLOWING, BOXES) == []
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # the table stays inside the page's column (not past the text above it)
    assert browser.execute_script("return arguments[0].getBoundingClientRect().right <= "
                                  "arguments[1].getBoundingClientRect().right + 1", table, heading)
    words = table.find_element(By.XPATH, f".//td[contains(., {LONG_WORDS[:40]!r})]")
    line = browser.execute_script("return parseFloat(getComputedStyle(arguments[0]).lineHeight)"
                                  " || 1.2 * parseFloat(getComputedStyle(arguments[0]).fontSize)", words)
    # readable: a column of whole lines (at least ~40 characters wide), the sentence in a few lines
    assert words.size["width"] >= 320, words.size
    assert words.size["height"] <= 6 * line + 10, (words.size, line)
