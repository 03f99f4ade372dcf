"""The judge and the bridge: test cells run outside the student's kernel, on plain data.

One small notebook executed by nbg's executor, with a real kernel and a real judge
process (sandboxed, as graded), whose test cells probe each rule of the bridge.
"""

import nbformat
import pytest

from grading.execution.kernel import execute_notebook
from grading.execution.limits import Limits
from grading.execution.sandbox.bubblewrap import sandbox_available

pytestmark = pytest.mark.slow

ANSWERS = '''
import numpy as np
import pandas as pd
def double_in_place(x):
    x *= 2
    return x
def appends(items, table):
    items.append("added")
    table["new"] = 1
    return len(items)
def copies(x):
    x = x.copy()
    x *= 2
    return x
def fails(x):
    raise ValueError(f"bad {x}")
def custom_failure():
    class Oops(Exception):
        pass
    raise Oops("custom")
def hangs():
    import time
    time.sleep(100)
def optimise(gradient, start):
    return gradient(start) + 1
def as_series():
    return pd.Series([1.0, 2.0])
def not_plain():
    return object()
def noisy():
    import sys, warnings
    print("debug", file=sys.stderr)
    warnings.warn("careful")
    return np.log(0.0)
answer = 42
'''

TESTS = {
    # an argument changed in place fails the test; the judge's own copy never changes
    "in_place": "import numpy as np\nx = np.arange(3.0)\nr = double_in_place(x)\n"
                "print(r.tolist(), x.tolist(), answer)",
    "list_in_place": "docs = ['a b', 'c']\ntable = {}\nprint(appends(docs, table), docs, table)",
    "kwarg_in_place": "docs = ['a b', 'c']\nappends(items=list(docs), table={'k': 0})",
    # ... even when the test catches every exception, and computes its expected value afterwards
    "in_place_caught": "import numpy as np\nx = np.arange(3.0)\ntry:\n    r = double_in_place(x)\n"
                       "except Exception:\n    r = 2 * x\nassert np.allclose(r, 2 * x)\nprint(x.tolist())",
    "unchanged_copy": "import numpy as np\nx = np.arange(3.0)\nprint(copies(x).tolist(), x.tolist())",
    # builtin exceptions keep their type (pytest.raises-style tests work)
    "builtin_exception": "try:\n    fails(3)\nexcept ValueError as error:\n    print('caught', error)",
    "uncaught": "fails(4)",
    "custom_exception": "custom_failure()",
    # a callable passed by the test runs in the judge (e.g. a reference gradient)
    "callback": "print(optimise(lambda v: v * 10, 2.0))",
    # the student's own function passed to another of theirs runs in the kernel
    "student_function_argument": "print(optimise(double_in_place, 2.0))",
    # a call past the cell's time is interrupted; the kernel still answers afterwards
    "timeout": "hangs()",
    "after_timeout": "print(answer)",
    "pandas_result": "print(type(as_series()).__name__)",
    "not_plain": "not_plain()",
    # what the student's function prints or warns never reaches the test cell
    "noisy": "print(noisy())",
    # np from the setup cell: the judge imports its own numpy
    "module_from_setup": "print(np.__name__)",
    "reference_available": "import nbcore\nprint(nbcore.posterior([0.5, 0.5], [0.2, 0.6]).round(6).tolist())",
}


def _test_cell(grade_id, source):
    meta = {"grade": True, "solution": False, "grade_id": grade_id, "points": 1, "locked": True,
            "schema_version": 3}
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    available, why = sandbox_available()
    assert available, why
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(ANSWERS)]
                                        + [_test_cell(name, source) for name, source in TESTS.items()])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    scratch = tmp_path_factory.mktemp("scratch")
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(cell_timeout=8), sandbox="bubblewrap")
    cells = nbformat.reads(result.notebook_json, 4).cells[1:]
    outputs = {}
    for name, cell in zip(TESTS, cells):
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        errors = [(o.ename, o.evalue) for o in cell.outputs if o.output_type == "error"]
        outputs[name] = (text, errors)
    return result, outputs


def test_status_is_ok(judged):
    result, _ = judged
    assert result.status == "ok", result.reason


@pytest.mark.parametrize("name, text, error", [
    ("in_place", "", ("Error", "double_in_place changed its argument x in place (the caller's array); "
                              "compute on a copy")),
    ("list_in_place", "", ("Error", "appends changed its argument items in place (the caller's list)")),
    ("kwarg_in_place", "", ("Error", "appends changed its argument items in place (the caller's list)")),
    ("in_place_caught", "[0.0, 1.0, 2.0]\n", ("Error", "double_in_place changed its argument x in place")),
    ("unchanged_copy", "[0.0, 2.0, 4.0] [0.0, 1.0, 2.0]\n", None),
    ("builtin_exception", "caught bad 3\n", None),
    ("uncaught", "", ("ValueError", "bad 4")),
    ("custom_exception", "", ("Error", "custom_failure raised Oops: custom")),
    ("callback", "21.0\n", None),
    ("student_function_argument", "5.0\n", None),
    ("timeout", "", ("Error", "past the time limit")),
    ("after_timeout", "42\n", None),
    ("pandas_result", "ndarray\n", None),
    ("not_plain", "", ("TypeError", "not_plain returned a object; return numbers")),
    ("noisy", "-inf\n", None),
    ("module_from_setup", "numpy\n", None),
    ("reference_available", "[0.25, 0.75]\n", None),
])
def test_each_rule_of_the_bridge(judged, name, text, error):
    _, outputs = judged
    got_text, errors = outputs[name]
    assert got_text == text, (name, outputs[name])
    if error is None:
        assert errors == [], (name, errors)
    else:
        assert len(errors) == 1 and errors[0][0] == error[0] and error[1] in errors[0][1], (name, errors)


