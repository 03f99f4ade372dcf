"""The catalogue grows from what the grader sees (issue 33), read from the session's class of the real
course (``course_class``: no grading of its own).

In that class every mutant is a catalogued mistake, so the failures no known mistake explains are those
of the student who hard-codes what the notebook shows (each function returns a table of the visible
tests' results: wrong on every hidden input) and the cells of a mutant the judge did not diagnose on that
cell. The groups of ``nbg mistakes`` must hold exactly those cells (computed here from the class's own
reading of the graded notebooks: failed cells, diagnoses, who never ran); each counterexample's call,
run here apart from the judge, must make the student's function and the reference differ; and the
command prints a group's smallest counterexample and its students' code, with the exit codes of
the CLI's policy.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest

from grading.cli import main
from grading.grades.read import read_class_grades
from grading.report.unmatched import NO_COUNTEREXAMPLE, unmatched_groups
from tests.mutation.course_class import CASES, COURSE, HARDCODED

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def groups(course_class):
    return unmatched_groups(course_class.course, read_class_grades(course_class.course))


def _expected_unmatched(course_class) -> set:
    """(assignment, function, student, grade_id) of every failed cell of a catalogued function that no
    known mistake of that function explains, from the class's own reading; the untouched release
    (every stub raises NotImplementedError: never ran) left out."""
    cells = set()
    for assignment, students in course_class.plans.items():
        for student in [*students, "solution"]:
            failed = course_class.failed[(student, assignment)]
            found = course_class.diagnoses[(student, assignment)]
            for function, case in CASES[assignment].items():
                for grade_id in set(case["tests"]) & failed:
                    if not any(d.startswith(function + "/") for d in found.get(grade_id, [])):
                        cells.add((assignment, function, student, grade_id))
    return cells


def test_the_groups_hold_every_failure_no_known_mistake_explains(course_class, groups):
    listed = {(g.assignment, g.function, f.student, f.grade_id) for g in groups for f in g.failures}
    assert listed == _expected_unmatched(course_class)
    assert any(f.student == HARDCODED for g in groups for f in g.failures), "the hard-coding student is in no group"
    for group in groups:
        assert len(group.id) == 6 and len({g.id for g in groups}) == len(groups)
        for failure in group.failures:
            example = course_class.counterexamples[(failure.student, group.assignment)].get(failure.grade_id)
            mine = example if example and example["function"] == group.function else None
            assert group.signature == (mine["signature"] if mine else NO_COUNTEREXAMPLE), (group, failure)
        assert group.students == sorted({f.student for f in group.failures})
    counts = [len(g.students) for g in groups]
    assert counts == sorted(counts, reverse=True)
    with_example = [g for g in groups if g.signature != NO_COUNTEREXAMPLE]
    print(f"\nunmatched failures: {len(listed)} cells in {len(groups)} groups ({len(with_example)} with a "
          f"counterexample's signature); the largest: "
          + "; ".join(f"{g.function}: {g.signature} ({len(g.students)} students)" for g in groups[:5]))
    assert with_example, "no group has a counterexample"


def test_each_groups_smallest_counterexample_is_really_wrong(course_class, groups):
    """The smallest counterexample of each group (a shown one first: small and simple), run here apart
    from the judge on the student's code (the hard-coded table, or a mutant) and the reference: they differ."""
    from tests.grading.test_counterexamples import differ, replayed
    from tests.grading.test_diagnosis_coincidences import _build, _given_setup
    from grading.core.mistakes import judge_catalogue

    checked = 0
    for group in groups:
        smallest = group.smallest()
        if smallest is None:
            continue
        example = smallest.counterexample
        shown = [f.counterexample["values"] for f in group.failures if f.counterexample and f.counterexample["shown"]]
        assert not shown or (example["shown"] and example["values"] == min(shown)), group
        if not example["shown"] or group.function == "fit_logistic":
            continue  # not shown: the test's own input or function (fit_logistic's objective), kept for the instructor
        student, assignment = smallest.student, group.assignment
        source = nbformat.read(COURSE / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        catalogue = judge_catalogue(CASES[assignment], source)
        base = _given_setup(catalogue)
        references = {f: _build(e["reference"], f, base) for f, e in catalogue["functions"].items()}
        replaced = {f: code for functions in course_class.plans[assignment][student][0].values()
                    for f, code in functions.items()}
        if group.function not in replaced:
            continue
        namespace = {**base, **references}
        student_function = _build(replaced[group.function], group.function, namespace)  # a mutant or the table
        mine, right = replayed("  " + example["call"], group.function, namespace, student_function,
                               references[group.function])
        assert differ(*mine, *right), (group, example)
        checked += 1
    assert checked, "no group's counterexample could be replayed"


def test_nbg_mistakes_lists_the_groups_and_prints_one(course_class, groups, capsys):
    root = str(course_class.course.root)
    assert main(["--course", root, "mistakes"]) == 1  # failures the catalogue could explain: attention
    out = capsys.readouterr().out
    assert all(g.id in out for g in groups)
    group = next(g for g in groups if g.smallest() is not None)
    assert main(["--course", root, "mistakes", "--group", group.id, "--sample", "2"]) == 0
    out = capsys.readouterr().out
    example = group.smallest().counterexample
    assert f"group {group.id}: {group.assignment}, {group.function}" in out
    assert example["call"] in out and "smallest counterexample" in out
    students = list(dict.fromkeys(f.student for f in sorted(
        group.failures, key=lambda f: ((f.counterexample or {}).get("values", 10**9), f.student))))[:2]
    for student in students:
        assert f"--- {student}'s {group.function} ---" in out
    assert out.count(f"def {group.function}(") == len(students)
    assert main(["--course", root, "mistakes", "--group", group.id, "--sample", "0"]) == 0
    assert "def " not in capsys.readouterr().out
    assert main(["--course", root, "mistakes", "--group", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nbg mistakes: error: no group 'nosuch': the groups are ") and err.count("\n") == 1
    assignment = groups[0].assignment
    assert main(["--course", root, "mistakes", "--assignment", assignment]) == 1
    out = capsys.readouterr().out
    assert all(g.id in out for g in groups if g.assignment == assignment)
    assert not [g.id for g in groups if g.assignment != assignment and g.id in out]


@pytest.fixture(scope="module")
def report(course_class, tmp_path_factory):
    """The class's report, written from a copy (the report recomputes late penalties and writes
    exports/ into the course)."""
    from grading.core.course import Course
    from grading.report import write_report

    folder = tmp_path_factory.mktemp("report")
    shutil.copytree(course_class.course.root, folder / "course")
    return write_report(Course(folder / "course"), folder / "report.html")


def test_the_report_lists_the_groups(groups, report):
    page = report.read_text()
    assert "Failures no known mistake explains" in page
    for group in groups:
        assert f'<td class="mistake">{group.id}</td>' in page


WIDTH = 1366  # a laptop's width
# Each cell of the table: its text's line boxes (left, right, top), its own box, its scroll and
# client widths, and the width its text would take on one line (a copy drawn with no wrapping).
CELLS = """
const cells = [];
for (const cell of arguments[0].querySelectorAll("td, th")) {
  const box = cell.getBoundingClientRect(), style = getComputedStyle(cell), range = document.createRange();
  range.selectNodeContents(cell);
  const lines = Array.from(range.getClientRects()).filter(r => r.width > 0);
  const probe = document.createElement("span");
  probe.style.whiteSpace = "nowrap"; probe.style.font = style.font; probe.textContent = cell.textContent;
  document.body.appendChild(probe);
  const oneLine = probe.getBoundingClientRect().width;
  probe.remove();
  cells.push({text: cell.textContent, className: cell.className, left: box.left, right: box.right,
              scrollWidth: cell.scrollWidth, clientWidth: cell.clientWidth,
              content: cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
              lineHeight: parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize),
              textLeft: Math.min(...lines.map(r => r.left)), textRight: Math.max(...lines.map(r => r.right)),
              lines: new Set(lines.map(r => Math.round(r.top))).size, oneLine});
}
return cells;
"""


def test_the_unmatched_table_reads_at_laptop_width(groups, report, tmp_path):
    """The report's "Failures no known mistake explains" table in headless Chromium at 1366 px
    (tests/chromium.py; the report is this class's own, as the test above writes it): a row a group,
    every cell's text inside its cell (no horizontal scroll in a cell, no line past its edges), the
    table inside the page's column and the page with no horizontal scroll; the signatures' column
    is wide enough to read, and a signature longer than a line of it wraps onto a few lines.
    Screenshot: ``unmatched.png`` in the test's tmp dir."""
    from selenium.webdriver.common.by import By

    from tests.chromium import headless_chromium

    with headless_chromium(WIDTH, 900, offline=True) as browser:  # offline: the report needs no network
        browser.get(report.as_uri())
        assert browser.execute_script("return document.documentElement.clientWidth") <= WIDTH
        heading = browser.find_element(By.XPATH, "//h3[text()='Failures no known mistake explains']")
        table = heading.find_element(By.XPATH, "following-sibling::table[1]")
        browser.execute_script("arguments[0].scrollIntoView()", heading)
        browser.save_screenshot(str(tmp_path / "unmatched.png"))
        rows = table.find_elements(By.TAG_NAME, "tr")[1:]
        assert [row.find_element(By.TAG_NAME, "td").text for row in rows] == [g.id for g in groups]
        cells = browser.execute_script(CELLS, table)
        page_fits = browser.execute_script(
            "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        table_fits = browser.execute_script("return arguments[0].getBoundingClientRect().right <= "
                                            "arguments[1].getBoundingClientRect().right + 1", table, heading)
    assert len(cells) == 6 * (len(groups) + 1), len(cells)  # six columns: the header and a row a group
    for cell in cells:
        assert cell["scrollWidth"] <= cell["clientWidth"] + 1, cell  # no horizontal scroll inside the cell
        assert cell["left"] - 1 <= cell["textLeft"] and cell["textRight"] <= cell["right"] + 1, cell
    assert page_fits and table_fits
    words = [cell for cell in cells if cell["className"] == "words"]
    assert [cell["text"] for cell in words] == [g.signature for g in groups]
    assert min(cell["content"] for cell in words) >= 320, words  # about 40 characters a line, or more
    long = [cell for cell in words if cell["oneLine"] > cell["content"] + 1]
    assert long, f"no signature of this class is longer than a line of its column: {[c['text'] for c in words]}"
    for cell in long:  # wrapped, in about as many lines as its length needs (between words, not a tower)
        needed = cell["oneLine"] / cell["content"]
        assert needed <= cell["lines"] <= needed + 2, cell
