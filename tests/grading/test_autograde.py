"""``nbg autograde``: parallel grading with nbgrader's scores, robust to bad code.

Expected scores are hand-derived in ``fixtures.py`` (EXPECTED_SCORES,
EXPECTED_CELL_SCORES); the serial-equivalence test uses stock ``nbgrader
autograde`` as the oracle.

Runtime: about 60-90 s on 2 loaded cores (one class of 9 submissions graded
in parallel, the same class graded by stock nbgrader, a few small courses).
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import fixtures
import graded_class
from graded_class import graded_class_root, graded_class_summary
from grading.autograde import AutogradeSummary, autograde
from grading.commands.autograde import format_table
from grading.core import state
from grading.core.records import GradingRecord, Status
from grading.execution.runners import TaskRunner
from grading.core.course import Course
from grading.execution.kernel import execute_notebook
from grading.execution.limits import Limits

# Every kind, plus a perfect submission after the due date with nbgrader's
# "zero" late policy: 6 points and a 6-point penalty.
LATE_STUDENT = "late_perfect"
LATE_POLICY = '\nc.LateSubmissionPlugin.penalty_method = "zero"\n'


def _grades(course, student):
    with course.gradebook() as gradebook:
        submission = gradebook.find_submission(fixtures.FIXTURE_ASSIGNMENT, student)
        notebook = submission.notebooks[0]
        cells = {grade.name: grade.auto_score for grade in notebook.grades}
        return {
            "cells": tuple(cells[name] for name in fixtures.GRADE_CELLS),
            "score": submission.score,
            "penalty": notebook.late_submission_penalty,
        }


def _make_class(root):
    students = {kind: kind for kind in fixtures.SUBMISSION_KINDS}
    students[LATE_STUDENT] = "perfect"
    fixtures.make_class(root, students, late=[LATE_STUDENT])
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(LATE_POLICY)
    return students


@pytest.fixture(scope="module")
def fresh_class(tmp_path_factory):
    """A released, ungraded fixture class (copy it before grading)."""
    root = tmp_path_factory.mktemp("fresh_class")
    return root, _make_class(root)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The fixture class graded by ``autograde`` with 2 parallel workers, sandboxed: the session's
    shared class (graded_class.py; the same students as ``fresh_class``, plus one who submitted
    nothing), read only."""
    root = graded_class_root(tmp_path_factory)
    return Course(root), graded_class_summary(tmp_path_factory), dict(graded_class.STUDENTS)


def test_every_kind_gets_its_hand_derived_score(graded):
    course, summary, students = graded
    for student, kind in students.items():
        grades = _grades(course, student)
        if student == LATE_STUDENT:
            assert grades["cells"] == fixtures.EXPECTED_CELL_SCORES["perfect"]
            # nbgrader keeps the raw score and records the penalty beside it.
            assert (grades["score"], grades["penalty"]) == (6.0, 6.0)
        else:
            assert grades["cells"] == fixtures.EXPECTED_CELL_SCORES[kind], student
            assert grades["score"] == fixtures.EXPECTED_SCORES[kind], student


def test_kernel_death_keeps_earlier_cells_and_names_the_killer(graded):
    course, summary, _ = graded
    record = next(r for r in summary.records if r.student == "kernel_dies")
    assert record.status == "kernel_died"
    assert "mean_solution" in record.reason and "exit code 1" in record.reason

    path = course.autograded_dir("kernel_dies", fixtures.FIXTURE_ASSIGNMENT) / "ps_fixture.ipynb"
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nbformat.read(path, 4).cells}
    assert [o.ename for o in cells["mean_solution"].outputs if o.output_type == "error"] == ["KernelDied"]
    assert cells["test_mean_visible"].outputs[0].ename == "NotExecuted"
    assert not any(o.output_type == "error" for o in cells["test_add_hidden"].outputs)


def test_summary_flags_what_needs_attention(graded):
    _, summary, students = graded
    statuses = {r.student: r.status for r in summary.records}
    assert statuses == {
        **{student: "ok" for student in students},
        "kernel_dies": "kernel_died",
        "infinite_loop": "timeout",
        # nbgrader restores the edited test (the score is unaffected); the log says it was edited.
        "edits_test_cell": "flagged",
    }
    assert {r.student for r in summary.needs_attention} == {"kernel_dies", "infinite_loop", "edits_test_cell"}
    assert summary.exit_code == 1
    table = format_table(summary)
    assert "ATTENTION kernel_dies/ps_fixture/ps_fixture: kernel_died" in table
    assert "perfect" in table and "6/6" in table


