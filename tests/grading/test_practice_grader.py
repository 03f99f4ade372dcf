"""The practice grader's preparation, without a kernel: fresh inputs, only the functions checked,
nothing in the gradebook (the service end to end: test_practice_service.py)."""

from __future__ import annotations

import json

import nbformat
import pytest

from grading.autograde.seeds import course_secret, grading_seed
from grading.core.cells import grade_id, is_test_cell
from grading.core.course import Course
from grading.execution.limits import Limits
from grading.execution.sandbox import get_sandbox
from grading.practice.grader import NotGradable, PracticeGrader, function_of, practice_seed
from tests.grading.fixtures import FIXTURE_ASSIGNMENT as A
from tests.grading.practice_server import notebook_bytes, practice_course


@pytest.fixture(scope="module")
def grader(tmp_path_factory):
    course = Course(practice_course(tmp_path_factory.mktemp("grader") / "course"))
    grader = PracticeGrader(course, Limits(), get_sandbox("none"))
    yield grader
    grader.close()


def test_the_warm_up_reads_the_course_before_the_first_check(grader):
    """The service's start-up (``nbg serve`` warms the grader before it listens) leaves nothing behind."""
    grader.warm_up()
    assert (A, A) in grader._layouts and list(grader.scratch_root.iterdir()) == []
    with grader.course.gradebook() as gradebook:
        assert gradebook.students == []


def test_practice_inputs_are_never_the_final_runs(grader):
    body = notebook_bytes(grader.course.root, "wrong_hidden")
    secret = course_secret(grader.course)
    final = grading_seed(secret, A, "alice", body)  # what nbg autograde would draw for this very file
    seeds = [grader.prepare("alice", A, A, body, attempt, {"add", "mean"}).task["grading_seed"] for attempt in (1, 2, 3)]
    assert final not in seeds and len(set(seeds)) == 3
    assert seeds == [practice_seed(secret, A, "alice", n) for n in (1, 2, 3)]
    assert practice_seed(secret, A, "bob", 1) != seeds[0]


def test_only_the_functions_checked_reach_the_kernel_and_nothing_reaches_the_gradebook(grader):
    check = grader.prepare("alice", A, A, notebook_bytes(grader.course.root, "perfect"), 1, {"add"})
    cells = nbformat.reads(check.task["notebook_json"], as_version=4).cells
    tests = [grade_id(c) for c in cells if is_test_cell(c)]
    assert tests == ["test_add_visible", "test_add_hidden"] and check.functions == ["add"]
    # nothing after add's last test runs (it could not change add's results): mean's answer and heading
    assert [grade_id(c) for c in cells] == ["intro", "add_solution", "test_add_visible", "test_add_hidden"]
    later = nbformat.reads(grader.prepare("alice", A, A, notebook_bytes(grader.course.root, "perfect"), 1,
                                          {"mean"}).task["notebook_json"], as_version=4).cells
    assert [grade_id(c) for c in later] == ["intro", "add_solution", "mean_intro", "mean_solution",
                                            "test_mean_visible", "test_mean_hidden"]
    assert check.hidden == {"test_add_hidden", "test_mean_hidden"}
    assert any("_hidden_negative_case" in s for s in check.secrets)  # removed from any message that quotes it
    with grader.course.gradebook() as gradebook:
        assert gradebook.find_assignment(A).submissions == [] and gradebook.students == []


@pytest.mark.parametrize("body", [b"not json", b"[]", json.dumps({"cells": "x"}).encode(),
                                  json.dumps({"cells": [{"cell_type": "code", "source": [1]}]}).encode()])
def test_a_notebook_that_is_not_one_is_refused(grader, body):
    with pytest.raises(NotGradable, match="could not be read"):
        grader.prepare("alice", A, A, body, 1, {"add"})


def test_another_assignments_notebook_is_refused_not_counted(grader):
    other = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def add(a, b):\n    return 0")]))
    with pytest.raises(NotGradable, match="none of ps_fixture's cells"):
        grader.prepare("alice", A, A, other.encode(), 1, {"add"})


def test_each_test_cell_belongs_to_its_function():
    catalogue = {"posterior": {"tests": ["test_posterior_core", "check_sums"]}}
    functions = {"posterior", "beta_map", "m_estimate"}
    assert function_of("check_sums", catalogue, functions) == "posterior"
    assert function_of("test_beta_map_edges", catalogue, functions) == "beta_map"
    assert function_of("test_m_estimate", catalogue, functions) == "m_estimate"
    assert function_of("test_unknown_core", catalogue, functions) == "test_unknown_core"
