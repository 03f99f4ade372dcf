"""Mutants and correct variants of 02_categorical_nb's graded functions."""

ASSIGNMENT = "02_categorical_nb"


# The hidden cells of each function (issue 21): the core computation, the edge cases its task names,
# and the input kinds it promises; the visible cell checks the lectures' numbers and gives no points.
_HIDDEN = {
    "class_log_prior": ("core", "edges", "inputs"),
    "categorical_feature_log_prob": ("core", "edges", "inputs"),
    "categorical_jll": ("core", "edges", "inputs"),
    "log_normalize": ("core", "edges", "inputs"),
}


def _tests(name):
    return [f"test_{name}_visible"] + [f"test_{name}_{part}" for part in _HIDDEN[name]]


_CLASS_LOG_PRIOR_MUTANT = '''import numpy as np


def class_log_prior(y, classes, sample_weight=None):
    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    {weights_line}
    counts = np.array([weights[y == c].sum() for c in {classes}], dtype=float)
    with np.errstate(divide="ignore"):
        return {result}'''


def _prior_mutant(weights_line="", classes="classes", result="np.log(counts / counts.sum())"):
    return _CLASS_LOG_PRIOR_MUTANT.format(weights_line=weights_line, classes=classes, result=result)


# categorical_feature_log_prob, written once with hooks for single mistakes
_FLP = '''import numpy as np


def categorical_feature_log_prob(X, y, classes, alpha=1.0, n_categories=None, sample_weight=None):
    {prologue}
    X = np.asarray(X).astype(int)
    y = np.asarray(y)
    n_samples, n_features = X.shape
    weights = np.ones(n_samples) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    {weights_line}
    n_values = X.max(axis=0) + 1
    if n_categories is not None{ignore_n_categories}:
        n_values = np.maximum(n_values, np.broadcast_to(np.asarray(n_categories, dtype=int), (n_features,)))
    rows = {rows}
    tables = []
    for j in range(n_features):
        counts = np.zeros((len(rows), n_values[j]))
        for row, c in enumerate(rows):
            in_class = y == c
            counts[row] = np.bincount(X[in_class, j], weights=weights[in_class], minlength=n_values[j])
        class_total = {class_total}
        with np.errstate(divide="ignore", invalid="ignore"):
            tables.append({table})
    return {result}'''


def _flp(prologue="", weights_line="", ignore_n_categories="", rows="list(classes)",
         class_total="counts.sum(axis=1, keepdims=True)",
         table="np.log(counts + alpha) - np.log(class_total + alpha * n_values[j])", result="tables"):
    return _FLP.format(prologue=prologue, weights_line=weights_line, ignore_n_categories=ignore_n_categories,
                       rows=rows, class_total=class_total, table=table, result=result)


_JLL = '''import numpy as np


def categorical_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X).astype(int)
    jll = np.zeros((X.shape[0], len(class_log_prior)))
    for j, log_prob in enumerate(feature_log_prob):
        jll += {term}
    return {result}'''

_LOG_NORMALIZE = '''import numpy as np


def log_normalize(jll):
    jll = np.asarray(jll, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
{body}'''


def _ln(body):
    return _LOG_NORMALIZE.format(body="\n".join("        " + line for line in body.strip().splitlines()))


