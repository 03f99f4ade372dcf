"""nbgrader configuration for the course root (the folder holding this file).

Only options that differ from nbgrader's defaults are set here.
Run nbgrader from this folder, or pass ``--config course/nbgrader_config.py``.
"""
import os

c = get_config()  # noqa: F821 -- injected by traitlets when it loads this file

# Identifies the course in the gradebook and the exchange.
c.CourseDirectory.course_id = "naive_bayes_course"

# The course root is this file's folder, so nbgrader works from any working
# directory (and in a temporary copy of the course, as the tests make).
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# The machine grading a class is shared: allow a slow cell 120 s (default 30 s)
# before nbgrader interrupts it and scores the rest of the notebook.
c.Execute.timeout = 120

# Feedback never shows the hidden tests, whichever way it is made. Stock
# `nbgrader generate_feedback` (also the formgrader's "Generate Feedback"
# button) renders the autograded notebook with its hidden tests' source
# (nbgrader issue #917); these are the preprocessors `nbg feedback` runs
# (grading/feedback/): hidden-test regions are blanked as in the release,
# tracebacks keep the failure message but no frame quoting a hidden test.
# The page is nbg's (test cells named, a Content Security Policy that runs no script first in
# <head>), set for GenerateFeedback's exporter only: the formgrader's own views keep their template.
from grading.plugins import feedback_preprocessors, feedback_template  # noqa: E402 -- the course's own package

c.GenerateFeedback.preprocessors = feedback_preprocessors()
for _name, _value in feedback_template().items():
    setattr(c.GenerateFeedback.HTMLExporter, _name, _value)
# The formgrader's submission view renders the autograded notebook with c.HTMLExporter's settings,
# and would run any script a student's output or markdown holds: the feedback's inert step there too
# (outputs keep text and images, markdown's HTML is shown as text; docs/security.md).
c.HTMLExporter.preprocessors = ["grading.plugins.InertStudentContent"]
c.GradingNotice.grading_log_path = os.path.join(c.CourseDirectory.root, "grading_log.jsonl")

# Late work: 10% of the points possible off per started day after the due
# date, never below 50% of the points (Canvas's late policy model), through
# nbgrader's late-submission plugin; per-student due dates in extensions.csv
# (student_id,assignment,due). See grading/grades/late.py.
c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"
c.LatePolicy.percent_per_interval = 10
c.LatePolicy.interval_hours = 24
c.LatePolicy.lowest_score_percent = 50
c.LatePolicy.extensions_file = "extensions.csv"
