"""Deprecated: the late policy's old name, for course configs written before the layout
changed; use ``c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"``."""

from grading.grades.late import LatePolicy

__all__ = ["LatePolicy"]
