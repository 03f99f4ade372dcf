"""The static answer scan (grading.autograde.scan) on hand-built notebooks: what it flags and,
as important, what it leaves alone. Expected test cells are read off the sources.

Runtime: about 2 s (the real course notebooks are parsed, not run).
"""

import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from grading.autograde.scan import scan_notebook
from grading.autograde.checks import shadowing_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adversarial_fixtures import _meta, scan_notebook_fixture  # noqa: E402

TESTS = {
    "test_posterior": "np.testing.assert_allclose(posterior([0.5, 0.5], [0.2, 0.6]), [0.25, 0.75])",
    "test_add": "assert add(2, 3) == 5",
    "test_add_hidden": "x = add(-1, 1)\nassert isinstance(x, (int, float)) and x == 0",
}
SETUP = "import numpy as np"
POSTERIOR = "def posterior(prior, likelihood):\n    p = np.asarray(prior) * np.asarray(likelihood)\n    return p / p.sum()"
ADD = "def add(a, b):\n    return a + b"
SOURCE_CELLS = [{"name": "setup", "source": SETUP, "locked": True, "grade": False, "solution": False}] + [
    {"name": name, "source": source, "locked": True, "grade": True, "solution": False}
    for name, source in TESTS.items()
]


def notebook(posterior=POSTERIOR, add=ADD, extra=None):
    return scan_notebook_fixture(TESTS, posterior, add, setup=SETUP, extra=extra)


