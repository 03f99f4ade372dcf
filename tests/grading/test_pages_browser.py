"""The feedback page and the report read well at laptop width (1366 px), in headless Chromium.

Built from the shared graded fixture class (graded_class.py: no class of its own is graded).
In a private copy, the catalogue of known mistakes gets a small file for the fixture
assignment, with the long sentences the course's catalogue has, and one failed cell of
``wrong_hidden`` carries a diagnosis as the judge writes it (the sentence after the
assertion's message, after a counterexample as a small text table, the mistake's id in
``nbg_diagnosis``): the feedback page then has a long message and a table, and the report a
mistakes table with long words. The gradebook gets the course's assignments (the scores table as
wide as the course's) and the grading log a reason with one long word (a path in an exception's
text). Selenium drives Debian's
Chromium (as tests/notebooks/test_handout_browser.py does) on the ``file://`` pages, offline.

The check, on every output box, ``pre`` and table cell: its text stays inside it
(``scrollWidth <= clientWidth``) and nothing reaches past the window's right edge; the
mistakes table's words column is wide enough to read (not a tower of one word per line).
The small table keeps a line a row, its columns aligned.
Screenshots are saved in the test's tmp dir.

Runtime: ~15 s for the shared graded class (built once per session), then ~10 s.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

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
# The course's own assignments, as the columns of the report's scores table (names without a space).
COURSE_ASSIGNMENTS = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "course" / "source").iterdir())
# A reason with one long word, as the grader writes the student's own exception text into it
# ("calling your add: ..."): a path, or whatever the student's code raised.
LONG_TOKEN = "teaching/ml101/autograded/kernel_dies/ps_fixture/" + "x" * 120 + ".npy"
# An assertion message as long as the hidden tests' own (entries and values of an array).
LONG_MESSAGE = ("add(-1, 1) should be 0: entry [0, 0] of the log-likelihood table: expected "
                "-3.1060465842286813, got -2.4128994036687357; entries [0, 1], [0, 2], [1, 0] and [1, 3] "
                "differ too (4 of 12 entries), so check how every entry is computed, not only the first one")

# A counterexample as the judge puts it in a failed cell's message: a small input and the two outputs
# as a text table, aligned in a monospace font (one line a row: a row that wrapped would lose it).
TABLE_ROWS = ("    a     b | your add  expected",
              "   -1     1 |        2         0",
              "    2    -3 |        5        -1")
TABLE_MESSAGE = "A smaller input on which your add and the expected result differ:\n" + "\n".join(TABLE_ROWS)


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
    error.evalue = f"{LONG_MESSAGE}\n\n{TABLE_MESSAGE}\n\n{wording(diagnosis)}"  # as grading.execution.kernel writes it
    error.traceback = [f"{error.ename}: {error.evalue}"]
    cell.metadata["nbg_diagnosis"] = ["add/denominator_plus_two"]
    nbformat.write(notebook, str(path))
    # a second diagnosed student: two mistakes in the table, one of them with the long words
    path = course.autograded_dir("syntax_error", "ps_fixture") / "ps_fixture.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_add_hidden")
    cell.metadata["nbg_diagnosis"] = ["add/absolute_values"]
    nbformat.write(notebook, str(path))
    # the report's scores table with as many columns as the course's (empty: not in source/ here)
    with course.gradebook() as gradebook:
        for name in COURSE_ASSIGNMENTS:
            gradebook.add_assignment(name)
    # and a notebook that needs attention for a reason with one long word in it
    log = [json.loads(line) for line in course.grading_log_path.read_text().splitlines() if line.strip()]
    record = dict(next(r for r in reversed(log) if r.get("student") == "kernel_dies"))
    assert " while running " in record["reason"], record  # the kernel died while running cell ...
    record["reason"] = record["reason"].replace(" while running ", f" (MemoryError: could not map {LONG_TOKEN})"
                                                                   " while running ", 1)
    with course.grading_log_path.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    # a notebook the grader could not read (its own short page): nbformat's error quotes the file's start
    course.submitted_dir("truncated", "ps_fixture").mkdir(parents=True)
    record = {**record, "student": "truncated", "status": "invalid_notebook", "score": 0.0,
              "reason": f"not a readable notebook: Notebook does not appear to be JSON: '{{\"cells\": [{LONG_TOKEN}'"}
    with course.grading_log_path.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    pages = {path.parent.parent.name: path for path in generate_feedback(course, students=["wrong_hidden",
                                                                                           "kernel_dies", "truncated"])}
    report = write_report(course, root / "report.html")
    return pages["wrong_hidden"], report, pages["kernel_dies"], pages["truncated"]


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
# Where each of the given lines of text is drawn in the error boxes: its line boxes (one top per
# line it takes), the x of its '|', its right edge and its box's right edge.
TABLE_LINES = """
const rows = [];
for (const wanted of arguments[0]) {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node = null;
  while ((node = walker.nextNode()) && !node.data.includes(wanted)) {}
  if (!node) { rows.push({wanted, lines: []}); continue; }
  const start = node.data.indexOf(wanted), range = document.createRange();
  range.setStart(node, start); range.setEnd(node, start + wanted.length);
  const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
  const bar = document.createRange();
  bar.setStart(node, start + wanted.indexOf("|")); bar.setEnd(node, start + wanted.indexOf("|") + 1);
  const box = node.parentElement.closest("pre");
  rows.push({wanted, lines: Array.from(tops), bar: bar.getBoundingClientRect().left,
             right: range.getBoundingClientRect().right, box: box.getBoundingClientRect().right});
}
return rows;
"""


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

    feedback = pages[0]
    _open(browser, feedback, tmp_path, "feedback")
    errors = browser.find_elements(By.CSS_SELECTOR, ".output_error pre")
    shown = " ".join(" ".join(e.text.split()) for e in errors)
    assert LONG_MESSAGE in shown and LONG_WORDS in shown, shown[:2000]
    assert browser.execute_script(OVERFLOWING, BOXES) == []
    # the small table: each row on one line of the box, its columns aligned (the '|' of every row at
    # the same x), inside the box
    rows = browser.execute_script(TABLE_LINES, TABLE_ROWS)
    assert [len(row["lines"]) for row in rows] == [1] * len(TABLE_ROWS), rows
    assert len({round(row["bar"]) for row in rows}) == 1, rows
    assert all(row["right"] <= row["box"] + 1 for row in rows), rows
    # no horizontal scroll bar on the page either
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_report_mistakes_table_reads_at_laptop_width(pages, browser, tmp_path):
    from selenium.webdriver.common.by import By

    report = pages[1]
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


def test_the_report_tables_with_long_names_and_words_stay_in_the_page(pages, browser, tmp_path):
    """The scores table with a column per course assignment (names like 06_nb_linear_logistic, no
    space to break at) and a reason with one long word: inside the page, names broken only at '_'."""
    from selenium.webdriver.common.by import By

    report = pages[1]
    _open(browser, report, tmp_path, "report_tables")
    scores = browser.find_element(By.XPATH, "//h2[text()='Scores']/following-sibling::table[1]")
    headers = [th.text.replace("\n", "") for th in scores.find_elements(By.TAG_NAME, "th")]
    assert set(COURSE_ASSIGNMENTS) <= set(headers), headers  # whole names, broken only at a line's end
    for th in scores.find_elements(By.TAG_NAME, "th"):  # each line of a name ends at an underscore
        assert all(line.endswith("_") for line in th.text.split("\n")[:-1]), th.text
    attention = browser.find_element(By.XPATH, "//h2[text()='Submissions that need attention']"
                                               "/following-sibling::table[1]")
    assert LONG_TOKEN in attention.text.replace("\n", "")
    assert browser.execute_script(OVERFLOWING, BOXES) == []
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # the other columns of the attention table stay readable beside the long word
    student = attention.find_element(By.XPATH, ".//td[text()='kernel_dies']")
    assert student.size["width"] >= 60 and "\n" not in student.text, (student.size, student.text)


def test_the_feedback_page_wraps_the_grading_note_with_a_long_word(pages, browser, tmp_path):
    """The note at the top of a feedback page (the grading log's reason, with the student's exception
    text in it) wraps inside the page, as the messages do; so does the reason on the page of a notebook
    the grader could not read (grading.feedback.unreadable)."""
    from selenium.webdriver.common.by import By

    for page, name, why in ((pages[2], "feedback_note", "//p[strong[starts-with(., 'Grading note')]]"),
                            (pages[3], "feedback_unreadable", "//div[@class='why']")):  # the page of its own
        _open(browser, page, tmp_path, name)
        note = browser.find_element(By.XPATH, why)
        assert LONG_TOKEN in note.text.replace("\n", ""), note.text[:300]
        assert browser.execute_script(OVERFLOWING, BOXES + ", p, div.why, .text_cell_render") == [], name
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"), name
