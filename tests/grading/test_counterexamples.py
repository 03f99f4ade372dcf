"""Counterexamples and the diagnosis on mistakes the catalogue has never seen (issue 33).

Held-out mutants: each the reference of one graded function (its first correct variant) with
one edit the catalogue has no mistake for (a base-10 log, a smoothed prior, marks instead of
counts, a temperature in softmax, bins by rounding, ...), two catalogued mistakes at once, and
the five coincidences of :mod:`tests.grading.test_diagnosis_coincidences` (each once named as a
catalogued mistake on the thin evidence of a cell's first calls). Each runs through its function's
real test cells (hidden included) with the judge's diagnosis and counterexample search, in this
process as the coincidence tests do (the bridge is a direct call here; the judge's process
boundary has its own tests). Every hidden cell the mutant fails must show a counterexample on
which, run here apart from the judge, the mutant and the reference really differ, holding fewer
values than the test's input or as few; and no mistake may be named (none of them is one).

Runtime: ~15 s (the test cells of 45 mutants, each cell's search bounded by the judge's budget).
"""

from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pytest
import scipy.sparse

from grading.core.mistakes import catalogue_path, judge_catalogue, load_cases
from tests.grading.test_diagnosis_coincidences import (
    COINCIDENCES,
    COURSE,
    _build,
    _case,
    _given_setup,
    _source_notebook,
    failed_cells,
)

