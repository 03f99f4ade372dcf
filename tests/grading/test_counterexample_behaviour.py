"""What a counterexample shows, as the report groups the failures no known mistake explains
(:mod:`grading.execution.evidence.behaviour`): each signature below is written by hand for a
student's result against the reference's; and the judge's verdict carries the record that the
grader keeps in the failed cell's metadata. Runtime: well under a second."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

from grading.execution.evidence.behaviour import cell_metadata, record, signature, size
from tests.grading.test_counterexample_search import OVERALL_MEAN, judged

REF = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])


def _sig(yours, expected):
    return signature((yours, ([], {})), (expected, ([], {})))


@pytest.mark.parametrize("yours, expected, words", [
    (-REF, REF, "every entry, sign flipped"),
    (3 * REF, REF, "every entry, off by a constant factor"),
    (REF + 1.5, REF, "every entry, off by a constant"),
    (REF[[2, 0, 1]], REF, "every entry, rows in another order"),
    (np.array([0.3, 0.2, 0.5]), np.array([0.2, 0.3, 0.5]), "some entries, entries in another order"),
    (np.array([[0.2, 1.6], [0.6, 0.8], [0.5, 1.0]]), REF, "whole columns, off by a constant factor"),
    (np.array([[0.2, 0.8], [1.2, 0.8], [0.5, 0.5]]), REF, "whole rows, off by a constant factor"),
    (np.array([0.2, np.nan, 0.5]), np.array([0.2, 0.3, 0.5]), "one entry, NaN or inf where the reference is finite"),
    (np.array([0.0, 0.5]), np.array([-np.inf, 0.5]), "one entry, finite where the reference has NaN or inf"),
    (np.array([1.0, 7.0, 2.0]), np.array([1.0, 3.0, 5.0]), "some entries, other values"),
    (np.array([4.0]), np.array([3.0]), "another value"),
    (2.5, 3.0, "another value"),
    (REF.T, REF, "shape: another length along axis 0, 1"),
    (REF.ravel(), REF, "shape: 1-D where 2-D is expected"),
    ([0.2, 0.8], np.array([0.2, 0.8]), "a list where an array is expected"),
    ((np.array([1.0, 2.0]), np.array([3.0, 4.0])), (np.array([1.0, 2.0]), np.array([3.0, 5.0])),
     "item 1: one entry, another value"),
    ([np.zeros((2, 3)), np.zeros((2, 2))], [np.zeros((2, 3)), np.zeros((2, 3))],
     "item 1: shape: another length along axis 1"),
    (scipy.sparse.csc_matrix(REF), scipy.sparse.csr_matrix(REF), "a CSC sparse matrix where a CSR sparse matrix is expected"),
    (scipy.sparse.csr_matrix(-REF), scipy.sparse.csr_matrix(REF), "every entry, sign flipped"),
])
def test_the_signature_says_which_entries_differ_and_how(yours, expected, words):
    assert _sig(yours, expected) == words


def test_an_exception_and_an_argument_changed_in_place():
    assert signature((("raised", "ZeroDivisionError"), None), (REF, ([], {}))) == "raises ZeroDivisionError"
    assert signature((REF, ([REF * 0], {})), (REF, ([REF], {}))) == "changes its arguments in place"


def test_the_record_keeps_the_call_the_results_and_the_sizes():
    X, small = np.arange(40.0).reshape(8, 5), np.array([[1.0, 2.0]])
    kept = record("f", ["X", "k"], ([small, 2], {}, (-small, None), (small, None)),
                  ([X, 2], {}, (-X, None), (X, None)), shown=True)
    assert kept["call"] == "f(X=np.array([[1., 2.]]), k=2)" and kept["signature"] == "every entry, sign flipped"
    assert (kept["values"], kept["original_values"], kept["size"], kept["original_size"]) == (3, 41, [1, 2], [8, 5])
    assert kept["yours"] == "[[-1., -2.]]" and kept["differs"].startswith("entry [0, 0]: yours -1, expected 1")
    assert size([3, 4.5], {}) is None and size([["a b", "c"]], {}) == [2, 1] and size([], {"y": np.ones(4)}) == [4, 1]


def test_the_grader_keeps_only_what_it_expects_of_the_verdict():
    verdict = {"diagnosis": [{"function": "f", "mistakes": [{"id": "m", "explanation": "..."}]}],
               "counterexample": {"function": "f", "signature": "s" * 5000, "call": "f(\x00)", "values": "9",
                                  "size": [1, -2], "original_size": [3, 4], "shown": 1, "extra": "dropped"}}
    metadata = cell_metadata(verdict)
    assert metadata["nbg_diagnosis"] == ["f/m"]
    kept = metadata["nbg_counterexample"]
    assert set(kept) == {"function", "signature", "call", "yours", "expected", "differs", "values",
                         "original_values", "size", "original_size", "shown"}
    assert len(kept["signature"]) == 2000 and kept["call"] == "f()" and kept["values"] == 0
    assert kept["size"] is None and kept["original_size"] == [3, 4] and kept["shown"] is False
    assert cell_metadata({"counterexample": "not a dict"}) == {}


def test_the_judges_verdict_carries_the_record(tmp_path):
    verdict, _ = judged(tmp_path, OVERALL_MEAN)
    kept = verdict["counterexample"]
    assert kept["function"] == "class_means" and kept["shown"] is True
    assert kept["call"] in verdict["evalue"] and kept["original_size"] == [40, 5]
    assert kept["size"][0] * kept["size"][1] < 40 * 5
    assert kept["signature"].endswith(("other values", "another value", "off by a constant", "off by a constant factor"))


def test_an_input_tried_before_is_never_a_step(tmp_path):
    """04's edges cell of bernoulli_feature_log_prob (3 x 3 X, every row of one class): no smaller input
    disagrees, and the search used to count inputs that print exactly as the test's own as kept steps,
    so the student was shown the hidden input as "a smaller input" (found on the whole catalogue:
    four of 04's mutants). An input is tried once now, the test's own first: nothing is shown."""
    from grading.core.mistakes import catalogue_path, load_cases
    from tests.grading.test_diagnosis_coincidences import COURSE, failed_cells

    assignment, function = "04_bernoulli_nb", "bernoulli_feature_log_prob"
    source = load_cases(catalogue_path(COURSE, assignment))[function]["mutants"]["denominator_plus_alpha"]
    edges = 0
    for grade_id, _, diagnoser in failed_cells(tmp_path, assignment, function, source):
        if grade_id.endswith("_edges"):  # explained while its calls are the recorder's
            _, words = diagnoser.explain(grade_id, counterexample=True)
            assert words == "", words
            assert diagnoser.example["values"] == diagnoser.example["original_values"] and not diagnoser.example["shown"]
            edges += 1
    assert edges == 1, "the mutant no longer fails the edges cell"
