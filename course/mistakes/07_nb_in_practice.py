"""Mutants and correct variants of 07_nb_in_practice's graded functions."""

ASSIGNMENT = "07_nb_in_practice"

_UC = "import numpy as np\n\n\ndef update_counts(class_count, feature_count, X, y, classes):\n"
_MMV = "import numpy as np\n\n\ndef merge_mean_var(n_a, mean_a, var_a, n_b, mean_b, var_b):\n"
_GJ = "import numpy as np\n\n\ndef gaussian_jll(X, class_log_prior, theta, var):\n"
_CJ = "import numpy as np\n\n\ndef combine_jlls(jlls, class_log_prior):\n"
_RB = "import numpy as np\n\n\ndef reliability_bins(y_true, prob, n_bins=10):\n"
_FT = "import numpy as np\nfrom scipy.optimize import minimize, minimize_scalar\n\n\ndef fit_temperature(log_odds, y):\n"
_EP = "import numpy as np\nimport scipy.sparse as sp\n\n\ndef expand_with_posteriors(X_lab, y_lab, X_unlab, resp, classes):\n"
# the reference search, with the loss and the returned value left to each variant
_FT_SEARCH = """    result = minimize_scalar(loss, bounds=(np.log(1e-3), np.log(1e3)), method="bounded", options={"xatol": 1e-10})
"""

