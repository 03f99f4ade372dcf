"""Mutants and correct variants of 05_gaussian_nb's graded functions."""

ASSIGNMENT = "05_gaussian_nb"

_MV_HEAD = "def gaussian_mean_var(X, y, classes, ddof=0, sample_weight=None):\n"
_JLL_HEAD = "def gaussian_jll(X, class_log_prior, theta, var):\n"
_PV_HEAD = "def pooled_variance(X, y, classes):\n"

_PV_LOOP = '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    total = np.zeros(X.shape[1])
    n = 0
    for c in classes:
        X_c = X[y == c]
        total += ((X_c - CENTRE) ** 2).sum(axis=0)
        n += len(X_c)
    return RESULT
'''


def _pv(centre="X_c.mean(axis=0)", result="total / n"):
    return _PV_HEAD + _PV_LOOP.replace("CENTRE", centre).replace("RESULT", result)


_MV_LOOP = '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    theta = np.full((len(classes), X.shape[1]), np.nan)
    var = np.full((len(classes), X.shape[1]), np.nan)
    for row, c in enumerate(classes):
        X_c, w_c = X[y == c], weights[y == c]
        n_c = w_c.sum()
        if n_c <= 0:
            continue
        theta[row] = w_c @ X_c / n_c
        if n_c - DDOF > 0:
            var[row] = w_c @ (X_c - CENTRE) ** 2 / (n_c - DDOF)
    return theta, VAR
'''


def _mv(ddof="ddof", centre="theta[row]", result="var"):
    return _MV_HEAD + _MV_LOOP.replace("DDOF", ddof).replace("CENTRE", centre).replace("VAR", result)


_JLL_VEC = '''    X = np.asarray(X, dtype=float)
    theta = np.asarray(theta, dtype=float)
    var = np.asarray(var, dtype=float)
    squared = ((X[:, None, :] - theta[None, :, :]) ** 2 / var[None, :, :]).sum(axis=2)
    return np.asarray(class_log_prior, dtype=float) - 0.5 * (np.log(2 * np.pi * var).sum(axis=1) + squared)
'''

