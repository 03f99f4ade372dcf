"""``nbkit check`` applies the rule that grades: the same library-rule verdict as the grader's scan.

One real ``nbg release`` (``build_release``, no hand-out) of a scratch course holding the
fixture notebook of ``tests/grading/test_library_rule.py`` (its hidden test hidden), the
adversarial class's ``ps_adv`` and the course's 03, 06 and 07. Then, for every library-rule
fixture (``HONEST`` and ``ATTACKS`` there, every case of ``adversarial/cases_scan.py``) and
for the review's cases on the real notebooks, the grader's ``scan_notebook`` (the gradebook's
source cells, ``library_rule(course, ...)``) and the check's ``library_verdicts_of`` (on what
the student holds: the release notebook with the same answers and cells) must give the same
verdict for every graded function: which test cells get 0 points. Nothing is run (static
scans only); the release takes most of the time.
"""

from __future__ import annotations

import copy
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from grading.autograde.scan import library_rule, scan_notebook
from grading.core.course import Course
from grading.release import build_release
from nbkit.check import check_notebook
from nbkit.check.findings import OK, PROBLEM
from nbkit.check.scan import library_verdicts_of
from tests.grading import test_library_rule as fixture

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "grading" / "adversarial"))
import adversarial_fixtures as adv  # noqa: E402
import cases_scan  # noqa: E402  (adds its builds to adv.write_submission; its CASES include the restated ones)

REAL = ("03_multinomial_nb", "06_nb_linear_logistic", "07_nb_in_practice")
LOOP = "for name in ['theta_', 'var_']:\n    print(name, getattr(gaussian_part, name))"


