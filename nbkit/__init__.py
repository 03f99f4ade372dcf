"""nbkit: the student kit of the naive Bayes course.

What a student installs next to the released notebooks: the datasets and
worked tables of the lectures (:mod:`nbkit.datasets`), the helpers the
visible tests use (:mod:`nbkit.testing`), the tokenizer and vocabulary
(:mod:`nbkit.text`), plotting helpers (:mod:`nbkit.plotting`), the functions a student wrote
in an earlier notebook, for a later one's demonstrations (:mod:`nbkit.earlier`); and
``python -m nbkit check NOTEBOOK`` (:mod:`nbkit.check`), which tells a
student before submitting whether a notebook will grade.

It contains no implementation of any function the notebooks grade, and it
does not import ``nbcore`` (the instructor's reference solution, which may
build on this package). ``tests/nbkit/test_no_answers.py`` checks both.
"""

__version__ = "0.1.0"