def test_no_test_cell_runs_in_the_kernel(tmp_path):
    """A test that would pass only in the student's kernel (it reads the kernel's state directly)."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import sys\nSECRET_IN_KERNEL = 1"),
        _test_cell("t", "import sys\nprint('nbcore' in sys.modules, 'SECRET_IN_KERNEL' in globals())"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    result = execute_notebook(nbformat.writes(notebook), tmp_path, limits=Limits(cell_timeout=30),
                              sandbox="none")
    assert result.status == "ok", result.reason
    cell = nbformat.reads(result.notebook_json, 4).cells[1]
    # The judge preloads nbcore; `globals()` is the judge's namespace, which has no kernel variables.
    assert [o.get("text") for o in cell.outputs] == ["True False\n"], cell.outputs


def test_a_test_handing_the_reference_to_the_student_is_a_grader_error(tmp_path):
    """Callbacks are for the test's own functions: handing nbcore's to the student's code
    is a test-authoring bug, reported loudly as the grader's failure, never a grade."""
    result, _ = _run([nbformat.v4.new_code_cell("def apply(f, x):\n    return f(x, x)"),
                      _test_cell("hands_reference", "import nbcore\nfrom functools import partial\n"
                                                    "apply(partial(nbcore.posterior), [0.5, 0.5])")],
                     tmp_path, "reference", cell_timeout=30)
    assert result.status == "error", result.reason
    assert "hands_reference" in result.reason and "reference's" in result.reason and "posterior" in result.reason


def _run(cells, tmp_path, name, **limits):
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    scratch = tmp_path / name
    scratch.mkdir()
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(**limits), sandbox="none")
    return result, nbformat.reads(result.notebook_json, 4).cells


def test_each_notebook_gets_a_fresh_judge_from_one_server(tmp_path):
    """Judges are forked from one server per process: nothing a notebook's tests change
    (a module attribute, a global) is seen by the next notebook's tests."""
    from grading.execution.judge_client import judge_server

    limits = {"cell_timeout": 30}
    first, cells = _run([_test_cell("mark", "import nbcore\nnbcore.MARKED_BY_A_TEST = 1\nleftover = 2\n"
                                            "import os\nprint(os.getpid())")], tmp_path, "a", **limits)
    assert first.status == "ok", first.reason
    server = judge_server(sandbox="none", limits=Limits(**limits))
    second, cells_after = _run([_test_cell("look", "import nbcore, os\n"
                                                   "print(hasattr(nbcore, 'MARKED_BY_A_TEST'), 'leftover' in globals())\n"
                                                   "print(os.getpid())")], tmp_path, "b", **limits)
    assert second.status == "ok", second.reason
    assert judge_server(sandbox="none", limits=Limits(**limits)) is server and server.alive()
    first_pid = cells[0].outputs[0]["text"].strip()
    seen, second_pid = cells_after[0].outputs[0]["text"].split("\n")[:2]
    assert seen == "False False"
    assert first_pid != second_pid  # two judges


def test_a_judge_stuck_in_a_test_is_a_grader_failure_and_is_stopped(tmp_path):
    """An instructor's test that never ends is the grader's failure (never a grade); the
    stuck judge is killed, and the next notebook is judged normally."""
    import time

    from grading.execution.judge_client import judge_server

    limits = {"cell_timeout": 2}
    stuck, _ = _run([_test_cell("loops", "while True:\n    pass")], tmp_path, "stuck", **limits)
    assert stuck.status == "error" and "judge" in stuck.reason, stuck.reason
    server = judge_server(sandbox="none", limits=Limits(**limits))
    deadline = time.monotonic() + 10
    alive = True
    while alive and time.monotonic() < deadline:
        alive = any(_is_judge(pid) for pid in _children(server.process.pid))
        time.sleep(0.2)
    assert not alive, "the stuck judge still runs"
    after, cells = _run([_test_cell("fine", "print(1 + 1)")], tmp_path, "after", **limits)
    assert after.status == "ok" and cells[0].outputs[0]["text"] == "2\n"


def _children(pid):
    from pathlib import Path

    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _is_judge(pid):
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_a_stuck_judge_dies_with_its_server(tmp_path):
    """When the grading process goes away (its server closes), a judge stuck in a test goes too."""
    import json
    import struct
    import time

    from grading.execution.judge_client import JudgeServer

    server = JudgeServer(sandbox="none", limits=Limits())
    try:
        channel, pid, _ = server.fork({})
        body = json.dumps({"op": "run", "source": "while True:\n    pass", "name": "stuck"}).encode()
        channel.sendall(struct.pack(">I", len(body)) + body)
        time.sleep(1.0)
        assert _is_judge(pid), "the judge should be running its endless test"
    finally:
        server.close()
    deadline = time.monotonic() + 10
    while _is_judge(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _is_judge(pid), "the stuck judge outlived its server"
    channel.close()
