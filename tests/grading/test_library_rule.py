"""The rule on ready-made libraries, the names the tests look up, and moved test cells: static, no kernel.

Fixture notebooks are built here (one setup cell, two answers and their tests); the course's own
notebooks, with the instructor's solutions and with every correct variant of the catalogue of known
mistakes (``course/mistakes``, through the mutation suite's ``submission()``/``plan()``), must give no
finding at all. Runtime: about 30 s on a loaded machine (every notebook is parsed, none is run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

from grading.autograde.checks import moved_cells, restore_order, source_order
from grading.autograde.scan import LibraryRule, library_rule, names_looked_up, scan_notebook
from grading.autograde.scan.rule import exercise_libraries
from grading.cli import main
from grading.core import overrules
from grading.core.errors import NbgError
from grading.feedback import library_notice
from grading.report.library import library_section

sys.path.insert(0, str(Path(__file__).resolve().parent / "adversarial"))
from adversarial_fixtures import scan_notebook_fixture  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SETUP = "import numpy as np"
POSTERIOR = "def posterior(prior, likelihood):\n    p = np.asarray(prior) * np.asarray(likelihood)\n    return p / p.sum()"
ADD = "def add(a, b):\n    return a + b"
TESTS = {
    "test_posterior": "np.testing.assert_allclose(posterior([0.5, 0.5], [0.2, 0.6]), [0.25, 0.75])",
    "test_add": "assert add(2, 3) == 5",
    "test_add_hidden": "theta, var = add(-1, 1), 0\nfor n in range(3):\n    assert add(n, 0) == n\nassert theta == var",
}
ALL = set(TESTS)
ADD_TESTS = {"test_add", "test_add_hidden"}


def notebook(posterior=POSTERIOR, add=ADD, extra=None, end=None):
    return scan_notebook_fixture(TESTS, posterior, add, setup=SETUP, extra=extra, end=end)


SOURCE_CELLS = [
    {"name": "setup", "source": SETUP, "locked": True, "grade": False, "solution": False, "cell_type": "code"},
    {"name": "posterior_solution", "source": POSTERIOR, "locked": False, "grade": False, "solution": True,
     "cell_type": "code"},
    {"name": "add_solution", "source": ADD, "locked": False, "grade": False, "solution": True, "cell_type": "code"},
] + [{"name": n, "source": s, "locked": True, "grade": True, "solution": False, "cell_type": "code"}
     for n, s in TESTS.items()]


def scan(rule=None, **cells):
    return scan_notebook(notebook(**cells), SOURCE_CELLS, rule)


HONEST = {
    "plain": {},
    "ordinary names at top level": {"extra": "theta, var = 1.0, 2.0\nw, b = np.ones(2), 0.5\nfor n in range(3):\n"
                                             "    X, y = np.ones((n, 2)), np.zeros(n)\nclasses, alpha = [0, 1], 1.0\n"
                                             "rng = np.random.default_rng(0)"},
    "sklearn and plots in an exploration cell": {
        "extra": "%matplotlib inline\nimport sklearn\nfrom sklearn.naive_bayes import GaussianNB\n"
                 "import matplotlib.pyplot as plt\nmodel = GaussianNB().fit([[0], [1]], [0, 1])\nplt.plot([1, 2])\nplt.show()"},
    "scipy, pandas, math and the standard library in the answers": {
        "posterior": "import math\nfrom collections import Counter\nimport pandas as pd\nfrom scipy.special import logsumexp\n"
                     "def posterior(prior, likelihood):\n    s = pd.Series(np.log(prior)) + np.log(likelihood)\n"
                     "    assert Counter([1]) and math.pi\n    return np.exp(s - logsumexp(s)).to_numpy()"},
    "a helper of the student's own": {"posterior": "def _normalise(v):\n    return v / v.sum()\n"
                                                   "def posterior(prior, likelihood):\n"
                                                   "    return _normalise(np.asarray(prior) * likelihood)"},
    "IPython magics that run no hidden code": {
        "extra": "%load_ext autoreload\n%autoreload 2\n%time x = np.ones(3)\n%timeit -n 2 np.ones(3)",
        "end": "%%time\ny = np.zeros(2)"},
    "a debugging note on stderr": {"add": "import sys\ndef add(a, b):\n    print('adding', file=sys.stderr)\n"
                                          "    return a + b if sys.float_info.max > a else 0"},
    "sklearn after the last test": {"end": "from sklearn.naive_bayes import MultinomialNB\nprint(MultinomialNB())"},
    "hasattr and getattr with a literal name": {
        "add": "def add(a, b):\n    if hasattr(a, 'shape'):\n        return getattr(np, 'add')(a, b)\n    return a + b"},
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_honest_notebooks_get_no_finding(case):
    result = scan(**HONEST[case])
    assert (result.library, result.flagged_tests, result.reason()) == ([], {}, "")


ATTACKS = {  # what the student did -> (cells, test cells given 0, words of the reason)
    "scikit-learn in the answer": (
        {"posterior": "from sklearn.naive_bayes import GaussianNB\ndef posterior(prior, likelihood):\n"
                      "    return GaussianNB().fit([[0]], [0]).predict_proba([[0]])[0]"}, {"test_posterior"},
        "sklearn.naive_bayes.GaussianNB, outside the allowed libraries"),
    "importlib delegation": (
        {"posterior": "import importlib\ndef posterior(prior, likelihood):\n"
                      "    return importlib.import_module('nbcore').posterior(prior, likelihood)"}, ALL, "importlib"),
    "__import__ of a computed string": (
        {"posterior": "def posterior(p, l):\n    return __import__(''.join(['nb', 'core'])).posterior(p, l)"}, ALL,
        "`__import__` of a name computed at run time"),
    "getattr on a module with a computed name": (
        {"add": "import sklearn\ndef add(a, b):\n    return getattr(sklearn, 'naive' + '_bayes') and a + b"},
        ADD_TESTS, "`getattr` with a computed name"),
    "estimator discovery": (
        {"add": "from sklearn.utils import all_estimators\ndef add(a, b):\n"
                "    return dict(all_estimators())['GaussianNB'] and a + b"}, ADD_TESTS, "sklearn.utils.all_estimators"),
    "an exec-defined answer": (
        {"add": "exec('def a' + 'dd(a, b):\\n    return a + b')"}, ADD_TESTS, "`exec` of code built at run time"),
    "a helper in an exploration cell that delegates": (
        {"extra": "import sklearn.naive_bayes as nb\ndef helper(prior, likelihood):\n    return nb.GaussianNB()",
         "posterior": "def posterior(prior, likelihood):\n    return helper(prior, likelihood)"},
        {"test_posterior"}, "(through `helper`)"),
    "globals() injection of a helper at top level": (
        {"extra": "globals()['hel' + 'per'] = lambda p, l: p",
         "posterior": "def posterior(prior, likelihood):\n    return helper(prior, likelihood)"}, ALL, "`globals()`"),
    "globals() injection of the answer after its definition": (
        {"add": ADD + "\nglobals()['a' + 'dd'] = lambda a, b: 5"}, ADD_TESTS, "`globals()`"),
    "code swapped into the answer": ({"add": ADD + "\nadd.__code__ = (lambda a, b: 5).__code__"}, ADD_TESTS,
                                     "`.__code__`"),
    "a module reached through numpy": (
        {"posterior": "def posterior(p, l):\n    return np.testing._private.utils.os.getcwd()"}, {"test_posterior"},
        "which is the module os"),
    "pickle through numpy": ({"posterior": "def posterior(p, l):\n    return np.load('a.npy', allow_pickle=True)"},
                             ALL, "allow_pickle"),
    "an IPython hook in an exploration cell": (
        {"extra": "get_ipython().events.register('pre_run_cell', lambda info: None)"}, ALL, "get_ipython()"),
    "a cell magic whose code delegates": ({"extra": "%%capture\nglobals()['x'] = 1"}, ALL, "`globals()`"),
    "a line magic whose code delegates": ({"extra": "%time globals()['x'] = 1"}, ALL, "`globals()`"),
    "the student's own module": ({"extra": "import my_helpers_not_installed"}, ALL, "not an installed library"),
    "a string annotation evaluated later": (
        {"add": "def add(a: \"__import__('sklearn')\", b):\n    return a + b"}, ADD_TESTS, "sklearn"),
    "a mutable global filled by an exploration function": (
        {"extra": "import sklearn\nTOOLS = {}\ndef register(box):\n    box['f'] = sklearn.naive_bayes.GaussianNB\n"
                  "register(TOOLS)", "add": "def add(a, b):\n    return TOOLS and a + b"}, ADD_TESTS, "sklearn"),
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_each_attack_gives_its_functions_tests_zero(case):
    cells, zeroed, words = ATTACKS[case]
    result = scan(**cells)
    assert set(result.zero_tests) == zeroed, result.library
    said = result.reason() + " ".join(f["what"] for entry in result.library for f in entry["findings"])
    assert words in said and "nbg overrule" in result.reason(), said


def test_a_construct_after_the_last_test_changes_nothing():
    assert scan(end="exec(open('x.py').read())").library == []
    assert set(scan(extra="exec(open('x.py').read())").zero_tests) == ALL


def test_the_settings_default_is_the_rules_default():
    from grading.autograde.scan.rule import DEFAULT_ALLOWED
    from grading.core.settings import Nbg

    assert tuple(Nbg().allowed_libraries) == DEFAULT_ALLOWED and Nbg().forbidden_libraries == []


def test_exercise_lists_and_course_settings(tmp_path):
    source = notebook(posterior="from scipy.special import softmax\ndef posterior(p, l):\n"
                                "    return softmax(np.log(p) + np.log(l))",
                      add="from sklearn.metrics import confusion_matrix\ndef add(a, b):\n"
                          "    return a + b + 0 * confusion_matrix([0], [0]).sum()")
    source.metadata["nbg"] = {"libraries": {"posterior": {"forbid": ["scipy.special.softmax"]},
                                            "add": {"allow": ["sklearn.metrics.confusion_matrix"]}}}
    course = tmp_path / "course"
    (course / "source" / "ps").mkdir(parents=True)
    nbformat.write(source, course / "source" / "ps" / "ps.ipynb")
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    from grading.core.course import Course

    rule = library_rule(Course(course), "ps", "alice", "ps")
    result = scan_notebook(source, SOURCE_CELLS, rule)
    assert set(result.zero_tests) == {"test_posterior"} and "which this exercise forbids" in result.reason()
    # The same object under another path is forbidden too; the default rule allows both answers' modules
    # except scikit-learn.
    other = notebook(posterior="import scipy.special._logsumexp as m\ndef posterior(p, l):\n    return m.softmax(p)")
    assert set(scan_notebook(other, SOURCE_CELLS, rule).zero_tests) == {"test_posterior"}
    assert set(scan_notebook(source, SOURCE_CELLS).zero_tests) == ADD_TESTS
    # Course-wide: c.Nbg.allowed_libraries / forbidden_libraries.
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.Nbg.allowed_libraries.append('sklearn')\n"
                                               "c.Nbg.forbidden_libraries = ['numpy.linalg']\n")
    rule = library_rule(Course(course), "ps", "alice", "ps")
    assert "sklearn" in rule.allowed
    linalg = notebook(add="def add(a, b):\n    return np.linalg.norm([a, b]) and a + b")
    assert set(scan_notebook(linalg, SOURCE_CELLS, rule).zero_tests) == ADD_TESTS
    # A malformed list is refused, naming the file and the form it must have.
    source.metadata["nbg"] = {"libraries": {"add": {"allow": "sklearn"}}}
    nbformat.write(source, course / "source" / "ps" / "ps.ipynb")
    with pytest.raises(NbgError, match=r"source/ps/ps.ipynb: 'add' allow must be a list of dotted names"):
        library_rule(Course(course), "ps", "alice", "ps")


def test_an_overruled_finding_costs_nothing_and_stays_visible():
    cells = ATTACKS["scikit-learn in the answer"][0]
    result = scan(LibraryRule(overruled={"posterior": "discussed in class"}), **cells)
    assert result.zero_tests == {} and not result.flagged
    assert result.library[0]["overruled"] == "discussed in class"
    assert "overruled by the instructor (discussed in class)" in result.overruled_note()
    page = library_notice(result.library)
    assert "Your instructor overruled this finding (discussed in class)" in page and "`__import__`" in page


def test_the_feedback_says_what_was_found_the_rule_and_the_overrule():
    result = scan(**ATTACKS["scikit-learn in the answer"][0])
    page = library_notice(result.library)
    assert "sklearn.naive_bayes.GaussianNB" in page and "test_posterior" in page and "0 points" in page
    assert "ask your instructor, who can overrule" in page and "Cells of your own that only explore" in page
    hostile = [{"function": "f", "tests": ["t"], "findings": [{"cell": "cell 3 (<script>x</script>)", "what": "w"}],
                "overruled": ""}]
    assert "<script>" not in library_notice(hostile)


LOOKUPS = {
    "np.testing.assert_allclose(posterior([1], [1]), [1])": {"np", "posterior"},
    "theta, var = f(1)\nassert theta == var": {"f"},
    "for n in range(3):\n    assert add(n, 0) == n": {"add"},
    "import numpy as np\nx = [w * 2 for w in np.ones(2)]\nassert g(x)": {"g"},
    "def helper(b):\n    return b + offset\nassert helper(1)": {"offset"},
    "class T:\n    k = K\n    def m(self):\n        return self.k\nassert isinstance(T(), T)": {"K"},
    "from nbcore import estimation as reference\nassert reference.posterior is not posterior": {"posterior"},
    "__builtins__; len([])": set(),
}


@pytest.mark.parametrize("source", sorted(LOOKUPS))
def test_the_names_a_test_cell_looks_up(source):
    assert names_looked_up(source) == LOOKUPS[source]


def test_names_bound_by_an_earlier_test_cell_are_not_looked_up():
    assert names_looked_up("assert add(expected, 0) == expected", {"expected"}) == {"add"}


def test_moved_test_cells_are_found_and_put_back():
    source = notebook()
    order = source_order(source)
    assert moved_cells(source, order) == []
    moved = notebook(extra="x = 1")
    cells = moved.cells
    cells.insert(1, cells.pop(6))  # test_add_hidden to the top, after setup
    assert moved_cells(moved, order) == ["test_add_hidden"]
    restore_order(moved, order)
    assert source_order(moved) == order
    assert moved.cells[1].source == "x = 1"  # the student's own cell stays where it was, after setup


# -- the course's own notebooks ------------------------------------------------------------------------
def _source_cells(notebook_):
    return [{"name": c.metadata["nbgrader"]["grade_id"], "source": c.source, "cell_type": c.cell_type,
             "locked": c.metadata["nbgrader"].get("locked", False), "grade": c.metadata["nbgrader"].get("grade", False),
             "solution": c.metadata["nbgrader"].get("solution", False)}
            for c in notebook_.cells if c.metadata.get("nbgrader", {}).get("grade_id")]


def _mutation_suite():
    """The mutation catalogue's tools (``submission``, ``plan``, ``solution_cells``, ``CASES``)."""
    from tests.mutation import course_class

    return course_class