# name: (assignment, function, the reference's text, what replaces it)
EDITS = {
    "posterior_over_max": ("01_bayes_mle_map", "posterior", "scores / np.sum(scores)", "scores / np.max(scores)"),
    "posterior_squared_likelihood": ("01_bayes_mle_map", "posterior", "np.multiply(prior, likelihood,",
                                     "np.multiply(prior, np.square(likelihood),"),
    "map_prior_plus_likelihood": ("01_bayes_mle_map", "map_hypothesis", "np.asarray(prior) * np.asarray(likelihood)",
                                  "np.asarray(prior) + np.asarray(likelihood)"),
    "mle_laplace_smoothed": ("01_bayes_mle_map", "bernoulli_mle", "np.true_divide(k, n)",
                             "np.true_divide(np.add(k, 1), np.add(n, 2))"),
    "beta_posterior_minus_one": ("01_bayes_mle_map", "beta_posterior", "a + heads, b + tails",
                                 "a + heads - 1, b + tails - 1"),
    "beta_map_denominator_of_the_mean": ("01_bayes_mle_map", "beta_map", "+ a + b - 2)", "+ a + b)"),
    "beta_mean_denominator_plus_1": ("01_bayes_mle_map", "beta_posterior_mean", "+ a + b)", "+ a + b + 1)"),
    "m_estimate_2m": ("01_bayes_mle_map", "m_estimate", "dtype=float) + m)", "dtype=float) + 2 * m)"),
    "interval_upper_at_level": ("01_bayes_mle_map", "beta_credible_interval", "stats.beta.ppf(1 - tail,",
                                "stats.beta.ppf(level,"),
    "categorical_mle_laplace": ("01_bayes_mle_map", "categorical_mle", "counts / counts.sum(axis=-1, keepdims=True)",
                                "(counts + 1) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1])"),
    "dirichlet_k_minus_1": ("01_bayes_mle_map", "dirichlet_posterior_mean", "+ counts.shape[-1] * alpha)",
                            "+ (counts.shape[-1] - 1) * alpha)"),
    "dirichlet_map_numerator_alpha": ("01_bayes_mle_map", "dirichlet_map", "(counts + alpha - 1)", "(counts + alpha)"),
    "prior_log10": ("02_categorical_nb", "class_log_prior", "np.log(counts) - np.log(weights.sum())",
                    "np.log10(counts) - np.log10(weights.sum())"),
    "prior_laplace_smoothed": ("02_categorical_nb", "class_log_prior", "np.log(counts) - np.log(weights.sum())",
                               "np.log(counts + 1) - np.log(weights.sum() + len(classes))"),
    "prior_unique_order_and_no_log": ("02_categorical_nb", "class_log_prior",  # two catalogued mistakes at once
                                      "for c in classes], dtype=float)\n    with np.errstate(divide=\"ignore\"):\n"
                                      "        return np.log(counts) - np.log(weights.sum())",
                                      "for c in np.unique(y)], dtype=float)\n    return counts / weights.sum()"),
    "flp_numerator_2_alpha": ("02_categorical_nb", "categorical_feature_log_prob", "np.log(counts + alpha)",
                              "np.log(counts + 2 * alpha)"),
    "flp_k_from_all_features": ("02_categorical_nb", "categorical_feature_log_prob", "n_values = X.max(axis=0) + 1",
                                "n_values = np.full(n_features, X.max() + 1)"),
    "jll_prior_subtracted": ("02_categorical_nb", "categorical_jll", "return jll + np.asarray(",
                             "return jll - np.asarray("),
    "normalize_by_row_mean": ("02_categorical_nb", "log_normalize",
                              "return jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1, keepdims=True)))",
                              "return jll - jll.mean(axis=1, keepdims=True)"),
    "multinomial_alpha_over_v": ("03_multinomial_nb", "multinomial_feature_log_prob", "smoothed = word_counts + alpha",
                                 "smoothed = word_counts + alpha / X.shape[1]"),
    "multinomial_jll_prior_twice": ("03_multinomial_nb", "multinomial_jll", "dtype=float) + log_prior",
                                    "dtype=float) + 2 * log_prior"),
    "confusion_marks_not_counts": ("03_multinomial_nb", "confusion_matrix",
                                   "matrix[position[truth], position[guess]] += 1",
                                   "matrix[position[truth], position[guess]] = 1"),
    "mi_absolute_log": ("03_multinomial_nb", "mutual_information", "n_cu / n * np.log(n * n_cu / (n_c * n_u))",
                        "n_cu / n * np.abs(np.log(n * n_cu / (n_c * n_u)))"),
    "bernoulli_alpha_fixed_at_1": ("04_bernoulli_nb", "bernoulli_feature_log_prob",
                                   "np.log(docs_with_word + alpha) - np.log(docs_in_class + 2 * alpha)",
                                   "np.log(docs_with_word + 1) - np.log(docs_in_class + 2)"),
    "bernoulli_jll_log_not_p_linear": ("04_bernoulli_nb", "bernoulli_jll", "log_not_p = np.log1p(-np.exp(log_p))",
                                       "log_not_p = -np.exp(log_p)"),
    "binary_vectors_first_doc_skipped": ("04_bernoulli_nb", "binary_vectors", "for row, doc in enumerate(docs):",
                                         "for row, doc in list(enumerate(docs))[1:]:"),
    "gaussian_var_smoothing": ("05_gaussian_nb", "gaussian_mean_var", "/ (n_c - ddof)",
                               "/ (n_c - ddof) + 1e-2 * X.var(axis=0).max()"),
    "gaussian_jll_log_pi_var": ("05_gaussian_nb", "gaussian_jll", "np.log(2 * np.pi * var)", "np.log(np.pi * var)"),
    "pooled_around_median": ("05_gaussian_nb", "pooled_variance", "X_c.mean(axis=0)", "np.median(X_c, axis=0)"),
    "softmax_temperature_2": ("06_nb_linear_logistic", "softmax", "np.exp(Z - Z.max(axis=1, keepdims=True))",
                              "np.exp((Z - Z.max(axis=1, keepdims=True)) / 2)"),
    "gaussian_form_2_theta": ("06_nb_linear_logistic", "gaussian_linear_form", "return theta / var,",
                              "return 2 * theta / var,"),
    "multinomial_form_exp_prior": ("06_nb_linear_logistic", "multinomial_linear_form",
                                   "np.array(class_log_prior, dtype=float)",
                                   "np.exp(np.array(class_log_prior, dtype=float))"),
    "loss_second_term_sign": ("06_nb_linear_logistic", "logistic_loss_grad", "(1 - y) * np.logaddexp(0, z)",
                              "(1 - y) * np.logaddexp(0, -z)"),
    "bins_by_rounding": ("07_nb_in_practice", "reliability_bins", "np.floor(prob * n_bins)",
                         "np.round(prob * n_bins)"),
    "update_counts_class_mean": ("07_nb_in_practice", "update_counts", "one_hot.sum(axis=0)", "one_hot.mean(axis=0)"),
    "merge_between_term_over_n": ("07_nb_in_practice", "merge_mean_var",
                                  "* (mean_b - mean_a) ** 2 / n ** 2", "* (mean_b - mean_a) ** 2 / n"),
    "combine_prior_twice": ("07_nb_in_practice", "combine_jlls", "return total + prior", "return total + 2 * prior"),
    "expand_labelled_half_weight": ("07_nb_in_practice", "expand_with_posteriors", "np.ones(len(y_lab))",
                                    "np.full(len(y_lab), 0.5)"),
    "missing_jll_sqrt_var": ("07_nb_in_practice", "gaussian_jll", "np.log(2 * np.pi * var)[None]",
                             "np.log(2 * np.pi * np.sqrt(var))[None]"),
    "posterior_two_at_once": ("01_bayes_mle_map", "posterior", "scores = np.multiply(prior, likelihood, dtype=float)\n"
                              "    return scores / np.sum(scores)",
                              "return np.asarray(likelihood, dtype=float) / 2"),  # forgotten prior, not normalised
}


