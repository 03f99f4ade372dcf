"""Mutants and correct variants of 03_multinomial_nb's graded functions.

``class_log_prior`` and ``log_normalize`` are given in this notebook (graded in 02), so
they have no cases here. ``count_vectors`` uses the given ``tokenize``.
"""

ASSIGNMENT = "03_multinomial_nb"


# The hidden cells of each function (issue 21): the core computation, the edge cases its task names,
# and the input kinds it promises; the visible cell checks the lectures' numbers and gives no points.
_HIDDEN = {
    "count_vectors": ("core", "edges", "inputs"),
    "multinomial_feature_log_prob": ("core", "edges", "inputs"),
    "multinomial_jll": ("core", "edges", "inputs"),
    "confusion_matrix": ("core", "edges", "inputs"),
    "mutual_information": ("core", "edges", "inputs"),
}


def _tests(name):
    return [f"test_{name}_visible"] + [f"test_{name}_{part}" for part in _HIDDEN[name]]


_COUNT = '''import numpy as np
import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    rows, cols = [], []
    for row, doc in enumerate(docs):
        tokens = {tokens}
        for token in tokens:
            {lookup}
            rows.append(row)
            cols.append(col)
    ones = np.ones(len(rows))
    return sp.coo_matrix((ones, ({rc})){shape}).tocsr()'''


def _count(tokens="tokenize(doc) if isinstance(doc, str) else doc",
           lookup="col = vocabulary.get(token)\n            if col is None:\n                continue",
           rc="rows, cols", shape=", shape=(len(docs), len(vocabulary))"):
    return _COUNT.format(tokens=tokens, lookup=lookup, rc=rc, shape=shape)


_FLP = '''import numpy as np
import scipy.sparse as sp


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    y = np.asarray(y)
    weights = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    {weights_line}
    rows = {rows}
    word_counts = np.vstack([np.asarray(weights[y == c] @ X[y == c], dtype=float).ravel() for c in rows])
    {result_lines}'''


def _flp(weights_line="", rows="list(classes)",
         result_lines='''smoothed = word_counts + alpha
    with np.errstate(divide="ignore"):
        return np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))'''):
    return _FLP.format(weights_line=weights_line, rows=rows, result_lines=result_lines)


def _flp_denominator(denominator):
    return _flp(result_lines=f'''with np.errstate(divide="ignore"):
        return np.log(word_counts + alpha) - np.log({denominator})''')


_JLL = '''import numpy as np


def multinomial_jll(X, class_log_prior, feature_log_prob):
    log_prior = np.asarray(class_log_prior, dtype=float)
    log_theta = np.asarray(feature_log_prob, dtype=float)
    impossible_word = np.isneginf(log_theta)
    with np.errstate(invalid="ignore", divide="ignore"):
{body}'''


def _jll(body):
    return _JLL.format(body="\n".join("        " + line for line in body.strip().splitlines()))


_JLL_CORRECT_BODY = '''
jll = np.asarray(X @ np.where(impossible_word, 0.0, log_theta).T, dtype=float) + log_prior
jll[np.asarray(X @ impossible_word.T.astype(float), dtype=float) > 0] = -np.inf
return jll'''

_CONFUSION = '''import numpy as np


def confusion_matrix(y_true, y_pred, classes):
    {prologue}
    labels = {labels}
    position = {{label: index for index, label in enumerate(np.asarray(labels).tolist())}}
    matrix = np.zeros((len(position), len(position)), dtype=int)
    for truth, guess in zip(np.asarray(y_true).tolist(), np.asarray(y_pred).tolist()):
        if truth in position and guess in position:
            matrix[{index}] += 1
    return matrix'''


def _confusion(prologue="", labels="classes", index="position[truth], position[guess]"):
    return _CONFUSION.format(prologue=prologue, labels=labels, index=index)


