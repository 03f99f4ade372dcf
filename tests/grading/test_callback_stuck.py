"""A test's function kept busy in compiled code by the student's arguments: the student's timeout.

The judge's alarm stops a test's function at the cell's time limit only between Python
bytecodes; ``sum(range(10**12))`` runs in C and never sees it. The grader then waits the
cell's time plus 15 s, stops that judge and records the notebook as a timeout (the student's
outcome, with a reason), never as the grader's failure. This executes one small notebook in
the sandbox (a kernel and a judge), because only the real judge's alarm and the real relay
show it; runtime about 25 s (3 s of cell time, the 15 s grace, start-up).
"""

import time

import nbformat

from grading.core.records import Status
from grading.execution.kernel import execute_notebook
from grading.execution.limits import Limits

TEST = {"nbgrader": {"grade": True, "solution": False, "points": 1, "locked": True, "schema_version": 3}}


def _test_cell(source, grade_id):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {**TEST["nbgrader"], "grade_id": grade_id}})


def test_a_callback_stuck_in_compiled_code_is_the_students_timeout(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("def add(a, b):\n    if callable(a):\n        a(10**12)\n    return 0"),
        _test_cell("def busy(n):\n    return sum(range(int(n)))  # C: no alarm interrupts it\n"
                   "assert add(busy, 1) == 0", "test_busy"),
        _test_cell("assert add(0, 0) == 0", "test_after"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    start = time.monotonic()
    result = execute_notebook(nbformat.writes(notebook), tmp_path, limits=Limits(cell_timeout=3), sandbox="bubblewrap")
    elapsed = time.monotonic() - start
    assert result.status == Status.TIMEOUT, result.reason
    assert "test_busy" in result.reason and "did not stop" in result.reason
    cells = nbformat.reads(result.notebook_json, 4).cells
    assert cells[1].outputs[0].ename == "CellTimeoutError"
    assert cells[2].outputs[0].ename == "NotExecuted"  # the later test scores 0
    assert elapsed < 60