def test_grading_log_has_one_line_per_notebook(graded):
    course, _, students = graded
    lines = [json.loads(line) for line in course.grading_log_path.read_text().splitlines()]
    assert sorted(line["student"] for line in lines) == sorted(students)
    fields = {"student", "assignment", "notebook", "status", "reason", "seconds", "sandboxed",
              "score", "max_score", "needs_attention"}
    assert all(fields <= set(line) for line in lines)
    by_student = {line["student"]: line for line in lines}
    assert by_student["wrong_hidden"]["score"] == 4.0 and by_student["wrong_hidden"]["max_score"] == 6.0
    assert by_student["infinite_loop"]["needs_attention"] is True
    assert by_student[LATE_STUDENT]["late"] is True


@pytest.mark.slow
def test_parallel_gradebook_equals_stock_serial_nbgrader(graded, fresh_class, tmp_path):
    """Stock nbgrader, one submission after another, is the oracle for honest
    submissions. Two kinds differ on purpose: stock nbgrader drops kernel_dies
    (nbg keeps the cells before the crash), and gives 0 to tests whose call of
    stderr_output's correct mean writes to stderr (nbg's judge discards what a
    student's function prints while it is tested)."""
    source, students = fresh_class
    stock_root = tmp_path / "stock"
    shutil.copytree(source, stock_root)
    course, _, _ = graded
    for student in students:
        if student in ("kernel_dies", "stderr_output"):
            continue
        assert fixtures.stock_autograde(stock_root, student)["success"], student
        assert _grades(Course(stock_root), student) == _grades(course, student), student


def test_rerun_grades_only_new_or_changed_submissions(tmp_path):
    fixtures.make_class(tmp_path, {"ann": "perfect", "bob": "blank"})
    course = Course(tmp_path)
    first = autograde(course, workers=1)
    assert sorted(r.student for r in first.records) == ["ann", "bob"]

    again = autograde(course, workers=1)
    assert (again.records, sorted(again.skipped)) == ([], [("ann", "ps_fixture"), ("bob", "ps_fixture")])

    fixtures.write_submission(tmp_path, "bob", "wrong_hidden", timestamp=fixtures.ON_TIME)
    changed = autograde(course, workers=1)
    assert [r.student for r in changed.records] == ["bob"]
    assert _grades(course, "bob")["score"] == fixtures.EXPECTED_SCORES["wrong_hidden"]

    forced = autograde(course, workers=1, students=["ann"], force=True)
    assert [r.student for r in forced.records] == ["ann"]
    assert _grades(course, "ann")["score"] == 6.0
    log_lines = course.grading_log_path.read_text().splitlines()
    assert len(log_lines) == 4  # ann, bob, bob again, ann forced


def test_crash_before_marking_done_is_regraded_without_double_counting(tmp_path, monkeypatch):
    fixtures.make_class(tmp_path, {"ann": "wrong_hidden"})
    course = Course(tmp_path)
    real_write = state.write_atomic

    def crash_on_state(path, text):
        if state.STATE_DIRNAME in str(path):
            raise KeyboardInterrupt("killed")
        real_write(path, text)

    monkeypatch.setattr(state, "write_atomic", crash_on_state)
    with pytest.raises(KeyboardInterrupt):
        autograde(course, workers=1)
    monkeypatch.setattr(state, "write_atomic", real_write)

    rerun = autograde(course, workers=1)
    assert [r.student for r in rerun.records] == ["ann"]
    assert _grades(course, "ann")["score"] == fixtures.EXPECTED_SCORES["wrong_hidden"]


def test_invalid_and_missing_notebooks_score_zero_and_need_attention(tmp_path):
    fixtures.make_class(tmp_path, {"ann": "perfect"})
    for student in ("broken", "empty"):
        folder = tmp_path / "submitted" / student / "ps_fixture"
        folder.mkdir(parents=True)
    (tmp_path / "submitted/broken/ps_fixture/ps_fixture.ipynb").write_text("{not json")
    (tmp_path / "submitted/empty/ps_fixture/notes.txt").write_text("forgot the notebook")
    course = Course(tmp_path)

    summary = autograde(course, workers=1, students=["broken", "empty"])

    statuses = {r.student: (r.status, r.score) for r in summary.records}
    assert statuses == {"broken": ("invalid_notebook", 0.0), "empty": ("missing", 0.0)}
    assert "not a readable notebook" in next(r.reason for r in summary.records if r.student == "broken")
    assert summary.exit_code == 1


