"""A small nbgrader assignment and its submissions, built in code.

Shared by every test in ``tests/grading`` (E1's and E2's): keep the names and
signatures stable. The assignment ``ps_fixture`` has one notebook with two
student functions, ``add`` and ``mean``, each with a visible-tests cell
(1 point) and a hidden-tests cell (2 points): 6 points in all.

Every submission kind's score (:data:`EXPECTED_SCORES`) is derived by hand
from the test cells below, never by running the grader:

=================  =====================================================  =====
kind               what the student did                                   score
=================  =====================================================  =====
perfect            both functions right                                   6
blank              submitted the release unchanged                        0
wrong_hidden       ``add`` uses abs(): visible test passes, hidden fails  4
kernel_dies        ``mean``'s cell calls os._exit(1): add's 3 points kept 3
infinite_loop      ``mean``'s cell never ends: add's 3 points kept        3
edits_test_cell    ``add`` wrong and its visible test replaced by pass;   3
                   the grader restores the test, so add scores 0
syntax_error       ``add``'s cell does not parse                          3
stderr_output      ``mean`` prints to stderr while the tests call it: the  6
                   judge discards it (stock nbgrader would give 0)
=================  =====================================================  =====
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import textwrap
from pathlib import Path

import nbformat

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grading.core.course import ensure_alembic_on_path
from tests import honest_times

ensure_alembic_on_path()  # nbgrader's own converters below run alembic

FIXTURE_ASSIGNMENT = "ps_fixture"
FIXTURE_NOTEBOOK = "ps_fixture"  # notebook id (file name without .ipynb)
MAX_SCORE = 6.0
# A due date far from "now", so "late" depends only on the timestamps we write.
DUEDATE = dt.datetime(2026, 10, 1, 12, 0, 0)
ON_TIME = dt.datetime(2026, 9, 30, 9, 0, 0)
LATE = dt.datetime(2026, 10, 3, 9, 0, 0)

# Hand-derived total score per submission kind (see the module docstring).
EXPECTED_SCORES = {
    "perfect": 6.0,
    "blank": 0.0,
    "wrong_hidden": 4.0,
    "kernel_dies": 3.0,
    "infinite_loop": 3.0,
    "edits_test_cell": 3.0,
    "syntax_error": 3.0,
    "stderr_output": 6.0,
}
SUBMISSION_KINDS = tuple(EXPECTED_SCORES)

# Hand-derived score of each grade cell per kind: (add_visible, add_hidden,
# mean_visible, mean_hidden).
GRADE_CELLS = ("test_add_visible", "test_add_hidden", "test_mean_visible", "test_mean_hidden")
EXPECTED_CELL_SCORES = {
    "perfect": (1.0, 2.0, 1.0, 2.0),
    "blank": (0.0, 0.0, 0.0, 0.0),
    "wrong_hidden": (1.0, 0.0, 1.0, 2.0),
    "kernel_dies": (1.0, 2.0, 0.0, 0.0),
    "infinite_loop": (1.0, 2.0, 0.0, 0.0),
    "edits_test_cell": (0.0, 0.0, 1.0, 2.0),
    "syntax_error": (0.0, 0.0, 1.0, 2.0),
    "stderr_output": (1.0, 2.0, 1.0, 2.0),
}

# Strings that appear only inside the hidden tests: feedback must never show them.
HIDDEN_SOURCE_SNIPPETS = ("_hidden_negative_case", "_hidden_single_value")
# The failure messages of the hidden tests (students may see these).
HIDDEN_FAILURE_MESSAGES = {
    "test_add_hidden": "add(-1, 1) should be 0: does your add handle negative numbers?",
    "test_mean_hidden": "mean([5.0]) should be 5.0: divide by the number of values",
}

# A short per-cell timeout keeps the infinite-loop submission cheap to grade.
CELL_TIMEOUT = 5


def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _code(source, grade_id, **kw):
    # Cell ids fixed (not nbformat's random ones) so every build is byte-identical.
    return new_code_cell(textwrap.dedent(source).strip(), metadata=_meta(grade_id, **kw), id=grade_id)


def _markdown(source, grade_id):
    return new_markdown_cell(
        textwrap.dedent(source).strip(), metadata=_meta(grade_id, locked=True), id=grade_id
    )


ADD_SOLUTION = '''
def add(a, b):
    """Return the sum of a and b."""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION
'''

MEAN_SOLUTION = '''
def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers."""
    ### BEGIN SOLUTION
    return sum(values) / len(values)
    ### END SOLUTION
