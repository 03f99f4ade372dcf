"""Benchmarks of the course package: ``python -m bench`` writes ``BENCHMARKS.md``.

Sections (each can run alone with ``--only``):

* ``nbcore``: nbcore against scikit-learn, and against one pass over the data
  (:mod:`bench.nbcore_vs_sklearn`);
* ``course``: the time to execute each source notebook (:mod:`bench.course_run`);
* ``grading``: autograding throughput, stock ``nbgrader autograde`` against
  ``nbg autograde`` (:mod:`bench.grading_run`).
"""
