"""Mutation testing of the course's graded functions.

``course/mistakes/<assignment_id>.py`` (loaded by ``cases``) holds, for every function a notebook grades, correct
variants written in different styles and single-mistake mutants, each mutant named
after the mistake that its hidden test's docstring says it catches. A correct variant
must pass every test cell of its notebook; a mutant must fail at least one test cell
of its own function and no test cell of another function.

``check_in_kernel`` is a fast local check (one kernel per notebook, test cells run in
that kernel as in nbval); the grading pipeline's check goes through ``nbg autograde``.
"""
