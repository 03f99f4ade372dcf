"""Mutants and correct variants of 07_nb_in_practice's graded functions."""

ASSIGNMENT = "07_nb_in_practice"

_UC = "import numpy as np\n\n\ndef update_counts(class_count, feature_count, X, y, classes):\n"
_MMV = "import numpy as np\n\n\ndef merge_mean_var(n_a, mean_a, var_a, n_b, mean_b, var_b):\n"
_GJ = "import numpy as np\n\n\ndef gaussian_jll(X, class_log_prior, theta, var):\n"
_CJ = "import numpy as np\n\n\ndef combine_jlls(jlls, class_log_prior):\n"

CASES = {
    "update_counts": {
        "tests": ["test_update_counts_visible", "test_update_counts_hidden"],
        "correct": {
            "one_hot_product": _UC + '''    y, classes = np.asarray(y), np.asarray(classes)
    one_hot = (y[:, None] == classes[None, :]).astype(float)
    batch = np.asarray((X.T @ one_hot).T, dtype=float)
    return np.asarray(class_count, dtype=float) + one_hot.sum(axis=0), np.asarray(feature_count, dtype=float) + batch
''',
            "loop_over_classes": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y)
    new_class = np.array(class_count, dtype=float)
    new_feature = np.array(feature_count, dtype=float)
    for row, c in enumerate(classes):
        rows = y == c
        new_class[row] += rows.sum()
        new_feature[row] += X[rows].sum(axis=0)
    return new_class, new_feature
''',
        },
        "mutants": {
            "overwrites_inputs_adding_in_place": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y)
    for row, c in enumerate(classes):
        class_count[row] += np.sum(y == c)
        feature_count[row] += X[y == c].sum(axis=0)
    return class_count, feature_count
''',
            "presence_instead_of_counts": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y)
    new_class = np.array(class_count, dtype=float)
    new_feature = np.array(feature_count, dtype=float)
    for row, c in enumerate(classes):
        new_class[row] += np.sum(y == c)
        new_feature[row] += (X[y == c] > 0).sum(axis=0)
    return new_class, new_feature
''',
            "rows_from_np_unique": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y)
    new_class = np.array(class_count, dtype=float)
    new_feature = np.array(feature_count, dtype=float)
    for row, c in enumerate(np.unique(y)):
        new_class[row] += np.sum(y == c)
        new_feature[row] += X[y == c].sum(axis=0)
    return new_class, new_feature
''',
            "matrix_from_sparse_sum": _UC + '''    y = np.asarray(y)
    sums = [X[np.flatnonzero(y == c)].sum(axis=0) for c in classes]  # np.matrix (1, D) for sparse X
    new_class = np.asarray(class_count, dtype=float) + np.array([np.sum(y == c) for c in classes])
    return new_class, np.asarray(feature_count, dtype=float) + np.array(sums)
''',
            "replaces_instead_of_adding": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y)
    new_class = np.array([np.sum(y == c) for c in classes], dtype=float)
    new_feature = np.vstack([X[y == c].sum(axis=0) for c in classes])
    return new_class, new_feature
