"""Mutants and correct variants of 04_bernoulli_nb's graded functions."""

ASSIGNMENT = "04_bernoulli_nb"

_BV_HEAD = "def binary_vectors(docs, vocabulary):\n"
_FLP_HEAD = "def bernoulli_feature_log_prob(X, y, classes, alpha=1.0, sample_weight=None):\n"
_JLL_HEAD = "def bernoulli_jll(X, class_log_prior, feature_log_prob):\n"

_FLP_BODY = '''    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y)
    weights = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    docs_with_word = np.vstack([np.asarray(weights[y == c] @ X[y == c], dtype=float).ravel() for c in classes])
    docs_in_class = np.array([[weights[y == c].sum()] for c in classes])
    with np.errstate(divide="ignore"):
        return np.log(docs_with_word + alpha) - np.log(DENOMINATOR)
'''

_JLL_BODY = '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    all_absent = np.asarray(class_log_prior, dtype=float) + log_not_p.sum(axis=1)
    return np.asarray(X @ (log_p - log_not_p).T, dtype=float) + all_absent
'''

CASES = {
    "binary_vectors": {
        "tests": ["test_binary_vectors_visible", "test_binary_vectors_core", "test_binary_vectors_edges",
                  "test_binary_vectors_inputs"],
        "keeps": {"substring_match": ["test_binary_vectors_core"],
                  "returns_dense_array": ["test_binary_vectors_core", "test_binary_vectors_edges"],
                  "retokenises_token_lists": ["test_binary_vectors_core", "test_binary_vectors_edges"]},
        "correct": {
            "coo_from_sets": _BV_HEAD + '''    rows, cols = [], []
    for row, doc in enumerate(docs):
        tokens = tokenize(doc) if isinstance(doc, str) else doc
        present = {vocabulary[t] for t in tokens if t in vocabulary}
        rows.extend([row] * len(present))
        cols.extend(sorted(present))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocabulary)))
