"""The rule on ready-made libraries and moved test cells, as cases of the one adversarial class run.

``adversarial_fixtures`` ends with ``CASES.update(cases_scan.CASES)``: the cases below join the class
graded by ``test_adversarial_class.py`` (same :class:`~adversarial_fixtures.Case` format), and the
cases of that file whose outcome the rule changes are restated here with their new outcome (same key).

Scores are derived by hand from the fixture's test cells (posterior 2, count_rows 1, add 1 + 2): an
attack on ``add`` (the last answer) costs exactly its 3 points and leaves the others graded as they
ran; a construct that can rebind names while the notebook runs (``globals()``, ``exec``...) costs every
function with a test cell after it. Two builds are added to ``write_submission`` (wrapped below):
``move_tests`` (the add answer cell moved below its tests) and ``overruled`` (the instructor
overruled the student's finding before grading, in ``overrules.csv``).
"""

from __future__ import annotations

import dataclasses

import adversarial_fixtures as adv
import nbformat

from grading.core import overrules

Case = adv.Case
RULE = ("library rule",)

CASES = {
    # -- attacks on add, the last answer: add's 3 points are lost, the rest is graded as it ran ------------
    "lib_importlib": Case("add delegates through importlib", 3, "flagged", RULE + ("importlib",), answers={
        "add_solution": "import importlib\ndef add(a, b):\n    return importlib.import_module('operator').add(a, b)"}),
    "lib_dunder_import": Case("add delegates through __import__ of a computed string", 3, "flagged",
                              RULE + ("__import__",), answers={
        "add_solution": "def add(a, b):\n    return __import__('oper' + 'ator').add(a, b)"}),
    "lib_getattr": Case("add takes operator's function by a computed name", 3, "flagged",
                        RULE + ("computed name",), answers={
        "add_solution": "import operator\ndef add(a, b):\n    return getattr(operator, 'a' + 'dd')(a, b)"}),
    "lib_estimators": Case("add discovers scikit-learn's estimators", 3, "flagged", RULE + ("sklearn",), answers={
        "add_solution": "from sklearn.utils import all_estimators\ndef add(a, b):\n"
                        "    return a + b if all_estimators(type_filter='classifier') else None"}),
    "lib_exec_defined": Case("add is defined by exec", 3, "flagged", RULE + ("exec",), answers={
        "add_solution": "exec('def a' + 'dd(a, b):\\n    return a + b')"}),
    "lib_exploration_helper": Case("add calls a helper of an exploration cell that uses scikit-learn", 3,
                                   "flagged", RULE + ("through `plus`",),
                                   extra_cell="import sklearn.naive_bayes as nb\ndef plus(a, b):\n"
                                              "    nb.GaussianNB()\n    return a + b",
                                   answers={"add_solution": "def add(a, b):\n    return plus(a, b)"}),
    "lib_globals_injection": Case("add's helper is injected through globals() at the top of its cell", 3,
                                  "flagged", RULE + ("globals()",), answers={
        "add_solution": "globals()['pl' + 'us'] = lambda a, b: a + b\ndef add(a, b):\n    return plus(a, b)"}),
    "lib_module_through_numpy": Case("add reaches the os module through numpy's attributes", 3, "flagged",
                                     RULE + ("the module os",), answers={
        "add_solution": "def add(a, b):\n    np.testing._private.utils.os.getcwd()\n    return a + b"}),
    # -- a construct before every test: every function's points are lost -----------------------------------
    "lib_globals_at_top": Case("globals()-injection in an exploration cell before every test", 0, "flagged",
                               RULE + ("globals()",), extra_cell="globals().update(unused=1)"),
    # -- moved test cells are graded where the instructor put them ------------------------------------------
    "moved_tests": Case("wrong add, moved below its tests, which then saw a correct add of an earlier cell", 3,
                        "flagged", ("moved", "source notebook's order"),
                        extra_cell="def add(a, b):\n    return a + b",
                        answers={"add_solution": "def add(a, b):\n    return a * b"}, build="move_tests"),
    # -- honest controls: full marks, no finding -------------------------------------------------------------
    "honest_names": Case("ordinary names (theta, var, w, b, n, X, y, classes, alpha, rng) at top level", 6, "ok",
                         extra_cell="theta, var = np.ones(2), np.ones(2)\nw, b = np.zeros(2), 0.0\n"
                                    "for n in range(3):\n    X, y = np.ones((n, 2)), np.zeros(n)\n"
                                    "classes, alpha = [0, 1], 1.0\nrng = np.random.default_rng(0)"),
    "honest_sklearn_exploration": Case("an exploration cell imports scikit-learn and plots", 6, "ok",
                                       extra_cell="%matplotlib inline\nimport sklearn\n"
                                                  "from sklearn.naive_bayes import GaussianNB\n"
                                                  "import matplotlib.pyplot as plt\n"
                                                  "print(GaussianNB().fit([[0.0], [1.0]], [0, 1]).predict([[0.2]]))\n"
                                                  "plt.plot([1, 2])\nplt.show()"),
    "overruled": Case("add uses scikit-learn, and the instructor overruled the finding", 6, "ok", ("overruled",),
                      answers={"add_solution": "import sklearn\ndef add(a, b):\n    return a + b + 0 * len(sklearn.__name__)"},
                      build="overruled"),
}