'''

ADD_VISIBLE = """
\"\"\"Check add on the example from the text.\"\"\"
assert add(2, 3) == 5, "add(2, 3) should be 5"
"""

ADD_HIDDEN = f"""
\"\"\"Check add on negative and fractional numbers (mistake: using abs).\"\"\"
### BEGIN HIDDEN TESTS
_hidden_negative_case = add(-1, 1)
assert _hidden_negative_case == 0, "{HIDDEN_FAILURE_MESSAGES['test_add_hidden']}"
assert add(0.5, 0.25) == 0.75, "add(0.5, 0.25) should be 0.75"
### END HIDDEN TESTS
"""

MEAN_VISIBLE = """
\"\"\"Check mean on the example from the text.\"\"\"
assert mean([1.0, 2.0, 3.0]) == 2.0, "mean([1, 2, 3]) should be 2"
"""

MEAN_HIDDEN = f"""
\"\"\"Check mean on one and two values (mistake: dividing by a fixed 3).\"\"\"
### BEGIN HIDDEN TESTS
_hidden_single_value = mean([5.0])
assert _hidden_single_value == 5.0, "{HIDDEN_FAILURE_MESSAGES['test_mean_hidden']}"
assert mean([2.0, 4.0]) == 3.0, "mean([2, 4]) should be 3"
### END HIDDEN TESTS
"""


def source_notebook() -> nbformat.NotebookNode:
    """The instructor's source notebook of the fixture assignment (with solutions)."""
    cells = [
        _markdown("# Fixture assignment\nWrite `add` and `mean`.", "intro"),
        _code(ADD_SOLUTION, "add_solution", solution=True),
        _code(ADD_VISIBLE, "test_add_visible", grade=True, locked=True, points=1),
        _code(ADD_HIDDEN, "test_add_hidden", grade=True, locked=True, points=2),
        _markdown("## The mean\nNow the arithmetic mean.", "mean_intro"),
        _code(MEAN_SOLUTION, "mean_solution", solution=True),
        _code(MEAN_VISIBLE, "test_mean_visible", grade=True, locked=True, points=1),
        _code(MEAN_HIDDEN, "test_mean_hidden", grade=True, locked=True, points=2),
    ]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def wrong_source_notebook() -> nbformat.NotebookNode:
    """A source notebook whose ``add`` solution is wrong (``validate`` must fail it)."""
    notebook = source_notebook()
    cell = _cell(notebook, "add_solution")
    cell.source = cell.source.replace("return a + b", "return a - b")
    return notebook


CONFIG_TEXT = f"""\
c = get_config()
# The fixture's infinite loop should cost seconds, not nbgrader's default 30.
c.Execute.timeout = {CELL_TIMEOUT}
"""


def file_tree(root) -> list[str]:
    """Every path below ``root``, relative and sorted (what a refused command must leave as it was)."""
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*"))


def write_course(root, *, assignment=FIXTURE_ASSIGNMENT, duedate=DUEDATE) -> Path:
    """Create a course root holding the fixture assignment's source and config.

    Writes ``<root>/source/<assignment>/<assignment>.ipynb`` and
    ``<root>/nbgrader_config.py``; registers the assignment and its due date
    in the gradebook (``<root>/gradebook.db``). Returns ``root`` as a Path.
    """
    root = Path(root)
    source_dir = root / "source" / assignment
    source_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(source_notebook(), source_dir / f"{assignment}.ipynb")
    (root / "nbgrader_config.py").write_text(CONFIG_TEXT)
    from nbgrader.api import Gradebook

    db = root / "gradebook.db"
    if not db.exists():
        shutil.copy(_empty_gradebook(), db)
    with Gradebook(f"sqlite:///{db.resolve()}") as gradebook:
        gradebook.update_or_create_assignment(assignment, duedate=duedate)
    return root


_EMPTY_GRADEBOOK = []


def _empty_gradebook() -> Path:
    """An empty nbgrader gradebook, created once per process and copied.

    Creating one runs nbgrader's ``alembic heads`` subprocess, which takes
    seconds on a loaded machine; a copy of the same empty database is identical.
    """
    if not _EMPTY_GRADEBOOK:
        from nbgrader.api import Gradebook

        folder = Path(tempfile.mkdtemp(prefix="nbg-empty-gradebook-"))
        with Gradebook(f"sqlite:///{folder / 'gradebook.db'}"):
            pass
        _EMPTY_GRADEBOOK.append(folder / "gradebook.db")
    return _EMPTY_GRADEBOOK[0]


def _api(root):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(root).resolve()
    config = Config()
    if (root / "nbgrader_config.py").exists():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config())
    config.CourseDirectory.root = str(root)
    coursedir = CourseDirectory(config=config)
    return NbGraderAPI(coursedir=coursedir, config=config)


def stock_generate_assignment(root, assignment=FIXTURE_ASSIGNMENT) -> Path:
    """Release the assignment with stock nbgrader; returns the release notebook path."""
    result = _api(root).generate_assignment(assignment)
    if not result["success"]:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{result.get('log')}")
    return Path(root) / "release" / assignment / f"{assignment}.ipynb"


def stock_autograde(root, student, assignment=FIXTURE_ASSIGNMENT) -> dict:
    """Autograde one submission with stock (serial) nbgrader; returns its result dict."""
    return _api(root).autograde(assignment, student)


def _cell(notebook, grade_id):
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            return cell
    raise KeyError(grade_id)


def _replace_solution(notebook, grade_id, new_body):
    """Replace the student's part of a released solution cell."""
    _cell(notebook, grade_id).source = textwrap.dedent(new_body).strip()


PERFECT_ADD = "def add(a, b):\n    return a + b"
PERFECT_MEAN = "def mean(values):\n    return sum(values) / len(values)"


def student_notebook(release_notebook, kind) -> nbformat.NotebookNode:
    """What a student of the given kind submits, built from the release notebook.

    Parameters
    ----------
    release_notebook : path or NotebookNode
        The released (student) version of the fixture notebook.
    kind : str
        One of :data:`SUBMISSION_KINDS`.
    """
    if kind not in EXPECTED_SCORES:
        raise ValueError(f"unknown submission kind {kind!r}; use one of {SUBMISSION_KINDS}")
    if isinstance(release_notebook, (str, Path)):
        notebook = nbformat.read(release_notebook, as_version=4)
    else:
        notebook = nbformat.from_dict(release_notebook)  # a copy
        notebook = nbformat.reads(nbformat.writes(notebook), as_version=4)
    if kind == "blank":
        return notebook
    add, mean = PERFECT_ADD, PERFECT_MEAN
    if kind == "wrong_hidden":
        add = "def add(a, b):\n    return abs(a) + abs(b)"
    elif kind == "kernel_dies":
        mean = "import os\nos._exit(1)\n" + PERFECT_MEAN
    elif kind == "infinite_loop":
        mean = "while True:\n    pass\n" + PERFECT_MEAN
    elif kind == "edits_test_cell":
        add = "def add(a, b):\n    return a * b"
        _cell(notebook, "test_add_visible").source = "pass  # the student removed the test"
    elif kind == "syntax_error":
        add = "def add(a, b)\n    return a + b"
    elif kind == "stderr_output":
        mean = (
            "import sys\n\ndef mean(values):\n"
            "    print('debug: computing mean', file=sys.stderr)\n"
            "    return sum(values) / len(values)"
        )
    _replace_solution(notebook, "add_solution", add)
    _replace_solution(notebook, "mean_solution", mean)
    return notebook


def format_timestamp(when: dt.datetime) -> str:
    """nbgrader's timestamp.txt format (UTC)."""
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def write_submission(
    root, student, kind, *, assignment=FIXTURE_ASSIGNMENT, timestamp=ON_TIME
) -> Path:
    """Write ``submitted/<student>/<assignment>/`` for one student of a kind.

    The release must exist (``stock_generate_assignment`` or ``nbg release``).
    Returns the submitted notebook's path.
    """
    root = Path(root)
    release = root / "release" / assignment / f"{assignment}.ipynb"
    if not release.exists():
        raise FileNotFoundError(f"{release} does not exist: release the assignment first")
    dest = root / "submitted" / student / assignment
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{assignment}.ipynb"
    nbformat.write(student_notebook(release, kind), path)
    if timestamp is not None:
        (dest / "timestamp.txt").write_text(format_timestamp(timestamp))
    return path


def make_class(root, students=None, *, late=()) -> dict:
    """A released fixture course with one submission per student.

    Parameters
    ----------
    root : path
        An empty folder (e.g. pytest's ``tmp_path``).
    students : dict of str to str, optional
        Student id -> submission kind. Default: one student per kind, named
        after the kind.
    late : iterable of str
        Students whose timestamp is after the due date.

    Returns
    -------
    dict of str to str
        The students and their kinds.
    """
    if students is None:
        students = {kind: kind for kind in SUBMISSION_KINDS}
    write_course(root)
    stock_generate_assignment(root)
    late = set(late)
    for student, kind in students.items():
        write_submission(root, student, kind, timestamp=LATE if student in late else ON_TIME)
    honest_times.share(root)  # the honest times of ps_fixture, measured once per test run
    return dict(students)
