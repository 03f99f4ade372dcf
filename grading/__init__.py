"""The instructor's grading pipeline (``nbg``) on top of nbgrader.

One module per subcommand (``release``, ``collect``, ``autograde``,
``validate``, ``feedback``, ``export``, ``report``, ``demo``), each exposing
``add_arguments(parser)`` and ``run(args) -> int`` for :mod:`grading.cli`, and
a Python function that does the work (e.g. :func:`grading.autograde.autograde`).
"""

from grading.course import Course

__all__ = ["Course"]
