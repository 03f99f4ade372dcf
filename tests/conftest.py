"""Shared pytest setup: deterministic hypothesis, the shared classes' fixture and time limits, and
the judge servers of in-process runs stopped after each test (the plotting backend and the
leaked-process check are set in the root conftest)."""

import pytest

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


def pytest_collection_modifyitems(config, items):
    for item in items:
        limits = [seconds for name, seconds in HEAVY_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
        if limits and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(limits)))


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