REAL = sorted((ROOT / "course" / "source").glob("*/*.ipynb"))


@pytest.mark.parametrize("path", REAL, ids=[p.stem for p in REAL])
def test_the_solutions_and_every_correct_variant_get_no_finding(path):
    suite = _mutation_suite()
    source = nbformat.read(path, as_version=4)
    cells = _source_cells(source)
    rule = LibraryRule(exercises=exercise_libraries(source, path.name))  # the exercise's own lists
    result = scan_notebook(source, cells, rule)
    assert (result.library, result.flagged_tests) == ([], {}), path.stem
    graded = {entry for entry in suite.solution_cells(source)}
    variants = 0
    for student, (replacements, what) in suite.plan(suite.CASES[path.parent.name], source).items():
        if not student.startswith("correct-"):
            continue
        submitted = suite.submission(source, replacements)
        result = scan_notebook(submitted, cells, rule)
        assert (result.library, result.flagged_tests) == ([], {}), (student, result.reason())
        variants += sum(1 for function in what if function in graded)
    assert variants >= len(graded) * 2
    # The catalogue's mutants compute with the same libraries: none is a finding either.
    for student, (replacements, _) in suite.plan(suite.CASES[path.parent.name], source).items():
        if student.startswith("mutant-"):
            assert scan_notebook(suite.submission(source, replacements), cells, rule).library == [], student


