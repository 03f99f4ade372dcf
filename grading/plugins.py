"""The names a course's ``nbgrader_config.py`` may use; they stay put when modules move.

For example ``c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"`` and
``from grading.plugins import feedback_preprocessors``, and
``c.HTMLExporter.preprocessors = ["grading.plugins.InertStudentContent"]`` (the formgrader's views).
"""

from grading.feedback import GradingNotice, HideHiddenTests, feedback_preprocessors, feedback_template
from grading.feedback.inert import InertStudentContent
from grading.grades.late import LatePolicy

__all__ = ["GradingNotice", "HideHiddenTests", "InertStudentContent", "LatePolicy", "feedback_preprocessors",
           "feedback_template"]
