"""Shared pytest setup: deterministic hypothesis, the shared classes' fixture and time limits, and
the judge servers of in-process runs stopped after each test (the plotting backend and the
leaked-process check are set in the root conftest)."""

import os
import tempfile
from pathlib import Path

import pytest

from tests import honest_times

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a dev dependency; the rest runs without it
    pass
else:
    # Same examples on every run and every machine; modest size keeps the
    # property tests (tests/nbcore/test_properties.py) under ~20 s in total.
    settings.register_profile(
        "nbcore",
        derandomize=True,
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile("nbcore")


# Fixtures that grade a whole class when first used, and how long (seconds) a test that
# uses one may take, its share of the set-up included (pytest-timeout; the default for
# every other test is pyproject's `timeout`). The longest set-up, the real course's, took
# 352 s in a fresh clone on 2 idle cores; the limits leave room for a loaded machine.
HEAVY_FIXTURES = {
    "course_class": 2400,  # the real course: mutation catalogue and honest students (tests/mutation)
    "demo": 1200,  # nbg demo's class (tests/grading/test_demo.py)
    "graded_class": 1200,  # the adversarial class (tests/grading/adversarial)
    "autograded_course": 1200,  # stock nbgrader on the real course (tests/notebooks)
}


# `make test` runs the suite on two pytest-xdist workers. A unit of work (a group) runs whole on
# one worker, so a class graded in a session- or module-scoped fixture is graded once per test
# run: a group is a module, or the session fixture that several modules share (MODULE_GROUPS;
# checked against the fixtures the tests use at every collection). The groups that take
# longest (measured with --durations) go first, so that no worker is left with a long one at
# the end. (xdist's own `--dist loadgroup` marks do not reach its scheduler under pytest 9.2,
# whose node ids are no longer the attribute xdist rewrites; the scheduler below reads the
# groups from the module names instead.)
SESSION_GROUPS = {  # a session fixture shared across modules -> its group
    "course_class": "course_class",
    "autograded_course": "notebooks_course",
    "released_course": "notebooks_course",
    "course_copy": "notebooks_course",
}
# A helper that grades a class once per process and hands it to every module that imports
# it: (its module, its name) -> the group of those modules.
SHARED_HELPERS = {
    ("graded_class", "graded_class_root"): "graded_class",
    ("graded_class", "graded_class_summary"): "graded_class",
}
MODULE_GROUPS = {
    "tests/mutation/test_mutation_suite.py": "course_class",
    "tests/mutation/test_unmatched_groups.py": "course_class",
    "tests/notebooks/test_autograde_roundtrip.py": "notebooks_course",
    "tests/notebooks/test_release.py": "notebooks_course",
    **{f"tests/grading/{name}.py": "graded_class" for name in (
        "test_autograde", "test_export", "test_feedback", "test_feedback_config", "test_formgrader_inert",
        "test_instructor_view", "test_late", "test_lms", "test_pages_browser", "test_pages_inert", "test_report",
        "test_status")},
}
LONGEST_FIRST = (
    "course_class",
    "graded_class",
    "tests/grading/adversarial/test_adversarial_class.py",
    "tests/grading/test_demo.py",
    "tests/test_bench_smoke.py",
    "notebooks_course",
    "tests/grading/test_hub_term.py",
    "tests/grading/test_judge_bounds.py",
    "tests/grading/test_run_bounds.py",
    "tests/grading/test_postgres.py",
)


def group_of(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return MODULE_GROUPS.get(module, module)


def _session_group(item):
    names = getattr(item, "fixturenames", ())
    for fixture, group in SESSION_GROUPS.items():
        if fixture in names:
            definitions = item.session._fixturemanager.getfixturedefs(fixture, item) or ()
            if definitions and definitions[-1].scope == "session":
                return group
    return None


def _helper_group(item):
    for value in vars(getattr(item, "module", None) or object).values():
        group = SHARED_HELPERS.get((getattr(value, "__module__", None), getattr(value, "__name__", None)))
        if group is not None:
            return group
    return None


def _check_groups(items) -> None:
    """Every module whose tests use a shared class is in that class's group."""
    wrong = sorted({(item.nodeid.split("::", 1)[0], group) for item in items
                    if (group := _session_group(item) or _helper_group(item)) is not None
                    and group_of(item.nodeid) != group})
    if wrong:
        raise pytest.UsageError("tests/conftest.py MODULE_GROUPS is missing: " + ", ".join(
            f'"{module}": "{group}"' for module, group in wrong))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """xdist's scope scheduling, a scope being a group of this file (in collection order)."""

        def _split_scope(self, nodeid):
            return group_of(nodeid)

    config.option.loadscopereorder = False  # the collection's order: longest groups first
    return GroupScheduling(config, log)


def pytest_configure(config):
    """The run's honest-time registry (tests/honest_times.py), made by the controller before
    any xdist worker starts (workers inherit its environment) or by a run without workers."""
    if not hasattr(config, "workerinput") and not os.environ.get(honest_times.REGISTRY_VARIABLE):
        handle, path = tempfile.mkstemp(prefix="nbg-honest-times-", suffix=".txt")
        os.close(handle)
        os.environ[honest_times.REGISTRY_VARIABLE] = path
        config._nbg_honest_registry = path


def pytest_unconfigure(config):
    path = getattr(config, "_nbg_honest_registry", None)
    if path:
        Path(path).unlink(missing_ok=True)
        os.environ.pop(honest_times.REGISTRY_VARIABLE, None)


def pytest_collection_modifyitems(config, items):
    _check_groups(items)
    for item in items:
        limits = [seconds for name, seconds in HEAVY_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
        if limits and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(limits)))
    rank = {group: index for index, group in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(group_of(item.nodeid), len(rank)))  # stable: the rest keep their order


@pytest.fixture(scope="session")
def course_class(tmp_path_factory):
    """The real course graded once per test run (tests/mutation/course_class.py)."""
    from tests.mutation.course_class import grade_course_class

    return grade_course_class(tmp_path_factory.mktemp("course_class"))


@pytest.fixture(autouse=True)
def _stop_this_process_judge_servers():
    """After each test: stop the judge servers that notebooks run in this process started (a
    notebook executed in-process keeps its server for the next one, until the process exits)."""
    yield
    from grading.execution.judge_client import close_judge_servers

    close_judge_servers()
