"""A small assignment and one class of adversarial submissions, built in code.

The assignment ``ps_adv`` has one notebook with a locked setup cell
(``import numpy as np``), a data file ``data.csv`` (3 rows), and three answers,
each followed by its tests (6 points in all):

==================  =====================================================  ======
answer              test cells                                             points
==================  =====================================================  ======
``posterior``       ``test_posterior`` (assert_allclose, inputs unchanged)  2
``count_rows``      ``test_count_rows`` (rows of the grader's data.csv)     1
``add``             ``test_add`` (visible), ``test_add_hidden`` (hidden,    1 + 2
                    passes add a function it must not call)
==================  =====================================================  ======

:data:`CASES` maps each submission kind to what the student did and the
expected outcome: the score (derived by hand from the test cells below), the
status in the grading log, and words the reason must contain. Attacks that
would succeed without the sandbox are built so that success would *raise* the
score (they read the solutions, fetch answers from the network, rewrite the
gradebook), so "no undeserved points" is a real check.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/grading: the shared fixtures
import fixtures  # noqa: E402
from tests import honest_times  # noqa: E402

ASSIGNMENT = "ps_adv"
MAX_SCORE = 6.0
CELL_TIMEOUT = 5  # every wait for a timeout costs this, twice (the notebook is graded again alone)
DATA_CSV = "1,2\n3,4\n5,6\n"


def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _code(source, grade_id, **kw):
    return new_code_cell(textwrap.dedent(source).strip(), metadata=_meta(grade_id, **kw), id=grade_id)


POSTERIOR = '''
def posterior(prior, likelihood):
    """Posterior over hypotheses: prior times likelihood, normalised."""
    ### BEGIN SOLUTION
    scores = np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float)
    return scores / scores.sum()
    ### END SOLUTION
'''
COUNT_ROWS = '''
def count_rows():
    """Number of rows of data.csv."""
    ### BEGIN SOLUTION
    return len(np.loadtxt("data.csv", delimiter=",", ndmin=2))
    ### END SOLUTION
'''
ADD = '''
def add(a, b):
    """Return a + b."""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION
'''
TEST_POSTERIOR = '''
"""Check posterior on the worked example, on arrays, and that it leaves its arguments alone."""
np.testing.assert_allclose(posterior([0.5, 0.5], [0.2, 0.6]), [0.25, 0.75],
                           err_msg="posterior([0.5, 0.5], [0.2, 0.6]) should be [0.25, 0.75]")
prior = [0.5, 0.5]
posterior(prior, [0.2, 0.6])
for got, want in zip(prior, [0.5, 0.5]):
    assert got == want, "posterior should leave its prior unchanged"
prior, likelihood = np.array([0.3, 0.7]), np.array([0.5, 0.1])
result = posterior(prior, likelihood)
np.testing.assert_allclose(result, prior * likelihood / np.sum(prior * likelihood),
                           err_msg="posterior should be prior * likelihood, normalised")
'''
TEST_COUNT_ROWS = '''
"""Check count_rows against the rows of the assignment's data.csv."""
with open("data.csv") as data_file:
    expected_rows = len(data_file.read().splitlines())
assert count_rows() == expected_rows, f"data.csv has {expected_rows} rows"
'''
TEST_ADD = '''
"""Check add on the example."""
assert add(2, 3) == 5, "add(2, 3) should be 5"
'''
TEST_ADD_HIDDEN = '''
"""Check add on negative and fractional numbers."""
### BEGIN HIDDEN TESTS
assert add(-1, 1) == 0, "add(-1, 1) should be 0"
assert abs(add(0.5, 0.25) - 0.75) < 1e-12, "add(0.5, 0.25) should be 0.75"
calls = []
def probe(n=0):
    """A function add must not call (it counts to n)."""
    calls.append(n)
    total = 0
    for _ in range(int(n)):
        total += 1
    return total
try:
    add(probe, 1)
except TypeError:
    pass