# Cases of adversarial_fixtures whose outcome the rule changes (same key, new expectation).
_RESTATED = {
    # add reads frames, inspect, gc or the bridge: code the grader cannot read (add was wrong: no point lost)
    **{key: {"status": "flagged", "reason": RULE}
       for key in ("frame_locals", "inspect_stack", "traceback_locals", "gc_objects")},
    "forged_serve_prompt": {"status": "flagged", "reason": RULE},
    # posterior's code can rebind anything while the notebook runs: every later test counts 0
    **{key: {"score": 0, "status": "flagged", "reason": RULE}
       for key in ("array_protocol", "sys_modules_reference", "encoded_import", "exec_encoded", "default_argument",
                   "callable_instance", "vars_update", "dict_update", "prints_cell_sources")},
    # add (1 point on its visible test) used sys.modules or builtins, or scikit-learn
    **{key: {"score": 3, "status": "flagged", "reason": RULE}
       for key in ("sys_modules_get_patch", "patches_builtins", "imports_sklearn_nb")},
    # blank answers and a kernel take-over: still 0, now also flagged
    **{key: {"status": adv.CASES[key].status + "|flagged"}
       for key in ("input_transformer", "ast_transformer", "pre_run_cell_result", "replaces_run_cell", "settrace",
                   "custom_exc", "payload_module")},
    **{key: {"status": "flagged", "reason": RULE} for key in ("replaces_bridge", "replaces_raw_input")},
    # blank answers and an exec of code read or fetched at run time (which the sandbox stops): flagged
    # (the rule's finding comes first), and the reason still says what the sandbox stopped
    **{key: {"status": "flagged", "reason": adv.CASES[key].reason + RULE}
       for key in ("reads_solutions", "reads_classmate", "network")},
}
CASES.update({key: dataclasses.replace(adv.CASES[key], **change) for key, change in _RESTATED.items()})

_write_submission = adv.write_submission


def write_submission(root, student, case, port=0):
    """``adversarial_fixtures.write_submission``, with the builds ``move_tests`` and ``overruled``."""
    folder = _write_submission(root, student, case, port=port)
    path = folder / f"{adv.ASSIGNMENT}.ipynb"
    if case.build == "move_tests":  # the add answer cell goes to the end, below its tests
        notebook = nbformat.read(path, as_version=4)
        answer = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add_solution"]
        notebook.cells = [c for c in notebook.cells if all(c is not a for a in answer)] + answer
        nbformat.write(notebook, path)
    elif case.build == "overruled":
        course = type("CourseRoot", (), {"root": root})()
        recorded = [o for o in overrules.read_overrules(course) if o.student != student]
        overrules.write_overrules(course, [*recorded, overrules.Overrule(
            adv.ASSIGNMENT, student, "add", "scikit-learn is only named, not used", "2026-11-25T00:00:00+00:00")])
    return folder


adv.write_submission = write_submission