def test_every_correct_variant_is_scanned():
    suite = _mutation_suite()
    assert sum(len(case["correct"]) for cases in suite.CASES.values() for case in cases.values()) >= 101


# -- nbg overrule ------------------------------------------------------------------------------------
@pytest.fixture()
def course(tmp_path):
    root = tmp_path / "course"
    (root / "source" / "ps").mkdir(parents=True)
    nbformat.write(notebook(), root / "source" / "ps" / "ps.ipynb")
    (root / "nbgrader_config.py").write_text("c = get_config()\n")
    (root / "submitted" / "alice" / "ps").mkdir(parents=True)
    return root


def test_overrule_records_and_undoes(course, capsys):
    from grading.core.course import Course

    assert main(["--course", str(course), "overrule", "ps", "alice", "posterior", "--reason", "allowed  in class"]) == 0
    assert "nbg autograde ps --student alice" in capsys.readouterr().out
    (recorded,) = overrules.read_overrules(Course(course))
    assert (recorded.key, recorded.reason) == (("ps", "alice", "posterior"), "allowed in class")
    assert library_rule(Course(course), "ps", "alice").overruled == {"posterior": "allowed in class"}
    assert library_rule(Course(course), "ps", "bob").overruled == {}
    assert main(["--course", str(course), "overrule", "ps", "alice", "posterior", "--undo"]) == 0
    assert overrules.read_overrules(Course(course)) == []