''',
        },
    },
    "merge_mean_var": {
        "tests": ["test_merge_mean_var_visible", "test_merge_mean_var_hidden"],
        "correct": {
            "between_means_term": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n_a == 0:
        return n, mean_b.copy(), var_b.copy()
    if n_b == 0:
        return n, mean_a.copy(), var_a.copy()
    mean = (n_a * mean_a + n_b * mean_b) / n
    var = (n_a * var_a + n_b * var_b) / n + n_a * n_b * (mean_b - mean_a) ** 2 / n ** 2
    return n, mean, var
''',
            "empty_groups_zeroed": _MMV + '''    groups = []
    for size, mean, var in [(n_a, mean_a, var_a), (n_b, mean_b, var_b)]:
        mean, var = np.array(mean, dtype=float), np.array(var, dtype=float)
        if size == 0:  # no rows: whatever statistics came with it mean nothing
            mean[:], var[:] = 0.0, 0.0
        groups.append((size, mean, var))
    (n_a, mean_a, var_a), (n_b, mean_b, var_b) = groups
    n = float(n_a + n_b)
    if n == 0:
        return n, mean_a, var_a
    mean = (n_a * mean_a + n_b * mean_b) / n
    between = n_a * n_b / n ** 2 * (mean_a - mean_b) ** 2
    return n, mean, (n_a * var_a + n_b * var_b) / n + between
''',
            "second_moments": _MMV + '''    n = float(n_a + n_b)
    mean_a, mean_b = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    if n_a == 0:
        return n, mean_b.copy(), np.asarray(var_b, dtype=float).copy()
    if n_b == 0:
        return n, mean_a.copy(), np.asarray(var_a, dtype=float).copy()
    square_a = np.asarray(var_a, dtype=float) + mean_a ** 2  # E[x^2] of each group
    square_b = np.asarray(var_b, dtype=float) + mean_b ** 2
    mean = (n_a * mean_a + n_b * mean_b) / n
    return n, mean, (n_a * square_a + n_b * square_b) / n - mean ** 2
''',
        },
        "mutants": {
            "overwrites_input_mean": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n == 0:
        return n, mean_a, var_a
    delta = mean_b - mean_a
    var_a *= n_a / n
    var_a += n_b * var_b / n + n_a * n_b * delta ** 2 / n ** 2
    mean_a *= n_a / n
    mean_a += n_b * mean_b / n
    return n, mean_a, var_a
''',
            "averages_variances": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n_a == 0 or n_b == 0:
        return n, (mean_a if n_b == 0 else mean_b).copy(), (var_a if n_b == 0 else var_b).copy()
    return n, (n_a * mean_a + n_b * mean_b) / n, (n_a * var_a + n_b * var_b) / n
''',
            "unweighted_means": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n_a == 0 or n_b == 0:
        return n, (mean_a if n_b == 0 else mean_b).copy(), (var_a if n_b == 0 else var_b).copy()
    mean = (mean_a + mean_b) / 2
    var = (n_a * var_a + n_b * var_b) / n + n_a * n_b * (mean_b - mean_a) ** 2 / n ** 2
    return n, mean, var
''',
            "empty_group_nan_leaks": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n == 0:
        return n, mean_a.copy(), var_a.copy()
    mean = (n_a * mean_a + n_b * mean_b) / n
    var = (n_a * var_a + n_b * var_b) / n + n_a * n_b * (mean_b - mean_a) ** 2 / n ** 2
    return n, mean, var
''',
            "n_minus_one": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    if n_a == 0:
        return n, mean_b.copy(), var_b.copy()
    if n_b == 0:
        return n, mean_a.copy(), var_a.copy()
    mean = (n_a * mean_a + n_b * mean_b) / n
    var = (n_a * var_a + n_b * var_b + n_a * n_b * (mean_b - mean_a) ** 2 / n) / (n - 1)
    return n, mean, var
''',
            "nan_from_empty_group": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = float(n_a + n_b)
    with np.errstate(all="ignore"):
        mean = (n_a * mean_a + n_b * mean_b) / n
        var = (n_a * var_a + n_b * var_b) / n + n_a * n_b * (mean_b - mean_a) ** 2 / n ** 2
    return n, mean, var
''',
        },
    },
    "gaussian_jll": {
        "tests": ["test_gaussian_jll_visible", "test_gaussian_jll_hidden"],
        "correct": {
            "masked_terms": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    terms = np.where(np.isnan(X)[:, None, :], 0.0, terms)
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
            "loops_nansum": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    jll = np.empty((X.shape[0], theta.shape[0]))
    for i, x in enumerate(X):
        for c in range(theta.shape[0]):
            terms = -0.5 * np.log(2 * np.pi * var[c]) - (x - theta[c]) ** 2 / (2 * var[c])
            jll[i, c] = class_log_prior[c] + np.nansum(terms)
    return jll
''',
        },
        "mutants": {
            "overwrites_input_filling_nan": _GJ + '''    X = np.asarray(X)
    X[np.isnan(X)] = 0.0
    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
            "keeps_log_var_of_missing": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    square = np.where(np.isnan(X)[:, None, :], 0.0, (X[:, None, :] - theta[None]) ** 2 / var[None])
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + square)
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
            "imputes_zero": _GJ + '''    X = np.nan_to_num(np.asarray(X, dtype=float), nan=0.0)
    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
            "sums_over_wrong_axis": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    terms = np.where(np.isnan(X)[:, None, :], 0.0, terms)
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=1)
''',
            "forgets_prior": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    return np.where(np.isnan(X)[:, None, :], 0.0, terms).sum(axis=2)
''',
            "nan_leaks": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
        },
    },
    "combine_jlls": {
        "tests": ["test_combine_jlls_visible", "test_combine_jlls_hidden"],
        "correct": {
            "loop": _CJ + '''    prior = np.asarray(class_log_prior, dtype=float)
    total = np.zeros_like(np.asarray(jlls[0], dtype=float))
    for part in jlls:
        total = total + np.asarray(part, dtype=float) - prior
    return total + prior
''',
            "stacked": _CJ + '''    parts = np.stack([np.asarray(part, dtype=float) for part in jlls])
    prior = np.asarray(class_log_prior, dtype=float)
    return parts.sum(axis=0) - (len(parts) - 1) * prior
''',
        },
        "mutants": {
            "overwrites_first_part": _CJ + '''    total = np.asarray(jlls[0])
    for part in jlls[1:]:
        total += np.asarray(part, dtype=float) - class_log_prior
    return total
''',
            "plain_sum": _CJ + '''    return sum(np.asarray(part, dtype=float) for part in jlls)
''',
            "drops_prior": _CJ + '''    prior = np.asarray(class_log_prior, dtype=float)
    return sum(np.asarray(part, dtype=float) - prior for part in jlls)
''',
            "averages_parts": _CJ + '''    return np.mean([np.asarray(part, dtype=float) for part in jlls], axis=0)
''',
        },
    },
}
