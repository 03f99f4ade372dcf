"""The diagnosis replay against hostile recorded calls: bounded in time and memory, never an
exception out of the judge, never a mistake named for a right answer. No kernel: the calls
are recorded as the judge records them (what crosses from the kernel is plain data, decoded by
the judge: grading/execution/plain.py); runtime about 3 s.
"""

import json
import time

import numpy as np
import pytest

from grading.execution import diagnosis_runtime as runtime
from grading.execution.diagnosis_runtime import CATALOGUE_FILE, Diagnoser, Recorder, outcome_of_error
from grading.execution.plain import PlainDataError, encode

GRADE_ID = "test_total_hidden"
CATALOGUE = {
    "setup": ["import numpy as np", "import time"],
    "functions": {
        "total": {
            "tests": [GRADE_ID],
            "reference": "def total(x):\n    return float(np.sum(x))\n",
            "mistakes": {
                "plus_one": {"source": "def total(x):\n    return float(np.sum(x)) + 1\n",
                             "explanation": "Adds one."},
                # Equal to the reference on every input: agreeing with it is no mistake.
                "same": {"source": "def total(x):\n    return float(sum(np.asarray(x).tolist()))\n",
                         "explanation": "Never named."},
            },
        },
    },
}


def diagnoser(tmp_path, catalogue=CATALOGUE):
    (tmp_path / CATALOGUE_FILE).write_text(json.dumps(catalogue))
    recorder = Recorder(str(tmp_path))
    return recorder, Diagnoser(recorder)


def record(recorder, args, value):
    snapshot = recorder.before("total", args, {})
    recorder.after("total", snapshot, value, args, {})


def named(found):
    return sorted(m["id"] for item in found for m in item["mistakes"])


def test_the_control_a_known_mistake_is_named(tmp_path):
    recorder, diag = diagnoser(tmp_path)
    for x in ([1.0, 2.0], [3.0]):
        record(recorder, (np.array(x),), float(np.sum(x)) + 1)
    assert named(diag.diagnose(GRADE_ID)) == ["plus_one"]


def test_a_right_answer_is_never_named_even_when_a_mistake_agrees_with_it(tmp_path):
    recorder, diag = diagnoser(tmp_path)
    for x in ([1.0, 2.0], [3.0], []):
        record(recorder, (np.array(x),), float(np.sum(x)))
    assert diag.diagnose(GRADE_ID) == []


def test_huge_results_are_not_kept_past_the_bound(tmp_path):
    """Ten 16 MiB results (the answer cap): the recorder keeps none past 64 MiB in all."""
    recorder, diag = diagnoser(tmp_path)
    big = np.zeros(2**21)  # 16 MiB
    for _ in range(10):
        record(recorder, (np.array([1.0]),), big.copy())
    assert recorder.calls["total"] == [None] and recorder.recorded_bytes <= runtime.MAX_RECORDED_BYTES + big.nbytes * 2
    assert diag.diagnose(GRADE_ID) == []


def test_many_calls_are_not_kept_past_the_bound(tmp_path):
    recorder, diag = diagnoser(tmp_path)
    for i in range(runtime.MAX_CALLS + 50):
        record(recorder, (np.array([float(i)]),), float(i) + 1)
    assert recorder.calls["total"] == [None]
    assert diag.diagnose(GRADE_ID) == []


def test_deeply_nested_results_are_compared_without_error(tmp_path):
    recorder, diag = diagnoser(tmp_path)
    nested = 1.0
    for _ in range(64):  # the plain decoder's own depth limit
        nested = [nested]
    record(recorder, (np.array([1.0]),), nested)
    assert diag.diagnose(GRADE_ID) == []  # another type than the reference's: agrees with nothing


def test_slow_mistakes_end_at_the_budget_with_no_diagnosis(tmp_path):
    slow = json.loads(json.dumps(CATALOGUE))
    slow["functions"]["total"]["mistakes"]["slow"] = {
        "source": "def total(x):\n    time.sleep(0.3)\n    return float(np.sum(x)) + 1\n", "explanation": "Slow."}
    slow["functions"]["total"]["reference"] = "def total(x):\n    time.sleep(0.3)\n    return float(np.sum(x))\n"
    recorder, diag = diagnoser(tmp_path, slow)
    for i in range(40):  # 40 calls x 0.3 s: 12 s per function replayed, unbounded
        record(recorder, (np.array([float(i)]),), float(i) + 1)
    start = time.monotonic()
    assert diag.diagnose(GRADE_ID) == []
    assert time.monotonic() - start < runtime.BUDGET_SECONDS + 1.0


class Misbehaves:
    """Everything a comparison or a copy might call raises or lies."""

    def __eq__(self, other):
        raise RuntimeError("eq")

    def __array__(self, *args, **kwargs):
        raise RuntimeError("array")

    def __len__(self):
        raise RuntimeError("len")

    def __deepcopy__(self, memo):
        raise RuntimeError("deepcopy")

    def __bool__(self):
        raise RuntimeError("bool")


@pytest.mark.parametrize("where", ["argument", "result"])
def test_misbehaving_objects_give_no_diagnosis_and_no_error(tmp_path, where):
    recorder, diag = diagnoser(tmp_path)
    args, value = ((Misbehaves(),), 1.0) if where == "argument" else ((np.array([1.0]),), Misbehaves())
    record(recorder, args, value)
    assert diag.diagnose(GRADE_ID) == []


def test_such_objects_never_cross_from_the_kernel(tmp_path):
    """The kernel encodes plain data only: an object of the student's is refused there, and the
    judge's failed call ("total returned a Misbehaves") is a call the diagnosis does not replay."""
    with pytest.raises(PlainDataError):
        encode(Misbehaves())
    recorder, diag = diagnoser(tmp_path)
    snapshot = recorder.before("total", (np.array([1.0]),), {})

    class StudentError(Exception):
        pass

    recorder.failed("total", snapshot, StudentError("total returned a Misbehaves; return numbers, strings or arrays"))
    assert outcome_of_error(StudentError("total returned a Misbehaves")) == ("unknown",)
    assert recorder.calls["total"] == [None] and diag.diagnose(GRADE_ID) == []