CASES = {
    "class_log_prior": {
        "tests": _tests("class_log_prior"),
        "correct": {
            "loops": '''import numpy as np


def class_log_prior(y, classes, sample_weight=None):
    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    counts = np.array([weights[y == c].sum() for c in classes], dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(counts) - np.log(weights.sum())''',
            "one_hot": '''import numpy as np


def class_log_prior(y, classes, sample_weight=None):
    one_hot = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)
    weights = np.ones(len(one_hot)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    counts = weights @ one_hot
    with np.errstate(divide="ignore"):
        return np.log(counts / counts.sum())''',
            "pandas": '''import numpy as np
import pandas as pd


def class_log_prior(y, classes, sample_weight=None):
    weights = pd.Series(np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float))
    counts = weights.groupby(np.asarray(y)).sum().reindex(list(classes), fill_value=0.0)
    with np.errstate(divide="ignore"):
        return np.log(counts.to_numpy() / weights.sum())''',
        },
        "mutants": {
            "np_unique_order": _prior_mutant(classes="np.unique(classes)"),  # the order only (C11)
            "forgets_log": _prior_mutant(result="counts / counts.sum()"),
            "divides_by_n_classes": _prior_mutant(result="np.log(counts / len(classes))"),
            "absent_class_dropped": _prior_mutant(classes="[c for c in classes if np.any(y == c)]"),
            "ignores_sample_weight": _prior_mutant(weights_line="weights = np.ones(len(y))"),
            "rounds_sample_weight": _prior_mutant(weights_line="weights = weights.astype(int)"),
            "overwrites_input": _prior_mutant(weights_line="weights /= weights.sum()  # the caller's sample_weight"),
        },
    },
    "categorical_feature_log_prob": {
        "tests": _tests("categorical_feature_log_prob"),
        "correct": {
            "bincount_loops": _flp(),
            "one_hot_matmul": '''import numpy as np


def categorical_feature_log_prob(X, y, classes, alpha=1.0, n_categories=None, sample_weight=None):
    X = np.asarray(X).astype(int)
    weights = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    in_class = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]) * weights[:, None]  # (n, n_classes)
    if n_categories is None:
        sizes = X.max(axis=0) + 1
    else:
        sizes = np.broadcast_to(np.asarray(n_categories), (X.shape[1],))
    tables = []
    for j, size in enumerate(sizes):
        has_value = X[:, j][:, None] == np.arange(size)[None, :]  # (n, K_j)
        counts = in_class.T @ has_value
        smoothed_total = counts.sum(axis=1, keepdims=True) + alpha * size
        with np.errstate(divide="ignore"):
            tables.append(np.log(counts + alpha) - np.log(smoothed_total))
    return tables''',
            "add_at": '''import numpy as np


def categorical_feature_log_prob(X, y, classes, alpha=1.0, n_categories=None, sample_weight=None):
    X = np.array(X, dtype=int)
    y = list(np.asarray(y).tolist())
    classes = list(np.asarray(classes).tolist())
    weights = np.ones(len(X)) if sample_weight is None else np.array(sample_weight, dtype=float)
    sizes = X.max(axis=0) + 1
    if n_categories is not None:
        sizes = np.maximum(sizes, n_categories)
    position = {c: i for i, c in enumerate(classes)}
    rows = np.array([position.get(label, -1) for label in y])
    keep = rows >= 0
    result = []
    for j in range(X.shape[1]):
        counts = np.zeros((len(classes), int(sizes[j])))
        np.add.at(counts, (rows[keep], X[keep, j]), weights[keep])
        with np.errstate(divide="ignore"):
            result.append(np.log((counts + alpha) / (counts.sum(axis=1, keepdims=True) + alpha * sizes[j])))
    return result''',
        },
        "mutants": {
            "denominator_n_classes": _flp(table="np.log(counts + alpha) - np.log(class_total + alpha * len(classes))"),
            "denominator_2": _flp(table="np.log(counts + alpha) - np.log(class_total + 2 * alpha)"),
            "divides_by_n_not_n_c": _flp(class_total="weights.sum()"),
            "rows_in_np_unique_order": _flp(rows="list(np.unique(classes))"),  # the order only (C11)
            "rows_from_y_absent_class_dropped": _flp(rows="[c for c in classes if np.any(y == c)]"),
            "ignores_n_categories": _flp(ignore_n_categories=" and False"),
            "alpha_0_clipped": _flp(table="np.log(np.maximum(counts + alpha, 1e-300)) - np.log(class_total + alpha * n_values[j])"),
            "single_class_squeezed": _flp(result="[np.squeeze(table) for table in tables]"),
            "ignores_sample_weight": _flp(weights_line="weights = np.ones(n_samples)"),
            "rounds_sample_weight": _flp(weights_line="weights = np.round(weights)"),
            "overwrites_input": _flp(prologue='''order = np.argsort(np.asarray(y), kind="stable")  # sorts the caller's arrays in place
    for array in (X, y, sample_weight):
        if isinstance(array, np.ndarray):
            array[:] = array[order]'''),
        },
    },
    "categorical_jll": {
        "tests": _tests("categorical_jll"),
        "correct": {
            "loop_over_features": _JLL.format(term="np.asarray(log_prob, dtype=float)[:, X[:, j]].T",
                                              result="jll + np.asarray(class_log_prior, dtype=float)"),
            "stacked": '''import numpy as np


def categorical_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X, dtype=int)
    per_feature = np.stack([np.asarray(table)[:, X[:, j]] for j, table in enumerate(feature_log_prob)])
    return per_feature.sum(axis=0).T + np.asarray(class_log_prior)[None, :]''',
            "loops": '''import numpy as np


def categorical_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X, dtype=int)
    jll = np.empty((X.shape[0], len(class_log_prior)))
    for i, x in enumerate(X):
        for c, log_prior in enumerate(class_log_prior):
            jll[i, c] = log_prior + sum(table[c][value] for table, value in zip(feature_log_prob, x))
    return jll''',
        },
        "mutants": {
            "forgets_prior": _JLL.format(term="np.asarray(log_prob, dtype=float)[:, X[:, j]].T", result="jll"),
            "transposed_output": _JLL.format(term="np.asarray(log_prob, dtype=float)[:, X[:, j]].T",
                                             result="(jll + np.asarray(class_log_prior, dtype=float)).T"),
            "indexes_wrong_axis": _JLL.format(term="np.asarray(log_prob, dtype=float)[X[:, j]]",
                                              result="jll + np.asarray(class_log_prior, dtype=float)"),
            "minus_inf_made_finite": _JLL.format(term="np.nan_to_num(np.asarray(log_prob, dtype=float)[:, X[:, j]].T)",
                                                 result="jll + np.asarray(class_log_prior, dtype=float)"),
            "probability_space": '''import numpy as np


def categorical_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X).astype(int)
    product = np.ones((X.shape[0], len(class_log_prior)))
    for j, log_prob in enumerate(feature_log_prob):
        product *= np.exp(np.asarray(log_prob, dtype=float)[:, X[:, j]].T)
    with np.errstate(divide="ignore"):
        return np.log(product * np.exp(class_log_prior))''',
            "overwrites_input": '''import numpy as np


def categorical_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X)
    order = np.lexsort(X.T[::-1])
    X[:] = X[order]  # sorts the caller's samples in place
    jll = np.zeros((X.shape[0], len(class_log_prior)))
    for j, log_prob in enumerate(feature_log_prob):
        jll += np.asarray(log_prob, dtype=float)[:, X[:, j].astype(int)].T
    result = np.empty_like(jll)
    result[order] = jll
    return result + np.asarray(class_log_prior, dtype=float)''',
        },
    },
    "log_normalize": {
        "tests": _tests("log_normalize"),
        "correct": {
            "row_max_shift": _ln('''
row_max = jll.max(axis=1, keepdims=True)
return jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1, keepdims=True)))'''),
            "scipy_logsumexp": '''import numpy as np
from scipy.special import logsumexp


def log_normalize(jll):
    return np.asarray(jll, dtype=float) - logsumexp(jll, axis=1, keepdims=True)''',
            "loops": '''import math

import numpy as np


def log_normalize(jll):
    rows = []
    for row in np.asarray(jll, dtype=float).tolist():
        top = max(row)
        evidence = top + math.log(sum(math.exp(value - top) for value in row))
        rows.append([value - evidence for value in row])
    return np.array(rows)''',
        },
        "mutants": {
            "no_shift": _ln("return jll - np.log(np.exp(jll).sum(axis=1, keepdims=True))"),
            "one_shift_for_all_rows": _ln('''
shift = jll.max()
return jll - (shift + np.log(np.exp(jll - shift).sum(axis=1, keepdims=True)))'''),
            "probability_space_then_log": _ln('''
p = np.exp(jll - jll.max(axis=1, keepdims=True))
return np.log(p / p.sum(axis=1, keepdims=True))'''),
            "wrong_axis": _ln('''
col_max = jll.max(axis=0, keepdims=True)
return jll - (col_max + np.log(np.exp(jll - col_max).sum(axis=0, keepdims=True)))'''),
            "returns_probabilities": _ln('''
row_max = jll.max(axis=1, keepdims=True)
return np.exp(jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1, keepdims=True))))'''),
            "no_keepdims": _ln('''
row_max = jll.max(axis=1)
return jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1)))'''),
            "minus_inf_made_finite": _ln('''
jll = np.where(np.isneginf(jll), -1e300, jll)
row_max = jll.max(axis=1, keepdims=True)
return jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1, keepdims=True)))'''),
            "overwrites_input": '''import numpy as np
from scipy.special import logsumexp


def log_normalize(jll):
    jll = np.asarray(jll, dtype=float)
    jll -= logsumexp(jll, axis=1, keepdims=True)  # no copy: this is the caller's array
    return jll''',
        },
    },
}

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
_ORDER = ("Your rows are in sorted label order, not in the order of the classes argument; row k must be "
          "classes[k], whatever order classes comes in (Section 3).")