assert not calls, "add should not call its arguments"
### END HIDDEN TESTS
'''


def source_notebook():
    cells = [
        new_markdown_cell("# Adversarial fixture", metadata=_meta("intro", locked=True), id="intro"),
        _code("import numpy as np", "setup", locked=True),
        _code(POSTERIOR, "posterior_solution", solution=True),
        _code(TEST_POSTERIOR, "test_posterior", grade=True, locked=True, points=2),
        _code(COUNT_ROWS, "count_rows_solution", solution=True),
        _code(TEST_COUNT_ROWS, "test_count_rows", grade=True, locked=True, points=1),
        _code(ADD, "add_solution", solution=True),
        _code(TEST_ADD, "test_add", grade=True, locked=True, points=1),
        _code(TEST_ADD_HIDDEN, "test_add_hidden", grade=True, locked=True, points=2),
    ]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


PERFECT = {
    "posterior_solution": "def posterior(prior, likelihood):\n    scores = np.asarray(prior) * np.asarray(likelihood)\n"
                          "    return scores / scores.sum()",
    "count_rows_solution": "def count_rows():\n    return len(np.loadtxt('data.csv', delimiter=',', ndmin=2))",
    "add_solution": "def add(a, b):\n    return a + b",
}
BLANK = {key: f"def {key.split('_solution')[0]}(*args):\n    raise NotImplementedError()" for key in PERFECT}


@dataclasses.dataclass
class Case:
    """One adversarial submission and its expected outcome."""

    what: str
    score: float
    status: str  # alternatives separated by "|"
    reason: tuple = ()  # words the reason must contain (lower case; "a|b": either)
    answers: dict = dataclasses.field(default_factory=dict)  # solution grade_id -> source
    base: dict = dataclasses.field(default_factory=lambda: PERFECT)
    extra_cell: str = ""  # a cell the student added after the setup cell
    build: str = ""  # a special way to write the submission (see write_submission)


def _add_first(code):
    return code + "\n" + PERFECT["add_solution"]


def _wrong_add(body):
    """An add that is wrong (a * b) unless ``body`` finds the expected value somewhere."""
    return "def add(a, b):\n" + textwrap.indent(textwrap.dedent(body).strip(), "    ") + "\n    return a * b"


# Attacks on the trust boundary (issue 10), one family at a time. Each would earn
# points if the tests ran in the student's kernel; in the judge they earn none.
_SEEK_EXPECTED = """
import sys
frame = sys._getframe(1)
while frame is not None:
    for name, value in frame.f_locals.items():
        if name in ('expected', 'desired', 'want', 'reference') and isinstance(value, (int, float)):
            return value
    frame = frame.f_back
"""
_HOOKS_BLANK = "get_ipython().{0}"
TRUST_BOUNDARY_CASES = {
    # reading the answer from the test itself
    "frame_locals": Case("add reads the caller's frame locals", 3, "ok",
                         answers={"add_solution": _wrong_add(_SEEK_EXPECTED)}),
    "inspect_stack": Case("add searches inspect.stack() for the expected value", 3, "ok", answers={
        "add_solution": _wrong_add("""
import inspect
for info in inspect.stack():
    for value in info.frame.f_locals.values():
        if isinstance(value, (int, float)) and value in (5, 0, 0.75):
            return value
""")}),
    "traceback_locals": Case("add raises, then walks the traceback's frames", 3, "ok", answers={
        "add_solution": _wrong_add("""
import sys
try:
    raise RuntimeError
except RuntimeError:
    frame = sys.exc_info()[2].tb_frame
    while frame is not None:
        if 'expected' in frame.f_locals:
            return frame.f_locals['expected']
        frame = frame.f_back
""")}),
    "gc_objects": Case("add takes a float from gc.get_objects()", 3, "ok", answers={
        "add_solution": _wrong_add("""
import gc
for obj in gc.get_objects():
    if isinstance(obj, dict) and 'expected' in obj and isinstance(obj['expected'], (int, float)):
        return obj['expected']
""")}),
    "array_protocol": Case("posterior returns an object whose __array__ looks for the expected array", 4, "ok",
                           answers={"posterior_solution": """
import sys
class Sneaky:
    def __array__(self, dtype=None, copy=None):
        frame = sys._getframe(1)
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, np.ndarray) and value.shape == (2,):
                    return value
            frame = frame.f_back
        return np.zeros(2)
def posterior(prior, likelihood):
    return Sneaky()"""}),
    # reaching the reference without an import statement
    "sys_modules_reference": Case("posterior takes nbcore from sys.modules", 4, "ok", answers={
        "posterior_solution": "import sys\ndef posterior(prior, likelihood):\n"
                              "    return sys.modules['nbcore'].posterior(prior, likelihood)"}),
    "encoded_import": Case("posterior imports nbcore through __import__ of a hex string", 4, "ok", answers={
        "posterior_solution": "def posterior(prior, likelihood):\n"
                              "    module = __import__(bytes.fromhex('6e62636f7265').decode())\n"
                              "    return module.posterior(prior, likelihood)"}),
    "exec_encoded": Case("exec of a base64 'from nbcore import posterior'", 4, "ok", answers={
        "posterior_solution": "import base64\nexec(base64.b64decode('ZnJvbSBuYmNvcmUgaW1wb3J0IHBvc3Rlcmlvcg==').decode())"}),
    "default_argument": Case("posterior gets nbcore through a default argument", 4, "ok", answers={
        "posterior_solution": "def posterior(prior, likelihood, _m=__import__('importlib').import_module('nb' + 'core')):\n"
                              "    return _m.posterior(prior, likelihood)"}),
    "callable_instance": Case("posterior is a callable instance that delegates", 4, "ok", answers={
        "posterior_solution": "class Delegate:\n    def __call__(self, prior, likelihood):\n"
                              "        return __import__('nb' + 'core').posterior(prior, likelihood)\nposterior = Delegate()"}),
    # tampering in forms the scan does not know
    "vars_update": Case("wrong posterior; vars(np.testing).update(assert_allclose=...)", 4, "ok|flagged", answers={
        "posterior_solution": "vars(np.testing).update(assert_allclose=lambda *a, **k: None)\n"
                              "def posterior(prior, likelihood):\n    return prior"}),
    "dict_update": Case("wrong posterior; np.testing.__dict__.update(...)", 4, "ok|flagged", answers={
        "posterior_solution": "np.testing.__dict__.update(assert_allclose=lambda *a, **k: None)\n"
                              "def posterior(prior, likelihood):\n    return prior"}),
    "sys_modules_get_patch": Case("wrong add; sys.modules.get('nbkit.testing').check_array = ...", 4, "ok|flagged",
                                  answers={"add_solution": "import sys, nbkit.testing\n"
                                           "setattr(sys.modules.get('nbkit.testing'), 'check_array', lambda *a, **k: None)\n"
                                           "def add(a, b):\n    return a * b if a != 2 else 5"}),
    # taking over the kernel (blank answers: any point would be undeserved)
    "input_transformer": Case("blank answers; an input transformer empties every later cell", 0, "ok|blocked",
                              base=BLANK, extra_cell="get_ipython().input_transformers_post.append(lambda lines: [])"),
    "ast_transformer": Case("blank answers; an AST transformer drops every statement", 0, "ok|blocked", base=BLANK,
                            extra_cell="import ast\nclass Empty(ast.NodeTransformer):\n"
                                       "    def visit_Module(self, node):\n        node.body = []\n        return node\n"
                                       "get_ipython().ast_transformers.append(Empty())"),
    "pre_run_cell_result": Case("blank answers; a pre_run_cell hook emits an execute_result", 0, "ok|blocked",
                                base=BLANK, extra_cell=(
                                    "from IPython.display import publish_display_data\n"
                                    "def hook(info):\n    publish_display_data({{'text/plain': 'full credit'}})\n"
                                    "get_ipython().events.register('pre_run_cell', hook)")),
    "replaces_run_cell": Case("blank answers; replaces run_cell", 0, "ok|blocked|timeout|kernel_died", base=BLANK,
                              extra_cell="get_ipython().run_cell = lambda *args, **kwargs: None"),
    "settrace": Case("blank answers; sys.settrace rewrites locals named 'result'", 0, "ok|blocked|kernel_died",
                     base=BLANK,
                     extra_cell=("import sys\ndef tracer(frame, event, arg):\n"
                                 "    if 'result' in frame.f_locals:\n        frame.f_locals['result'] = 5\n"
                                 "    return tracer\nsys.settrace(tracer)")),
    "custom_exc": Case("blank answers; set_custom_exc swallows every exception", 0, "ok|blocked", base=BLANK,
                       extra_cell="get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)"),
    "payload_module": Case("blank answers; the custom_exc payload in a submitted helper.py", 0, "ok|blocked",
                           base=BLANK, extra_cell="import helper", build="payload_module"),
    "startup_file": Case("blank answers; an IPython startup file replaces run_cell", 0, "blocked", (".ipython",),
                         base=BLANK,
                         build="startup_file"),
    # the grader's bridge in the kernel: forged answers are only the student's own return values
    "forged_serve_prompt": Case("wrong add that sends a forged answer prompt to desynchronise the bridge", 3,
                                "ok", answers={"add_solution": _wrong_add("""
import builtins, json
builtins.input("\\x00nbg-serve\\x00" + json.dumps({"ok": True, "value": {"t": "int", "v": "0"}}))
""")}),
    "replaces_bridge": Case("blank answers; the bridge's serve loop replaced by one that answers 0 to everything",
                            0, "ok", base=BLANK, extra_cell=(
                                "import builtins, json\n"
                                "def serve():\n"
                                "    answer = {{'ready': True}}\n"
                                "    while True:\n"
                                "        request = json.loads(builtins.input('\\x00nbg-serve\\x00' + json.dumps(answer)))\n"
                                "        if request.get('op') == 'describe':\n"
                                "            answer = {{'kind': 'function'}}\n"
                                "        elif request.get('op') == 'call':\n"
                                "            answer = {{'ok': True, 'value': {{'t': 'int', 'v': '0'}}}}\n"
                                "        else:\n"
                                "            return\n"
                                "try:\n    __nbg_bridge__.serve = serve\nexcept NameError:\n    pass")),
    "replaces_raw_input": Case("blank answers; the kernel's raw_input replaced to end every serve loop", 0,
                               "ok", base=BLANK,
                               extra_cell="get_ipython().kernel.raw_input = lambda prompt='': '{{\"op\": \"end\"}}'"),
    # leaking the hidden tests
    "prints_cell_sources": Case("a hook prints the source of every cell it sees", 6, "ok", extra_cell=(
        "get_ipython().events.register('pre_run_cell', lambda info: print('SOURCE:', info.raw_cell))")),
    # crashing the grader
    "lone_surrogate": Case("a lone surrogate in a cell and in its output", 6, "ok",
                           extra_cell="text = '\\ud800'\nprint('x' + '\ud800')", build="ascii_json"),
    "deep_expression": Case("a 150,000-term expression in a cell", 6, "ok|flagged|timeout",
                            extra_cell="total = " + " + ".join(["1"] * 150_000)),
    "source_not_string": Case("a cell whose source is a number", 0, "invalid_notebook", build="source_number"),
    "x" * 51: Case("a correct submission from a 51-character student id", 6, "ok"),
    # host resources
    "fills_shm": Case("writes 4 GiB to /dev/shm", 6, "ok|blocked", extra_cell=(
        "try:\n    with open('/dev/shm/fill', 'wb') as out:\n        for _ in range(4096):\n"
        "            out.write(b'0' * 2**20)\nexcept OSError as error:\n    print('stopped:', error)")),
    "many_sleeps": Case("a notebook of many sleep(3) cells, each under the cell timeout", 0, "timeout",
                        ("in total",), base=BLANK, build="many_sleeps"),
    "reads_environ": Case("prints every /proc/*/environ it can read", 6, "ok", extra_cell=(
        "import glob\nfor path in glob.glob('/proc/*/environ'):\n    try:\n"
        "        print(path, open(path, 'rb').read()[:2000])\n    except OSError:\n        pass")),
}


# The placeholders {ROOT} (the course root) and {PORT} (a local HTTP server
# that serves the perfect answers) are filled in when the class is written.
CASES = {
    "good": Case("a correct submission, graded in the same run", 6, "ok"),
    "infinite_loop": Case("`while True: pass` in the add cell", 3, "timeout", ("add_solution", "timed out"),
                          {"add_solution": _add_first("while True:\n    pass")}),
    "sleeps": Case("time.sleep past the timeout", 3, "timeout", ("timed out",),
                   {"add_solution": _add_first("import time\ntime.sleep(600)")}),
    "ignores_interrupt": Case("ignores SIGINT, then sleeps", 3, "kernel_died", ("did not stop when interrupted",),
                              {"add_solution": _add_first(
                                  "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(600)")}),
    "memory_hog": Case("allocates memory until it fails", 3, "blocked", ("out of memory",),
                       {"add_solution": _add_first("hog = []\nwhile True:\n    hog.append(bytearray(50_000_000))")}),
    "fork_bomb": Case("forks until it fails", 3, "blocked", ("more processes",),
                      {"add_solution": _add_first(
                          "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)")}),
    "os_exit": Case("os._exit(1)", 3, "kernel_died", ("exit code 1", "add_solution"),
                    {"add_solution": _add_first("import os\nos._exit(1)")}),
    "sys_exit": Case("sys.exit()", 3, "blocked", ("sys.exit",),
                     {"add_solution": _add_first("import sys\nsys.exit(0)")}),
    "kills_kernel": Case("kills its own kernel process", 3, "kernel_died", ("kernel died", "add_solution"),
                         {"add_solution": _add_first("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")}),
    # Whichever comes first stops it: the grader's output cap, or the kernel's memory
    # limit (its unsent output queues up in the kernel).
    "output_flood": Case("prints without end", 3, "kernel_died|blocked", ("bytes of output|out of memory",),
                         {"add_solution": _add_first("while True:\n    print('x' * 10000)")}),
    "gradebook_write": Case("blank answers; rewrites its scores in gradebook.db", 0, "blocked", ("database",),
                            base=BLANK, extra_cell=(
                                "import sqlite3\nfor path in ['{ROOT}/gradebook.db', '../../../gradebook.db']:\n"
                                "    db = sqlite3.connect(path)\n"
                                "    db.execute('UPDATE grade SET auto_score = 99')\n    db.commit()")),
    "reads_solutions": Case("blank answers; runs the source notebook's solutions", 0, "blocked",
                            ("outside its own folder",), base=BLANK, extra_cell=(
                                "import json\nsource = json.load(open('{ROOT}/source/ps_adv/ps_adv.ipynb'))\n"
                                "for cell in source['cells']:\n"
                                "    if cell['metadata'].get('nbgrader', {{}}).get('solution'):\n"
                                "        exec(''.join(cell['source']))")),
    "reads_classmate": Case("blank answers; runs a classmate's answers", 0, "blocked", ("outside its own folder",),
                            base=BLANK, extra_cell=(
                                "import json\nnb = json.load(open('{ROOT}/submitted/good/ps_adv/ps_adv.ipynb'))\n"
                                "for cell in nb['cells']:\n"
                                "    if cell['metadata'].get('nbgrader', {{}}).get('solution'):\n"
                                "        exec(''.join(cell['source']))")),
    "network": Case("blank answers; downloads answers from a server", 0, "blocked", ("network",),
                    base=BLANK, extra_cell=(
                        "import urllib.request\n"
                        "exec(urllib.request.urlopen('http://127.0.0.1:{PORT}/answers.py', timeout=3).read())")),
    "edits_test_cell": Case("wrong add; test_add replaced by `pass`", 3, "flagged", ("test_add", "edited"),
                            {"add_solution": "def add(a, b):\n    return a * b"}, build="edit_test"),
    "deletes_test_cell": Case("add fails the hidden test, which it deletes", 4, "flagged",
                              ("test_add_hidden", "deleted"),
                              {"add_solution": "def add(a, b):\n    return abs(a) + abs(b)"}, build="delete_test"),
    "deletes_answer_cell": Case("deletes the add answer cell", 3, "flagged", ("add_solution", "deleted"),
                                build="delete_answer"),
    "always_equal": Case("add returns an object equal to anything", 3, "flagged", ("compares equal",),
                         {"add_solution": "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
                                          "    def __sub__(self, other):\n        return 0\n\n"
                                          "def add(a, b):\n    return Anything()"}),
    "patches_numpy_testing": Case("wrong posterior; numpy.testing.assert_allclose replaced", 4, "flagged",
                                  ("numpy.testing.assert_allclose",),
                                  {"posterior_solution": "np.testing.assert_allclose = lambda *args, **kwargs: None\n"
                                                         "def posterior(prior, likelihood):\n    return prior"}),
    "patches_builtins": Case("wrong add; builtins.abs replaced", 4, "flagged", ("builtins.abs",),
                             {"add_solution": "import builtins\nbuiltins.abs = lambda x: 0\n"
                                              "def add(a, b):\n    return a * b if a != 2 else 5"}),
    "imports_nbcore": Case("posterior imported from nbcore (not in the kernel)", 4, "flagged", ("nbcore",),
                           {"posterior_solution": "from nbcore.estimation import posterior"}),
    # The scan flags for review; the answer is right and the judge gives its points.
    "imports_sklearn_nb": Case("add built on sklearn.naive_bayes", 6, "flagged", ("sklearn.naive_bayes",),
                               {"add_solution": "import sklearn.naive_bayes as nb\n"
                                                "def add(a, b):\n    return a + b + 0 * len(nb.__name__)"}),
    "shadows_numpy": Case("wrong posterior; submits a numpy.py with a lenient testing", 4, "blocked",
                          ("numpy.py",), {"posterior_solution": "def posterior(prior, likelihood):\n    return prior"},
                          build="numpy_py"),
    "overwrites_data": Case("count_rows returns 1 and submits a 1-row data.csv", 5, "ok",
                            answers={"count_rows_solution": "def count_rows():\n    return 1"}, build="data_csv"),
    "symlink_gradebook": Case("blank answers; a gradebook.db symlink it edits", 0, "blocked",
                              ("symbolic link",), base=BLANK, extra_cell=(
                                  "import sqlite3\ndb = sqlite3.connect('gradebook.db')\n"
                                  "db.execute('UPDATE grade SET auto_score = 99')\ndb.commit()"),
                              build="symlink_gradebook"),
    "symlink_notebook": Case("the notebook is a symlink to the source notebook", 0, "invalid_notebook",
                             ("symbolic link",), build="symlink_notebook"),
    "not_json": Case("a notebook that is not valid JSON", 0, "invalid_notebook", ("not a readable notebook",),
                     build="not_json"),
    "empty_file": Case("an empty file", 0, "invalid_notebook", ("not a readable notebook",), build="empty"),
    "old_nbformat": Case("a correct notebook saved as nbformat 3", 6, "ok", build="nbformat3"),
    "wrong_name": Case("a correct notebook named 'ps_adv (1).ipynb'", 0, "missing", ("ps_adv (1).ipynb",),
                       build="wrong_name"),
    "missing_notebook": Case("no notebook at all", 0, "missing", ("no ps_adv.ipynb",), build="missing"),
    "other_kernel": Case("a correct notebook whose metadata names another kernel", 6, "ok", build="other_kernel"),
    **TRUST_BOUNDARY_CASES,

}


def scan_notebook_fixture(tests, posterior, add, *, setup="import numpy as np", extra=None, end=None):
    """The hand-built notebook of the static scan's tests: ``setup`` (locked), the answers ``posterior``
    and ``add``, each followed by its locked test cells (``tests``: ``test_posterior``, ``test_add``,
    ``test_add_hidden`` -> source); ``extra`` is a cell after the setup, ``end`` a last cell.

    Shared by ``test_adversarial_scan.py`` and ``tests/grading/test_library_rule.py`` (which differ
    in their test cells); nothing is run."""
    def cell(source, grade_id, **flags):
        return new_code_cell(source, metadata=_meta(grade_id, **flags))

    cells = [
        cell(setup, "setup", locked=True),
        cell(posterior, "posterior_solution", solution=True),
        cell(tests["test_posterior"], "test_posterior", grade=True, locked=True),
        cell(add, "add_solution", solution=True),
        cell(tests["test_add"], "test_add", grade=True, locked=True),
        cell(tests["test_add_hidden"], "test_add_hidden", grade=True, locked=True),
    ]
    if extra is not None:
        cells.insert(1, new_code_cell(extra))
    if end is not None:
        cells.append(new_code_cell(end))
    return new_notebook(cells=cells)


def write_course(root) -> Path:
    """The course root with ``ps_adv``'s source (notebook and data.csv), released."""
    root = Path(root)
    source = root / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    nbformat.write(source_notebook(), source / f"{ASSIGNMENT}.ipynb")
    (source / "data.csv").write_text(DATA_CSV)
    (root / "nbgrader_config.py").write_text(f"c = get_config()\nc.Execute.timeout = {CELL_TIMEOUT}\n")
    shutil.copy(fixtures._empty_gradebook(), root / "gradebook.db")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{(root / 'gradebook.db').resolve()}") as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=fixtures.DUEDATE)
    fixtures.stock_generate_assignment(root, ASSIGNMENT)
    return honest_times.share(root)  # ps_adv's honest times, measured once per test run


def _student_notebook(root, case: Case, port: int):
    release = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    answers = {**case.base, **case.answers}
    cells = []
    for cell in release.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
        cells.append(cell)
        if grade_id == "setup" and case.extra_cell:
            cells.append(new_code_cell(case.extra_cell.format(ROOT=root.resolve(), PORT=port)))
    release.cells = cells
    return release


def write_submission(root, student, case: Case, port=0):
    """Write ``submitted/<student>/ps_adv/`` for one case (see :data:`CASES`)."""
    root = Path(root)
    folder = root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(fixtures.format_timestamp(fixtures.ON_TIME))
    path = folder / f"{ASSIGNMENT}.ipynb"
    notebook = _student_notebook(root, case, port)
    build = case.build
    if build == "edit_test":
        next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_add").source = "pass"
    elif build in ("delete_test", "delete_answer"):
        gone = "test_add_hidden" if build == "delete_test" else "add_solution"
        notebook.cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") != gone]
    elif build == "numpy_py":
        (folder / "numpy.py").write_text(
            "import sys\nsys.path.remove(sys.path[0]) if sys.path and sys.path[0] in ('', '.') else None\n"
            "class testing:\n    @staticmethod\n    def assert_allclose(*args, **kwargs):\n        pass\n"
            "def loadtxt(*args, **kwargs):\n    return [0, 0, 0]\n"
        )
    elif build == "data_csv":
        (folder / "data.csv").write_text("9,9\n")
    elif build == "symlink_gradebook":
        os.symlink((root / "gradebook.db").resolve(), folder / "gradebook.db")
    elif build == "payload_module":
        (folder / "helper.py").write_text(
            "get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)\n")
    elif build == "startup_file":
        startup = folder / ".ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-takeover.py").write_text("get_ipython().run_cell = lambda *args, **kwargs: None\n")
    elif build == "source_number":
        notebook.cells[2].source = 12345
    elif build == "many_sleeps":
        notebook.cells[2:2] = [new_code_cell("import time\ntime.sleep(3)") for _ in range(8)]
    elif build == "other_kernel":
        notebook.metadata["kernelspec"] = {"name": "evil", "display_name": "Evil", "language": "python"}
    if build == "symlink_notebook":
        os.symlink((root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").resolve(), path)
    elif build == "not_json":
        path.write_text('{"cells": [ {not json')
    elif build == "empty":
        path.write_text("")
    elif build in ("source_number", "ascii_json"):  # JSON escapes carry what UTF-8 cannot (lone surrogates)
        import json

        path.write_text(json.dumps(notebook, ensure_ascii=True))
    elif build == "nbformat3":
        nbformat.write(nbformat.convert(notebook, 3), str(path), version=3)
    elif build == "wrong_name":
        nbformat.write(notebook, folder / f"{ASSIGNMENT} (1).ipynb")
    elif build == "missing":
        (folder / "notes.txt").write_text("I could not finish.")
    else:
        nbformat.write(notebook, path)
    return folder


def answers_server():
    """A local HTTP server serving the perfect answers as ``/answers.py``; (server, port)."""
    import http.server
    import threading

    body = "\n".join(PERFECT.values()).replace("np.", "__import__('numpy').").encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def gradebook_rows(root) -> dict:
    """student -> {grade cell: auto score}, read with sqlite3 directly (not through nbgrader)."""
    import sqlite3

    with sqlite3.connect(Path(root) / "gradebook.db") as db:
        rows = db.execute(
            "SELECT student.id, base_cell.name, grade.auto_score FROM grade "
            "JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id "
            "JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id "
            "JOIN student ON submitted_assignment.student_id = student.id "
            "JOIN base_cell ON grade.cell_id = base_cell.id"
        ).fetchall()
    table = {}
    for student, cell, score in rows:
        table.setdefault(student, {})[cell] = score
    return table


__all__ = ["ASSIGNMENT", "CASES", "Case", "write_course", "write_submission", "answers_server",
           "gradebook_rows", "scan_notebook_fixture"]

import cases_scan  # noqa: E402  (the rule on ready-made libraries and moved test cells)
CASES.update(cases_scan.CASES)
import cases_judge  # noqa: E402 (the judge's bounds, issue 20; it imports Case from here)
CASES.update(cases_judge.CASES)
CASES.update(__import__("cases_run").CASES)  # issue 20: forged incidents, slow notebooks, replayed inputs
CASES.update(__import__("cases_secrets").CASES)  # issue 32: the course secret, the honest-time cache
