"""The judge's counterexample search (:mod:`grading.execution.evidence.counterexample`) on small
catalogues written here: what it shrinks, what it never shows, and that a verdict never changes.
The student's function is a plain function behind the judge's recorder (the bridge has its own
tests); the judge's ``run_cell`` runs the test cells. Runtime: well under a second."""

from __future__ import annotations

import json

import numpy as np
import pytest

from grading.execution import judge_runtime
from grading.execution.diagnosis_runtime import CATALOGUE_FILE, Diagnoser, Recorder

CLASS_MEANS = '''def class_means(X, y, classes):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return np.array([X[y == c].mean(axis=0) for c in classes])
'''
# The overall mean where the class mean belongs: wrong whenever two classes differ.
OVERALL_MEAN = '''def class_means(X, y, classes):
    X = np.asarray(X, dtype=float)
    return np.array([X.mean(axis=0) for c in classes])
'''
CATALOGUE = {"setup": ["import numpy as np"], "functions": {"class_means": {
    "tests": ["test_class_means"], "reference": CLASS_MEANS,
    "mistakes": {"overall_mean": {"source": OVERALL_MEAN, "explanation": "Your means are over all rows."}},
    "probes": []}}}
HIDDEN_CELL = '''### BEGIN HIDDEN TESTS
rng = np.random.default_rng(5)
X = rng.normal(size=(40, 5))
y = np.array(["a", "b", "c", "d"] * 10)
got = class_means(X, y, np.array(["a", "b", "c", "d"]))
assert np.allclose(got, [X[y == c].mean(axis=0) for c in "abcd"]), "class means are wrong"
### END HIDDEN TESTS
'''


def _build(source):
    namespace = {"np": np}
    exec(source, namespace)
    return next(v for k, v in namespace.items() if callable(v) and k != "np" and not k.startswith("__"))


def judged(tmp_path, student_source, cell=HIDDEN_CELL, catalogue=CATALOGUE, seed=None, monkeypatch=None):
    """The judge's verdict on ``cell`` with the student's function behind the recorder, and the
    number of calls of the student's function after the cell's own."""
    (tmp_path / CATALOGUE_FILE).write_text(json.dumps(catalogue))
    student = _build(student_source)
    calls = []

    def bridge(name, args, kwargs):
        calls.append(name)
        return student(*args, **kwargs)

    recorder = Recorder(str(tmp_path))

    def proxy(*args, **kwargs):
        snapshot = recorder.before("class_means", args, kwargs)
        value = bridge("class_means", args, kwargs)
        recorder.after("class_means", snapshot, value, args, kwargs)
        return value

    if seed is not None:
        import nbkit.testing

        monkeypatch.setattr(nbkit.testing, "_GRADING_SEED", seed)
    namespace = {"np": np, "class_means": proxy}
    verdict = judge_runtime.run_cell(namespace, cell, "test (test_class_means)", Diagnoser(recorder, caller=bridge))
    return verdict, len(calls) - 1


def test_a_wrong_mean_is_shown_on_a_few_rows_features_and_simple_values(tmp_path):
    verdict, calls = judged(tmp_path, OVERALL_MEAN)
    assert verdict["passed"] is False and verdict["evalue"].startswith("class means are wrong")
    words = verdict["evalue"].split("\n\n", 1)[1]
    assert words.startswith("A smaller input on which your class_means and the reference disagree"), words
    call = words.split("\n")[1].strip()
    args = eval(call.replace("class_means(", "(lambda X, y, classes: (X, y, classes))(", 1), {"np": np})
    X, y, classes = args
    assert X.shape[0] < 40 and X.shape[1] < 5 and len(classes) < 4, call  # fewer rows, features, classes
    assert np.array_equal(X * 10, np.round(X * 10)), call  # one decimal at most: nothing of the test's floats
    reference, mutant = _build(CLASS_MEANS), _build(OVERALL_MEAN)
    assert not np.allclose(reference(X, y, classes), mutant(X, y, classes)), call  # they really disagree there
    assert "yours:" in words and "expected:" in words and "differs:  entry [" in words
    assert 0 < calls <= 12  # the search's calls of the student's function, bounded


def test_the_verdict_is_the_same_with_and_without_the_search(tmp_path):
    with_search, _ = judged(tmp_path, OVERALL_MEAN)
    (tmp_path / "none").mkdir()
    without = judge_runtime.run_cell({"np": np, "class_means": _build(OVERALL_MEAN)}, HIDDEN_CELL,
                                     "test (test_class_means)", None)
    assert (with_search["passed"], with_search["ename"]) == (without["passed"], without["ename"])
    assert with_search["evalue"].startswith(without["evalue"]) and with_search["evalue"] != without["evalue"]


def test_a_right_answer_or_a_visible_cell_shows_none(tmp_path):
    verdict, calls = judged(tmp_path, CLASS_MEANS, cell=HIDDEN_CELL.replace("class means are wrong", "x") + "assert False, 'later'\n")
    assert verdict["passed"] is False and verdict["evalue"] == "later" and calls == 0
    visible = HIDDEN_CELL.replace("### BEGIN HIDDEN TESTS\n", "").replace("### END HIDDEN TESTS\n", "")
    verdict, _ = judged(tmp_path, OVERALL_MEAN, cell=visible)
    assert verdict["evalue"] == "class means are wrong"  # the worked example is the student's already


def test_never_the_test_input_nor_its_unrounded_floats(tmp_path):
    """A function wrong only on the test's own numbers cannot be shrunk: nothing is shown."""
    only_there = CLASS_MEANS.replace("return np.array(", "if not np.allclose(X * 10, np.round(X * 10)):\n"
                                     "        return np.zeros((len(classes), X.shape[1]))\n    return np.array(")
    verdict, calls = judged(tmp_path, only_there)
    assert verdict["passed"] is False and calls > 0
    assert verdict["evalue"] == "class means are wrong", verdict["evalue"]


def test_the_grading_seed_changes_the_counterexample(tmp_path, monkeypatch):
    shown = set()
    for seed in (1, 2, 3, 4):
        folder = tmp_path / str(seed)
        folder.mkdir()
        verdict, _ = judged(folder, OVERALL_MEAN, seed=seed, monkeypatch=monkeypatch)
        shown.add(verdict["evalue"].split("\n")[3])
    assert len(shown) > 1, shown


@pytest.mark.parametrize("seed", [7])
def test_the_same_seed_gives_the_same_counterexample(tmp_path, monkeypatch, seed):
    texts = []
    for run in range(2):
        folder = tmp_path / str(run)
        folder.mkdir()
        texts.append(judged(folder, OVERALL_MEAN, seed=seed, monkeypatch=monkeypatch)[0]["evalue"])
    assert texts[0] == texts[1]
