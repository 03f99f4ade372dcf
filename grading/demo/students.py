"""The demo class: thirteen students whose submissions are generated from the source notebooks.

Each student is the release notebook filled in the way a student would: the
solution cells take the instructor's solution (delimiters removed), except
where the student makes one of the typical mistakes the hidden tests target;
then the code below replaces that solution cell by the student's buggy code.
Everything is deterministic (no randomness, no clock), so the expected scores
in ``tests/grading/test_demo.py`` can be derived by hand from the test cells
each mistake fails.

Only the names of graded functions and of the test cells a student edits
(nbgrader ``grade_id``) of the real assignments are relied on, not their
solution text or how functions are grouped into solution cells, so the
notebooks can be edited without breaking the demo as long as the graded
functions keep their names.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from grading.core.errors import NbgError
from grading.core.source import defined_functions, replace_functions

BAYES = "01_bayes_mle_map"
MULTINOMIAL = "03_multinomial_nb"
DEMO_ASSIGNMENTS = (BAYES, MULTINOMIAL)

# --- the student's code for one solution cell, per typical mistake ----------

POSTERIOR_WITHOUT_PRIOR = '''
def posterior(prior, likelihood):
    """Normalises the likelihood alone: the prior is forgotten."""
    likelihood = np.asarray(likelihood, dtype=float)
    return likelihood / likelihood.sum()
'''

POSTERIOR_UNNORMALISED = '''
def posterior(prior, likelihood):
    """Returns the scores P(h) P(D|h) without dividing by the evidence."""
    return np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float)
'''

DIRICHLET_MEAN_DENOMINATOR_2 = '''
def dirichlet_posterior_mean(counts, alpha):
    """Adds 2 alpha to the denominator (the coin's Laplace rule) whatever K is."""
    counts = np.asarray(counts, dtype=float)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + 2 * alpha)
'''

BERNOULLI_MLE_PLUS_ONE = '''
def bernoulli_mle(k, n):
    """Divides by n + 1 (not the MLE)."""
    return np.asarray(k, dtype=float) / (np.asarray(n, dtype=float) + 1)
'''

# The kernel dies (as after a segfault or the out-of-memory killer).
M_ESTIMATE_KILLS_KERNEL = '''
import os
import signal

os.kill(os.getpid(), signal.SIGKILL)


def m_estimate(n_c, n, p, m):
    return (np.asarray(n_c, dtype=float) + m * p) / (np.asarray(n, dtype=float) + m)
'''

FEATURE_LOG_PROB_DENOMINATOR_2 = '''
def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    """Like seed 000's trainNB0: the denominator is N_c + 2, not N_c + alpha * n_features."""
    y = np.asarray(y)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    counts = np.vstack([X[y == c].sum(axis=0) for c in classes])
    return np.log((counts + alpha) / (counts.sum(axis=1, keepdims=True) + 2))
'''

JLL_WITHOUT_PRIOR = '''
def multinomial_jll(X, class_log_prior, feature_log_prob):
    """Only the likelihood term: the log prior is forgotten."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    return X @ np.asarray(feature_log_prob, dtype=float).T
'''

JLL_PROBABILITY_PRODUCT = '''
def multinomial_jll(X, class_log_prior, feature_log_prob):
    """Multiplies probabilities, then takes the log: long documents underflow to 0."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    theta = np.exp(np.asarray(feature_log_prob, dtype=float))
    likelihood = np.prod(theta[np.newaxis, :, :] ** X[:, np.newaxis, :], axis=2)
    return np.log(likelihood) + np.asarray(class_log_prior, dtype=float)
'''

# An infinite loop before the function is defined: the cell times out, the
# kernel is interrupted, grading goes on without confusion_matrix.
CONFUSION_MATRIX_INFINITE_LOOP = '''
while True:
    pass


def confusion_matrix(y_true, y_pred, classes):
    return None
'''

TEST_CELL_REPLACED = "pass  # I removed this test: my answer is right"

# Two students hand in the same code of their own (right, but not the
# instructor's): the second renamed every variable and changed the comments.
CONFUSION_MATRIX_OWN = '''
def confusion_matrix(y_true, y_pred, classes):
    """Count every (true, predicted) pair of labels."""
    labels = list(np.asarray(classes).tolist())
    truth = np.asarray(y_true)
    guess = np.asarray(y_pred)
    table = np.zeros((len(labels), len(labels)), dtype=int)
    for row, actual in enumerate(labels):
        for column, predicted in enumerate(labels):
            table[row, column] = int(np.sum((truth == actual) & (guess == predicted)))
    return table
'''

CONFUSION_MATRIX_RENAMED = '''
def confusion_matrix(y_true, y_pred, classes):
    # rows: true class, columns: predicted class
    names = list(np.asarray(classes).tolist())
    t = np.asarray(y_true)
    p = np.asarray(y_pred)
    counts = np.zeros((len(names), len(names)), dtype=int)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            counts[i, j] = int(np.sum((t == a) & (p == b)))
    return counts
