"""The judge's diagnosis on its own: recorded calls replayed on known mistakes (no kernel).

The calls are recorded as the judge records a student's function's calls
(:class:`Recorder`), the catalogue is a real file in the judge's folder, and
the "student" is plain Python code whose results the recorder stores.
"""

import json

import numpy as np

from grading.execution.diagnosis_runtime import CATALOGUE_FILE, Diagnoser, Recorder, wording

CATALOGUE = {
    "setup": ["import numpy as np"],
    "functions": {
        "mean_var": {
            "tests": ["test_mean_var_hidden"],
            "reference": "def mean_var(x):\n    x = np.asarray(x, dtype=float)\n    return x.mean(), x.var()\n",
            "mistakes": {
                "n_minus_1": {"source": "def mean_var(x):\n    return np.mean(x), np.var(x, ddof=1)\n",
                              "explanation": "Divides by n - 1."},
                "std": {"source": "def mean_var(x):\n    return np.mean(x), np.std(x)\n",
                        "explanation": "Returns the standard deviation."},
                "std_too": {"source": "def mean_var(x):\n    return np.mean(x), np.sqrt(np.var(x))\n",
                            "explanation": "Also the standard deviation."},
                "in_place": {"source": "def mean_var(x):\n    m = np.mean(x)\n    v = np.var(x)\n"
                                       "    x -= m\n    return m, v\n",
                             "explanation": "Changes its input."},
                "raises": {"source": "def mean_var(x):\n    raise ValueError('no')\n",
                           "explanation": "Raises."},
                "nudges_input": {"source": "def mean_var(x):\n    m, v = np.mean(x), np.var(x)\n"
                                           "    x += 1e-12\n    return m, v\n",
                                 "explanation": "Changes its input a very little."},
            },
        },
    },
}


def _diagnoser(tmp_path):
    (tmp_path / CATALOGUE_FILE).write_text(json.dumps(CATALOGUE))
    recorder = Recorder(str(tmp_path))
    return recorder, Diagnoser(recorder)


def _call(recorder, student, *args):
    snapshot = recorder.before("mean_var", args, {})
    try:
        value = student(*args)
    except Exception as error:
        recorder.failed("mean_var", snapshot, error)
        return None
    recorder.after("mean_var", snapshot, value, args, {})
    return value


INPUTS = [np.array([1.0, 2.0, 4.0]), np.array([0.5, -1.0, 3.0, 8.0])]


def _ids(found):
    return sorted(m["id"] for item in found for m in item["mistakes"])


def test_a_known_mistake_is_named(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:
        _call(recorder, lambda x: (np.mean(x), np.var(x, ddof=1)), x.copy())
    found = diagnoser.diagnose("test_mean_var_hidden")
    assert _ids(found) == ["n_minus_1"]
    assert wording(found) == "Your answer behaves like a known mistake: Divides by n - 1."


def test_indistinguishable_mistakes_are_all_named(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:
        _call(recorder, lambda x: (np.mean(x), np.std(x)), x.copy())
    found = diagnoser.diagnose("test_mean_var_hidden")
    assert _ids(found) == ["std", "std_too"]
    assert "each of these known mistakes" in wording(found) and "Also the standard deviation." in wording(found)


def test_a_right_answer_and_an_unknown_one_get_nothing(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:
        _call(recorder, lambda x: (np.mean(x), np.var(x)), x.copy())
    assert diagnoser.diagnose("test_mean_var_hidden") == []
    recorder.reset()
    for x in INPUTS:
        _call(recorder, lambda x: (np.median(x), np.var(x)), x.copy())
    assert diagnoser.diagnose("test_mean_var_hidden") == []


def test_two_mistakes_at_once_are_not_named_as_one_of_them(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:  # n - 1 and the standard deviation together
        _call(recorder, lambda x: (np.mean(x), np.std(x, ddof=1)), x.copy())
    assert diagnoser.diagnose("test_mean_var_hidden") == []


def test_a_mistake_that_matches_on_some_calls_only_is_not_named(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    _call(recorder, lambda x: (np.mean(x), np.var(x, ddof=1)), INPUTS[0].copy())
    _call(recorder, lambda x: (np.mean(x), np.std(x)), INPUTS[1].copy())
    assert diagnoser.diagnose("test_mean_var_hidden") == []


def test_changed_inputs_and_exceptions_are_compared(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)

    def overwrites(x):
        m, v = np.mean(x), np.var(x)
        x -= m
        return m, v

    for x in INPUTS:
        _call(recorder, overwrites, x.copy())
    assert _ids(diagnoser.diagnose("test_mean_var_hidden")) == ["in_place"]
    recorder.reset()

    def raises(x):
        raise ValueError("mine")

    for x in INPUTS:
        _call(recorder, raises, x.copy())
    assert _ids(diagnoser.diagnose("test_mean_var_hidden")) == ["raises"]


def test_only_the_functions_own_tests_and_replayable_calls_are_diagnosed(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:
        _call(recorder, lambda x: (np.mean(x), np.var(x, ddof=1)), x.copy())
    assert diagnoser.diagnose("test_other_function") == []
    recorder.calls["mean_var"].append(None)  # a call that timed out: nothing is said
    assert diagnoser.diagnose("test_mean_var_hidden") == []


def test_no_catalogue_no_recording(tmp_path):
    recorder = Recorder(str(tmp_path))
    assert recorder.before("mean_var", (INPUTS[0],), {}) is None
    assert Diagnoser(recorder).diagnose("test_mean_var_hidden") == []



def test_arguments_after_the_call_are_compared_exactly_as_the_tests_do(tmp_path):
    recorder, diagnoser = _diagnoser(tmp_path)

    def nudges(x):
        m, v = np.mean(x), np.var(x)
        x += 1e-12  # far under the results' tolerance, but the input changed
        return m, v

    for x in INPUTS:
        _call(recorder, nudges, x.copy())
    assert _ids(diagnoser.diagnose("test_mean_var_hidden")) == ["nudges_input"]


def test_a_call_that_passes_a_students_function_is_not_replayed(tmp_path):
    class Remote:  # what the judge's proxy of a student's function carries
        __nbg_remote__ = True

    recorder, diagnoser = _diagnoser(tmp_path)
    for x in INPUTS:
        _call(recorder, lambda x: (np.mean(x), np.var(x, ddof=1)), x.copy())
    snapshot = recorder.before("mean_var", (INPUTS[0], Remote()), {})
    recorder.after("mean_var", snapshot, (0.0, 0.0), (INPUTS[0],), {})
    assert diagnoser.diagnose("test_mean_var_hidden") == []


def test_results_of_another_type_agree_with_nothing_of_this_type():
    """A list where an array is prescribed, or CSC where CSR is, is a mistake of its own."""
    import scipy.sparse

    from grading.execution.diagnosis_runtime import _agree

    assert _agree(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert not _agree([1.0, 2.0], np.array([1.0, 2.0]))
    assert _agree([1.0, 2.0], [1.0, 2.0])
    assert _agree(0.5, np.float64(0.5)) and _agree(np.array(0.5), 0.5)
    csr = scipy.sparse.csr_matrix(np.eye(2))
    assert _agree(csr, csr.copy())
    assert not _agree(csr, csr.tocsc())
    assert not _agree(csr, csr.toarray())