def test_output_flood_stops_the_kernel_with_a_clear_reason(tmp_path):
    notebook = fixtures.source_notebook()
    notebook.cells[1].source = "while True:\n    print('x' * 10000)"
    result = execute_notebook(nbformat.writes(notebook), tmp_path,
                              limits=Limits(cell_timeout=30, max_output_bytes=200_000))
    assert result.status == "kernel_died"
    assert "more than 200000 bytes of output" in result.reason
    assert len(result.notebook_json) < 400_000


def test_unknown_assignment_and_bad_workers_are_clear_errors(tmp_path):
    fixtures.write_course(tmp_path)
    with pytest.raises(ValueError, match="unknown assignment.*'nope'"):
        autograde(Course(tmp_path), assignments=["nope"])
    with pytest.raises(ValueError, match="workers must be at least 1"):
        autograde(Course(tmp_path), workers=-1)


def test_limits_are_validated():
    # The sandbox itself is tested in tests/grading/adversarial/.
    with pytest.raises(ValueError, match="cell_timeout must be a positive"):
        Limits(cell_timeout=0)
    with pytest.raises(ValueError, match="memory_bytes must be positive"):
        Limits(memory_bytes=0)


@pytest.mark.parametrize("command", ["", "release", "collect", "autograde", "validate",
                                     "feedback", "export", "report", "demo"])
def test_every_subcommand_has_help(command, capsys):
    from grading.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"] if command else ["--help"])
    assert exit_info.value.code == 0
    assert "usage: nbg" in capsys.readouterr().out


