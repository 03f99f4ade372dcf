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
