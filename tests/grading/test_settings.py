"""``c.Nbg``: the grader's settings in the course config, typed by traitlets."""

from __future__ import annotations

import dataclasses

import pytest

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.core.settings import Nbg
from grading.execution.limits import Limits
from grading.execution.runners.dask import cluster_settings


def test_the_settings_defaults_are_the_limits_defaults():
    defaults = {field.name: field.default for field in dataclasses.fields(Limits)}
    assert {name: defaults[name] for name in Nbg.LIMITS} == Nbg().limits()


def test_limits_and_scheduler_come_from_the_course_config(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.Nbg.memory_bytes = 2 * 2**30\nc.Nbg.cpu_seconds = None\n"
        "c.Nbg.scheduler = 'tcp://10.1.2.3:8786'\n")
    course = Course(tmp_path)
    limits = Limits(**course.settings.limits())
    assert limits.memory_bytes == 2 * 2**30 and limits.cpu_seconds is None
    assert limits.max_processes == Limits.max_processes  # not set: the default
    assert cluster_settings(course).scheduler == "tcp://10.1.2.3:8786"
    assert cluster_settings(course, "local") is None  # the argument wins


def test_a_setting_of_the_wrong_type_names_the_option(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Nbg.memory_bytes = '4G'\n")
    with pytest.raises(NbgError, match="c.Nbg in nbgrader_config.py: The 'memory_bytes' trait"):
        Course(tmp_path).settings
