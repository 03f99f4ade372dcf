"""End to end through nbgrader: the solutions earn every autograded point,
an untouched release earns none, and neither grading run reports an error.

Stock nbgrader is the grader here (the oracle the project's own grader is
compared with): ``nbg autograde`` grades the same two students in the session's
class of the real course (tests/mutation/course_class.py), so these runs are
not a second grading of that class by the same grader.

Autograded points only: a manually graded written answer has no score until
a human grades it. One ``autograde`` per student covers every assignment.
"""

import pytest
from nbgrader.api import Gradebook

from .conftest import BLANK_STUDENT, SOLUTION_STUDENT, nbgrader_errors, notebook_params

pytestmark = pytest.mark.slow


def _code_scores(course_root, assignment, notebook, student):
    """(autograded score, autograded maximum) of one submitted notebook."""
    with Gradebook(f"sqlite:///{course_root / 'gradebook.db'}") as gradebook:
        submitted = gradebook.find_submission_notebook(notebook, assignment, student)
        return submitted.code_score, submitted.max_code_score


@pytest.mark.parametrize("student", [SOLUTION_STUDENT, BLANK_STUDENT])
def test_autograde_run_reports_no_error(autograded_course, student):
    _, runs = autograded_course
    problems = nbgrader_errors(runs[student])
    assert not problems, f"autograding {student}: " + "; ".join(problems) + "\n" + runs[student].stderr[-3000:]


@pytest.mark.parametrize("path", notebook_params())
def test_source_notebook_earns_full_autograded_marks(autograded_course, path):
    roots, _ = autograded_course
    score, maximum = _code_scores(roots[SOLUTION_STUDENT], path.parent.name, path.stem, SOLUTION_STUDENT)
    assert maximum > 0, f"{path.name}: no autograded points in the gradebook"
    assert score == pytest.approx(maximum), (
        f"{path.name}: the reference solution scores {score:g} of {maximum:g} autograded points"
    )


@pytest.mark.parametrize("path", notebook_params())
def test_untouched_release_earns_zero(autograded_course, path):
    roots, _ = autograded_course
    score, maximum = _code_scores(roots[BLANK_STUDENT], path.parent.name, path.stem, BLANK_STUDENT)
    assert maximum > 0, f"{path.name}: no autograded points in the gradebook"
    assert score == 0, f"{path.name}: an unanswered notebook scores {score:g} of {maximum:g}"