def _edited(assignment, function, old, new) -> str:
    reference = next(iter(load_cases(catalogue_path(COURSE, assignment))[function]["correct"].values()))
    assert old in reference, f"{function}'s reference no longer holds {old!r}: update the held-out mutant"
    return reference.replace(old, new, 1)


def held_out():
    """name -> (assignment, function, source): the edits and the five coincidences."""
    cases = {name: (a, f, _edited(a, f, old, new)) for name, (a, f, old, new) in EDITS.items()}
    for name in COINCIDENCES:
        assignment, function, source, _ = _case(name)
        cases[f"coincidence_{name}"] = (assignment, function, source)
    return cases


HELD_OUT = held_out()


def grade(tmp_path, assignment, function, student_source) -> dict:
    """grade_id -> (hidden, named mistakes, counterexample words) for each test cell that failed:
    the cell runs with the student's function behind the judge's recorder, then the judge explains it."""
    failed = {}
    for grade_id, source, diagnoser in failed_cells(tmp_path / function, assignment, function, student_source):
        hidden = "BEGIN HIDDEN TESTS" in source
        found, words = diagnoser.explain(grade_id, counterexample=hidden)
        failed[grade_id] = (hidden, sorted(m["id"] for item in found for m in item["mistakes"]), words)
    return failed


CALL = re.compile(r"^  (\w+)\((.*)\)$", re.M)
SIZES = re.compile(r"\((\d+) values; the test's input had (\d+)\)")


def replayed(words, function, base, *functions):
    """The counterexample's call, read back from its words and run on each of ``functions``: each one's
    result, and its arguments after the call."""
    match = CALL.search(words)
    assert match and match.group(1) == function, words
    args, kwargs = eval(f"(lambda *a, **k: (a, k))({match.group(2)})", {**base, "np": np, "scipy": scipy})
    results = []
    for fn in functions:
        given, named = copy.deepcopy(list(args)), copy.deepcopy(kwargs)
        try:
            # a mutant's division by zero or empty mean is its answer, not a warning of the test run
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                results.append((fn(*given, **named), (given, named)))
        except Exception as error:
            results.append((("raised", type(error).__name__), None))
    return results


def differ(a, a_after, b, b_after) -> bool:
    """Whether two calls' results, or their arguments after the call, differ as the hidden tests see it."""
    return _differ(a, b) or (a_after is not None and b_after is not None and _differ(a_after, b_after))


def _differ(a, b) -> bool:
    """Whether two results differ as the hidden tests see it (the type is part of the answer)."""
    raised = [isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] == "raised" for x in (a, b)]
    if any(raised):
        return not all(raised) or a[1] != b[1]
    if scipy.sparse.issparse(a) or scipy.sparse.issparse(b):  # the format is part of the answer (CSR, not CSC)
        return not (scipy.sparse.issparse(a) and scipy.sparse.issparse(b)) or a.format != b.format \
            or _differ(a.toarray(), b.toarray())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(_differ(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) != len(b) or any(_differ(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) != isinstance(b, np.ndarray) and (np.ndim(a) or np.ndim(b)):
        return True
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return True
    if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
        return not np.array_equal(a, b)
    return not np.allclose(a.astype(float), b.astype(float), rtol=1e-6, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_a_held_out_mutant_gets_a_counterexample_and_no_wrong_diagnosis(name, tmp_path):
    assignment, function, source = HELD_OUT[name]
    failed = grade(tmp_path, assignment, function, source)
    hidden = {grade_id: item for grade_id, item in failed.items() if item[0]}
    assert hidden, f"{name}: no hidden test cell of {function} failed: not a mistake the tests see"
    named = {grade_id: item[1] for grade_id, item in failed.items() if item[1]}
    assert not named, f"{name} was told it made a known mistake it did not make: {named}"
    catalogue = judge_catalogue(load_cases(catalogue_path(COURSE, assignment)), _source_notebook(assignment))
    base = _given_setup(catalogue)
    reference = _build(catalogue["functions"][function]["reference"], function, base)
    mutant = _build(source, function, base)
    for grade_id, (_, _, words) in hidden.items():
        assert "A smaller input on which your" in words, f"{name}: {grade_id} failed without a counterexample"
        assert "None of the known mistakes gives these results" in words, words  # said plainly
        shown, original = (int(n) for n in SIZES.search(words).groups())
        assert shown <= original, words
        mine, right = replayed(words, function, base, mutant, reference)
        assert differ(*mine, *right), f"{name}: on {grade_id}'s counterexample the mutant agrees with the reference"


def test_the_held_out_mutants_are_forty_and_include_every_coincidence():
    assert len(HELD_OUT) >= 40
    assert {f"coincidence_{kind}" for kind in COINCIDENCES} <= set(HELD_OUT)
