"""The instructor's grading pipeline (``nbg``) on top of nbgrader.

The folders name the pipeline (see the README's Layout section):

- ``cli.py`` and ``commands/``: the ``nbg`` command line; the only code that prints.
- pipeline steps, which never import each other: ``release/``, ``collect.py``,
  ``autograde/`` (select, prepare, run, record), ``validate.py``, ``status.py``,
  ``feedback/``, ``export.py``, ``report/``; ``demo/`` runs them all.
- services the steps share: ``execution/`` (one notebook behind the trust
  boundary: the kernel, the judge, ``sandbox/`` backends and ``runners/``),
  ``grades/`` (the gradebook after grading: reading grades, late penalties)
  and ``lms/`` (one module per LMS).
- ``core/``: the course, the gradebook database, the lock, the grading log's
  records and statuses, per-submission state, cells and text helpers.

Modules whose names end in ``_runtime`` run inside a sandbox (the student's
kernel or the judge) and import only their own kind. ``plugins.py`` holds the
names a course's ``nbgrader_config.py`` may use. The import direction is a
contract checked by ``tests/test_layers.py``.
"""


def __getattr__(name):  # lazy: the judge imports grading.execution without traitlets or nbgrader
    if name == "Course":
        from grading.core.course import Course

        return Course
    raise AttributeError(f"module 'grading' has no attribute {name!r}")


__all__ = ["Course"]