CASES = {
    "count_vectors": {
        "tests": _tests("count_vectors"),
        "correct": {
            "coo_pairs": _count(),
            "dense_loops": '''import numpy as np
import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for token in (tokenize(doc) if isinstance(doc, str) else doc):
            if token in vocabulary:
                X[i, vocabulary[token]] += 1
    return sp.csr_matrix(X)''',
            "counter_lil": '''from collections import Counter

import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    X = sp.lil_matrix((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        tokens = tokenize(doc) if isinstance(doc, str) else list(doc)
        for word, count in Counter(tokens).items():
            if word in vocabulary:
                X[i, vocabulary[word]] = count
    return X.tocsr()''',
        },
        "mutants": {
            "unseen_words_not_ignored": _count(lookup="col = vocabulary[token]"),
            "presence_instead_of_counts": _count(tokens="set(tokenize(doc) if isinstance(doc, str) else doc)"),
            "rows_and_columns_swapped": _count(rc="cols, rows", shape=", shape=(len(vocabulary), len(docs))"),
            "token_lists_not_accepted": _count(tokens="tokenize(doc)"),
            "shape_from_data": _count(shape=""),
            "rows_from_data_empty_last_document_dropped": _count(shape=", shape=(max(rows) + 1, len(vocabulary))"),
            "columns_from_data_unused_words_dropped": _count(shape=", shape=(len(docs), max(cols) + 1)"),
            "alphabetical_position_not_vocabulary_index": _count(
                lookup="if token not in vocabulary:\n                continue\n            col = sorted(vocabulary).index(token)"),
            "overwrites_input": '''import numpy as np
import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    for i, doc in enumerate(docs):
        if isinstance(doc, str):
            docs[i] = tokenize(doc)  # replaces the caller's strings by token lists
    rows, cols = [], []
    for row, tokens in enumerate(docs):
        for token in tokens:
            if token in vocabulary:
                rows.append(row)
                cols.append(vocabulary[token])
    return sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocabulary))).tocsr()''',
        },
    },
    "multinomial_feature_log_prob": {
        "tests": _tests("multinomial_feature_log_prob"),
        "correct": {
            "weights_matmul": _flp(),
            "one_hot_sparse_transpose": '''import numpy as np


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    weights = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    in_class = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]) * weights[:, None]  # (n, n_classes)
    counts = np.asarray(X.T @ in_class, dtype=float).T  # works for dense and sparse X
    with np.errstate(divide="ignore"):
        return np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True) + alpha * X.shape[1])''',
            "row_loops": '''import numpy as np
import scipy.sparse as sp


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    position = {c: k for k, c in enumerate(np.asarray(classes).tolist())}
    counts = np.zeros((len(position), dense.shape[1]))
    for i, label in enumerate(np.asarray(y).tolist()):
        weight = 1.0 if sample_weight is None else float(sample_weight[i])
        if label in position:
            counts[position[label]] += weight * dense[i]
    totals = counts.sum(axis=1, keepdims=True) + alpha * dense.shape[1]
    with np.errstate(divide="ignore"):
        return np.log((counts + alpha) / totals)''',
        },
        "mutants": {
            "denominator_2": _flp_denominator("word_counts.sum(axis=1, keepdims=True) + 2"),
            "denominator_v_without_alpha": _flp_denominator("word_counts.sum(axis=1, keepdims=True) + X.shape[1]"),
            "denominator_number_of_documents": _flp_denominator(
                "np.array([[weights[y == c].sum()] for c in classes]) + alpha * X.shape[1]"),
            "alpha_ignored": _flp(result_lines='''with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(word_counts + 1.0) - np.log(word_counts.sum(axis=1, keepdims=True) + X.shape[1])'''),
            "rows_in_np_unique_order": _flp(rows="list(np.unique(classes))"),  # the order only (C11)
            "rows_from_y_absent_class_dropped": _flp(rows="[c for c in classes if np.any(y == c)]"),
            "dense_only": '''import numpy as np


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    weights = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    counts = np.vstack([(weights[y == c, None] * X[y == c]).sum(axis=0) for c in classes])
    with np.errstate(divide="ignore"):
        return np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True) + alpha * X.shape[1])''',
            "alpha_0_clipped": _flp(result_lines='''smoothed = np.maximum(word_counts + alpha, 1e-300)
    return np.log(smoothed) - np.log((word_counts + alpha).sum(axis=1, keepdims=True))'''),
            "single_class_squeezed": _flp(result_lines='''smoothed = word_counts + alpha
    with np.errstate(divide="ignore"):
        return np.squeeze(np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True)))'''),
            "ignores_sample_weight": _flp(weights_line="weights = np.ones(X.shape[0])"),
            "rounds_sample_weight": _flp(weights_line="weights = np.round(weights)"),
            "overwrites_input": '''import numpy as np
import scipy.sparse as sp


def multinomial_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):
    y = np.asarray(y)
    if sample_weight is not None:
        if sp.issparse(X):
            X = sp.diags(np.asarray(sample_weight, dtype=float)) @ X
        else:
            X *= np.asarray(sample_weight, dtype=float)[:, None]  # weights the caller's X in place
    counts = np.vstack([np.asarray(X[y == c].sum(axis=0), dtype=float).ravel() for c in classes])
    smoothed = counts + alpha
    with np.errstate(divide="ignore"):
        return np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))''',
        },
    },
    "multinomial_jll": {
        "tests": _tests("multinomial_jll"),
        "correct": {
            "masked_matmul": _jll(_JLL_CORRECT_BODY),
            "row_loops": '''import numpy as np
import scipy.sparse as sp


def multinomial_jll(X, class_log_prior, feature_log_prob):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    log_theta = np.asarray(feature_log_prob, dtype=float)
    jll = np.empty((dense.shape[0], log_theta.shape[0]))
    for i, x in enumerate(dense):
        present = x > 0
        for c, log_prior in enumerate(class_log_prior):
            jll[i, c] = log_prior + float(np.sum(x[present] * log_theta[c, present]))
    return jll''',
            "nan_to_zero": '''import numpy as np
import scipy.sparse as sp


def multinomial_jll(X, class_log_prior, feature_log_prob):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    log_theta = np.asarray(feature_log_prob, dtype=float)
    with np.errstate(invalid="ignore"):
        terms = dense[:, None, :] * log_theta[None, :, :]  # (n, classes, words); 0 * -inf = nan
    terms[np.isnan(terms)] = 0.0  # an absent word contributes theta**0 = 1
    return terms.sum(axis=2) + np.asarray(class_log_prior, dtype=float)''',
        },
        "mutants": {
            "forgets_prior": _jll(_JLL_CORRECT_BODY.replace(" + log_prior", "")),
            "probability_space": '''import numpy as np
import scipy.sparse as sp


def multinomial_jll(X, class_log_prior, feature_log_prob):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    theta = np.exp(np.asarray(feature_log_prob, dtype=float))
    scores = np.prod(theta[None, :, :] ** dense[:, None, :], axis=2) * np.exp(class_log_prior)
    with np.errstate(divide="ignore"):
        return np.log(scores)''',
            "zero_times_minus_inf_nan": _jll('''
return np.asarray(X @ log_theta.T, dtype=float) + log_prior'''),
            "transposed_output": _jll(_JLL_CORRECT_BODY.replace("return jll", "return jll.T")),
            "dense_only": '''import numpy as np


def multinomial_jll(X, class_log_prior, feature_log_prob):
    X = np.asarray(X, dtype=float)
    log_theta = np.asarray(feature_log_prob, dtype=float)
    impossible_word = np.isneginf(log_theta)
    jll = X @ np.where(impossible_word, 0.0, log_theta).T + np.asarray(class_log_prior, dtype=float)
    jll[X @ impossible_word.T.astype(float) > 0] = -np.inf
    return jll''',
            "overwrites_input": '''import numpy as np


def multinomial_jll(X, class_log_prior, feature_log_prob):
    log_theta = np.asarray(feature_log_prob, dtype=float)
    impossible_word = np.isneginf(log_theta)
    log_theta[impossible_word] = 0.0  # no copy: zeroes the caller's -inf entries
    jll = np.asarray(X @ log_theta.T, dtype=float) + np.asarray(class_log_prior, dtype=float)
    jll[np.asarray(X @ impossible_word.T.astype(float), dtype=float) > 0] = -np.inf
    return jll''',
        },
    },
    "confusion_matrix": {
        "tests": _tests("confusion_matrix"),
        "correct": {
            "loops": _confusion(),
            "one_hot_matmul": '''import numpy as np


def confusion_matrix(y_true, y_pred, classes):
    classes = np.asarray(classes)
    truth = (np.asarray(y_true)[:, None] == classes[None, :]).astype(int)
    guess = (np.asarray(y_pred)[:, None] == classes[None, :]).astype(int)
    return truth.T @ guess''',
            "add_at": '''import numpy as np


def confusion_matrix(y_true, y_pred, classes):
    classes = np.asarray(classes)
    order = np.argsort(classes)
    rows = order[np.searchsorted(classes[order], np.asarray(y_true))]
    cols = order[np.searchsorted(classes[order], np.asarray(y_pred))]
    matrix = np.zeros((len(classes), len(classes)), dtype=int)
    np.add.at(matrix, (rows, cols), 1)
    return matrix''',
        },
        "mutants": {
            "rows_and_columns_swapped": _confusion(index="position[guess], position[truth]"),
            "np_unique_order": _confusion(labels="np.unique(np.asarray(classes))"),  # the order only (C11)
            "shape_from_labels": _confusion(
                labels="[c for c in np.asarray(classes).tolist() if c in set(np.asarray(y_true).tolist()) | set(np.asarray(y_pred).tolist())]"),
            "overwrites_input": _confusion(prologue='''order = np.argsort(y_true, kind="stable")  # sorts the caller's arrays in place
    y_true[:] = y_true[order]
    y_pred[:] = y_pred[order]'''),
        },
    },
    "mutual_information": {
        "tests": _tests("mutual_information"),
        "correct": {
            "loops_over_classes": '''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
            "joint_table_entropies": '''import numpy as np
import scipy.sparse as sp


def mutual_information(X, y, classes):
    # I(U; C) = H(U) + H(C) - H(U, C), from the joint table of each word
    present = (X > 0).toarray() if sp.issparse(X) else np.asarray(X) > 0
    one_hot = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)
    n = present.shape[0]
    joint_1 = one_hot.T @ present / n  # P(U = 1, C = c), shape (n_classes, n_features)
    joint = np.stack([one_hot.sum(axis=0)[:, None] / n - joint_1, joint_1])  # (2, n_classes, n_features)

    def entropy(p, axes):
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.sum(np.where(p > 0, p * np.log(p), 0.0), axis=axes)

    return entropy(joint.sum(axis=1), 0) + entropy(one_hot.mean(axis=0), 0) - entropy(joint, (0, 1))''',
            "per_word_loop": '''import math

import numpy as np
import scipy.sparse as sp


def mutual_information(X, y, classes):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    labels = list(np.asarray(y))
    n = len(labels)
    scores = []
    for j in range(dense.shape[1]):
        column = [value > 0 for value in dense[:, j]]
        score = 0.0
        for c in classes:
            n_c = sum(label == c for label in labels)
            for u in (True, False):
                n_u = sum(value == u for value in column)
                n_cu = sum(label == c and value == u for label, value in zip(labels, column))
                if n_cu > 0:
                    score += n_cu / n * math.log(n * n_cu / (n_c * n_u))
        scores.append(score)
    return np.array(scores)''',
        },
        "mutants": {
            "counts_not_presence": '''import numpy as np


def mutual_information(X, y, classes):
    y = np.asarray(y)
    n = X.shape[0]
    n_u1 = np.asarray(X.sum(axis=0), dtype=float).ravel()  # word occurrences, not documents
    total = np.zeros(X.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(X[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
            "log2_bits": '''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log2(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
            "presence_terms_only": '''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            total += np.where(n_c1 > 0, n_c1 / n * np.log(n * n_c1 / (n_c * n_u1)), 0.0)
    return total''',
            "nan_for_zero_counts": '''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += n_cu / n * np.log(n * n_cu / (n_c * n_u))  # 0 * log 0 = nan
    return total''',
            "conditional_not_joint": '''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n_c * np.log(n * n_cu / (n_c * n_u)), 0.0)  # P(u | c), not P(u, c)
    return total''',
            "dense_only": '''import numpy as np


def mutual_information(X, y, classes):
    present = np.asarray(X) > 0  # a sparse matrix becomes a 0-d object array
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = present.sum(axis=0).astype(float)
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = present[y == c].sum(axis=0).astype(float)
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
            "overwrites_input": '''import numpy as np


def mutual_information(X, y, classes):
    if hasattr(X, "data"):
        X.data[:] = X.data > 0  # presence, written into the caller's matrix
    else:
        X[...] = X > 0
    present = X
    y = np.asarray(y)
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
        },
    },
}

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
_DENSE = ("Your function fails on a sparse matrix; document-term matrices are sparse, so use operations that "
          "work on both (Section 2).")
EXPLANATIONS = {
    "count_vectors": {
        "unseen_words_not_ignored": "Your function fails on, or counts, words that are not in the vocabulary; "
                                    "they must be ignored (Section 1).",
        "presence_instead_of_counts": "Your vectors record whether a word occurs, not how often: the "
                                      "multinomial model counts (Section 1).",
        "rows_and_columns_swapped": "Your matrix has words as rows and documents as columns; it must be one "
                                    "row per document (Section 1).",
        "token_lists_not_accepted": "Your function accepts strings only; a document given as a list of "
                                    "tokens must work too (Section 1).",
        "shape_from_data": "Your matrix's width comes from the words seen, not from the vocabulary's size "
                           "(Section 1).",
        "rows_from_data_empty_last_document_dropped": "Your matrix loses an empty document at the end: one "
                                                      "row per document, empty or not (Section 1).",
        "columns_from_data_unused_words_dropped": "Your matrix drops vocabulary words no document uses: one "
                                                  "column per vocabulary word (Section 1).",
        "alphabetical_position_not_vocabulary_index": "Your columns are in alphabetical order, not at each "
                                                      "word's index in the vocabulary (Section 1).",
        "overwrites_input": _INPUT,
    },
    "multinomial_feature_log_prob": {
        "denominator_2": "Your denominator adds 2 to the class's word total, as for two outcomes; it adds "
                         "alpha once per vocabulary word (Section 2).",
        "denominator_v_without_alpha": "Your denominator adds the vocabulary size without alpha (Section 2).",
        "denominator_number_of_documents": "Your denominator counts documents; the multinomial divides by "
                                           "the class's total number of words (Section 2).",
        "alpha_ignored": "Your estimate does not use alpha (Section 2, add-alpha smoothing).",
        "rows_in_np_unique_order": "Your rows are in sorted label order, not in the order of the classes argument; "
                                   "row k must be classes[k] (Section 2).",
        "rows_from_y_absent_class_dropped": "Your function drops a class that has no document, so rows no "
                                            "longer match the classes argument (Section 2).",
        "dense_only": _DENSE,
        "alpha_0_clipped": "With alpha = 0 your function turns log 0 into a large finite number; a word never "
                           "seen in a class must get probability 0, log -inf (Section 2).",
        "single_class_squeezed": "With a single class your result loses its class axis (Section 2).",
        "ignores_sample_weight": "Your function ignores sample_weight: each document's counts count as much "
                                 "as its weight (Section 2).",
        "rounds_sample_weight": "Your function rounds the sample weights to integers (Section 2).",
        "overwrites_input": _INPUT,
    },
    "multinomial_jll": {
        "forgets_prior": "Your joint log-likelihood leaves out the class log-prior (Section 3).",
        "probability_space": "Your function multiplies probabilities instead of adding logs, which underflows "
                             "for long documents (Section 3).",
        "zero_times_minus_inf_nan": "Your function turns a word that does not occur (count 0) with log "
                                    "probability -inf into NaN; a count of 0 contributes nothing (Section 3).",
        "transposed_output": "Your result is classes by documents; it must be one row per document (Section 3).",
        "dense_only": _DENSE.replace("Section 2", "Section 3"),
        "overwrites_input": _INPUT,
    },
    "confusion_matrix": {
        "rows_and_columns_swapped": "Your matrix has predictions as rows and true classes as columns; rows "
                                    "are the true classes (Section 5).",
        "np_unique_order": "Your rows and columns are in sorted label order, not in the order of the classes argument "
                           "(Section 5).",
        "shape_from_labels": "Your matrix's size comes from the labels seen, not from the classes given "
                             "(Section 5).",
        "overwrites_input": _INPUT,
    },
    "mutual_information": {
        "counts_not_presence": "Your function uses word counts; the mutual information here is between the "
                               "class and a word's presence (Section 6).",
        "log2_bits": "Your function uses log base 2 (bits); the notebook measures it in nats (Section 6).",
        "presence_terms_only": "Your sum leaves out the terms for the word being absent (Section 6).",
        "nan_for_zero_counts": "Your function gives NaN where a cell of the table is empty; 0 log 0 counts "
                               "as 0 (Section 6).",
        "conditional_not_joint": "Your terms weigh by a conditional probability, not the joint one "
                                 "(Section 6).",
        "dense_only": _DENSE.replace("Section 2", "Section 6"),
        "overwrites_input": _INPUT,
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts


# Mistakes of the text, the edge cases and the input kinds (issue 21), a correct variant with another
# acceptable output type, and the cells a mutant that misses only them must still pass in full ("keeps").
_LISTS = ("Your function works on NumPy arrays only: given {what} it {fails}. The task promises array-likes "
          "({section}); convert the arguments with np.asarray before computing.")
CASES["count_vectors"]["correct"]["integer_counts"] = '''import numpy as np
import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    rows, cols = [], []
    for row, doc in enumerate(docs):
        for token in (tokenize(doc) if isinstance(doc, str) else doc):
            if token in vocabulary:
                rows.append(row)
                cols.append(vocabulary[token])
    counts = np.ones(len(rows), dtype=np.int64)
    return sp.csr_matrix((counts, (rows, cols)), shape=(len(docs), len(vocabulary)), dtype=np.int64)'''
CASES["confusion_matrix"]["correct"]["bincount_int32"] = '''import numpy as np


def confusion_matrix(y_true, y_pred, classes):
    index = {label: i for i, label in enumerate(np.asarray(classes).tolist())}
    k = len(index)
    codes = [index[t] * k + index[p] for t, p in zip(np.asarray(y_true).tolist(), np.asarray(y_pred).tolist())]
    return np.bincount(np.asarray(codes, dtype=int), minlength=k * k).reshape(k, k).astype(np.int32)'''
_MORE = {
    "count_vectors": {
        "substring_count": ('''import numpy as np
import scipy.sparse as sp


def count_vectors(docs, vocabulary):
    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for word, j in vocabulary.items():
            X[i, j] = doc.lower().count(word) if isinstance(doc, str) else list(doc).count(word)
    return sp.csr_matrix(X)''',
            "Your counts search each vocabulary word inside the raw text, so 'win' is also found inside "
            "'winner' and 'twin'; count the tokens that tokenize returns instead (Section 1, the tokenizer)."),
        "split_not_tokenize": (_count(tokens="doc.split() if isinstance(doc, str) else doc"),
            "Your function splits strings at spaces instead of calling tokenize, so 'Win' (a capital) and "
            "'now.' (punctuation) do not match the vocabulary words 'win' and 'now' (Section 1, the tokenizer)."),
        "retokenises_token_lists": (_count(tokens="tokenize(doc if isinstance(doc, str) else ' '.join(doc))"),
            "Your function tokenizes token lists again, which splits a given token such as 'e-mail' into "
            "'e' and 'mail'; a document that is already a list of tokens is used as it is (Exercise 1.1)."),
        "returns_dense": (_count().replace(".tocsr()", ".toarray()"),
            "Your function returns a dense NumPy array; the task asks for a scipy.sparse CSR matrix, which "
            "stores only the non-zero counts (Section 1)."),
    },
    "multinomial_feature_log_prob": {
        "list_labels_not_converted": (_flp().replace("    y = np.asarray(y)\n", ""),
            _LISTS.format(what="labels as a Python list", fails="compares the whole list with each class and "
                          "counts no word in any class", section="Exercise 2.1")),
    },
    "multinomial_jll": {
        "lists_not_accepted": ('''import numpy as np


def multinomial_jll(X, class_log_prior, feature_log_prob):
    log_theta = feature_log_prob.copy()
    impossible_word = np.isneginf(log_theta)
    log_theta[impossible_word] = 0.0
    jll = np.asarray(X @ log_theta.T, dtype=float) + np.asarray(class_log_prior, dtype=float)
    jll[np.asarray(X @ impossible_word.T.astype(float), dtype=float) > 0] = -np.inf
    return jll''',
            _LISTS.format(what="feature_log_prob as a nested list", fails="fails", section="Exercise 3.1")),
    },
    "confusion_matrix": {
        "lists_not_accepted": ('''import numpy as np


def confusion_matrix(y_true, y_pred, classes):
    truth = (y_true[:, None] == classes[None, :]).astype(int)
    guess = (y_pred[:, None] == classes[None, :]).astype(int)
    return truth.T @ guess''',
            _LISTS.format(what="labels as Python lists", fails="fails", section="Exercise 5.1")),
    },
    "mutual_information": {
        "list_labels_not_converted": ('''import numpy as np


def mutual_information(X, y, classes):
    present = X > 0
    n = present.shape[0]
    n_u1 = np.asarray(present.sum(axis=0), dtype=float).ravel()
    total = np.zeros(present.shape[1])
    for c in classes:
        n_c = float(np.sum(y == c))
        if n_c == 0:
            continue
        n_c1 = np.asarray(present[y == c].sum(axis=0), dtype=float).ravel()
        for n_cu, n_u in [(n_c1, n_u1), (n_c - n_c1, n - n_u1)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(n_cu > 0, n_cu / n * np.log(n * n_cu / (n_c * n_u)), 0.0)
    return total''',
            _LISTS.format(what="labels as a Python list", fails="finds no document of any class and returns 0 "
                          "for every word", section="Exercise 6.1")),
    },
}
for _function, _mistakes in _MORE.items():
    for _name, (_source, _words) in _mistakes.items():
        CASES[_function]["mutants"][_name] = _source
        CASES[_function]["explanations"][_name] = _words
CASES["count_vectors"]["keeps"] = {
    "alphabetical_position_not_vocabulary_index": ["test_count_vectors_core"],
    "rows_from_data_empty_last_document_dropped": ["test_count_vectors_core", "test_count_vectors_inputs"],
    **{name: ["test_count_vectors_core", "test_count_vectors_edges"]
       for name in ("substring_count", "split_not_tokenize", "retokenises_token_lists", "returns_dense")},
}
CASES["multinomial_feature_log_prob"]["keeps"] = {
    "rows_in_np_unique_order": ["test_multinomial_feature_log_prob_edges", "test_multinomial_feature_log_prob_inputs"],
    "alpha_0_clipped": ["test_multinomial_feature_log_prob_core", "test_multinomial_feature_log_prob_inputs"],
    "single_class_squeezed": ["test_multinomial_feature_log_prob_core", "test_multinomial_feature_log_prob_inputs"],
    "rows_from_y_absent_class_dropped": ["test_multinomial_feature_log_prob_core",
                                         "test_multinomial_feature_log_prob_inputs"],
    "ignores_sample_weight": ["test_multinomial_feature_log_prob_core"],
    "dense_only": ["test_multinomial_feature_log_prob_core", "test_multinomial_feature_log_prob_edges"],
    "list_labels_not_converted": ["test_multinomial_feature_log_prob_core", "test_multinomial_feature_log_prob_edges"],
}
CASES["multinomial_jll"]["keeps"] = {
    "probability_space": ["test_multinomial_jll_core", "test_multinomial_jll_inputs"],
    "zero_times_minus_inf_nan": ["test_multinomial_jll_core", "test_multinomial_jll_inputs"],
    "dense_only": ["test_multinomial_jll_core", "test_multinomial_jll_edges"],
    "lists_not_accepted": ["test_multinomial_jll_core", "test_multinomial_jll_edges"],
}
CASES["confusion_matrix"]["keeps"] = {
    "np_unique_order": ["test_confusion_matrix_edges", "test_confusion_matrix_inputs"],
    "shape_from_labels": ["test_confusion_matrix_core", "test_confusion_matrix_inputs"],
    "lists_not_accepted": ["test_confusion_matrix_core", "test_confusion_matrix_edges"],
}
CASES["mutual_information"]["keeps"] = {
    "dense_only": ["test_mutual_information_core", "test_mutual_information_edges"],
    "list_labels_not_converted": ["test_mutual_information_core", "test_mutual_information_edges"],
}
# Probes (issue 33): three classes of unequal sizes, on which the class entropy is neither log 2 nor 1
# (the judge confirms a diagnosis on them before naming it).
CASES["mutual_information"]["probes"] = [
    "np.array([[1, 0, 2], [0, 1, 0], [3, 0, 0], [0, 2, 1], [1, 1, 0], [0, 0, 1]]), np.array([0, 1, 2, 0, 1, 1]), "
    "np.array([0, 1, 2])",
]

# Review C11 (one mistake, one weight): the mutant that puts the rows (or blocks) in sorted order instead of
# the order of `classes`; it must lose exactly its function's core cell (tests/mutation/test_mutation_suite.py).
CASES["multinomial_feature_log_prob"]["row_order"] = "rows_in_np_unique_order"
CASES["confusion_matrix"]["row_order"] = "np_unique_order"