@pytest.mark.parametrize("argv, words", [
    (["ps", "alice", "nonesuch", "--reason", "x"], "'nonesuch' is not a graded function of ps: the graded functions are add, posterior"),
    (["ps", "alice", "posterior"], 'say why with --reason "..."'),
    (["ps", "alice", "posterior", "--undo"], "no overrule of posterior for alice in ps to undo"),
    (["ps", "bob", "posterior", "--reason", "x"], "unknown student(s) 'bob'"),
    (["nope", "alice", "posterior", "--reason", "x"], "nope"),
])
def test_overrule_refuses_bad_input_and_writes_nothing(course, capsys, argv, words):
    assert main(["--course", str(course), "overrule", *argv]) == 2
    assert words in capsys.readouterr().err
    assert not (course / overrules.FILENAME).exists()


def test_the_report_counts_findings_per_function(course):
    from grading.core.course import Course

    result = scan(**ATTACKS["scikit-learn in the answer"][0])
    graded = notebook()
    graded.metadata["nbg_library"] = result.library
    for student in ("alice", "bob"):
        (course / "autograded" / student / "ps").mkdir(parents=True)
        nbformat.write(graded, course / "autograded" / student / "ps" / "ps.ipynb")
    section = library_section(Course(course))
    assert [row[:3] for row in section["rows"]] == [("alice", "ps", "posterior"), ("bob", "ps", "posterior")]
    assert section["counts"] == [("ps", "posterior", 2, 0)]
    assert "0 points on test_posterior" in section["rows"][0][4]


def test_a_real_exercise_that_forbids_a_library():
    """03's confusion_matrix forbids sklearn.metrics.confusion_matrix (its source notebook's metadata)."""
    suite = _mutation_suite()
    path = ROOT / "course" / "source" / "03_multinomial_nb" / "03_multinomial_nb.ipynb"
    source = nbformat.read(path, as_version=4)
    rule = LibraryRule(exercises=exercise_libraries(source, path.name))
    if "confusion_matrix" not in rule.exercises:
        pytest.skip("03 names no library for confusion_matrix")
    where = suite.solution_cells(source)["confusion_matrix"]
    delegating = ("def confusion_matrix(y_true, y_pred, classes):\n"
                  "    from sklearn.metrics import confusion_matrix as cm\n"
                  "    return cm(y_true, y_pred, labels=classes)")
    result = scan_notebook(suite.submission(source, {where: {"confusion_matrix": delegating}}), _source_cells(source),
                           rule)
    tests = {t for t, f in result.zero_tests.items()}
    assert tests and set(result.zero_tests.values()) == {"confusion_matrix"}
    assert "sklearn.metrics.confusion_matrix, which this exercise forbids" in result.reason()
