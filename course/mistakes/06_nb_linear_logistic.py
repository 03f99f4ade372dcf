"""Mutants and correct variants of 06_nb_linear_logistic's graded functions."""

ASSIGNMENT = "06_nb_linear_logistic"

_MLF = "import numpy as np\n\n\ndef multinomial_linear_form(class_log_prior, feature_log_prob):\n"
_BLF = "import numpy as np\n\n\ndef bernoulli_linear_form(class_log_prior, feature_log_prob):\n"
_SM = "import numpy as np\n\n\ndef softmax(Z):\n"
_GLF = "import numpy as np\n\n\ndef gaussian_linear_form(class_log_prior, theta, var):\n"
_LLG = "import numpy as np\n\n\ndef logistic_loss_grad(w, b, X, y, l2=0.0):\n"
_FIT = "import numpy as np\n\n\ndef fit_logistic(X, y, loss_grad, l2=0.0, max_iter=10000, tol=1e-6):\n"

_FIT_BODY = '''    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n_samples, n_features = X.shape
    ones = np.column_stack([X, np.ones(n_samples)])
    step = 1.0 / (np.linalg.eigvalsh(ones.T @ ones).max() / (4 * n_samples) + l2)
    w, b = np.zeros(n_features), 0.0
    for _ in range(max_iter):
        _, grad_w, grad_b = loss_grad(w, b, X, y, l2=l2)
        grad_w, grad_b = np.asarray(grad_w, dtype=float), float(grad_b)
        if np.sqrt(grad_w @ grad_w + grad_b ** 2) < tol:
            break
'''

