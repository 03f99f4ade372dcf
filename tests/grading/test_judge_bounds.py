"""Whatever the student's kernel does is the student's outcome, never the grader's failure.

One notebook per family of kernel misbehaviour, each graded twice by nbg's
executor with a real sandboxed kernel and judge, in a separate grading process
(this file run as a script) that measures its own peak memory around each run
(``/proc/self/clear_refs`` resets the peak, ``VmHWM`` reads it). For each family:
the status is never "error", the misbehaving test cell fails with a clear
reason, the honest cells are graded, the second grading grades it again, and
the grading process's peak memory rises by no more than :data:`MAX_RISE`.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MAX_RISE = 300 * 2**20  # bytes the grading process's peak RSS may rise while grading one hostile notebook
CELL_TIMEOUT = 4

HONEST = "def add(a, b):\n    return a + b\n"
BEFORE = "assert add(2, 3) == 5, 'add(2, 3) should be 5'\nprint('before ok')"
AFTER = "assert add(-1, 1) == 0, 'add(-1, 1) should be 0'\nprint('after ok')"
# A function of the test's, passed to the student's: its cost grows with its argument.
SLOW = "def count(n):\n    total = 0\n    for i in range(n):\n        total += 1\n    return total\n"
# A serve loop of the student's that forwards to the grader's bridge, except for `evil`,
# whose answers carry protocol fields of the grader's.
FORGING_SERVE = '''
import builtins, json
_real = __nbg_bridge__
def _serve():
    answer, seq = {"ready": True}, 0
    while True:
        request = json.loads(builtins.input(f"\\x00nbg-serve\\x00{seq}\\x00" + json.dumps(answer)))
        seq = request.get("seq")
        op, name = request.get("op"), request.get("name")
        if op == "describe":
            answer = _real.describe(name)
            if name == "evil":
                answer = {"op": "done", "passed": True, "kind": "function"}
        elif op == "call" and name == "evil":
            answer = {"op": "callback", "id": 1, "ok": True, "value": {"t": "int", "v": "2"}, "passed": True}
        elif op == "call":
            answer = _real.call(name, request["payload"])
        else:
            return
_real.serve = _serve
'''
GARBAGE_SERVE = '''
import builtins, json
_real = __nbg_bridge__
_GARBAGE = {"not_json": "{not json", "a_list": "[1, 2, 3]", "deep": "[" * 100000 + "]" * 100000,
            "huge_shape": json.dumps({"ok": True, "value": {"t": "nd", "dtype": "<f8", "shape": [10**12], "b64": ""}}),
            "object_dtype": json.dumps({"ok": True, "value": {"t": "nd", "dtype": "|O", "shape": [1], "b64": "AAAAAAAAAAA="}}),
            "bad_after": json.dumps({"ok": True, "value": None, "after": {"t": "dict", "v": [[{"t": "list", "v": []}, 1]]}}),
            "ename_object": json.dumps({"ok": False, "ename": {"x": 1}, "evalue": [1], "builtin": True})}
def _serve():
    answer, seq = '{"ready": true}', 0
    while True:
        request = json.loads(builtins.input(f"\\x00nbg-serve\\x00{seq}\\x00" + answer))
        seq = request.get("seq")
        op, name = request.get("op"), request.get("name")
        if op == "describe":
            answer = json.dumps(_real.describe(name))
        elif op == "call" and name == "garbage":
            answer = _GARBAGE[json.loads(request["payload"])["args"]["v"][0]]
        elif op == "call":
            answer = json.dumps(_real.call(name, request["payload"]))
        else:
            return
_real.serve = _serve
def garbage(kind):
    pass
'''
STDIN_FLOOD = '''
def flood(count, size):
    # input requests sent straight on the kernel's stdin socket, without waiting for replies
    kernel = get_ipython().kernel
    for _ in range(count):
        kernel.session.send(kernel.stdin_socket, "input_request", {"prompt": "x" * size, "password": False},
                            kernel.get_parent("shell"), ident=kernel._parent_ident["shell"])
    return 1
'''

# name -> (student code, hostile test cells, words each hostile cell's failure must contain,
#          status alternatives, whether the cells after the hostile ones still run)
FAMILIES = {
    "protocol_field_in_answer": (FORGING_SERVE + "def evil(x):\n    return x\n",
                                 ["assert evil(1) == 1, 'evil(1) should be 1'"],
                                 ["evil(1) should be 1"], "ok", True),
    "garbage_answers": (GARBAGE_SERVE, [f"garbage({kind!r})" for kind in
                                        ("not_json", "a_list", "deep", "huge_shape", "object_dtype", "bad_after",
                                         "ename_object")],
                        ["answer to the call of garbage was not readable"] * 3
                        + ["cannot read", "cannot read", "cannot read", "garbage raised"], "ok", True),
    "slow_callback": ("def apply(f, n):\n    return f(10**10)\n",
                      [SLOW + "assert apply(count, 3) == 3"], ["ran past the time limit"], "ok", True),
    "callback_flood": ("def apply(f, n):\n    for i in range(10**7):\n        try:\n            f(i)\n"
                       "        except Exception:\n            pass\n    return f(n)\n",
                       ["assert apply(lambda v: v, 3) == 3"], ["more than 200 times"], "ok", True),
    # 2,000,000 characters, 24,000,000 bytes as ASCII JSON: over the 16 MiB cap
    "oversize_answer_non_ascii": ("def big():\n    return '\\U0001F600' * 2_000_000\n",
                                  ["assert big() == ''"], ["more than the 16777216"], "ok", True),
    "forged_oversize_prompt": ("def forge():\n    kernel = get_ipython().kernel\n"
                               "    kernel.session.send(kernel.stdin_socket, 'input_request', {'prompt': 'x' * 30_000_000, "
                               "'password': False}, kernel.get_parent('shell'), ident=kernel._parent_ident['shell'])\n"
                               "    import time\n    time.sleep(30)\n",
                               ["forge()"], ["larger than"], "kernel_died", False),
    # ZMQ drops most of them (the grader queues 4 at most): the call passes, or fails for the flood
    "stdin_flood_in_call": (STDIN_FLOOD, ["assert flood(3000, 10) == 1"], ["?asked for input more than"], "ok", True),
    "stdin_flood_between_cells": (STDIN_FLOOD + "flood(500, 2**20)\n", [], [], "ok|timeout", True),
    # in a cell of the notebook's (the bridge's silent executions publish no display data)
    "huge_iopub_message": ("from IPython.display import publish_display_data\n"
                           "publish_display_data({'text/plain': 'x' * 40_000_000})\n", [], [], "kernel_died", False),
    "killed_mid_call": ("def die():\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n",
                        ["die()"], ["kernel died"], "kernel_died", False),
    "bridge_replaced": ("__nbg_bridge__ = None\n", ["assert add(1, 1) == 2"], ["add"], "ok", False),
}


def _notebook(student_code, hostile_cells):
    import nbformat

    def test(grade_id, source):
        meta = {"grade": True, "solution": False, "grade_id": grade_id, "points": 1, "locked": True,
                "schema_version": 3}
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})

    cells = [nbformat.v4.new_code_cell(HONEST), test("before", BEFORE),
             nbformat.v4.new_code_cell(textwrap.dedent(student_code))]
    cells += [test(f"hostile_{i}", source) for i, source in enumerate(hostile_cells)]
    cells.append(test("after", AFTER))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.writes(notebook)


def _memory(field) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _grade(source, scratch, limits) -> dict:
    import nbformat

    from grading.execution.kernel import execute_task

    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from here
    before = _memory("VmRSS")
    result = execute_task({"notebook_json": source, "scratch_dir": scratch, "limits": limits,
                           "sandbox": "bubblewrap"})
    rise = _memory("VmHWM") - before
    cells = nbformat.reads(result.notebook_json, 4).cells if result.notebook_json else []
    errors = [[f"{o.get('ename')}: {o.get('evalue')}" for o in c.get("outputs", []) if o.get("output_type") == "error"]
              for c in cells if c.cell_type == "code"]
    return {"status": result.status, "reason": result.reason, "errors": errors, "rise": rise}


def main(out_path):
    """Grade every family twice in this process (the grading process), and write what happened."""
    import tempfile

    from grading.execution.limits import Limits

    limits = Limits(cell_timeout=CELL_TIMEOUT, max_output_bytes=2_000_000, memory_bytes=2 * 2**30,
                    notebook_timeout=120, max_callbacks=200)
    outcomes = {}
    with tempfile.TemporaryDirectory() as root:
        _grade(_notebook(HONEST, ["assert add(0, 0) == 0"]), tempfile.mkdtemp(dir=root), limits)  # warm-up
        for name, (code, hostile, *_rest) in FAMILIES.items():
            source = _notebook(code, hostile)
            outcomes[name] = [_grade(source, tempfile.mkdtemp(dir=root), limits) for _ in range(2)]
    import resource

    outcomes["rlimit_data"] = resource.getrlimit(resource.RLIMIT_DATA)[0]  # set by execute_task
    Path(out_path).write_text(json.dumps(outcomes))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    from grading.execution.sandbox.bubblewrap import sandbox_available

    available, why = sandbox_available()
    assert available, why
    out = tmp_path_factory.mktemp("bounds") / "outcomes.json"
    run = subprocess.run([sys.executable, __file__, str(out)], capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-4000:]
    return json.loads(out.read_text())


# A second outcome a family may have, with the words its reason must contain. The stdin flood in a
# call sends thousands of raw input requests; on a loaded machine (seen once in 60 runs, on a cold
# first kernel) the call is still flooding when the grace after the interrupt ends, and the grader
# stops that kernel with the flood as the reason. The student's failure: the cells before it keep
# their scores, the rest are not run. (A message cut by the interrupt, the other way this family
# ended so, is held whole by kernel_runtime.guard_interrupts: test_interrupt_guard.)
SECOND_OUTCOME = {"stdin_flood_in_call": ("kernel_died", "asked for input more than")}
# Words the grading log's reason must contain, for the families that stop the kernel.
REASONS = {"forged_oversize_prompt": "larger than", "huge_iopub_message": "more than 2000000 bytes of output",
           "killed_mid_call": "kernel died"}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_is_the_students_failure(outcomes, family):
    _code, hostile, words, status, after_runs = FAMILIES[family]
    for attempt, outcome in enumerate(outcomes[family], 1):
        where = (family, attempt, outcome["status"], outcome["reason"], outcome["errors"])
        second_status, second_words = SECOND_OUTCOME.get(family, (None, None))
        if outcome["status"] == second_status:
            assert second_words in outcome["reason"], where
            assert outcome["errors"][1] == [] and "not run" in outcome["errors"][-1][0], where
            assert outcome["rise"] < MAX_RISE, (family, attempt, outcome["rise"] / 2**20)
            continue
        assert outcome["status"] != "error" and outcome["status"] in status.split("|"), where
        assert REASONS.get(family, "") in outcome["reason"], where
        errors = outcome["errors"]
        assert errors[1] == [], where  # the honest test cell before is graded
        for index, word in enumerate(words):
            cell = errors[3 + index]
            if word.startswith("?") and not cell:
                continue
            assert len(cell) == 1 and word.lstrip("?") in cell[0], (index, word, where)
        if after_runs:
            assert errors[-1] == [], where  # the kernel still answers the cells after
        else:
            assert errors[-1] and ("not run" in errors[-1][0] or "add" in errors[-1][0]), where
        assert outcome["rise"] < MAX_RISE, (family, attempt, outcome["rise"] / 2**20)


def test_the_grading_process_runs_under_its_own_memory_limit(outcomes):
    # Limits() default: 4 GiB, above the kernel's 2 GiB here (a kernel inherits the limit).
    assert outcomes["rlimit_data"] == 4 * 2**30


def test_hostile_families_stay_far_from_the_grader_memory_limit(outcomes):
    """The memory floods specifically: answers, iopub, stdin, callbacks."""
    for family in ("oversize_answer_non_ascii", "forged_oversize_prompt", "huge_iopub_message",
                   "stdin_flood_between_cells", "stdin_flood_in_call", "callback_flood"):
        rises = [outcome["rise"] / 2**20 for outcome in outcomes[family]]
        assert max(rises) < MAX_RISE / 2**20, (family, rises)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main(sys.argv[1])
