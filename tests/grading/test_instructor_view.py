"""What a new instructor reads (issue 33): the report's mistakes count a blank or crashed
notebook apart from a failure; ``nbg status`` says why a notebook was flagged; an assignment of
the gradebook that is not in ``source/`` (a typo) is named by status, export and the report;
``make demo``'s copy line keeps the catalogue of known mistakes.

On the shared graded fixture class (graded_class.py, built once per session; the expected
figures are hand-derived from fixtures.py's submission kinds); each test works on a copy.

Runtime: ~15 s for the shared graded class, then ~15 s (the commands run in this process).
"""

from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.cli import main
from grading.grades.read import read_class_grades
from grading.report import write_report
from grading.report.mistakes import class_mistakes
from grading.status import course_status

ROOT = Path(__file__).resolve().parents[2]
# add and mean, one mistake each; the explanations are the catalogue's words for the students.
CATALOGUE = textwrap.dedent('''
    ASSIGNMENT = "ps_fixture"
    CASES = {
        "add": {"tests": ["test_add_visible", "test_add_hidden"],
                "correct": {"plain": "def add(a, b):\\n    return a + b\\n"},
                "mutants": {"absolute_values": "def add(a, b):\\n    return abs(a) + abs(b)\\n"},
                "explanations": {"absolute_values": "You add the absolute values."}},
        "mean": {"tests": ["test_mean_visible", "test_mean_hidden"],
                 "correct": {"plain": "def mean(values):\\n    return sum(values) / len(values)\\n"},
                 "mutants": {"over_three": "def mean(values):\\n    return sum(values) / 3\\n"},
                 "explanations": {"over_three": "You divide by 3."}},
    }
''')
TYPO = "ps_fixtrue"


@pytest.fixture
def course(tmp_path_factory, tmp_path):
    return Course(copy_course(graded_class_root(tmp_path_factory), tmp_path))


def _nbg(course, capsys, *args):
    """``nbg --course ROOT ARGS`` in this process: (exit code, what it printed)."""
    capsys.readouterr()
    code = main(["--course", str(course.root), *args])
    return code, capsys.readouterr().out


def _text(path):
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())).split())


def test_blank_and_crashed_notebooks_are_not_attempted_not_failed(course):
    """fixtures.py: add fails on its tests for wrong_hidden (abs) and edits_test_cell (a * b): they ran
    and were wrong. blank's stubs raise NotImplementedError; syntax_error's add never got defined;
    kernel_dies and infinite_loop never defined mean (the kernel died, the cell timed out)."""
    (course.root / "mistakes").mkdir()
    (course.root / "mistakes" / "ps_fixture.py").write_text(CATALOGUE)
    rows = {row["function"]: row for row in class_mistakes(course, read_class_grades(course))}
    assert (rows["add"]["failed"], rows["add"]["not_attempted"]) == (2, 2)
    assert (rows["mean"]["failed"], rows["mean"]["not_attempted"]) == (0, 3)
    report = write_report(course, course.root / "report.html")
    with (course.root / "exports" / "mistakes.csv").open(newline="") as handle:
        table = {r["function"]: (r["students_failed"], r["students_not_attempted"]) for r in csv.DictReader(handle)}
    assert table == {"add": ("2", "2"), "mean": ("0", "3")}
    assert "not attempted or never ran" in _text(report)


def test_status_says_why_a_notebook_was_flagged(course, capsys):
    statuses = {s.assignment: s for s in course_status(course)}
    attention = statuses["ps_fixture"].attention
    # graded_class.py: edits_test_cell replaced test_add_visible; the grader used the original
    assert attention["edits_test_cell"] == ("ps_fixture: flagged (the test cell(s) test_add_visible were edited; "
                                            "the original tests were used)")
    assert attention["infinite_loop"].startswith("ps_fixture: timeout (cell 5 (mean_solution) timed out after 5 s")
    code, out = _nbg(course, capsys, "status")
    assert code == 1
    assert "ATTENTION edits_test_cell: ps_fixture: flagged (the test cell(s) test_add_visible were edited" in out