'''


@dataclass(frozen=True)
class DemoStudent:
    """One demo student.

    Attributes
    ----------
    student_id : str
        The nbgrader student id (named after what the student does).
    description : str
        One line for the demo's table.
    code : dict of (str, str) to str
        (assignment, graded function) -> the student's code for that function
        (with any statements the student wrote around it). It replaces the
        function's definition in the solution cell that defines it; the cell's
        other functions keep the instructor's solution, and a cell whose every
        function the student rewrites becomes the student's code alone.
    edited_tests : dict of (str, str) to str
        (assignment, test cell grade_id) -> what the student put in the test cell.
    blank : bool
        Submits the release notebooks unchanged.
    late : tuple of str
        Assignments this student submits after the due date.
    """

    student_id: str
    description: str
    code: dict = field(default_factory=dict)
    edited_tests: dict = field(default_factory=dict)
    blank: bool = False
    late: tuple = ()


DEMO_STUDENTS = (
    DemoStudent("perfect", "every function right"),
    DemoStudent("blank", "submits the release unchanged", blank=True),
    DemoStudent(
        "forgot-prior",
        "forgets the prior in posterior() and in multinomial_jll()",
        code={
            (BAYES, "posterior"): POSTERIOR_WITHOUT_PRIOR,
            (MULTINOMIAL, "multinomial_jll"): JLL_WITHOUT_PRIOR,
        },
    ),
    DemoStudent(
        "denominator-2",
        "smooths with + 2 in the denominator instead of + K alpha / + alpha |V|",
        code={
            (BAYES, "dirichlet_posterior_mean"): DIRICHLET_MEAN_DENOMINATOR_2,
            (MULTINOMIAL, "multinomial_feature_log_prob"): FEATURE_LOG_PROB_DENOMINATOR_2,
        },
    ),
    DemoStudent(
        "unnormalised",
        "returns unnormalised posterior scores in 01 (03's log_normalize is given)",
        code={(BAYES, "posterior"): POSTERIOR_UNNORMALISED},
    ),
    DemoStudent(
        "underflow",
        "multiplies probabilities in multinomial_jll(): long documents underflow",
        code={(MULTINOMIAL, "multinomial_jll"): JLL_PROBABILITY_PRODUCT},
    ),
    DemoStudent(
        "kernel-dies",
        "kills the kernel in the m_estimate cell of 01",
        code={(BAYES, "m_estimate"): M_ESTIMATE_KILLS_KERNEL},
    ),
    DemoStudent(
        "infinite-loop",
        "loops forever in the confusion_matrix cell of 03",
        code={(MULTINOMIAL, "confusion_matrix"): CONFUSION_MATRIX_INFINITE_LOOP},
    ),
    DemoStudent(
        "edits-test",
        "wrong bernoulli_mle(), and deletes its visible test",
        code={(BAYES, "bernoulli_mle"): BERNOULLI_MLE_PLUS_ONE},
        edited_tests={(BAYES, "test_bernoulli_mle_visible"): TEST_CELL_REPLACED},
    ),
    DemoStudent("late", "every function right, 01 handed in after the due date", late=(BAYES,)),
    DemoStudent("extended", "every function right, 01 late but within an extension", late=(BAYES,)),
    DemoStudent(
        "copier-a",
        "own confusion_matrix() in 03, right",
        code={(MULTINOMIAL, "confusion_matrix"): CONFUSION_MATRIX_OWN},
    ),
    DemoStudent(
        "copier-b",
        "copier-a's 03 code with other names and comments",
        code={(MULTINOMIAL, "confusion_matrix"): CONFUSION_MATRIX_RENAMED},
    ),
)
# Extensions the demo grants (written to the demo course's extensions.csv).
DEMO_EXTENSIONS = (("extended", BAYES, "2026-01-18 23:59"),)


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _without_region(source, begin, end):
    kept, inside = [], False
    for line in source.split("\n"):
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def solution_text(source_cell) -> str:
    """What a student who got it right writes: the instructor's solution without
    the ``BEGIN/END SOLUTION`` lines (and without the mark scheme)."""
    text = source_cell.source
    text = _without_region(text, "BEGIN MARK SCHEME", "END MARK SCHEME")
    lines = [
        line
        for line in text.split("\n")
        if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line
    ]
    return "\n".join(lines).strip("\n")


def student_notebook(student: DemoStudent, assignment: str, source_nb, release_nb):
    """The notebook ``student`` submits for ``assignment``.

    Parameters
    ----------
    student : DemoStudent
    assignment : str
    source_nb, release_nb : nbformat.NotebookNode
        The instructor's source and the student release of the assignment.

    Returns
    -------
    nbformat.NotebookNode
        A new notebook (the inputs are not modified).

    Raises
    ------
    NbgError
        When a function or test cell the student edits is not in the notebook
        (the assignment was renamed or restructured: update :data:`DEMO_STUDENTS`).
    """
    import nbformat  # here: `nbg demo --help` imports this module for DEMO_STUDENTS

    notebook = nbformat.from_dict(release_nb)
    notebook = nbformat.reads(nbformat.writes(notebook), as_version=4)  # a deep copy
    if student.blank:
        return notebook
    solutions = {
        _grade_id(cell): cell
        for cell in source_nb.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    own = {name: textwrap.dedent(code).strip("\n") for (a, name), code in student.code.items() if a == assignment}
    wanted = set(own) | {cell_id for (a, cell_id) in student.edited_tests if a == assignment}
    found = set()
    for cell in notebook.cells:
        grade_id = _grade_id(cell)
        if (assignment, grade_id) in student.edited_tests:
            cell.source = student.edited_tests[(assignment, grade_id)]
            found.add(grade_id)
        elif grade_id in solutions:
            text = solution_text(solutions[grade_id])
            defined = defined_functions(text) if cell.cell_type == "code" else set()  # not a written answer
            rewritten = defined & set(own)
            if not rewritten:
                cell.source = text
            elif rewritten == defined:
                cell.source = "\n\n\n".join(own[name] for name in sorted(rewritten, key=list(own).index))
            else:
                cell.source = replace_functions(text, {name: own[name] for name in rewritten})
            found |= rewritten
    missing = wanted - found
    if missing:
        raise NbgError(
            f"demo student {student.student_id!r} edits functions or cells {sorted(missing)} that "
            f"{assignment} does not have; update grading/demo/students.py"
        )
    return notebook
