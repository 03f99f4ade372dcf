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


# `make test` runs the suite on two pytest-xdist workers (`--dist loadgroup`): every test gets
# a group, and a group runs whole on one worker, so a session- or module-scoped class is
# graded once per test run. A module's group is the session fixture that one of its tests
# shares with other modules (SESSION_GROUPS, by the fixture's name), else the module itself.
# The groups that take longest (measured with --durations) go first, so that neither worker
# is left with a long one at the end.
SESSION_GROUPS = {
    "course_class": "course_class",
    "autograded_course": "notebooks_course",
    "released_course": "notebooks_course",
    "course_copy": "notebooks_course",
}
LONGEST_FIRST = (
    "course_class",
    "tests/grading/adversarial/test_adversarial_class.py",
    "tests/grading/test_demo.py",
    "tests/test_bench_smoke.py",
    "notebooks_course",
    "tests/grading/test_judge_bounds.py",
    "tests/grading/test_run_bounds.py",
    "tests/grading/test_postgres.py",
)


def _session_group(item):
    names = getattr(item, "fixturenames", ())
    for fixture, group in SESSION_GROUPS.items():
        if fixture in names:
            definitions = item.session._fixturemanager.getfixturedefs(fixture, item) or ()
            if definitions and definitions[-1].scope == "session":
                return group
    return None


def _groups(items) -> dict:
    """id(item) -> its xdist group (see above)."""
    module_of = {id(item): item.nodeid.split("::", 1)[0] for item in items}
    joined = {}
    for item in items:
        group = _session_group(item)
        if group is not None:
            joined.setdefault(module_of[id(item)], group)
    return {key: joined.get(module, module) for key, module in module_of.items()}


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


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    groups = _groups(items)
    for item in items:
        limits = [seconds for name, seconds in HEAVY_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
        if limits and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(limits)))
        item.add_marker(pytest.mark.xdist_group(groups[id(item)]))
    rank = {group: index for index, group in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(groups[id(item)], len(rank)))  # stable: the rest keep their order


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