def fixture_source():
    """test_library_rule's notebook as a source notebook: points on its tests, the last test hidden."""
    notebook = fixture.notebook()
    for cell in notebook.cells:
        meta = cell.metadata["nbgrader"]
        if meta["grade"]:
            meta["points"] = 1.0
        if meta["grade_id"] == "test_add_hidden":
            cell.source = f"### BEGIN HIDDEN TESTS\n{cell.source}\n### END HIDDEN TESTS"
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return notebook


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("check-rule") / "course"
    (root / "source" / "ps").mkdir(parents=True)
    nbformat.write(fixture_source(), root / "source" / "ps" / "ps.ipynb")
    (root / "source" / adv.ASSIGNMENT).mkdir()
    nbformat.write(adv.source_notebook(), root / "source" / adv.ASSIGNMENT / f"{adv.ASSIGNMENT}.ipynb")
    (root / "source" / adv.ASSIGNMENT / "data.csv").write_text(adv.DATA_CSV)
    for assignment in REAL:
        shutil.copytree(ROOT / "course" / "source" / assignment, root / "source" / assignment,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copy(ROOT / "course" / "nbgrader_config.py", root / "nbgrader_config.py")
    course = Course(root)
    build_release(course, handout=False)
    return course


def _read(path):
    return nbformat.read(str(path), as_version=4)


def _gid(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def student_copy(release, submission):
    """What the student holds: the release notebook, in the submission's order, with the submission's
    answers and added cells."""
    by_id = {_gid(cell): cell for cell in release.cells if _gid(cell)}
    cells = []
    for cell in submission.cells:
        gid = _gid(cell)
        if gid in by_id:
            mine = copy.deepcopy(by_id[gid])
            if mine.metadata["nbgrader"].get("solution"):
                mine.source = cell.source
            cells.append(mine)
        else:
            cells.append(copy.deepcopy(cell))
    student = copy.deepcopy(release)
    student.cells = cells
    return student


def verdicts(entries) -> dict:
    return {entry["function"]: sorted(entry["tests"]) for entry in entries}


def both(course, assignment, submission):
    """(the grader's verdict, the check's verdict) for one submission."""
    source_path = course.source_notebooks(assignment)[0]
    source = _read(source_path)
    graded = scan_notebook(submission, fixture._source_cells(source), library_rule(course, assignment))
    release = _read(course.release_dir(assignment) / source_path.name)
    checked, missing = library_verdicts_of(student_copy(release, submission))
    assert missing == "", missing
    return verdicts(graded.library), verdicts(checked)


def test_the_release_carries_the_rule(released):
    notebook = _read(released.release_dir("06_nb_linear_logistic") / "06_nb_linear_logistic.ipynb")
    nbg = notebook.metadata["nbg"]
    assert nbg["libraries"]["fit_logistic"]["forbid"] == ["scipy.optimize"]
    assert nbg["libraries"]["softmax"]["forbid"] == ["scipy.special.softmax"]
    assert "numpy" in nbg["rule"]["allowed"] and "fit_logistic" in nbg["rule"]["answers"]
    assert nbg["rule"]["tests"]["test_fit_logistic_core"]  # a hidden test: its names, not its code
    assert "fit_logistic" in nbg["rule"]["tests"]["test_fit_logistic_core"]
    text = nbformat.writes(notebook)
    assert "BEGIN HIDDEN TESTS" not in text


@pytest.mark.parametrize("case", sorted(fixture.HONEST) + sorted(fixture.ATTACKS))
def test_library_rule_fixtures_get_the_graders_verdict(released, case):
    cells = fixture.HONEST.get(case) or fixture.ATTACKS.get(case, ({},))[0]
    submission = fixture_source()
    for cell in submission.cells:
        name = {"posterior_solution": "posterior", "add_solution": "add"}.get(_gid(cell))
        if name in cells:
            cell.source = cells[name]
    if cells.get("extra") is not None:
        submission.cells.insert(1, nbformat.v4.new_code_cell(cells["extra"]))
    if cells.get("end") is not None:
        submission.cells.append(nbformat.v4.new_code_cell(cells["end"]))
    grader, check = both(released, "ps", submission)
    assert check == grader
    if case in fixture.ATTACKS:
        assert grader, case  # the attack is a finding, so agreeing is not agreeing on nothing


@pytest.mark.parametrize("key", sorted(cases_scan.CASES))
def test_adversarial_cases_get_the_graders_verdict(released, key):
    case = cases_scan.CASES[key]
    folder = adv.write_submission(released.root, f"student-{key}", case)
    submission = _read(folder / f"{adv.ASSIGNMENT}.ipynb")
    grader, check = both(released, adv.ASSIGNMENT, submission)
    assert check == grader
    if "library rule" in case.reason:
        assert grader, key


def _real(course, assignment, function=None, code=None, extra=None, after=None):
    suite = fixture._mutation_suite()
    source = _read(course.source_notebooks(assignment)[0])
    replacements = {suite.solution_cells(source)[function]: {function: code}} if function else {}
    submission = suite.submission(source, replacements)
    if extra is not None:
        at = next(i for i, cell in enumerate(submission.cells) if _gid(cell) == after) + 1
        submission.cells.insert(at, nbformat.v4.new_code_cell(extra))
    return both(course, assignment, submission)


FIT = "def fit_logistic(X, y, loss_grad, l2=0.0, max_iter=10000, tol=1e-6):\n"
REVIEW_CASES = {  # the review's probes (C13, 06-N10): each is 0 points for its function, and the check says so
    "fit_logistic using sklearn.linear_model": (
        "06_nb_linear_logistic", "fit_logistic",
        FIT + "    from sklearn.linear_model import LogisticRegression\n"
              "    model = LogisticRegression(C=1 / max(l2 * len(y), 1e-12)).fit(X, y)\n"
              "    return model.coef_[0], float(model.intercept_[0])\n"),
    "softmax calling scipy.special.softmax": (
        "06_nb_linear_logistic", "softmax",
        "import numpy as np\nfrom scipy.special import softmax as _softmax\n\n"
        "def softmax(Z):\n    return _softmax(np.asarray(Z, dtype=float), axis=1)\n"),
    "confusion_matrix calling sklearn.metrics.confusion_matrix": (
        "03_multinomial_nb", "confusion_matrix",
        "def confusion_matrix(y_true, y_pred, classes):\n"
        "    from sklearn.metrics import confusion_matrix as cm\n    return cm(y_true, y_pred, labels=classes)\n"),
    "fit_logistic calling scipy.optimize.minimize": (
        "06_nb_linear_logistic", "fit_logistic",
        FIT + "    import numpy as np\n    from scipy.optimize import minimize\n"
              "    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)\n\n"
              "    def objective(theta):\n"
              "        loss, grad_w, grad_b = loss_grad(theta[:-1], theta[-1], X, y, l2=l2)\n"
              "        return loss, np.append(np.asarray(grad_w, dtype=float), grad_b)\n\n"
              "    result = minimize(objective, np.zeros(X.shape[1] + 1), jac=True, method='L-BFGS-B')\n"
              "    return result.x[:-1], float(result.x[-1])\n"),
}


@pytest.mark.parametrize("case", sorted(REVIEW_CASES))
def test_the_reviews_cases_are_zero_points_for_both(released, case):
    assignment, function, code = REVIEW_CASES[case]
    grader, check = _real(released, assignment, function, code)
    assert check == grader
    assert set(grader) == {function} and grader[function]


@pytest.mark.parametrize("assignment", REAL)
def test_the_solutions_get_no_finding_from_either(released, assignment):
    assert _real(released, assignment) == ({}, {})


def test_an_exploratory_getattr_loop_costs_nothing_and_a_rebinding_cell_still_does(released):
    """07: the review's two-line loop (C13) before fit_temperature's and expand_with_posteriors' tests."""
    after = "test_update_counts_visible"
    grader, check = _real(released, "07_nb_in_practice", extra="gaussian_part = None\n" + LOOP, after=after)
    assert grader == check == {}
    grader, check = _real(released, "07_nb_in_practice", extra="print(getattr(gaussian_part, 'theta' + '_'))",
                          after=after)
    assert grader == check == {}
    grader, check = _real(released, "07_nb_in_practice", extra="globals()['fit_' + 'temperature'] = print",
                          after=after)
    assert check == grader and {"fit_temperature", "expand_with_posteriors"} <= set(grader)


def test_the_check_reports_the_rule_and_exits_with_a_problem(released, tmp_path):
    """The whole check (no run) says PROBLEM for a forbidden call, OK for the solutions."""
    assignment, function, code = REVIEW_CASES["fit_logistic calling scipy.optimize.minimize"]
    suite = fixture._mutation_suite()
    source = _read(released.source_notebooks(assignment)[0])
    release = _read(released.release_dir(assignment) / f"{assignment}.ipynb")
    for replacements, expected in (({}, OK), ({suite.solution_cells(source)[function]: {function: code}}, PROBLEM)):
        path = tmp_path / f"{assignment}.ipynb"
        nbformat.write(student_copy(release, suite.submission(source, replacements)), path)
        report = check_notebook(path, run=False)
        (finding,) = [f for f in report.findings if f.check == "library rule"]
        assert finding.level == expected, finding
        if expected == PROBLEM:
            assert "fit_logistic gets 0 points" in finding.details[0] and "scipy.optimize" in finding.details[0]
            assert report.exit_code == 1


def test_the_notebooks_the_feedback_and_the_students_readme_state_one_rule():
    """Every notebook's Libraries paragraph starts with RULE_TEXT; the hand-out's README quotes it."""
    from grading.release.handout import student_readme
    from nbkit.librule import RULE_TEXT

    for path in sorted((ROOT / "course" / "source").glob("*/*.ipynb")):
        intro = _read(path).cells[0].source
        assert f"**Libraries.** {RULE_TEXT}" in intro, path.stem
    readme = " ".join(student_readme("nbkit.whl", ["01"]).split())
    assert RULE_TEXT in readme
    assert "python -m nbkit check" in readme and "runs the notebook's code on your computer" in readme