def test_cli_autograde_exit_code_and_table(tmp_path):
    fixtures.make_class(tmp_path, {"ann": "perfect"})
    run = subprocess.run(
        [sys.executable, "-m", "grading", "--course", str(tmp_path), "autograde", "-j", "1", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "ann" in run.stdout and "6/6" in run.stdout


def test_cli_usage_errors_exit_2(tmp_path, capsys):
    from grading.cli import main

    fixtures.write_course(tmp_path)
    assert main(["--course", str(tmp_path), "autograde", "nope"]) == 2
    assert "unknown assignment" in capsys.readouterr().err
    assert main([]) == 2


def _load_sensitive_task(task):
    """A stand-in for execute_task whose outcome depends on what runs beside it.

    ``busy`` tasks hold a marker file for a while; ``fragile`` ones time out when
    another task's marker exists while they run (as a notebook near its time limit
    might under load); ``stuck`` ones always time out.
    """
    import time as time_module

    from grading.execution.kernel import ExecutionResult

    folder, name, kind = Path(task["folder"]), task["name"], task["kind"]
    started = time_module.time()
    marker = folder / f"{name}.running"
    marker.touch()
    try:
        if kind == "busy":
            time_module.sleep(2.0)
            status = Status.OK
        elif kind == "fragile":
            time_module.sleep(0.5)
            others = [p for p in folder.glob("*.running") if p != marker]
            status = Status.TIMEOUT if others else Status.OK
        else:
            status = Status.TIMEOUT
    finally:
        marker.unlink()
    return ExecutionResult("", status, "timed out" if status == Status.TIMEOUT else "", 0.5,
                           started=started, ended=time_module.time(), host="this-machine")


def test_a_notebook_that_failed_beside_others_is_graded_again_alone(tmp_path):
    runner = TaskRunner(2, function=_load_sensitive_task)
    try:
        for name, kind in [("busy", "busy"), ("fragile", "fragile"), ("stuck", "stuck")]:
            runner.submit(name, {"folder": str(tmp_path), "name": name, "kind": kind})
        results = dict(runner.results())
    finally:
        runner.shutdown()
    assert results["busy"].status == "ok" and not results["busy"].graded_alone
    # Timed out while "busy" ran; alone it passes, and that result is the one kept.
    assert results["fragile"].status == "ok"
    assert "timed out while" in results["fragile"].graded_alone
    assert "graded again alone" in results["fragile"].graded_alone
    assert "that run's status: ok" in results["fragile"].graded_alone
    # A notebook that times out alone too keeps its timeout, and says so.
    assert results["stuck"].status == "timeout"
    assert "the same happened" in results["stuck"].graded_alone


def test_a_failure_with_nothing_beside_it_is_not_run_again(tmp_path):
    runner = TaskRunner(2, function=_load_sensitive_task)
    try:
        runner.submit("stuck", {"folder": str(tmp_path), "name": "stuck", "kind": "stuck"})
        results = list(runner.results())
    finally:
        runner.shutdown()
    assert [(key, result.status, result.graded_alone) for key, result in results] == [("stuck", "timeout", "")]


def test_a_timeout_beside_another_notebook_is_graded_again_alone_through_the_pipeline(tmp_path):
    """Two kernels at once: the infinite loop times out while a slow but honest notebook
    still runs, so the grader runs it again alone at the end, keeps that result, and the
    log, the summary and the report say so. The honest notebook is graded once."""
    from grading.report import write_report

    root = tmp_path / "course"
    fixtures.make_class(root, {"looper": "infinite_loop", "slow": "perfect"})
    slow_path = root / "submitted" / "slow" / fixtures.FIXTURE_ASSIGNMENT / f"{fixtures.FIXTURE_ASSIGNMENT}.ipynb"
    notebook = nbformat.read(slow_path, 4)
    for cell in notebook.cells:  # two cells of 4 s each, under the 5 s cell timeout
        if cell.metadata.get("nbgrader", {}).get("grade_id") in ("add_solution", "mean_solution"):
            cell.source = "import time\ntime.sleep(4)\n" + cell.source
    nbformat.write(notebook, slow_path)

    summary = autograde(root, workers=2)

    records = {r.student: r for r in summary.records}
    assert records["slow"].status == "ok" and records["slow"].score == 6.0 and not records["slow"].graded_alone
    looper = records["looper"]
    assert looper.status == "timeout" and looper.score == 3.0 and looper.graded_alone
    assert "while other notebooks ran on the same machine (1 other notebook overlapped its run)" in looper.reason
    assert "graded again alone at the end of the run (the same happened)" in looper.reason
    assert "ATTENTION looper/ps_fixture/ps_fixture: timeout: " in format_table(summary)
    logged = [json.loads(line) for line in Course(root).grading_log_path.read_text().splitlines()]
    assert [(r["student"], r["graded_alone"]) for r in sorted(logged, key=lambda r: r["student"])] == [
        ("looper", True), ("slow", False)]
    page = write_report(Course(root), tmp_path / "report.html").read_text()
    section = page.split("Graded again alone")[1].split("<h2>")[0]
    assert "looper" in section and "slow" not in section


def test_the_summary_names_a_notebook_that_passed_when_graded_again_alone():
    summary = AutogradeSummary()
    summary.records.append(GradingRecord(
        student="s1", assignment="a", notebook="a", status="ok", score=6.0, max_score=6.0, graded_alone=True,
        reason="timed out while other notebooks ran on the same machine (1 other notebook overlapped its run); "
               "graded again alone"))
    table = format_table(summary)
    assert "GRADED AGAIN ALONE s1/a/a: timed out while other notebooks ran" in table
    assert "ATTENTION" not in table


def _limits_own_memory(task):
    """A stand-in for execute_task: bounds the process's data segment, as execute_task does."""
    import resource

    from grading.execution.kernel import ExecutionResult
    from grading.execution.process import limit_own_memory

    limit_own_memory(Limits(grader_memory_bytes=task["bytes"], memory_bytes=None))
    inside = resource.getrlimit(resource.RLIMIT_DATA)[0]
    return ExecutionResult("", Status.OK, f"{inside}", 0.1)


def test_an_inline_run_gives_its_caller_the_memory_limit_back():
    """One worker grades in the caller's process (a test run, a service): the grader's
    memory limit holds while it grades, and the caller's own limit is back afterwards."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = 64 * 2**30 if before[1] == resource.RLIM_INFINITY else before[1]  # settable, and far above use
    runner = TaskRunner(1, function=_limits_own_memory)
    runner.submit("one", {"bytes": wanted})
    results = dict(runner.results())
    runner.shutdown()
    assert results["one"].reason == str(wanted)  # the limit held inside the task
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_an_inline_run_leaves_no_grader_variable_to_its_caller(tmp_path, monkeypatch):
    """The kernel is told it runs under the autograder (NBGRADER_EXECUTION, as nbgrader does);
    the caller is not: a variable left set made a later subprocess of the caller (the student
    kit's practice call in a JupyterLab started afterwards) believe it ran under the grader."""
    import os

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nprint(os.environ.get('NBGRADER_EXECUTION'))")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    result = execute_notebook(nbformat.writes(notebook), tmp_path, limits=Limits(cell_timeout=30), sandbox="none")
    outputs = nbformat.reads(result.notebook_json, 4).cells[0].outputs
    assert outputs[0].text.strip() == "autograde"  # the kernel was told
    assert "NBGRADER_EXECUTION" not in os.environ  # its caller was not