''',
            "lil_loops": _BV_HEAD + '''    X = sp.lil_matrix((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for token in (tokenize(doc) if isinstance(doc, str) else doc):
            if token in vocabulary:
                X[i, vocabulary[token]] = 1
    return X.tocsr()
''',
            "dense_then_sparse": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        tokens = tokenize(doc) if isinstance(doc, str) else list(doc)
        columns = [vocabulary[t] for t in tokens if t in vocabulary]
        X[i, columns] = 1.0
    return sp.csr_matrix(X)
''',
            # CSR is prescribed, csr_array as well as csr_matrix, in any numeric dtype
            "csr_array_of_integers": _BV_HEAD + '''    indptr, indices = [0], []
    for doc in docs:
        tokens = tokenize(doc) if isinstance(doc, str) else doc
        indices.extend(sorted({vocabulary[t] for t in tokens if t in vocabulary}))
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.int64)
    return sp.csr_array((data, indices, indptr), shape=(len(docs), len(vocabulary)))
''',
        },
        "mutants": {
            # tokenizes the caller's raw strings in place (the judge copies lists back)
            "overwrites_input_docs": _BV_HEAD + '''    for row, doc in enumerate(docs):
        if isinstance(doc, str):
            docs[row] = tokenize(doc)
    rows, cols = [], []
    for row, tokens in enumerate(docs):
        present = {vocabulary[t] for t in tokens if t in vocabulary}
        rows.extend([row] * len(present))
        cols.extend(sorted(present))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocabulary)))
''',
            "counts_instead_of_presence": _BV_HEAD + '''    rows, cols = [], []
    for row, doc in enumerate(docs):
        tokens = tokenize(doc) if isinstance(doc, str) else doc
        for t in tokens:
            if t in vocabulary:
                rows.append(row)
                cols.append(vocabulary[t])
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocabulary)))
''',
            "shape_from_data": _BV_HEAD + '''    rows, cols = [], []
    for row, doc in enumerate(docs):
        tokens = tokenize(doc) if isinstance(doc, str) else doc
        present = {vocabulary[t] for t in tokens if t in vocabulary}
        rows.extend([row] * len(present))
        cols.extend(sorted(present))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)))
''',
            "columns_in_alphabetical_order": _BV_HEAD + '''    index = {word: j for j, word in enumerate(sorted(vocabulary))}
    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in (tokenize(doc) if isinstance(doc, str) else doc):
            if t in index:
                X[i, index[t]] = 1.0
    return sp.csr_matrix(X)
''',
            "token_lists_not_accepted": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in tokenize(doc):
            if t in vocabulary:
                X[i, vocabulary[t]] = 1.0
    return sp.csr_matrix(X)
''',
            "substring_match": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        text = doc.lower() if isinstance(doc, str) else list(doc)
        for word, j in vocabulary.items():
            if word in text:  # in a string: any substring, "free" in "freedom"
                X[i, j] = 1.0
    return sp.csr_matrix(X)
''',
            "split_on_whitespace": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in (doc.lower().split() if isinstance(doc, str) else doc):
            if t in vocabulary:
                X[i, vocabulary[t]] = 1.0
    return sp.csr_matrix(X)
''',
            "retokenises_token_lists": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in tokenize(doc if isinstance(doc, str) else " ".join(doc)):
            if t in vocabulary:
                X[i, vocabulary[t]] = 1.0
    return sp.csr_matrix(X)
''',
            "returns_dense_array": _BV_HEAD + '''    X = np.zeros((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in (tokenize(doc) if isinstance(doc, str) else doc):
            if t in vocabulary:
                X[i, vocabulary[t]] = 1.0
    return X
''',
            "returns_csc": _BV_HEAD + '''    X = sp.lil_matrix((len(docs), len(vocabulary)))
    for i, doc in enumerate(docs):
        for t in (tokenize(doc) if isinstance(doc, str) else doc):
            if t in vocabulary:
                X[i, vocabulary[t]] = 1
    return X.tocsc()
''',
        },
    },
    "bernoulli_feature_log_prob": {
        "tests": ["test_bernoulli_feature_log_prob_visible", "test_bernoulli_feature_log_prob_core",
                  "test_bernoulli_feature_log_prob_edges", "test_bernoulli_feature_log_prob_inputs"],
        "keeps": {"absent_class_dropped": ["test_bernoulli_feature_log_prob_core"],
                  "rows_from_np_unique": ["test_bernoulli_feature_log_prob_edges", "test_bernoulli_feature_log_prob_inputs"],
                  "alpha0_floor": ["test_bernoulli_feature_log_prob_core", "test_bernoulli_feature_log_prob_inputs"],
                  "labels_as_row_indices": ["test_bernoulli_feature_log_prob_edges"],  # rows by label: the order too
                  "dense_only": ["test_bernoulli_feature_log_prob_core", "test_bernoulli_feature_log_prob_edges"],
                  "returns_list_of_rows": ["test_bernoulli_feature_log_prob_core",
                                           "test_bernoulli_feature_log_prob_edges"]},
        "correct": {
            "matrix_products": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "one_hot_dense": _FLP_HEAD + '''    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    Y = (y[:, None] == np.asarray(classes)[None, :]) * w[:, None]
    n_cj = Y.T @ X
    n_c = Y.sum(axis=0)[:, None]
    with np.errstate(divide="ignore"):
        return np.log((n_cj + alpha) / (n_c + 2 * alpha))
''',
            "loops": _FLP_HEAD + '''    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    rows = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    out = np.zeros((len(classes), rows.shape[1]))
    for k, c in enumerate(classes):
        n_c, n_cj = 0.0, np.zeros(rows.shape[1])
        for i in range(len(y)):
            if y[i] == c:
                n_c += w[i]
                n_cj += w[i] * rows[i]
        with np.errstate(divide="ignore"):
            out[k] = np.log(n_cj + alpha) - np.log(n_c + 2 * alpha)
    return out
''',
        },
        "mutants": {
            "denominator_plus_alpha": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + alpha"),
            "denominator_n_classes": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + len(classes) * alpha"),
            "denominator_n_features": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + X.shape[1] * alpha"),
            "word_totals_multinomial": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_with_word.sum(axis=1, keepdims=True) + X.shape[1] * alpha"),
            "rows_from_np_unique": _FLP_HEAD + "    classes = np.unique(classes)\n" + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "weights_ignored_in_n_c": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha").replace(
                "docs_in_class = np.array([[weights[y == c].sum()] for c in classes])", "docs_in_class = np.array([[np.sum(y == c)] for c in classes])"),
            "weights_rounded": _FLP_HEAD + "    sample_weight = None if sample_weight is None else np.round(sample_weight)\n" + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "dense_only": _FLP_HEAD + "    X = np.asarray(X, dtype=float)\n" + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "absent_class_dropped": _FLP_HEAD + "    classes = [c for c in classes if np.any(np.asarray(y) == c)]\n" + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "alpha0_floor": _FLP_HEAD + "    alpha = max(alpha, 1e-10)\n" + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha"),
            "list_X_not_converted": _FLP_HEAD + _FLP_BODY.replace("DENOMINATOR", "docs_in_class + 2 * alpha").replace(
                "    X = X if sp.issparse(X) else np.asarray(X, dtype=float)\n", ""),
            "labels_as_row_indices": _FLP_HEAD + '''    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    Y = np.zeros((X.shape[0], len(classes)))
    Y[np.arange(X.shape[0]), y.astype(int)] = w  # the label used as the row number
    n_cj = np.asarray((sp.csr_matrix(Y.T) @ X).todense()) if sp.issparse(X) else Y.T @ X
    n_c = Y.sum(axis=0)[:, None]
    with np.errstate(divide="ignore"):
        return np.log(n_cj + alpha) - np.log(n_c + 2 * alpha)
''',
            "returns_list_of_rows": _FLP_HEAD + '''    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    rows = []
    for c in classes:
        n_cj = np.asarray(w[y == c] @ X[y == c], dtype=float).ravel()
        with np.errstate(divide="ignore"):
            rows.append(np.log(n_cj + alpha) - np.log(w[y == c].sum() + 2 * alpha))
    return rows
''',
            "overwrites_input_X": _FLP_HEAD + '''    if sample_weight is not None and not sp.issparse(X):
        X *= np.asarray(sample_weight, dtype=float)[:, None]  # the caller's X now holds weighted rows
    y = np.asarray(y)
    weights = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    Xw = X if (sample_weight is not None and not sp.issparse(X)) else sp.diags(weights) @ X
    docs_with_word = np.vstack([np.asarray(Xw[y == c].sum(axis=0), dtype=float).ravel() for c in classes])
    docs_in_class = np.array([[weights[y == c].sum()] for c in classes])
    with np.errstate(divide="ignore"):
        return np.log(docs_with_word + alpha) - np.log(docs_in_class + 2 * alpha)
''',
        },
    },
    "bernoulli_jll": {
        "tests": ["test_bernoulli_jll_visible", "test_bernoulli_jll_core", "test_bernoulli_jll_edges",
                  "test_bernoulli_jll_inputs"],
        "keeps": {"probability_space_underflow": ["test_bernoulli_jll_core", "test_bernoulli_jll_inputs"],
                  "dense_only": ["test_bernoulli_jll_core", "test_bernoulli_jll_edges"],
                  "returns_list_of_rows": ["test_bernoulli_jll_core", "test_bernoulli_jll_edges"]},
        "correct": {
            "sparse_matrix_product": _JLL_HEAD + _JLL_BODY,
            "dense_two_terms": _JLL_HEAD + '''    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    log_p = np.asarray(feature_log_prob, dtype=float)
    log_q = np.log(-np.expm1(log_p))
    return np.asarray(class_log_prior, dtype=float) + X @ log_p.T + (1 - X) @ log_q.T
''',
            "loops": _JLL_HEAD + '''    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    log_p = np.asarray(feature_log_prob, dtype=float)
    out = np.zeros((X.shape[0], log_p.shape[0]))
    for i in range(X.shape[0]):
        for c in range(log_p.shape[0]):
            out[i, c] = class_log_prior[c] + np.sum(np.where(X[i] == 1, log_p[c], np.log1p(-np.exp(log_p[c]))))
    return out
''',
        },
        "mutants": {
            "no_absence_term": _JLL_HEAD + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    return np.asarray(X @ log_p.T, dtype=float) + np.asarray(class_log_prior, dtype=float)
''',
            "prior_left_out": _JLL_HEAD + _JLL_BODY.replace("np.asarray(class_log_prior, dtype=float) + ", ""),
            "probability_space_underflow": _JLL_HEAD + '''    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    p = np.exp(np.asarray(feature_log_prob, dtype=float))
    prob = np.array([[np.prod(np.where(x == 1, p[c], 1 - p[c])) for c in range(p.shape[0])] for x in X])
    with np.errstate(divide="ignore"):
        return np.log(prob) + np.asarray(class_log_prior, dtype=float)
''',
            "output_transposed": _JLL_HEAD + _JLL_BODY.replace("+ all_absent\n", "+ all_absent\n").replace(
                "return np.asarray(X @ (log_p - log_not_p).T, dtype=float) + all_absent", "return (np.asarray(X @ (log_p - log_not_p).T, dtype=float) + all_absent).T"),
            "dense_only": _JLL_HEAD + "    X = np.asarray(X, dtype=float)\n" + _JLL_BODY,
            "list_X_not_converted": _JLL_HEAD + '''    X = X.toarray() if sp.issparse(X) else X
    log_p = np.asarray(feature_log_prob, dtype=float)
    log_q = np.log1p(-np.exp(log_p))
    out = np.zeros((X.shape[0], log_p.shape[0]))
    for c in range(log_p.shape[0]):
        out[:, c] = class_log_prior[c] + X @ log_p[c] + (1 - X) @ log_q[c]
    return out
''',
            "returns_list_of_rows": _JLL_HEAD + '''    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    log_p = np.asarray(feature_log_prob, dtype=float)
    log_q = np.log1p(-np.exp(log_p))
    return [[class_log_prior[c] + x @ log_p[c] + (1 - x) @ log_q[c] for c in range(len(log_p))] for x in X]
''',
            "overwrites_input_feature_log_prob": _JLL_HEAD + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    all_absent = np.asarray(class_log_prior, dtype=float) + log_not_p.sum(axis=1)
    log_p -= log_not_p
    return np.asarray(X @ log_p.T, dtype=float) + all_absent
''',
        },
    },
}