_ABSENT = ("Your function drops a class that has no training sample, so the rows no longer match the "
           "classes argument (Section 3).")
_WEIGHT = "Your function ignores sample_weight: each sample must count as much as its weight (Section 3)."
_ROUND = "Your function rounds the sample weights to integers; a weight of 0.5 counts half a sample (Section 3)."
EXPLANATIONS = {
    "class_log_prior": {
        "np_unique_order": _ORDER,
        "forgets_log": "Your function returns the prior probabilities, not their logarithms (Section 3).",
        "divides_by_n_classes": "Your prior divides by the number of classes, not by the number of "
                                "samples (Section 3).",
        "absent_class_dropped": _ABSENT,
        "ignores_sample_weight": _WEIGHT,
        "rounds_sample_weight": _ROUND,
        "overwrites_input": _INPUT,
    },
    "categorical_feature_log_prob": {
        "denominator_n_classes": "Your smoothing adds l times the number of classes to the denominator; it "
                                 "adds l times the number of values of the feature (Section 4).",
        "denominator_2": "Your smoothing adds 2l to the denominator, as if every feature had two values "
                         "(Section 4).",
        "divides_by_n_not_n_c": "Your counts are divided by all the samples, not by the samples of the "
                                "class: P(x_j | c) is conditional on c (Section 4).",
        "rows_in_np_unique_order": _ORDER.replace("Section 3", "Section 4"),
        "rows_from_y_absent_class_dropped": _ABSENT.replace("Section 3", "Section 4"),
        "ignores_n_categories": "Your table has only the values seen in X, not n_categories of them, so an "
                                "unseen value has no probability (Section 4).",
        "alpha_0_clipped": "With l = 0 your function turns log 0 into a large finite number; a value never "
                           "seen in a class must get probability 0, log -inf (Section 4).",
        "single_class_squeezed": "With a single class your result loses its class axis; keep one row per "
                                 "class (Section 4).",
        "ignores_sample_weight": _WEIGHT.replace("Section 3", "Section 4"),
        "rounds_sample_weight": _ROUND.replace("Section 3", "Section 4"),
        "overwrites_input": _INPUT,
    },
    "categorical_jll": {
        "forgets_prior": "Your joint log-likelihood leaves out the class log-prior (Section 5).",
        "transposed_output": "Your result has classes as rows and samples as columns; it must be one row per "
                             "sample (Section 5).",
        "indexes_wrong_axis": "Your lookup indexes the feature tables with the wrong axis (Section 5).",
        "minus_inf_made_finite": "Your function replaces log 0 = -inf by a finite number: an impossible value "
                                 "must make the class impossible (Section 5).",
        "probability_space": "Your function multiplies probabilities instead of adding logs, which underflows "
                             "to 0 with many features (Section 5).",
        "overwrites_input": _INPUT,
    },
    "log_normalize": {
        "no_shift": "Your function exponentiates without subtracting the maximum first, which overflows or "
                    "underflows for large scores (Section 5, log-sum-exp).",
        "one_shift_for_all_rows": "Your function subtracts one maximum for the whole array, not each row's "
                                  "own, so rows far from it underflow (Section 5).",
        "probability_space_then_log": "Your function normalises probabilities and takes the log afterwards, "
                                      "which underflows to -inf (Section 5).",
        "wrong_axis": "Your function normalises along the wrong axis: each row (one sample) must sum to 1 "
                      "(Section 5).",
        "returns_probabilities": "Your function returns probabilities, not log-probabilities (Section 5).",
        "no_keepdims": "Your row totals lose their axis and broadcast against the wrong dimension "
                       "(Section 5; keepdims).",
        "minus_inf_made_finite": "Your function turns -inf scores into finite ones: a class with log 0 must "
                                 "keep probability 0 (Section 5).",
        "overwrites_input": _INPUT,
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts


# Mistakes of the edge cases and of the input kinds (issue 21), with the cells a mutant that misses only
# them must still pass in full ("keeps": its core computation is right).
_LISTS = ("Your function works on NumPy arrays only: given {what} it {fails}. The task promises array-likes "
          "({section}); convert the arguments with np.asarray before computing.")
_MORE = {
    "class_log_prior": {
        "list_labels_not_converted": (_prior_mutant().replace("    y = np.asarray(y)\n", ""),
            _LISTS.format(what="labels as a Python list", fails="compares the whole list with each class, "
                          "finds no sample and returns -inf for every class", section="Exercise 3.1")),
    },
    "categorical_feature_log_prob": {
        "k_from_distinct_values": (_flp().replace(
            "n_values = X.max(axis=0) + 1",
            "n_values = np.array([len(np.unique(X[:, j])) for j in range(n_features)])"),
            "Your K_j counts the distinct codes that occur in feature j; when a code is skipped (codes 0, 2, 3, "
            "4 but no 1) the feature still has K_j = largest code + 1 values, and each needs its pseudo-count "
            "(Section 4)."),
        "list_labels_not_converted": (_flp().replace("    y = np.asarray(y)\n", ""),
            _LISTS.format(what="labels as a Python list", fails="compares the whole list with each class and "
                          "counts no sample in any class", section="Exercise 4.1")),
    },
    "categorical_jll": {
        "lists_not_accepted": (_JLL.format(term="log_prob[:, X[:, j]].T",
                                           result="jll + np.asarray(class_log_prior, dtype=float)"),
            _LISTS.format(what="the tables of feature_log_prob as nested lists", fails="fails",
                          section="Exercise 5.1")),
    },
    "log_normalize": {
        "lists_not_accepted": ('''import numpy as np


def log_normalize(jll):
    row_max = jll.max(axis=1, keepdims=True)
    return jll - (row_max + np.log(np.exp(jll - row_max).sum(axis=1, keepdims=True)))''',
            _LISTS.format(what="jll as a nested list", fails="fails", section="Exercise 5.2")),
    },
}
for _function, _mistakes in _MORE.items():
    for _name, (_source, _words) in _mistakes.items():
        CASES[_function]["mutants"][_name] = _source
        CASES[_function]["explanations"][_name] = _words
CASES["class_log_prior"]["keeps"] = {
    "np_unique_order": ["test_class_log_prior_edges", "test_class_log_prior_inputs"],
    "absent_class_dropped": ["test_class_log_prior_core", "test_class_log_prior_inputs"],
    "rounds_sample_weight": ["test_class_log_prior_core"],
    "list_labels_not_converted": ["test_class_log_prior_core", "test_class_log_prior_edges"],
}
CASES["categorical_feature_log_prob"]["keeps"] = {
    name: ["test_categorical_feature_log_prob_core"]
    for name in ("ignores_n_categories", "alpha_0_clipped", "single_class_squeezed", "rows_from_y_absent_class_dropped",
                 "ignores_sample_weight", "rounds_sample_weight", "k_from_distinct_values", "list_labels_not_converted")
}
CASES["categorical_feature_log_prob"]["keeps"]["rows_in_np_unique_order"] = [
    "test_categorical_feature_log_prob_edges", "test_categorical_feature_log_prob_inputs"]
CASES["categorical_jll"]["keeps"] = {
    "minus_inf_made_finite": ["test_categorical_jll_core", "test_categorical_jll_inputs"],
    "probability_space": ["test_categorical_jll_core", "test_categorical_jll_inputs"],
    "lists_not_accepted": ["test_categorical_jll_core", "test_categorical_jll_edges"],
}
CASES["log_normalize"]["keeps"] = {
    "no_shift": ["test_log_normalize_core", "test_log_normalize_inputs"],
    "one_shift_for_all_rows": ["test_log_normalize_core", "test_log_normalize_inputs"],
    "probability_space_then_log": ["test_log_normalize_core", "test_log_normalize_inputs"],
    "minus_inf_made_finite": ["test_log_normalize_core", "test_log_normalize_inputs"],
    "lists_not_accepted": ["test_log_normalize_core", "test_log_normalize_edges"],
}

# Review C11 (one mistake, one weight): the mutant that puts the rows (or blocks) in sorted order instead of
# the order of `classes`; it must lose exactly its function's core cell (tests/mutation/test_mutation_suite.py).
CASES["class_log_prior"]["row_order"] = "np_unique_order"
CASES["categorical_feature_log_prob"]["row_order"] = "rows_in_np_unique_order"