HONEST = {
    "plain": {},
    "re-imports numpy and calls its functions": {
        "posterior": "import numpy as np\nimport numpy\nnp.random.seed(0)\nnp.seterr(all='ignore')\n" + POSTERIOR},
    "explores data at top level": {"extra": "X = np.ones(3)\nfor i in range(3):\n    total = X.sum()\nprint(np.testing)"},
    "mentions nbcore in a comment and a string": {
        "add": "# unlike nbcore.estimation, written by hand\ndef add(a, b):\n    'not sklearn.naive_bayes'\n    return a + b"},
    "uses sklearn outside naive_bayes": {"extra": "from sklearn.datasets import load_iris\nimport sklearn"},
    "defines a class with a real __eq__": {
        "add": "class P:\n    def __eq__(self, other):\n        return isinstance(other, P)\n" + ADD},
    "a cell that does not parse": {"add": "def add(a, b)\n    return a + b"},
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_honest_answers_are_not_flagged(case):
    result = scan_notebook(notebook(**HONEST[case]), SOURCE_CELLS)
    assert (result.flagged_tests, result.reason()) == ({}, "")


CHEATS = {  # what the student did -> (answers, test cells flagged for review, words of the reason)
    "replaces numpy.testing.assert_allclose": (
        {"posterior": "import numpy.testing as npt\nnpt.assert_allclose = lambda *a, **k: None\n" + POSTERIOR},
        set(TESTS), "numpy.testing.assert_allclose"),
    "setattr on numpy inside the answer": (
        {"add": "def add(a, b):\n    setattr(np, 'allclose', lambda *a: True)\n    return a - b"},
        {"test_add", "test_add_hidden"}, "setattr on numpy"),
    "replaces builtins.isinstance": (
        {"add": "import builtins\nbuiltins.isinstance = lambda *a: True\n" + ADD},
        {"test_add", "test_add_hidden"}, "builtins.isinstance"),
    "rebinds np, which the tests look up, at top level": (
        {"add": "np = None\n" + ADD}, {"test_add", "test_add_hidden"} & set(), "rebinds `np`"),
    "edits sys.modules": (
        {"posterior": "import sys\nsys.modules['numpy'] = None\n" + POSTERIOR}, set(TESTS), "sys.modules"),
    "returns an always-equal object": (
        {"add": "class Yes:\n    __eq__ = lambda self, other: True\ndef add(a, b):\n    return Yes()"},
        {"test_add", "test_add_hidden"}, "compares equal to anything"),
}
CHEATS["rebinds np, which the tests look up, at top level"] = (
    {"add": "np = None\n" + ADD}, set(), "rebinds `np`")  # test_posterior runs before: nothing after uses np


@pytest.mark.parametrize("case", sorted(CHEATS))
def test_cheats_flag_exactly_the_tests_they_touch(case):
    answers, flagged_tests, words = CHEATS[case]
    result = scan_notebook(notebook(**answers), SOURCE_CELLS)
    assert set(result.flagged_tests) == flagged_tests
    if flagged_tests:
        assert words in result.reason() and "flagged for review" in result.reason()


def test_rebinding_a_looked_up_name_before_its_test_is_flagged():
    result = scan_notebook(notebook(extra="np = None"), SOURCE_CELLS)
    assert set(result.flagged_tests) == {"test_posterior"} and "rebinds `np`" in result.reason()
    same = scan_notebook(notebook(extra="import numpy as np"), SOURCE_CELLS)  # the instructor's module again
    assert same.flagged_tests == {}
    other = scan_notebook(notebook(extra="import sklearn as np"), SOURCE_CELLS)
    assert set(other.flagged_tests) == {"test_posterior"} and "imports sklearn as `np`" in other.reason()


def test_builtins_are_not_the_students_to_protect():
    """The judge takes builtins from its own builtins: rebinding isinstance in the kernel changes no test."""
    result = scan_notebook(notebook(add="isinstance = lambda *a: True\n" + ADD), SOURCE_CELLS)
    assert (result.flagged_tests, result.zero_tests) == ({}, {})


LIBRARY = {  # what the student did -> (answers, test cells that get 0 points, words of the reason)
    "imports the answer from nbcore": (
        {"posterior": "from nbcore.estimation import posterior"}, {"test_posterior"}, "nbcore.estimation.posterior"),
    "delegates through a helper": (
        {"posterior": "import nbcore.estimation as ref\ndef _h(p, l):\n    return ref.posterior(p, l)\n"
                      "def posterior(prior, likelihood):\n    return _h(prior, likelihood)"},
        {"test_posterior"}, "(through `_h`)"),
    "uses sklearn.naive_bayes": (
        {"add": "from sklearn import naive_bayes\ndef add(a, b):\n    return naive_bayes and a + b"},
        {"test_add", "test_add_hidden"}, "sklearn.naive_bayes"),
    "__import__ of a literal nbcore": (
        {"posterior": "def posterior(p, l):\n    return __import__('nbcore').estimation.posterior(p, l)"},
        {"test_posterior"}, "uses nbcore"),
    "__import__ of a computed name": (  # it could replace add too, whose tests run after it
        {"posterior": "def posterior(p, l):\n    return __import__('nb' + 'core').estimation.posterior(p, l)"},
        set(TESTS), "`__import__` of a name computed at run time"),
}


@pytest.mark.parametrize("case", sorted(LIBRARY))
def test_the_library_rule_zeroes_exactly_the_functions_tests(case):
    answers, zeroed, words = LIBRARY[case]
    result = scan_notebook(notebook(**answers), SOURCE_CELLS)
    assert set(result.zero_tests) == zeroed
    assert words in result.reason() and "library rule" in result.reason()


def test_an_edited_instructor_cell_is_scanned_like_a_student_cell():
    nb = notebook()
    nb.cells[0].source = SETUP + "\nnp.testing.assert_allclose = print"  # the gradebook's copy differs
    assert set(scan_notebook(nb, SOURCE_CELLS).flagged_tests) == set(TESTS)


def test_shadowing_files_are_found_and_others_kept(tmp_path):
    for name in ("numpy.py", "json.py", "helpers.py", "data.csv", "nbcore.pth"):
        (tmp_path / name).write_text("")
    (tmp_path / "sklearn").mkdir()
    (tmp_path / "sklearn" / "__init__.py").write_text("")
    (tmp_path / "notes").mkdir()
    assert shadowing_files(tmp_path) == ["json.py", "nbcore.pth", "numpy.py", "sklearn"]


def test_an_instructor_example_calling_the_answer_is_not_a_rebinding():
    nb = notebook()
    example = new_code_cell("print(posterior([1, 1], [1, 3]))", metadata=_meta("example", locked=True))
    nb.cells.insert(2, example)
    cells = SOURCE_CELLS + [
        {"name": "example", "source": example.source, "locked": True, "grade": False, "solution": False},
        {"name": "posterior_solution", "source": POSTERIOR, "locked": False, "grade": False, "solution": True},
    ]
    assert scan_notebook(nb, cells).flagged_tests == {}


REAL_SOURCE = Path(__file__).resolve().parents[3] / "course" / "source"
REAL_NOTEBOOKS = sorted(REAL_SOURCE.glob("*/*.ipynb")) if REAL_SOURCE.is_dir() else []


@pytest.mark.parametrize("path", REAL_NOTEBOOKS, ids=[p.stem for p in REAL_NOTEBOOKS])
def test_the_course_solutions_and_blank_release_are_never_flagged(path):
    """The instructor's own answers (and the stubs students start from) are honest:
    the scan must find nothing in any real notebook."""
    source = nbformat.read(path, as_version=4)
    cells = []
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id"):
            cells.append({"name": meta["grade_id"], "source": cell.source, "locked": meta.get("locked", False),
                          "grade": meta.get("grade", False), "solution": meta.get("solution", False)})
    assert scan_notebook(source, cells).flagged_tests == {}
    release = nbformat.reads(nbformat.writes(source), as_version=4)
    for cell in release.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = cell.source.split("### BEGIN SOLUTION")[0] + "raise NotImplementedError()"
    assert scan_notebook(release, cells).flagged_tests == {}


def test_a_local_variable_named_like_the_tests_module_is_not_delegation():
    """Names resolve by scope: the hidden tests' `reference` module is not the answer's own `reference`."""
    source = [
        {"name": "setup", "source": SETUP, "locked": True, "grade": False, "solution": False, "cell_type": "code"},
        {"name": "posterior_solution", "source": POSTERIOR, "locked": False, "grade": False, "solution": True,
         "cell_type": "code"},
        {"name": "test_posterior", "source": "from nbcore import estimation as reference\n"
                                             "assert reference.posterior([1], [1]) is not None\nposterior([1], [1])",
         "locked": True, "grade": True, "solution": False, "cell_type": "code"},
    ]
    answer = ("def posterior(prior, likelihood):\n    reference = np.asarray(prior) * np.asarray(likelihood)\n"
              "    return reference / reference.sum()")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(SETUP, metadata={"nbgrader": {"grade_id": "setup", "locked": True}}),
        nbformat.v4.new_code_cell(answer, metadata={"nbgrader": {"grade_id": "posterior_solution", "solution": True}}),
        nbformat.v4.new_code_cell(source[2]["source"], metadata={"nbgrader": {"grade_id": "test_posterior",
                                                                               "grade": True, "locked": True}}),
    ])
    assert scan_notebook(nb, source).flagged_tests == {}
    # The same name bound to the module by the student's own import is found (the test cell's own
    # import is in the judge, not the kernel: without it the answer fails with a NameError).
    nb.cells[1].source = ("from nbcore import estimation as reference\n"
                          "def posterior(prior, likelihood):\n    return reference.posterior(prior, likelihood)")
    assert set(scan_notebook(nb, source).zero_tests) == {"test_posterior"}
