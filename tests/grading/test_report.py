"""``nbg report``: one self-contained HTML page with the class's results.

Runtime: ~15 s for the shared graded class (built once per session, see
graded_class.py), then ~3 s (matplotlib).
"""

import html
import json
import re

import pytest
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.report import pass_rates, write_report
from grading.grades.read import read_class_grades


def record(student, status="ok", *, reason="", seconds=1.5, sandboxed=True, attention=False):
    return {
        "student": student, "assignment": "ps_fixture", "notebook": "ps_fixture",
        "status": status, "reason": reason, "seconds": seconds, "sandboxed": sandboxed,
        "score": 0, "max_score": 6, "needs_attention": attention,
    }


def write_log(course, records):
    course.grading_log_path.write_text("".join(json.dumps(r) + "\n" for r in records))


def text_of(path):
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


@pytest.fixture
def course(tmp_path_factory, tmp_path):
    return Course(copy_course(graded_class_root(tmp_path_factory), tmp_path))


def test_report_is_self_contained_with_three_plots(course, tmp_path):
    write_log(course, [record("perfect"), record("blank", seconds=2.0)])
    page = write_report(course, tmp_path / "out" / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 3  # scores, pass rates, times
    assert "http://" not in page and "https://" not in page  # nothing fetched when opened


def test_attention_list_shows_reasons_and_the_latest_state(course, tmp_path):
    write_log(course, [
        # Graded twice: the second (ok) run supersedes the first timeout.
        record("perfect", "timeout", reason="cell add_solution ran past 5 s", attention=True),
        record("perfect"),
        record("blank", "kernel_died", reason="the kernel died in cell mean_solution",
               attention=True),
    ])
    text = text_of(write_report(course, tmp_path / "report.html"))
    section = text.split("Submissions that need attention")[1].split("Scores")[0]
    assert "the kernel died in cell mean_solution" in section
    assert "kernel_died" in section
    assert "ran past 5 s" not in section


def test_notebooks_graded_again_alone_have_their_own_section(course, tmp_path):
    alone = record("perfect", reason="timed out while other notebooks ran on the same machine (1 other notebook overlapped its "
                   "run); graded again "
                   "alone at the end of the run (that run's status: ok), and that result was kept")
    alone["graded_alone"] = True
    write_log(course, [alone, record("blank")])
    text = text_of(write_report(course, tmp_path / "report.html"))
    section = text.split("Graded again alone")[1].split("Scores")[0]
    assert "perfect" in section and "that run's status: ok" in section
    assert "blank" not in section
    write_log(course, [record("perfect"), record("blank")])  # none: no section
    assert "Graded again alone" not in text_of(write_report(course, tmp_path / "report2.html"))


def test_banner_only_when_something_ran_without_the_sandbox(course, tmp_path):
    write_log(course, [record("perfect"), record("blank")])
    assert "WITHOUT the sandbox" not in text_of(write_report(course, tmp_path / "a.html"))
    write_log(course, [record("perfect"), record("blank", sandboxed=False), record("blank")])
    text = text_of(write_report(course, tmp_path / "b.html"))
    assert "WITHOUT the sandbox for 1 submission(s)" in text


def test_score_table_rows(course, tmp_path):
    course.grading_log_path.unlink()
    text = " ".join(text_of(write_report(course, tmp_path / "r.html")).split())
    # Hand-derived (fixtures.EXPECTED_SCORES); late_perfect loses all 6 points.
    for row in ("absent - 0", "perfect 6 6", "wrong_hidden 4 4", "late_perfect 0 0", "max 6 6"):
        assert row in text
    assert "No grading log" in text


def test_pass_rates_per_test_cell(course):
    rates = {(a, g): (rate, n) for a, g, rate, n in pass_rates(read_class_grades(course))}
    # 9 submissions; passing (fixtures.EXPECTED_CELL_SCORES, late_perfect = perfect):
    # add_visible: perfect, wrong_hidden, kernel_dies, infinite_loop, stderr_output, late_perfect
    assert rates[("ps_fixture", "test_add_visible")] == (6 / 9, 9)
    # add_hidden: the same but wrong_hidden
    assert rates[("ps_fixture", "test_add_hidden")] == (5 / 9, 9)
    # mean_visible/hidden: perfect, wrong_hidden, edits_test_cell, syntax_error, stderr_output, late_perfect
    assert rates[("ps_fixture", "test_mean_visible")] == (6 / 9, 9)
    assert rates[("ps_fixture", "test_mean_hidden")] == (6 / 9, 9)


def test_report_from_the_real_grading_log(course, tmp_path):
    text = text_of(write_report(course, tmp_path / "report.html"))
    section = text.split("Submissions that need attention")[1].split("Scores")[0]
    assert "kernel_dies" in section and "kernel_died" in section
    assert "infinite_loop" in section and "timeout" in section
    assert "edits_test_cell" in section and "were edited" in section
    assert "perfect" not in section
    # graded in the sandbox: no banner (a real unsandboxed run's banner is checked in
    # adversarial/test_adversarial_sandbox.py, the banner's count above)
    assert "WITHOUT the sandbox" not in text


def test_report_refuses_a_folder_as_output(course, tmp_path):
    with pytest.raises(ValueError, match="give a file name"):
        write_report(course, tmp_path)


def test_cli_report_and_feedback(course, tmp_path):
    import subprocess
    import sys

    def nbg(*args):
        return subprocess.run([sys.executable, "-m", "grading", "--course", str(course.root), *args],
                              capture_output=True, text=True, timeout=300)

    done = nbg("report", "--out", str(tmp_path / "r.html"))
    # The class has a dead kernel, an infinite loop and an edited test cell.
    assert done.returncode == 1, done.stderr
    assert "3 notebook(s) need attention (the report's table says why)" in done.stdout
    assert (tmp_path / "r.html").exists()
    done = nbg("feedback", "--student", "perfect")
    assert done.returncode == 0, done.stderr
    assert (course.root / "feedback" / "perfect" / "ps_fixture" / "ps_fixture.html").exists()
    assert not (course.root / "feedback" / "blank").exists()
    done = nbg("feedback", "no_such_assignment")
    assert done.returncode == 2 and "unknown assignment(s) 'no_such_assignment'" in done.stderr


def test_pass_rates_follow_the_notebook_order(course):
    rates = pass_rates(read_class_grades(course), course)
    assert [grade_id for _, grade_id, _, _ in rates] == [
        "test_add_visible", "test_add_hidden", "test_mean_visible", "test_mean_hidden"
    ]