# every source is a whole solution cell: the imports it needs, then the def
for _function in CASES.values():
    for _kind in ("correct", "mutants"):
        for _name, _source in _function[_kind].items():
            _function[_kind][_name] = "import numpy as np\nimport scipy.sparse as sp\n\n\n" + _source

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
_DENSE = ("Your function fails on a sparse matrix; document-term matrices are sparse, so use operations that "
          "work on both (SECTION).")
EXPLANATIONS = {
    "binary_vectors": {
        "overwrites_input_docs": _INPUT,
        "counts_instead_of_presence": "Your vectors count occurrences; the Bernoulli model records only "
                                      "presence, 0 or 1 (Section 1).",
        "shape_from_data": "Your matrix's width comes from the words seen, not from the vocabulary's size "
                           "(Section 1).",
        "columns_in_alphabetical_order": "Your columns are in alphabetical order, not at each word's index "
                                         "in the vocabulary (Section 1).",
        "token_lists_not_accepted": "Your function accepts strings only; a document given as a list of "
                                    "tokens must work too (Section 1).",
        "substring_match": "Your function looks for each vocabulary word anywhere in the text, so \"free\" is "
                           "found inside \"freedom\"; a word occurs only as a whole token (Exercise 1.1, tokenize).",
        "split_on_whitespace": "Your function splits the text at spaces only, so capitals and punctuation stay "
                               "attached (\"FREE!!!\" is not \"free\"); the exercise's tokenize handles them "
                               "(Section 1).",
        "retokenises_token_lists": "Your function joins a token list and tokenises it again, which changes tokens "
                                   "such as \"e-mail\"; token lists are used as given (Exercise 1.1).",
        "returns_dense_array": "Your function returns a dense NumPy array; the exercise asks for a sparse matrix "
                               "in CSR format (Exercise 1.1).",
        "returns_csc": "Your function returns a sparse matrix in CSC format; the exercise asks for CSR "
                       "(Exercise 1.1).",
    },
    "bernoulli_feature_log_prob": {
        "denominator_plus_alpha": "Your denominator adds alpha once; with two outcomes, present or absent, "
                                  "it adds 2 alpha (Section 2).",
        "denominator_n_classes": "Your denominator adds the number of classes; it adds alpha for each of the "
                                 "two outcomes of a word (Section 2).",
        "denominator_n_features": "Your denominator adds the vocabulary size, as the multinomial does; a "
                                  "Bernoulli feature has two outcomes (Section 2).",
        "word_totals_multinomial": "Your estimate divides by the class's total word count; the Bernoulli "
                                   "model counts documents that contain the word (Section 2).",
        "rows_from_np_unique": "Your rows are in sorted label order, not in the order of the classes argument; "
                               "row k must be classes[k] (Section 2).",
        "weights_ignored_in_n_c": "Your class sizes ignore sample_weight while the word counts use it "
                                  "(Section 2).",
        "weights_rounded": "Your function rounds the sample weights to integers (Section 2).",
        "dense_only": _DENSE.replace("SECTION", "Section 2"),
        "absent_class_dropped": "Your function drops a class that has no document, so rows no longer match "
                                "the classes argument (Section 2).",
        "alpha0_floor": "With alpha = 0 your function still smooths a little; alpha = 0 gives the plain "
                        "relative frequencies (Section 2).",
        "list_X_not_converted": "Your function fails when X is given as nested lists; X may be any array-like, "
                                "so turn it into an array first (Exercise 2.1).",
        "labels_as_row_indices": "Your function uses each label as a row number, which only works for labels "
                                 "0, 1, ... in the order of classes; labels may be strings or any integers, and "
                                 "the rows follow classes (Exercise 2.1).",
        "returns_list_of_rows": "Your function returns a Python list of rows; the exercise asks for a NumPy "
                                "array (Exercise 2.1).",
        "overwrites_input_X": _INPUT,
    },
    "bernoulli_jll": {
        "no_absence_term": "Your score leaves out the log(1 - p) terms of the absent words, which makes it "
                           "the multinomial score on 0/1 vectors (Section 3).",
        "prior_left_out": "Your joint log-likelihood leaves out the class log-prior (Section 3).",
        "probability_space_underflow": "Your function multiplies probabilities instead of adding logs, which "
                                       "underflows with many words (Section 3).",
        "output_transposed": "Your result is classes by documents; it must be one row per document (Section 3).",
        "dense_only": _DENSE.replace("SECTION", "Section 3"),
        "list_X_not_converted": "Your function fails when X is given as nested lists; X may be any array-like, "
                                "so turn it into an array first (Exercise 3.1).",
        "returns_list_of_rows": "Your function returns a Python list of rows; the exercise asks for a NumPy "
                                "array (Exercise 3.1).",
        "overwrites_input_feature_log_prob": _INPUT,
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts

# Review C11 (one mistake, one weight): the mutant that puts the rows (or blocks) in sorted order instead of
# the order of `classes`; it must lose exactly its function's core cell (tests/mutation/test_mutation_suite.py).
CASES["bernoulli_feature_log_prob"]["row_order"] = "rows_from_np_unique"