CASES = {
    "update_counts": {
        "tests": ["test_update_counts_visible", "test_update_counts_core", "test_update_counts_edges", "test_update_counts_inputs"],
        "keeps": {"rows_from_np_unique": ["test_update_counts_edges", "test_update_counts_inputs"], "matrix_from_sparse_sum": ["test_update_counts_core"], "counts_as_integers": ["test_update_counts_core"], "y_list_not_converted": ["test_update_counts_core"]},
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
            "y_list_not_converted": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    new_class = np.array(class_count, dtype=float)
    new_feature = np.array(feature_count, dtype=float)
    for row, c in enumerate(classes):
        rows = y == c  # one bool when y is a list
        new_class[row] += rows.sum()
        new_feature[row] += X[rows].sum(axis=0)
    return new_class, new_feature
''',
            "counts_as_integers": _UC + '''    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    y = np.asarray(y)
    new_class = np.asarray(class_count).astype(int) + np.array([np.sum(y == c) for c in classes])
    new_feature = np.asarray(feature_count).astype(int) + np.array([X[y == c].sum(axis=0) for c in classes]).astype(int)
    return new_class, new_feature
''',
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
    for row, c in enumerate(np.unique(classes)):  # the order only (C11)
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
        "tests": ["test_merge_mean_var_visible", "test_merge_mean_var_core", "test_merge_mean_var_edges", "test_merge_mean_var_inputs"],
        "keeps": {"empty_group_nan_leaks": ["test_merge_mean_var_core"], "nan_from_empty_group": ["test_merge_mean_var_core"], "count_truncated_to_int": ["test_merge_mean_var_core"], "breaks_on_lists": ["test_merge_mean_var_core"]},
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
            "count_truncated_to_int": _MMV + '''    mean_a, var_a = np.asarray(mean_a, dtype=float), np.asarray(var_a, dtype=float)
    mean_b, var_b = np.asarray(mean_b, dtype=float), np.asarray(var_b, dtype=float)
    n = int(n_a + n_b)  # counts taken to be whole numbers
    if n_a == 0:
        return n, mean_b.copy(), var_b.copy()
    if n_b == 0:
        return n, mean_a.copy(), var_a.copy()
    mean = (n_a * mean_a + n_b * mean_b) / n
    var = (n_a * var_a + n_b * var_b) / n + n_a * n_b * (mean_b - mean_a) ** 2 / n ** 2
    return n, mean, var
''',
            "breaks_on_lists": _MMV + '''    n = float(n_a + n_b)
    if n_a == 0:
        return n, np.array(mean_b, dtype=float), np.array(var_b, dtype=float)
    if n_b == 0:
        return n, np.array(mean_a, dtype=float), np.array(var_a, dtype=float)
    delta = mean_b - mean_a
    mean = mean_a + n_b / n * delta
    var = (n_a * np.asarray(var_a) + n_b * np.asarray(var_b)) / n + n_a * n_b * delta ** 2 / n ** 2
    return n, mean, var
''',
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
        "tests": ["test_gaussian_jll_visible", "test_gaussian_jll_core", "test_gaussian_jll_edges", "test_gaussian_jll_inputs"],
        "keeps": {"squeezes_single_sample": ["test_gaussian_jll_core"], "breaks_on_lists": ["test_gaussian_jll_core"]},
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
            "squeezes_single_sample": _GJ + '''    X, theta, var = (np.asarray(a, dtype=float) for a in (X, theta, var))
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    terms = np.where(np.isnan(X)[:, None, :], 0.0, terms)
    return np.squeeze(np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2))
''',
            "breaks_on_lists": _GJ + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    terms = np.where(np.isnan(X)[:, None, :], 0.0, terms)
    return np.asarray(class_log_prior, dtype=float)[None, :] + terms.sum(axis=2)
''',
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
        "tests": ["test_combine_jlls_visible", "test_combine_jlls_core", "test_combine_jlls_edges", "test_combine_jlls_inputs"],
        "keeps": {"subtracts_prior_once": ["test_combine_jlls_core"], "sums_lists_directly": ["test_combine_jlls_core"]},
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
            "subtracts_prior_once": _CJ + '''    return sum(np.asarray(part, dtype=float) for part in jlls) - np.asarray(class_log_prior, dtype=float)
''',
            "sums_lists_directly": _CJ + '''    return np.asarray(sum(jlls) - (len(jlls) - 1) * np.asarray(class_log_prior, dtype=float), dtype=float)
''',
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

    "reliability_bins": {
        "tests": ["test_reliability_bins_visible", "test_reliability_bins_core", "test_reliability_bins_edges", "test_reliability_bins_inputs"],
        "keeps": {"prob_one_in_extra_bin": ["test_reliability_bins_core"], "right_closed_bins": ["test_reliability_bins_core"], "drops_empty_bins": ["test_reliability_bins_core"], "empty_bins_zero": ["test_reliability_bins_core"]},
        "correct": {
            "bincount": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.minimum(np.floor(prob * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "loop_over_bins": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    mean_predicted = np.full(n_bins, np.nan)
    fraction_positive = np.full(n_bins, np.nan)
    count = np.zeros(n_bins, dtype=int)
    for b in range(n_bins):
        low, high = b / n_bins, (b + 1) / n_bins
        inside = (prob >= low) & ((prob < high) if b < n_bins - 1 else (prob <= 1.0))
        count[b] = inside.sum()
        if count[b]:
            mean_predicted[b] = prob[inside].mean()
            fraction_positive[b] = y_true[inside].mean()
    return mean_predicted, fraction_positive, count
''',
            "digitize_pandas": "import numpy as np\nimport pandas as pd\n\n\ndef reliability_bins(y_true, prob, n_bins=10):\n" + '''    prob = np.asarray(prob, dtype=float)
    edges = np.arange(1, n_bins) / n_bins
    frame = pd.DataFrame({"p": prob, "y": np.asarray(y_true, dtype=float),
                          "bin": np.digitize(prob, edges)})
    grouped = frame.groupby("bin").agg(p=("p", "mean"), y=("y", "mean"), n=("p", "size"))
    grouped = grouped.reindex(range(n_bins))
    return grouped["p"].to_numpy(), grouped["y"].to_numpy(), grouped["n"].fillna(0).to_numpy().astype(int)
''',
        },
        "mutants": {
            "list_times_n_bins": _RB + '''    bins = np.minimum(np.floor(prob * n_bins).astype(int), n_bins - 1)   # prob not converted yet
    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "overwrites_input_prob": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    prob *= n_bins                      # scaled in place: the caller's array changes
    bins = np.minimum(prob.astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count / n_bins,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "prob_one_in_extra_bin": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.floor(prob * n_bins).astype(int)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "right_closed_bins": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.clip(np.ceil(prob * n_bins).astype(int) - 1, 0, n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "quantile_bins": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    edges = np.quantile(prob, np.linspace(0, 1, n_bins + 1))[1:-1]
    bins = np.searchsorted(edges, prob, side="right")
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(bins, weights=prob, minlength=n_bins) / count,
                np.bincount(bins, weights=y_true, minlength=n_bins) / count, count)
''',
            "drops_empty_bins": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.minimum(np.floor(prob * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    full = count > 0
    return (np.bincount(bins, weights=prob, minlength=n_bins)[full] / count[full],
            np.bincount(bins, weights=y_true, minlength=n_bins)[full] / count[full], count[full])
''',
            "empty_bins_zero": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.minimum(np.floor(prob * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    safe = np.maximum(count, 1)
    return (np.bincount(bins, weights=prob, minlength=n_bins) / safe,
            np.bincount(bins, weights=y_true, minlength=n_bins) / safe, count)
''',
            "fraction_over_all_samples": _RB + '''    y_true, prob = np.asarray(y_true, dtype=float), np.asarray(prob, dtype=float)
    bins = np.minimum(np.floor(prob * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_predicted = np.bincount(bins, weights=prob, minlength=n_bins) / count
    fraction = np.bincount(bins, weights=y_true, minlength=n_bins) / len(y_true)
    return mean_predicted, np.where(count > 0, fraction, np.nan), count
''',
        },
    },
    "fit_temperature": {
        "tests": ["test_fit_temperature_visible", "test_fit_temperature_core", "test_fit_temperature_edges", "test_fit_temperature_inputs"],
        "keeps": {"only_over_confidence": ["test_fit_temperature_core"], "returns_one_element_array": ["test_fit_temperature_core"], "labels_astype_on_list": ["test_fit_temperature_core"]},
        "correct": {
            "bounded_over_log_t": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -s * z / np.exp(log_t)))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "bounded_over_inverse_t": _FT + """    z = np.asarray(log_odds, dtype=float)
    y = np.asarray(y, dtype=float)

    def loss(beta):  # beta = 1 / T: the loss is convex in it
        u = beta * z
        return np.mean(y * np.logaddexp(0.0, -u) + (1 - y) * np.logaddexp(0.0, u))

    result = minimize_scalar(loss, bounds=(1e-3, 1e3), method="bounded", options={"xatol": 1e-13})
    return 1.0 / result.x
""",
            "lbfgs_with_gradient": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y) == 1, 1.0, -1.0)

    def loss_and_gradient(params):
        t = np.exp(params[0])
        margin = s * z / t
        sig = np.exp(-np.logaddexp(0.0, margin))  # sigmoid(-margin), without overflow
        return np.mean(np.logaddexp(0.0, -margin)), np.array([np.mean(sig * margin)])

    result = minimize(loss_and_gradient, x0=[0.0], jac=True, method="L-BFGS-B",
                      bounds=[(np.log(1e-3), np.log(1e3))], options={"ftol": 1e-15, "gtol": 1e-12})
    return float(np.exp(result.x[0]))
""",
        },
        "mutants": {
            "returns_one_element_array": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)
    result = minimize(lambda t: np.mean(np.logaddexp(0.0, -s * z / np.exp(t[0]))), x0=[0.0], method="L-BFGS-B",
                      bounds=[(np.log(1e-3), np.log(1e3))], options={"ftol": 1e-15, "gtol": 1e-12})
    return np.exp(result.x)
""",
            "labels_astype_on_list": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(y.astype(bool), 1.0, -1.0)

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -s * z / np.exp(log_t)))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "overwrites_input_log_odds": _FT + """    z = np.asarray(log_odds)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)
    z *= s  # turns the caller's log-odds into margins in place

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -z / np.exp(log_t)))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "returns_inverse_temperature": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)

    def loss(log_t):  # multiplies by T instead of dividing
        return np.mean(np.logaddexp(0.0, -s * z * np.exp(log_t)))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "returns_log_t": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -s * z / np.exp(log_t)))

""" + _FT_SEARCH + """    return float(result.x)
""",
            "log_of_sigmoid_overflows": _FT + """    z = np.asarray(log_odds, dtype=float)
    y = np.asarray(y, dtype=float)

    def loss(log_t):
        p = 1 / (1 + np.exp(-z / np.exp(log_t)))
        return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "labels_used_as_signs": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.asarray(y, dtype=float)  # 0 for a negative, where -1 belongs

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -s * z / np.exp(log_t)))

""" + _FT_SEARCH + """    return float(np.exp(result.x))
""",
            "coarse_grid": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)
    grid = np.logspace(-3, 3, 121)
    losses = [np.mean(np.logaddexp(0.0, -s * z / t)) for t in grid]
    return float(grid[int(np.argmin(losses))])
""",
            "only_over_confidence": _FT + """    z = np.asarray(log_odds, dtype=float)
    s = np.where(np.asarray(y).astype(bool), 1.0, -1.0)

    def loss(log_t):
        return np.mean(np.logaddexp(0.0, -s * z / np.exp(log_t)))

    result = minimize_scalar(loss, bounds=(0.0, np.log(1e3)), method="bounded", options={"xatol": 1e-10})
    return float(np.exp(result.x))
""",
        },
    },
    "expand_with_posteriors": {
        "tests": ["test_expand_with_posteriors_visible", "test_expand_with_posteriors_core", "test_expand_with_posteriors_edges", "test_expand_with_posteriors_inputs"],
        "keeps": {"blocks_in_sorted_order": ["test_expand_with_posteriors_edges", "test_expand_with_posteriors_inputs"], "normalises_resp_copy": ["test_expand_with_posteriors_core"], "dense_from_sparse": ["test_expand_with_posteriors_core"]},
        "correct": {
            "vstack_coo": _EP + """    classes, resp, y_lab = np.asarray(classes), np.asarray(resp, dtype=float), np.asarray(y_lab)
    blocks = [X_lab] + [X_unlab] * len(classes)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack(blocks)  # COO: any sparse format is accepted
    else:
        X = np.concatenate([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
            "vstack_blocks": _EP + """    classes, resp, y_lab = np.asarray(classes), np.asarray(resp, dtype=float), np.asarray(y_lab)
    blocks = [X_lab] + [X_unlab] * len(classes)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
            "loop_over_classes": _EP + """    resp = np.asarray(resp, dtype=float)
    sparse = sp.issparse(X_lab) or sp.issparse(X_unlab)
    X_parts, y_parts, w_parts = [X_lab], [np.asarray(y_lab)], [np.ones(np.shape(y_lab)[0])]
    for k, c in enumerate(classes):
        X_parts.append(X_unlab)
        y_parts.append(np.full(resp.shape[0], c))
        w_parts.append(resp[:, k].copy())
    if sparse:
        X = sp.vstack([sp.csr_matrix(part) for part in X_parts]).tocsr()
    else:
        X = np.concatenate([np.asarray(part, dtype=float) for part in X_parts])
    return X, np.concatenate(y_parts), np.concatenate(w_parts)
""",
            "tile_and_index": _EP + """    classes, resp = np.asarray(classes), np.asarray(resp, dtype=float)
    n_lab, n_unlab, n_classes = np.shape(y_lab)[0], resp.shape[0], len(classes)
    rows = np.concatenate([np.arange(n_lab), n_lab + np.tile(np.arange(n_unlab), n_classes)])
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(X_lab, dtype=float), sp.csr_matrix(X_unlab, dtype=float)]).tocsr()[rows]
    else:
        X = np.vstack([np.asarray(X_lab, dtype=float), np.asarray(X_unlab, dtype=float)])[rows]
    y = np.concatenate([np.asarray(y_lab), classes[np.repeat(np.arange(n_classes), n_unlab)]])
    weights = np.concatenate([np.ones(n_lab), resp[np.tile(np.arange(n_unlab), n_classes), np.repeat(np.arange(n_classes), n_unlab)]])
    return X, y, weights
""",
        },
        "mutants": {
            "normalises_resp_copy": _EP + """    classes, y_lab = np.asarray(classes), np.asarray(y_lab)
    resp = np.asarray(resp, dtype=float)
    resp = resp / resp.sum(axis=1, keepdims=True)  # "posteriors must sum to one"
    blocks = [X_lab] + [X_unlab] * len(classes)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
            "overwrites_input_normalising_resp": _EP + """    classes, y_lab = np.asarray(classes), np.asarray(y_lab)
    resp = np.asarray(resp)
    resp /= resp.sum(axis=1, keepdims=True)  # in place: the caller's posteriors change
    blocks = [X_lab] + [X_unlab] * len(classes)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
            "blocks_in_sorted_order": _EP + """    y_lab, resp = np.asarray(y_lab), np.asarray(resp, dtype=float)
    ordered = np.unique(classes)  # sorted, not the order of classes
    blocks = [X_lab] + [X_unlab] * len(ordered)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(ordered, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
            "resp_read_row_by_row": _EP + """    classes, resp, y_lab = np.asarray(classes), np.asarray(resp, dtype=float), np.asarray(y_lab)
    blocks = [X_lab] + [X_unlab] * len(classes)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return X, y, np.concatenate([np.ones(len(y_lab)), resp.ravel()])
""",
            "labelled_rows_left_out": _EP + """    classes, resp = np.asarray(classes), np.asarray(resp, dtype=float)
    blocks = [X_unlab] * len(classes)
    if sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(b, dtype=float) for b in blocks], format="csr")
    else:
        X = np.vstack([np.asarray(b, dtype=float) for b in blocks])
    return X, np.repeat(classes, resp.shape[0]), resp.T.ravel()
""",
            "hard_labels_once": _EP + """    classes, resp, y_lab = np.asarray(classes), np.asarray(resp, dtype=float), np.asarray(y_lab)
    if sp.issparse(X_lab) or sp.issparse(X_unlab):
        X = sp.vstack([sp.csr_matrix(X_lab, dtype=float), sp.csr_matrix(X_unlab, dtype=float)], format="csr")
    else:
        X = np.vstack([np.asarray(X_lab, dtype=float), np.asarray(X_unlab, dtype=float)])
    y = np.concatenate([y_lab, classes[np.argmax(resp, axis=1)]])
    return X, y, np.ones(len(y))
""",
            "dense_from_sparse": _EP + """    classes, resp, y_lab = np.asarray(classes), np.asarray(resp, dtype=float), np.asarray(y_lab)
    dense = [b.toarray() if sp.issparse(b) else np.asarray(b, dtype=float) for b in [X_lab] + [X_unlab] * len(classes)]
    y = np.concatenate([y_lab, np.repeat(classes, resp.shape[0])])
    return np.vstack(dense), y, np.concatenate([np.ones(len(y_lab)), resp.T.ravel()])
""",
        },
    },
}

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
EXPLANATIONS = {
    "update_counts": {
        "y_list_not_converted": "Your update compares y with a class without converting y, which gives one bool "
                                "when the labels come as a list; y is an array-like: convert it first (Section 1).",
        "counts_as_integers": "Your counts come back as integers; the exercise asks for float arrays, which also "
                              "hold the fractional counts of section 6 (Exercise 1.1).",
        "overwrites_inputs_adding_in_place": _INPUT,
        "presence_instead_of_counts": "Your update adds whether a word occurs, not how often (Section 1).",
        "rows_from_np_unique": "Your rows are in sorted label order, not in the order of the classes argument; "
                               "row k must be classes[k] (Section 1).",
        "matrix_from_sparse_sum": "Your sums of a sparse matrix stay a NumPy matrix, so the counts come back "
                                  "with the wrong shape (Section 1).",
        "replaces_instead_of_adding": "Your update replaces the old counts by the batch's; online learning "
                                      "adds them up (Section 1).",
    },
    "merge_mean_var": {
        "count_truncated_to_int": "Your merged count is rounded to a whole number; counts may be fractional (weighted "
                                  "samples, section 6), and the mean and variance must use the exact total (Section 1).",
        "breaks_on_lists": "Your merge subtracts the means without converting them, which fails when they are given "
                           "as lists; convert the array-likes first (Section 1).",
        "overwrites_input_mean": _INPUT,
        "averages_variances": "Your merged variance averages the two variances; it must also count the "
                              "spread between the two means (Section 1).",
        "unweighted_means": "Your merged mean weighs both groups equally; each weighs its own count "
                            "(Section 1).",
        "empty_group_nan_leaks": "Your merge gives NaN when one group is empty; an empty group changes "
                                 "nothing (Section 1).",
        "n_minus_one": "Your merged variance divides by n - 1; the running estimate divides by n (Section 1).",
        "nan_from_empty_group": "Your merge returns NaN when a group has no samples (Section 1).",
    },
    "gaussian_jll": {
        "squeezes_single_sample": "Your result is squeezed, so one sample or one class loses an axis; the jll always "
                                  "has shape (n_samples, n_classes) (Exercise 2.1).",
        "breaks_on_lists": "Your function indexes X as an array without converting it, so it fails when X is given "
                           "as nested lists; convert the array-like first (Exercise 2.1).",
        "overwrites_input_filling_nan": _INPUT,
        "keeps_log_var_of_missing": "Your score leaves out the squared term of a missing value but keeps its "
                                    "log-variance term; a missing value's whole factor goes (Section 2).",
        "imputes_zero": "Your score treats a missing value as 0; it must leave that feature's factor out "
                        "(Section 2).",
        "sums_over_wrong_axis": "Your sum runs over the wrong axis (Section 2).",
        "forgets_prior": "Your joint log-likelihood leaves out the class log-prior (Section 2).",
        "nan_leaks": "Your score is NaN for a sample with a missing value (Section 2).",
    },
    "combine_jlls": {
        "subtracts_prior_once": "Your combination subtracts the prior once whatever the number of parts; with k parts "
                                "the sum holds it k times, and it must remain once (Section 3).",
        "sums_lists_directly": "Your function adds the parts with sum() before converting them, which fails (or "
                               "concatenates) when they are lists; convert each array-like first (Section 3).",
        "overwrites_first_part": _INPUT,
        "plain_sum": "Your sum counts the class log-prior once per part; it belongs in the total once "
                     "(Section 3).",
        "drops_prior": "Your combination leaves out the class log-prior altogether (Section 3).",
        "averages_parts": "Your combination averages the parts; independent parts' log-likelihoods add "
                          "(Section 3).",
    },
    "reliability_bins": {
        "list_times_n_bins": "Your function multiplies prob by n_bins before converting it, and a list times an "
                             "integer repeats the list instead of scaling it; convert the array-likes first "
                             "(Exercise 5.1).",
        "overwrites_input_prob": _INPUT,
        "prob_one_in_extra_bin": "Your bins put a probability of exactly 1 in a bin of its own; it belongs to "
                                 "the last bin (Section 5).",
        "right_closed_bins": "Your bins are closed on the right; the exercise's bins include their left edge "
                             "(Section 5).",
        "quantile_bins": "Your bins hold equal numbers of samples; the exercise's bins have equal widths "
                         "(Section 5).",
        "drops_empty_bins": "Your function leaves out empty bins; every bin must be in the result (Section 5).",
        "empty_bins_zero": "Your function gives an empty bin the value 0, which looks like a measured "
                           "frequency; an empty bin has none (Section 5).",
        "fraction_over_all_samples": "Your fraction of positives divides by all the samples, not by the "
                                     "samples in the bin (Section 5).",
    },
    "fit_temperature": {
        "returns_one_element_array": "Your function returns T as an array of one element; the exercise asks for one "
                                     "number, a float (Exercise 5.2).",
        "labels_astype_on_list": "Your function calls y.astype, which a list does not have, so it fails when the "
                                 "labels come as a list; convert the array-like first (Exercise 5.2).",
        "overwrites_input_log_odds": _INPUT,
        "returns_inverse_temperature": "Your loss multiplies the log-odds by T where it should divide them, so "
                                       "the value you find is 1/T, not the temperature (Section 5).",
        "returns_log_t": "Your function returns log T, not T (Section 5).",
        "log_of_sigmoid_overflows": "Your loss computes log(sigmoid(z)) directly, which is inf or NaN for "
                                    "large |z| (Section 5).",
        "labels_used_as_signs": "Your loss uses the 0/1 labels where it needs signs -1/+1, so the negative "
                                "samples do not pull on T (Section 5).",
        "coarse_grid": "Your search over T is too coarse to find the best temperature (Section 5).",
        "only_over_confidence": "Your search only tries T >= 1, so an under-confident model cannot be "
                                "sharpened (Section 5).",
    },
    "expand_with_posteriors": {
        "normalises_resp_copy": "Your weights rescale each row of resp to sum to one; the exercise uses the "
                                "posteriors as they are given (Section 6).",
        "overwrites_input_normalising_resp": _INPUT,
        "blocks_in_sorted_order": "Your copies of the unlabelled rows are in sorted label order, not in the "
                                  "order of the classes argument (Section 6).",
        "resp_read_row_by_row": "Your weights read the responsibilities along the wrong axis (Section 6).",
        "labelled_rows_left_out": "Your expanded data set leaves out the labelled rows (Section 6).",
        "hard_labels_once": "Your expansion gives each unlabelled row its most probable class only, not one "
                            "weighted copy per class (Section 6).",
        "dense_from_sparse": "Your function turns a sparse matrix into a dense one (Section 6).",
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts
# Probes (issue 33): moderate log-odds, where nothing overflows (the judge confirms a diagnosis on
# them before naming it).
CASES["fit_temperature"]["probes"] = [
    "np.array([2.0, -1.0, 0.5, 3.0, -2.0, 1.5]), np.array([1, 0, 0, 1, 0, 0])",
]

# Review C11 (one mistake, one weight): the mutant that puts the rows (or blocks) in sorted order instead of
# the order of `classes`; it must lose exactly its function's core cell (tests/mutation/test_mutation_suite.py).
CASES["update_counts"]["row_order"] = "rows_from_np_unique"
CASES["expand_with_posteriors"]["row_order"] = "blocks_in_sorted_order"

# Three parts and unequal priors: with two parts, counting the prior once per part minus twice
# (a held-out mistake) gives the plain sum's results.
CASES["combine_jlls"]["probes"] = [
    "[np.array([[-1.0, -2.0], [-3.0, -0.5]]), np.array([[-0.5, -1.5], [-2.0, -1.0]]), "
    "np.array([[-2.0, -0.5], [-1.0, -4.0]])], np.log(np.array([0.3, 0.7]))",
]