CASES = {
    "gaussian_mean_var": {
        "tests": ["test_gaussian_mean_var_visible", "test_gaussian_mean_var_core", "test_gaussian_mean_var_edges",
                  "test_gaussian_mean_var_inputs"],
        "keeps": {"absent_class_dropped": ["test_gaussian_mean_var_core", "test_gaussian_mean_var_inputs"],
                  "rows_from_np_unique": ["test_gaussian_mean_var_edges", "test_gaussian_mean_var_inputs"],
                  "small_class_variance_not_nan": ["test_gaussian_mean_var_core", "test_gaussian_mean_var_inputs"],
                  "weights_by_repeating_rows": ["test_gaussian_mean_var_core", "test_gaussian_mean_var_inputs"],
                  "labels_as_row_indices": ["test_gaussian_mean_var_edges"],  # rows by label: the order too
                  "returns_lists_of_rows": ["test_gaussian_mean_var_core", "test_gaussian_mean_var_edges"]},
        "correct": {
            "loops": _mv(),
            "one_hot_matrix": _MV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    W = (y[None, :] == np.asarray(classes)[:, None]) * w[None, :]
    n = W.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(n > 0, W @ X / n, np.nan)
        m2 = np.array([[w_c @ (X[:, j] - theta[k, j]) ** 2 for j in range(X.shape[1])] for k, w_c in enumerate(W)])
        var = np.where(n - ddof > 0, m2 / (n - ddof), np.nan)
    return theta, var
''',
            "pandas_groupby": _MV_HEAD + '''    import pandas as pd
    X = np.asarray(X, dtype=float)
    w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    frame = pd.DataFrame(X * w[:, None])
    frame["_w"] = w
    key = pd.Series(np.asarray(y))
    sums = frame.groupby(key).sum().reindex(list(classes))
    n = sums.pop("_w").to_numpy()[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = sums.to_numpy() / n
        deviations = pd.DataFrame((X - theta[pd.Index(list(classes)).get_indexer(key)]) ** 2 * w[:, None])
        m2 = deviations.groupby(key).sum().reindex(list(classes)).to_numpy()
        var = np.where(n - ddof > 0, m2 / (n - ddof), np.nan)
    return theta, var
''',
        },
        "mutants": {
            "n_minus_1_where_n_belongs": _mv(ddof="1"),
            "ddof_ignored": _mv(ddof="0"),
            "standard_deviation_not_variance": _mv(result="np.sqrt(var)"),
            "overall_mean_not_class_mean": _mv(centre="X.mean(axis=0)"),
            "rows_from_np_unique": _MV_HEAD + "    classes = np.unique(classes)\n" + _MV_LOOP.replace("DDOF", "ddof").replace("CENTRE", "theta[row]").replace("VAR", "var"),
            "absent_class_dropped": _MV_HEAD + "    classes = [c for c in classes if np.any(np.asarray(y) == c)]\n" + _MV_LOOP.replace("DDOF", "ddof").replace("CENTRE", "theta[row]").replace("VAR", "var"),
            "sample_weight_ignored": _MV_HEAD + "    sample_weight = None\n" + _MV_LOOP.replace("DDOF", "ddof").replace("CENTRE", "theta[row]").replace("VAR", "var"),
            "weights_by_repeating_rows": _MV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if sample_weight is not None:
        repeats = np.asarray(sample_weight).astype(int)
        X, y = np.repeat(X, repeats, axis=0), np.repeat(y, repeats)
    theta = np.full((len(classes), X.shape[1]), np.nan)
    var = np.full((len(classes), X.shape[1]), np.nan)
    for row, c in enumerate(classes):
        X_c = X[y == c]
        if len(X_c) > 0:
            theta[row] = X_c.mean(axis=0)
        if len(X_c) - ddof > 0:
            var[row] = X_c.var(axis=0, ddof=ddof)
    return theta, var
''',
            "ddof_with_sample_count": _MV_HEAD + _MV_LOOP.replace("DDOF", "ddof").replace("CENTRE", "theta[row]").replace("VAR", "var").replace(
                "/ (n_c - ddof)", "* len(w_c) / n_c / (len(w_c) - ddof)"),
            "small_class_variance_not_nan": _MV_HEAD + _MV_LOOP.replace("DDOF", "ddof").replace("CENTRE", "theta[row]").replace("VAR", "var").replace(
                "        if n_c - ddof > 0:\n            var[row]", "        if True:  # N_c - ddof <= 0 divides anyway\n            var[row]"),
            "list_X_not_converted": _MV_HEAD + '''    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    theta = np.full((len(classes), len(X[0])), np.nan)
    var = np.full((len(classes), len(X[0])), np.nan)
    for row, c in enumerate(classes):
        X_c, w_c = X[y == c], weights[y == c]
        n_c = w_c.sum()
        if n_c <= 0:
            continue
        theta[row] = w_c @ X_c / n_c
        if n_c - ddof > 0:
            var[row] = w_c @ (X_c - theta[row]) ** 2 / (n_c - ddof)
    return theta, var
''',
            "labels_as_row_indices": _MV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    W = np.zeros((len(classes), len(y)))
    W[y.astype(int), np.arange(len(y))] = w  # the label used as the row number
    n = W.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(n > 0, W @ X / n, np.nan)
        m2 = np.array([w_c @ (X - theta[k]) ** 2 for k, w_c in enumerate(W)])
        var = np.where(n - ddof > 0, m2 / (n - ddof), np.nan)
    return theta, var
''',
            "returns_lists_of_rows": _MV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    theta, var = [], []
    for c in classes:
        X_c, w_c = X[y == c], weights[y == c]
        n_c = w_c.sum()
        mean = w_c @ X_c / n_c if n_c > 0 else np.full(X.shape[1], np.nan)
        theta.append(mean)
        var.append(w_c @ (X_c - mean) ** 2 / (n_c - ddof) if n_c - ddof > 0 else np.full(X.shape[1], np.nan))
    return theta, var
''',
            "overwrites_input_X": _MV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    theta = np.full((len(classes), X.shape[1]), np.nan)
    var = np.full((len(classes), X.shape[1]), np.nan)
    for row, c in enumerate(classes):
        mask, w_c = y == c, weights[y == c]
        n_c = w_c.sum()
        if n_c <= 0:
            continue
        theta[row] = w_c @ X[mask] / n_c
        X[mask] -= theta[row]  # centres the caller's array in place
        if n_c - ddof > 0:
            var[row] = w_c @ X[mask] ** 2 / (n_c - ddof)
    return theta, var
''',
        },
    },
    "gaussian_jll": {
        "tests": ["test_gaussian_jll_visible", "test_gaussian_jll_core", "test_gaussian_jll_edges",
                  "test_gaussian_jll_inputs"],
        # review 05-N6: the product of 300 densities underflows in the core cell (it breaks every prediction with
        # many features); taking the log of each density's value fails only far from every mean (the edge cases)
        "keeps": {"product_of_densities_underflows": ["test_gaussian_jll_inputs"],
                  "log_of_each_density_value": ["test_gaussian_jll_core", "test_gaussian_jll_inputs"],
                  "list_theta_not_converted": ["test_gaussian_jll_core", "test_gaussian_jll_edges"],
                  "returns_list_of_rows": ["test_gaussian_jll_core", "test_gaussian_jll_edges"]},
        "correct": {
            "broadcast": _JLL_HEAD + _JLL_VEC,
            "loop_over_classes": _JLL_HEAD + '''    X = np.asarray(X, dtype=float)
    jll = np.empty((X.shape[0], len(theta)))
    for c in range(len(theta)):
        jll[:, c] = class_log_prior[c] - 0.5 * (np.log(2 * np.pi * np.asarray(var[c])).sum()
                                                + ((X - theta[c]) ** 2 / var[c]).sum(axis=1))
    return jll
''',
            "scipy_logpdf": _JLL_HEAD + '''    from scipy import stats
    X = np.asarray(X, dtype=float)
    return np.column_stack([class_log_prior[c] + stats.norm.logpdf(X, theta[c], np.sqrt(var[c])).sum(axis=1)
                            for c in range(len(theta))])
''',
        },
        "mutants": {
            "prior_forgotten": _JLL_HEAD + _JLL_VEC.replace("np.asarray(class_log_prior, dtype=float) - 0.5", "-0.5"),
            "missing_log_2pi_var": _JLL_HEAD + _JLL_VEC.replace("np.log(2 * np.pi * var).sum(axis=1) + squared", "squared"),
            "missing_factor_half": _JLL_HEAD + _JLL_VEC.replace("- 0.5 * (", "- (").replace("+ squared)", "+ squared)"),
            "std_used_as_variance": _JLL_HEAD + _JLL_VEC.replace("var = np.asarray(var, dtype=float)", "var = np.sqrt(np.asarray(var, dtype=float))"),
            "output_transposed": _JLL_HEAD + _JLL_VEC.replace("return np.asarray(class_log_prior, dtype=float) - 0.5 * (np.log(2 * np.pi * var).sum(axis=1) + squared)",
                                                               "return (np.asarray(class_log_prior, dtype=float) - 0.5 * (np.log(2 * np.pi * var).sum(axis=1) + squared)).T"),
            "product_of_densities_underflows": _JLL_HEAD + '''    from scipy import stats
    X = np.asarray(X, dtype=float)
    density = np.column_stack([stats.norm.pdf(X, theta[c], np.sqrt(var[c])).prod(axis=1) for c in range(len(theta))])
    with np.errstate(divide="ignore"):
        return np.log(density) + np.asarray(class_log_prior, dtype=float)
''',
            "log_of_each_density_value": _JLL_HEAD + '''    from scipy import stats
    X = np.asarray(X, dtype=float)
    with np.errstate(divide="ignore"):
        return np.column_stack([class_log_prior[c] + np.log(stats.norm.pdf(X, theta[c], np.sqrt(var[c]))).sum(axis=1)
                                for c in range(len(theta))])
''',
            "list_theta_not_converted": _JLL_HEAD + '''    X = np.asarray(X, dtype=float)
    jll = np.empty((X.shape[0], theta.shape[0]))
    for c in range(theta.shape[0]):
        jll[:, c] = class_log_prior[c] - 0.5 * (np.log(2 * np.pi * var[c]).sum() + ((X - theta[c]) ** 2 / var[c]).sum(axis=1))
    return jll
''',
            "returns_list_of_rows": _JLL_HEAD + '''    X = np.asarray(X, dtype=float)
    theta = np.asarray(theta, dtype=float)
    var = np.asarray(var, dtype=float)
    rows = []
    for x in X:
        rows.append([class_log_prior[c] - 0.5 * np.sum(np.log(2 * np.pi * var[c]) + (x - theta[c]) ** 2 / var[c])
                     for c in range(len(theta))])
    return rows
''',
            "overwrites_input_X": _JLL_HEAD + '''    X = np.asarray(X, dtype=float)
    jll = np.empty((X.shape[0], len(theta)))
    for c in range(len(theta)):
        jll[:, c] = class_log_prior[c] - 0.5 * (np.log(2 * np.pi * np.asarray(var[c])).sum()
                                                + ((X - theta[c]) ** 2 / var[c]).sum(axis=1))
    X -= X.mean(axis=0)  # leaves the caller's X centred
    return jll
''',
        },
    },
    "pooled_variance": {
        "tests": ["test_pooled_variance_visible", "test_pooled_variance_core", "test_pooled_variance_edges",
                  "test_pooled_variance_inputs"],
        "keeps": {"other_classes_not_left_out": ["test_pooled_variance_core", "test_pooled_variance_inputs"],
                  "means_by_searchsorted_on_unsorted_classes": ["test_pooled_variance_edges",
                                                                "test_pooled_variance_inputs"],
                  "list_X_not_converted": ["test_pooled_variance_core", "test_pooled_variance_edges"],
                  "returns_list_per_feature": ["test_pooled_variance_core", "test_pooled_variance_edges"]},
        "correct": {
            "loop": _pv(),
            "size_weighted_class_variances": _PV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    sizes = np.array([np.sum(y == c) for c in classes], dtype=float)
    variances = np.array([X[y == c].var(axis=0) for c in classes])
    return sizes @ variances / sizes.sum()
''',
            "residuals_by_index": _PV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    classes = list(classes)
    keep = np.isin(y, classes)
    X, y = X[keep], y[keep]
    means = np.array([X[y == c].mean(axis=0) for c in classes])
    index = np.array([classes.index(label) for label in y])
    return np.mean((X - means[index]) ** 2, axis=0)
''',
        },
        "mutants": {
            "overwrites_input_X": _PV_HEAD + '''    X = np.asarray(X)
    y = np.asarray(y)
    n = 0
    for c in classes:
        X[y == c] -= X[y == c].mean(axis=0)  # centres the caller's array in place
        n += np.sum(y == c)
    keep = np.isin(y, list(classes))
    return (X[keep] ** 2).sum(axis=0) / n
''',
            "plain_average_of_class_variances": _PV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    return np.mean([X[y == c].var(axis=0) for c in classes], axis=0)
''',
            "overall_mean_total_variance": _pv(centre="X[np.isin(y, list(classes))].mean(axis=0)"),
            "divides_by_n_minus_n_classes": _pv(result="total / (n - len(classes))"),
            "other_classes_not_left_out": _pv(result="total / len(y)"),
            "list_X_not_converted": _PV_HEAD + '''    y = np.asarray(y)
    total, n = 0.0, 0
    for c in classes:
        X_c = X[y == c]
        total = total + ((X_c - X_c.mean(axis=0)) ** 2).sum(axis=0)
        n += len(X_c)
    return total / n
''',
            "returns_list_per_feature": _PV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    n = sum(int(np.sum(y == c)) for c in classes)
    return [sum(((X[y == c, j] - X[y == c, j].mean()) ** 2).sum() for c in classes) / n for j in range(X.shape[1])]
''',
            "divides_by_n_minus_1": _pv(result="total / (n - 1)"),
            "standard_deviation": _pv(result="np.sqrt(total / n)"),
            "means_by_searchsorted_on_unsorted_classes": _PV_HEAD + '''    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    classes = np.asarray(classes)
    keep = np.isin(y, classes)
    X, y = X[keep], y[keep]
    means = np.array([X[y == c].mean(axis=0) for c in classes])
    return np.mean((X - means[np.searchsorted(classes, y)]) ** 2, axis=0)  # assumes sorted classes
''',
        },
    },
}

# every source is a whole solution cell: the imports it needs, then the def
for _function in CASES.values():
    for _kind in ("correct", "mutants"):
        for _name, _source in _function[_kind].items():
            _function[_kind][_name] = "import numpy as np\n\n\n" + _source

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
EXPLANATIONS = {
    "gaussian_mean_var": {
        "n_minus_1_where_n_belongs": "Your variance always divides by n - 1; the MLE divides by n, and the "
                                     "ddof argument says when to subtract (Section 2).",
        "ddof_ignored": "Your variance ignores the ddof argument (Section 2, N vs N - 1).",
        "standard_deviation_not_variance": "Your function returns standard deviations, not variances "
                                           "(Section 2).",
        "overall_mean_not_class_mean": "Your variances measure the spread around the mean of all samples, "
                                       "not around each class's own mean (Section 2).",
        "rows_from_np_unique": "Your rows are in sorted label order, not in the order of the classes argument; "
                               "row k must be classes[k] (Section 2).",
        "absent_class_dropped": "Your function drops a class that has no sample, so the rows no longer match "
                                "the classes argument (Section 2).",
        "sample_weight_ignored": "Your function ignores sample_weight (Section 2, weighted estimates).",
        "weights_by_repeating_rows": "Your function repeats rows as many times as their weight, which only "
                                     "works for whole-number weights (Section 2).",
        "ddof_with_sample_count": "With weights, your n - ddof uses the number of rows instead of the total "
                                  "weight (Section 2).",
        "small_class_variance_not_nan": "For a class whose N_c - ddof is 0 or less (its weights sum to 1 or less "
                                        "with ddof=1) your function still divides, which gives a meaningless "
                                        "variance; the exercise asks for nan there (Exercise 2.1).",
        "list_X_not_converted": "Your function fails when X is given as nested lists; X may be any array-like, "
                                "so turn it into an array first (Exercise 2.1).",
        "labels_as_row_indices": "Your function uses each label as a row number, which only works for labels "
                                 "0, 1, ... in the order of classes; labels may be strings or any integers, and "
                                 "the rows follow classes (Exercise 2.1).",
        "returns_lists_of_rows": "Your function returns Python lists of rows; the exercise asks for NumPy "
                                 "arrays (Exercise 2.1).",
        "overwrites_input_X": _INPUT,
    },
    "gaussian_jll": {
        "prior_forgotten": "Your joint log-likelihood leaves out the class log-prior (Section 3).",
        "missing_log_2pi_var": "Your score leaves out the log(2 pi variance) normalising term, so classes "
                               "with different variances are compared unfairly (Section 3).",
        "missing_factor_half": "Your score misses a factor 1/2 of the Gaussian log-density (Section 3).",
        "std_used_as_variance": "Your score treats the variances as standard deviations (Section 3).",
        "output_transposed": "Your result is classes by samples; it must be one row per sample (Section 3).",
        "list_theta_not_converted": "Your function fails when theta or var are given as lists; every argument "
                                    "may be an array-like, so turn them into arrays first (Exercise 3.1).",
        "returns_list_of_rows": "Your function returns a Python list of rows; the exercise asks for a NumPy "
                                "array (Exercise 3.1).",
        "product_of_densities_underflows": "Your function multiplies the densities and then takes the log: with "
                                           "many features the product underflows to 0.0 and its log is -inf. Add "
                                           "the log-densities instead (Section 3, Exercise 3.1).",
        "log_of_each_density_value": "Your function takes the log of each density's value: far from the mean a "
                                     "density underflows to 0.0 and its log is -inf. Write the log-density out, "
                                     "-0.5 * (log(2 pi var) + (x - mu)**2 / var) (Section 3, Exercise 3.1).",
        "overwrites_input_X": _INPUT,
    },
    "pooled_variance": {
        "overwrites_input_X": _INPUT,
        "plain_average_of_class_variances": "Your pooled variance averages the classes' variances with equal "
                                            "weights; each class weighs as many samples as it has (Section 6).",
        "overall_mean_total_variance": "Your variance is around the mean of all samples, not each class's "
                                       "own mean (Section 6).",
        "divides_by_n_minus_n_classes": "Your pooled variance divides by N - K (the unbiased version); the "
                                        "exercise's estimate divides by N (Section 6).",
        "divides_by_n_minus_1": "Your pooled variance divides by N - 1; the exercise's estimate divides by "
                                "N (Section 6).",
        "other_classes_not_left_out": "Your function divides by the number of all samples, including those of "
                                      "classes not in `classes`; only the samples of the given classes count "
                                      "(Exercise 6.1).",
        "list_X_not_converted": "Your function fails when X is given as nested lists; X may be any array-like, "
                                "so turn it into an array first (Exercise 6.1).",
        "returns_list_per_feature": "Your function returns a Python list; the exercise asks for a NumPy array "
                                    "(Exercise 6.1).",
        "standard_deviation": "Your function returns standard deviations, not variances (Section 6).",
        "means_by_searchsorted_on_unsorted_classes": "Your class lookup assumes the classes are sorted; "
                                                     "they are given in any order (Section 6).",
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts

# Review C11 (one mistake, one weight): the mutant that puts the rows (or blocks) in sorted order instead of
# the order of `classes`; it must lose exactly its function's core cell (tests/mutation/test_mutation_suite.py).
CASES["gaussian_mean_var"]["row_order"] = "rows_from_np_unique"
CASES["pooled_variance"]["row_order"] = "means_by_searchsorted_on_unsorted_classes"