def test_an_assignment_in_the_gradebook_but_not_in_source_is_named(course, capsys):
    with course.gradebook() as gradebook:
        gradebook.add_assignment(TYPO)  # `nbgrader db assignment add ps_fixtrue`: a typo
    code, out = _nbg(course, capsys, "status")
    assert code == 1
    assert f"ATTENTION in the gradebook but not in source/: {TYPO}" in out, out
    code, out = _nbg(course, capsys, "export", "--all-assignments")
    assert f"WARNING in the gradebook but not in source/: {TYPO}" in out, out
    with (course.root / "exports" / "grades.csv").open(newline="") as handle:
        assert TYPO in next(csv.reader(handle))  # the empty column the warning explains
    assert f"An empty column: in the gradebook but not in source/: {TYPO}" in _text(
        write_report(course, course.root / "r.html"))
    with course.gradebook() as gradebook:
        gradebook.remove_assignment(TYPO)
    assert "not in source/" not in _nbg(course, capsys, "status")[1]


def test_the_demo_copy_line_keeps_the_catalogue(tmp_path):
    """Following the demo's "what next" copy line from the repository's root copies course/mistakes/."""
    from grading.commands.demo import what_next

    class Result:
        course_root, report = tmp_path / "demo" / "course", tmp_path / "demo" / "report.html"

    (line,) = [line for line in what_next(Result) if "cp -r" in line]
    command = line.strip().replace("~/teaching/ml101", str(tmp_path / "ml101"))
    subprocess.run(["bash", "-c", command], cwd=ROOT, check=True, timeout=60)
    copied = sorted(p.name for p in (tmp_path / "ml101" / "mistakes").glob("*.py"))
    assert copied == sorted(p.name for p in (ROOT / "course" / "mistakes").glob("*.py")) and copied
    assert (tmp_path / "ml101" / "source").is_dir() and (tmp_path / "ml101" / "nbgrader_config.py").is_file()


def test_the_demo_summary_names_the_mistakes_table_beside_the_grades(tmp_path):
    """The demo's summary lists grades.csv, cells.csv and the report's mistakes.csv, in one folder."""
    from grading.commands.demo import print_summary
    from grading.demo import DemoResult

    exports = tmp_path / "course" / "exports"
    exports.mkdir(parents=True)
    for name in ("grades.csv", "cells.csv", "mistakes.csv"):
        (exports / name).write_text("assignment\n")
    result = DemoResult(course_root=tmp_path / "course", scores={}, max_scores={}, summary=None, collect_reports=[],
                        release_zips=[], feedback=[], grades_csv=exports / "grades.csv",
                        cells_csv=exports / "cells.csv", report=tmp_path / "report.html", sandboxed=True, seconds=1)
    lines = []
    print_summary(result, echo=lines.append)
    listed = [line.split(": ", 1)[1].strip() for line in lines if line.split(":")[0] in
              ("grades for the LMS", "per test cell", "the class's mistakes")]
    assert listed == [str(exports / name) for name in ("grades.csv", "cells.csv", "mistakes.csv")], lines


def test_export_exits_1_for_an_assignment_not_in_source(course, capsys):
    """With every notebook graded normally, export exits 0; a typo in the gradebook makes it 1 (its warning
    says how to fix it), as nbg status does."""
    log = course.grading_log_path
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    log.write_text("".join(json.dumps(r) + "\n" for r in records if r["status"] == "ok"))  # nothing to review
    code, out = _nbg(course, capsys, "export")
    assert code == 0, out
    with course.gradebook() as gradebook:
        gradebook.add_assignment(TYPO)
    code, out = _nbg(course, capsys, "export")
    assert code == 1 and f"`nbgrader db assignment remove {TYPO}`" in out, out