CASES = {
    "multinomial_linear_form": {
        "tests": ["test_multinomial_linear_form_visible", "test_multinomial_linear_form_core", "test_multinomial_linear_form_inputs"],
        "keeps": {"breaks_on_lists": ["test_multinomial_linear_form_core"]},
        "correct": {
            "copies": _MLF + "    return np.array(feature_log_prob, dtype=float), np.array(class_log_prior, dtype=float)\n",
            "loops": _MLF + '''    W = np.array([[float(v) for v in row] for row in feature_log_prob])
    b = np.array([float(v) for v in class_log_prior])
    return W, b
''',
        },
        "mutants": {
            "breaks_on_lists": _MLF + "    return feature_log_prob.astype(float), class_log_prior.astype(float)\n",
            "swaps_W_and_b": _MLF + "    return np.array(class_log_prior, dtype=float), np.array(feature_log_prob, dtype=float)\n",
            "probabilities_not_logs": _MLF + "    return np.exp(np.array(feature_log_prob, dtype=float)), np.exp(np.array(class_log_prior, dtype=float))\n",
            "overwrites_input": _MLF + '''    given = np.asarray(feature_log_prob)
    W = np.array(given, dtype=float)
    given[...] = 0  # "clears" the model it was given
    return W, np.array(class_log_prior, dtype=float)
''',
            "transposed_W": _MLF + "    return np.array(feature_log_prob, dtype=float).T, np.array(class_log_prior, dtype=float)\n",
        },
    },
    "bernoulli_linear_form": {
        "tests": ["test_bernoulli_linear_form_visible", "test_bernoulli_linear_form_core", "test_bernoulli_linear_form_edges", "test_bernoulli_linear_form_inputs"],
        "keeps": {"clips_probabilities": ["test_bernoulli_linear_form_core"], "breaks_on_lists": ["test_bernoulli_linear_form_core"]},
        "correct": {
            "log1p": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    return log_p - log_not_p, np.asarray(class_log_prior, dtype=float) + log_not_p.sum(axis=1)
''',
            "loops_expm1": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    W = np.empty_like(log_p)
    b = np.array(class_log_prior, dtype=float)
    for c in range(log_p.shape[0]):
        for j in range(log_p.shape[1]):
            log_not_p = np.log(-np.expm1(log_p[c, j]))
            W[c, j] = log_p[c, j] - log_not_p
            b[c] += log_not_p
    return W, b
''',
        },
        "mutants": {
            "clips_probabilities": _BLF + '''    p = np.clip(np.exp(np.asarray(feature_log_prob, dtype=float)), 1e-10, 1 - 1e-10)  # "safe" logs
    log_not_p = np.log1p(-p)
    return np.log(p) - log_not_p, np.asarray(class_log_prior, dtype=float) + log_not_p.sum(axis=1)
''',
            "breaks_on_lists": _BLF + '''    W = np.empty(feature_log_prob.shape)
    b = np.array(class_log_prior, dtype=float)
    for c, row in enumerate(np.asarray(feature_log_prob, dtype=float)):
        log_not_p = np.log1p(-np.exp(row))
        W[c] = row - log_not_p
        b[c] += log_not_p.sum()
    return W, b
''',
            "overwrites_input": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    log_p -= log_not_p
    b = np.asarray(class_log_prior, dtype=float)
    b += log_not_p.sum(axis=1)
    return log_p, b
''',
            "no_absence_term_in_W": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    return log_p, np.asarray(class_log_prior, dtype=float) + log_not_p.sum(axis=1)
''',
            "no_absence_term_in_b": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    return log_p - np.log1p(-np.exp(log_p)), np.asarray(class_log_prior, dtype=float)
''',
            "forgets_prior": _BLF + '''    log_p = np.asarray(feature_log_prob, dtype=float)
    log_not_p = np.log1p(-np.exp(log_p))
    return log_p - log_not_p, log_not_p.sum(axis=1)
''',
        },
    },
    "softmax": {
        "tests": ["test_softmax_visible", "test_softmax_core", "test_softmax_edges", "test_softmax_inputs"],
        "keeps": {"no_shift": ["test_softmax_core"], "global_max_shift": ["test_softmax_core"], "breaks_on_lists": ["test_softmax_core"]},
        "correct": {
            "row_max_shift": _SM + '''    Z = np.asarray(Z, dtype=float)
    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''',
            "logsumexp": _SM + '''    from scipy.special import logsumexp

    Z = np.asarray(Z, dtype=float)
    return np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
''',
        },
        "mutants": {
            "breaks_on_lists": _SM + '''    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''',
            "overwrites_input": _SM + '''    Z = np.asarray(Z, dtype=float)
    Z -= Z.max(axis=1, keepdims=True)
    np.exp(Z, out=Z)
    Z /= Z.sum(axis=1, keepdims=True)
    return Z
''',
            "no_shift": _SM + '''    e = np.exp(np.asarray(Z, dtype=float))
    return e / e.sum(axis=1, keepdims=True)
''',
            "global_max_shift": _SM + '''    Z = np.asarray(Z, dtype=float)
    e = np.exp(Z - Z.max())
    return e / e.sum(axis=1, keepdims=True)
''',
            "wrong_axis": _SM + '''    Z = np.asarray(Z, dtype=float)
    e = np.exp(Z - Z.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
''',
            "not_normalised": _SM + '''    Z = np.asarray(Z, dtype=float)
    return np.exp(Z - Z.max(axis=1, keepdims=True))
''',
        },
    },
    "gaussian_linear_form": {
        "tests": ["test_gaussian_linear_form_visible", "test_gaussian_linear_form_core", "test_gaussian_linear_form_inputs"],
        "keeps": {"breaks_on_lists": ["test_gaussian_linear_form_core"]},
        "correct": {
            "vectorised": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    return theta / var, np.asarray(class_log_prior, dtype=float) - 0.5 * np.sum(theta ** 2 / var, axis=1)
''',
            "with_shared_constant": _GLF + '''    theta = np.asarray(theta, dtype=float)
    var = np.broadcast_to(np.asarray(var, dtype=float), theta.shape)  # one shared row or one per class
    constant = -0.5 * np.sum(np.log(2 * np.pi * var[0]))  # the same for every class: allowed
    b = [float(prior) - 0.5 * float(np.dot(t, t / v)) + constant for prior, t, v in zip(class_log_prior, theta, var)]
    return theta / var, np.array(b)
''',
        },
        "mutants": {
            "breaks_on_lists": _GLF + '''    W = theta / var
    return W, np.asarray(class_log_prior, dtype=float) - 0.5 * np.sum(W * theta, axis=1)
''',
            "overwrites_input": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    b = np.asarray(class_log_prior, dtype=float) - 0.5 * np.sum(theta ** 2 / var, axis=1)
    theta /= var
    return theta, b
''',
            "forgets_prior": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    return theta / var, -0.5 * np.sum(theta ** 2 / var, axis=1)
''',
            "W_is_theta": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    return theta.copy(), np.asarray(class_log_prior, dtype=float) - 0.5 * np.sum(theta ** 2 / var, axis=1)
''',
            "divides_by_std": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    return theta / np.sqrt(var), np.asarray(class_log_prior, dtype=float) - 0.5 * np.sum(theta ** 2 / var, axis=1)
''',
            "wrong_sign_of_square_term": _GLF + '''    theta, var = np.asarray(theta, dtype=float), np.asarray(var, dtype=float)
    return theta / var, np.asarray(class_log_prior, dtype=float) + 0.5 * np.sum(theta ** 2 / var, axis=1)
''',
        },
    },
    "logistic_loss_grad": {
        "tests": ["test_logistic_loss_grad_visible", "test_logistic_loss_grad_core", "test_logistic_loss_grad_edges", "test_logistic_loss_grad_inputs"],
        "keeps": {"log_sigmoid_overflows": ["test_logistic_loss_grad_core"], "grad_b_one_element_array": ["test_logistic_loss_grad_core"], "breaks_on_lists": ["test_logistic_loss_grad_core"]},
        "correct": {
            "logaddexp": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    p = np.exp(-np.logaddexp(0, -z))
    return float(loss), X.T @ (p - y) / len(y) + l2 * w, float(np.mean(p - y))
''',
            "scipy_expit": _LLG + '''    from scipy.special import expit, log_expit

    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = -np.mean(y * log_expit(z) + (1 - y) * log_expit(-z)) + 0.5 * l2 * np.sum(w ** 2)
    residual = expit(z) - y
    return float(loss), X.T @ residual / X.shape[0] + l2 * w, float(residual.mean())
''',
        },
        "mutants": {
            "breaks_on_lists": _LLG + '''    z = X @ w + b
    y = np.asarray(y, dtype=float)
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    p = np.exp(-np.logaddexp(0, -z))
    return float(loss), X.T @ (p - y) / len(y) + l2 * w, float(np.mean(p - y))
''',
            "grad_b_one_element_array": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    residual = np.exp(-np.logaddexp(0, -z)) - y
    return float(loss), X.T @ residual / len(y) + l2 * w, np.sum(residual, keepdims=True) / len(y)
''',
            "overwrites_input": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    p = np.exp(-np.logaddexp(0, -z))
    X *= (p - y)[:, None]
    return float(loss), X.sum(axis=0) / len(y) + l2 * w, float(np.mean(p - y))
''',
            "sum_not_mean": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.sum(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    p = np.exp(-np.logaddexp(0, -z))
    return float(loss), X.T @ (p - y) + l2 * w, float(np.sum(p - y))
''',
            "penalises_b": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * (w @ w + b * b)
    p = np.exp(-np.logaddexp(0, -z))
    return float(loss), X.T @ (p - y) / len(y) + l2 * w, float(np.mean(p - y) + l2 * b)
''',
            "flipped_gradient": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    loss = np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)) + 0.5 * l2 * w @ w
    p = np.exp(-np.logaddexp(0, -z))
    return float(loss), X.T @ (y - p) / len(y) + l2 * w, float(np.mean(y - p))
''',
            "log_sigmoid_overflows": _LLG + '''    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    z = X @ w + b
    p = 1 / (1 + np.exp(-z))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.5 * l2 * w @ w
    return float(loss), X.T @ (p - y) / len(y) + l2 * w, float(np.mean(p - y))
''',
        },
    },
    "fit_logistic": {
        "tests": ["test_fit_logistic_visible", "test_fit_logistic_core", "test_fit_logistic_edges", "test_fit_logistic_inputs"],
        "keeps": {"step_without_l2": ["test_fit_logistic_core"], "ignores_max_iter": ["test_fit_logistic_core"], "b_as_array": ["test_fit_logistic_core"], "breaks_on_lists": ["test_fit_logistic_core"]},
        "correct": {
            "newton": _FIT + '''    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n_samples, n_features = X.shape
    ones = np.column_stack([X, np.ones(n_samples)])
    penalty = np.append(np.full(n_features, float(l2)), 0.0)
    theta = np.zeros(n_features + 1)
    for _ in range(max_iter):
        _, grad_w, grad_b = loss_grad(theta[:-1], theta[-1], X, y, l2=l2)
        grad = np.append(np.asarray(grad_w, dtype=float), grad_b)
        if np.linalg.norm(grad) < tol:
            break
        p = 1 / (1 + np.exp(-np.clip(ones @ theta, -500, 500)))
        hessian = ones.T @ (ones * (p * (1 - p))[:, None]) / n_samples + np.diag(penalty)
        theta = theta - np.linalg.solve(hessian, grad)
    return theta[:-1], float(theta[-1])
''',
            "gradient_descent": _FIT + _FIT_BODY + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
        },
        "mutants": {
            "step_without_l2": _FIT + _FIT_BODY.replace(" + l2)", ")") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
            "ignores_max_iter": _FIT + _FIT_BODY.replace("range(max_iter)", "range(10000)") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
            "breaks_on_lists": _FIT + _FIT_BODY.replace("    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)\n", "") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
            "b_as_array": _FIT + _FIT_BODY + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, np.array([b])
''',
            "overwrites_input": _FIT + _FIT_BODY + '''        w, b = w - step * grad_w, b - step * grad_b
    X[...] = 0.0  # "frees" the data: the caller's array too
    return w, float(b)
''',
            "stops_too_early": _FIT + _FIT_BODY.replace("range(max_iter)", "range(20)") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
            "ascends": _FIT + _FIT_BODY.replace("range(max_iter)", "range(200)") + '''        w, b = w + step * grad_w, b + step * grad_b
    return w, float(b)
''',
            "ignores_l2": _FIT + _FIT_BODY.replace("loss_grad(w, b, X, y, l2=l2)", "loss_grad(w, b, X, y, l2=0.0)").replace(
                "range(max_iter)", "range(2000)") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
            "ignores_loss_grad_argument": _FIT + _FIT_BODY.replace(
                "loss_grad(w, b, X, y, l2=l2)", "logistic_loss_grad(w, b, X, y, l2=2 * l2)") + '''        w, b = w - step * grad_w, b - step * grad_b
    return w, float(b)
''',
        },
    },
}

# Words for the student, one per mistake (shown when an answer behaves like it; see grading.core.mistakes).
_INPUT = ("Your function changes an array it was given (it writes into its input), so the caller's data are "
          "wrong afterwards; compute into a new array and leave the arguments as they were.")
EXPLANATIONS = {
    "multinomial_linear_form": {
        "breaks_on_lists": "Your function calls an array method on its arguments, so it fails when the model is "
                           "given as lists; the arguments are array-likes: convert them first (Section 1).",
        "swaps_W_and_b": "Your function returns the bias where the weights belong and the weights where the "
                         "bias belongs (Section 1).",
        "probabilities_not_logs": "Your weights are probabilities; the linear form's weights are log "
                                  "probabilities (Section 1).",
        "overwrites_input": _INPUT,
        "transposed_W": "Your W is features by classes; it must be classes by features, so that W x gives one "
                        "score per class (Section 1).",
    },
    "bernoulli_linear_form": {
        "clips_probabilities": "Your function clips the probabilities away from 0 and 1, which changes the weight of "
                               "a rare word (p = 1e-12 becomes 1e-10); compute log(1 - p) from log p without "
                               "clipping, as Section 2 shows.",
        "breaks_on_lists": "Your function uses .shape of an argument, so it fails when the model is given as lists; "
                           "the arguments are array-likes: convert them first (Section 2).",
        "overwrites_input": _INPUT,
        "no_absence_term_in_W": "Your weights use log p alone; each weight is log p - log(1 - p), because a "
                                "present word also stops being absent (Section 2).",
        "no_absence_term_in_b": "Your bias leaves out the sum of the log(1 - p) terms of the absent words "
                                "(Section 2).",
        "forgets_prior": "Your bias leaves out the class log-prior (Section 2).",
    },
    "softmax": {
        "breaks_on_lists": "Your softmax calls Z.max, which a list does not have, so it fails when the scores "
                           "are given as lists; convert the array-like first (Section 3).",
        "overwrites_input": _INPUT,
        "no_shift": "Your softmax exponentiates without subtracting the maximum first, which overflows for "
                    "large scores (Section 3).",
        "global_max_shift": "Your softmax subtracts one maximum for the whole array, not each row's own, so "
                            "rows far from it underflow (Section 3).",
        "wrong_axis": "Your softmax normalises along the wrong axis: each row must sum to 1 (Section 3).",
        "not_normalised": "Your softmax exponentiates but does not divide by the row's total (Section 3).",
    },
    "gaussian_linear_form": {
        "breaks_on_lists": "Your function divides its arguments directly, which fails when the model is given as "
                           "lists; the arguments are array-likes: convert them first (Section 4).",
        "overwrites_input": _INPUT,
        "forgets_prior": "Your bias leaves out the class log-prior (Section 4).",
        "W_is_theta": "Your weights are the means themselves; they are the means divided by the shared "
                      "variance (Section 4).",
        "divides_by_std": "Your weights divide by the standard deviation, not the variance (Section 4).",
        "wrong_sign_of_square_term": "Your bias adds the squared-mean term where the derivation subtracts it "
                                     "(Section 4).",
    },
    "logistic_loss_grad": {
        "breaks_on_lists": "Your function multiplies its arguments without converting them, so it fails when w "
                           "and X are given as lists; the arguments are array-likes (Exercise 5.1).",
        "grad_b_one_element_array": "Your grad_b is an array of one element; the exercise asks for a float, like the "
                                    "loss (Exercise 5.1).",
        "overwrites_input": _INPUT,
        "sum_not_mean": "Your loss and gradient are sums over the samples; the loss is their mean (Section 5).",
        "penalises_b": "Your L2 penalty includes the bias b; only the weights are penalised (Section 5).",
        "flipped_gradient": "Your gradient has the wrong sign: it points downhill (Section 5).",
        "log_sigmoid_overflows": "Your loss computes log(sigmoid(z)) directly, which gives inf or NaN for large "
                                 "|z|; write it in a stable form (Section 5).",
    },
    "fit_logistic": {
        "step_without_l2": "Your step size leaves the penalty out of the curvature bound, so with a large l2 the "
                           "steps overshoot and the descent diverges; the bound adds lambda (Exercise 5.2).",
        "ignores_max_iter": "Your descent runs a fixed number of steps of its own instead of at most max_iter "
                            "(Exercise 5.2).",
        "breaks_on_lists": "Your fit reads X.shape without converting X, so it fails when X is given as a list; "
                           "the arguments are array-likes (Exercise 5.2).",
        "b_as_array": "Your b is an array of one element; the exercise asks for a float (Exercise 5.2).",
        "overwrites_input": _INPUT,
        "stops_too_early": "Your descent stops after a fixed, small number of steps, before it has converged; "
                           "max_iter says how many it may take (Exercise 5.2).",
        "ascends": "Your update steps along the gradient, so the loss grows; gradient descent steps against "
                   "it (Section 5).",
        "ignores_l2": "Your fit ignores the l2 argument (Section 5).",
        "ignores_loss_grad_argument": "Your fit does not use the loss_grad function it is given (Exercise 5.2).",
    },
}
for _function, _texts in EXPLANATIONS.items():
    CASES[_function]["explanations"] = _texts
