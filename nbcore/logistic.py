"""Logistic regression, the discriminative partner of naive Bayes.

Naive Bayes estimates P(x | y) and P(y) and gets P(y | x) by Bayes' rule;
logistic regression fits P(y | x) = sigmoid(w.x + b) (softmax for several
classes) directly, by minimising the cross-entropy. For discrete naive Bayes,
and for Gaussian naive Bayes with variances shared by the classes, both models
have the same form (see :mod:`nbcore.linear`); they differ in how they choose
the weights.

The objective is scikit-learn's::

    C * sum_i logloss_i + 0.5 * ||W||^2        (the intercept is not penalised)

which we minimise in the equivalent, better-scaled form
``mean_i logloss_i + 0.5 * l2 * ||W||^2`` with ``l2 = 1 / (C * n_samples)``.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit, log_softmax, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from nbcore._validation import check_sample_weight

__all__ = ["logistic_loss_grad", "softmax_loss_grad", "LogisticRegression"]

_SOLVERS = ("lbfgs", "newton")


def _normalized_weights(sample_weight, n_samples):
    """Weights that sum to one (uniform when ``sample_weight`` is None)."""
    if sample_weight is None:
        return np.full(n_samples, 1.0 / n_samples)
    sample_weight = np.asarray(sample_weight, dtype=float)
    if sample_weight.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {sample_weight.shape}; pass one weight per "
            f"sample, shape ({n_samples},)."
        )
    if np.any(sample_weight < 0) or sample_weight.sum() <= 0:
        raise ValueError("sample_weight must be non-negative with a positive sum.")
    return sample_weight / sample_weight.sum()


def logistic_loss_grad(w, b, X, y, l2=0.0, *, sample_weight=None):
    """Mean binary cross-entropy of a linear model and its gradient.

    With ``z = X @ w + b`` and ``p = sigmoid(z)``, the loss is::

        mean_i [ -y_i log p_i - (1 - y_i) log(1 - p_i) ] + 0.5 * l2 * ||w||^2

    (the bias ``b`` is not penalised), and the gradients are
    ``X.T @ (p - y) / n_samples + l2 * w`` and ``mean(p - y)``. scikit-learn's
    ``C`` corresponds to ``l2 = 1 / (C * n_samples)``.

    Parameters
    ----------
    w : array-like of shape (n_features,)
        Weights.
    b : float
        Bias (intercept).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Inputs.
    y : array-like of shape (n_samples,)
        Labels in {0, 1}.
    l2 : float, default=0.0
        Strength of the L2 penalty on ``w``; must be >= 0.
    sample_weight : array-like of shape (n_samples,), default=None
        If given, the loss is the weighted mean.

    Returns
    -------
    loss : float
    grad_w : ndarray of shape (n_features,)
    grad_b : float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0]])
    >>> y = np.array([0, 1])
    >>> loss, grad_w, grad_b = logistic_loss_grad(np.zeros(1), 0.0, X, y)
    >>> round(loss, 6)   # log 2: p = 0.5 for every sample
    0.693147
    >>> grad_w, grad_b
    (array([-0.25]), 0.0)
    """
    w = np.asarray(w, dtype=float)
    y = np.asarray(y, dtype=float)
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
    if w.ndim != 1 or X.shape[1] != w.shape[0]:
        raise ValueError(
            f"w has shape {w.shape} but X has {X.shape[1]} features; "
            f"w must have shape ({X.shape[1]},)."
        )
    if y.shape != (X.shape[0],):
        raise ValueError(f"y has shape {y.shape}; it must have shape ({X.shape[0]},).")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only 0 and 1 (encode the two classes).")
    if l2 < 0:
        raise ValueError(f"l2 must be >= 0, got {l2}.")
    weights = _normalized_weights(sample_weight, X.shape[0])
    z = np.asarray(X @ w).ravel() + float(b)
    # -log p = -log_expit(z), -log(1-p) = -log_expit(-z): stable for large |z|
    losses = -y * log_expit(z) - (1.0 - y) * log_expit(-z)
    residual = weights * (expit(z) - y)
    loss = float(weights @ losses + 0.5 * l2 * (w @ w))
    grad_w = np.asarray(X.T @ residual).ravel() + l2 * w
    return loss, grad_w, float(residual.sum())


def softmax_loss_grad(W, b, X, Y, l2=0.0, *, sample_weight=None):
    """Mean multinomial cross-entropy of a linear model and its gradient.

    With ``Z = X @ W.T + b`` and ``P = softmax(Z)``, the loss is
    ``mean_i -sum_k Y_ik log P_ik + 0.5 * l2 * ||W||^2``.

    Parameters
    ----------
    W : array-like of shape (n_classes, n_features)
    b : array-like of shape (n_classes,)
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Y : array-like of shape (n_samples, n_classes)
        One-hot labels.
    l2 : float, default=0.0
        Strength of the L2 penalty on ``W`` (``b`` is not penalised).
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    loss : float
    grad_W : ndarray of shape (n_classes, n_features)
    grad_b : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0]])
    >>> Y = np.eye(3)
    >>> loss, grad_W, grad_b = softmax_loss_grad(np.zeros((3, 1)), np.zeros(3), X, Y)
    >>> round(loss, 6)   # log 3: uniform predictions
    1.098612
    """
    W = np.asarray(W, dtype=float)
    b = np.asarray(b, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
    weights = _normalized_weights(sample_weight, X.shape[0])
    Z = np.asarray(X @ W.T) + b
    log_P = log_softmax(Z, axis=1)
    loss = float(-(weights @ (Y * log_P).sum(axis=1)) + 0.5 * l2 * np.sum(W * W))
    residual = weights[:, None] * (np.exp(log_P) - Y)
    grad_W = np.asarray(X.T @ residual).T + l2 * W
    return loss, grad_W, residual.sum(axis=0)


def _hessian(X, weights, P, l2, fit_intercept):
    """Hessian of the mean cross-entropy in the parameters (W, b).

    The parameters are ordered class by class, ``[W_0, b_0, W_1, b_1, ...]``
    (``b`` only when ``fit_intercept``). For the binary model ``P`` is the
    single column p, and the Hessian is ``X1.T diag(w p (1-p)) X1``.
    """
    X1 = X.toarray() if sp.issparse(X) else X
    if fit_intercept:
        X1 = np.hstack([X1, np.ones((X1.shape[0], 1))])
    n_params = X1.shape[1]
    n_outputs = P.shape[1]
    if n_outputs == 1:
        curvature = [[P[:, 0] * (1.0 - P[:, 0])]]
    else:
        # d^2 loss / dz_k dz_l = p_k (delta_kl - p_l)
        curvature = [
            [P[:, k] * ((k == l) - P[:, l]) for l in range(n_outputs)]
            for k in range(n_outputs)
        ]
    H = np.empty((n_outputs * n_params, n_outputs * n_params))
    for k in range(n_outputs):
        for l in range(n_outputs):
            block = X1.T @ (X1 * (weights * curvature[k][l])[:, None])
            H[k * n_params : (k + 1) * n_params, l * n_params : (l + 1) * n_params] = block
    penalised = np.ones(n_params)
    if fit_intercept:
        penalised[-1] = 0.0
    H += l2 * np.diag(np.tile(penalised, n_outputs))
    return H


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression (binary and multinomial) with optional L2 penalty.

    Minimises ``C * sum_i logloss_i + 0.5 * ||coef_||^2`` (the intercept is
    not penalised), the same objective as
    :class:`sklearn.linear_model.LogisticRegression` with its default L2
    penalty, so the two agree to the solvers' tolerance. With more than two
    classes the model is the multinomial (softmax) one, with one weight
    vector per class.

    Parameters
    ----------
    C : float, default=1.0
        Inverse strength of the L2 penalty; must be > 0. ``C=np.inf`` fits
        without penalty (the weights can then grow without bound when the
        classes are separable).
    solver : {"lbfgs", "newton"}, default="lbfgs"
        ``"lbfgs"``: :func:`scipy.optimize.minimize` with L-BFGS-B;
        ``"newton"``: Newton's method with a backtracking line search (the
        full Hessian, so for modest ``n_features * n_classes``).
    tol : float, default=1e-4
        Stop when the largest gradient entry of the mean loss is below ``tol``.
    max_iter : int, default=100
        Maximum number of iterations.
    fit_intercept : bool, default=True
        Whether to fit the (unpenalised) intercept.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        One row for a binary problem (the weights of ``classes_[1]``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,)
        Number of iterations the solver ran.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> model = LogisticRegression(C=1.0).fit(X, y)
    >>> model.predict(np.array([[0.2], [2.8]]))
    array([0, 1])
    >>> bool(model.coef_[0, 0] > 0)
    True
    """

    def __init__(self, *, C=1.0, solver="lbfgs", tol=1e-4, max_iter=100, fit_intercept=True):
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_params(self):
        if not isinstance(self.C, numbers.Real) or not self.C > 0:
            raise ValueError(
                f"C must be a positive number (np.inf for no penalty), got {self.C!r}; "
                "smaller C means a stronger penalty."
            )
        if self.solver not in _SOLVERS:
            raise ValueError(f"Unknown solver {self.solver!r}; use one of {_SOLVERS}.")
        if not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}.")
        if not isinstance(self.tol, numbers.Real) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number, got {self.tol!r}.")

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (integer weights equal duplicated rows).

        Returns
        -------
        self : LogisticRegression
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                f"y contains only one class ({self.classes_[0]!r}); logistic "
                "regression needs samples of at least two classes."
            )
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        weights = _normalized_weights(sample_weight, X.shape[0])
        # sklearn's C * sum(loss) + 0.5||w||^2, divided by C * sum(weights)
        l2 = 0.0 if np.isinf(self.C) else 1.0 / (self.C * sample_weight.sum())
        # binary: one output (the log-odds of classes_[1]); else one per class
        n_outputs = 1 if n_classes == 2 else n_classes
        targets = y_codes[:, None] if n_outputs == 1 else np.eye(n_classes)[y_codes]
        n_features = X.shape[1]
        n_params = n_features + int(self.fit_intercept)

        def unpack(params):
            params = params.reshape(n_outputs, n_params)
            if self.fit_intercept:
                return params[:, :-1], params[:, -1]
            return params, np.zeros(n_outputs)

        def loss_grad(params):
            W, b = unpack(params)
            if n_outputs == 1:
                loss, grad_w, grad_b = logistic_loss_grad(
                    W[0], b[0], X, targets[:, 0], l2, sample_weight=weights
                )
                grad_W, grad_b = grad_w[None, :], np.array([grad_b])
            else:
                loss, grad_W, grad_b = softmax_loss_grad(
                    W, b, X, targets, l2, sample_weight=weights
                )
            if self.fit_intercept:
                return loss, np.hstack([grad_W, grad_b[:, None]]).ravel()
            return loss, grad_W.ravel()

        start = np.zeros(n_outputs * n_params)
        if self.solver == "lbfgs":
            params, n_iter = self._fit_lbfgs(loss_grad, start)
        else:

            def probabilities(params):
                W, b = unpack(params)
                Z = np.asarray(X @ W.T) + b
                if n_outputs == 1:
                    return expit(Z)
                return np.exp(log_softmax(Z, axis=1))

            def hessian(params):
                return _hessian(X, weights, probabilities(params), l2, self.fit_intercept)

            params, n_iter = self._fit_newton(
                loss_grad, hessian, start, n_outputs, n_params, penalised=l2 > 0
            )
        W, b = unpack(params)
        if n_outputs > 1:
            # the softmax is unchanged by adding one vector to every class;
            # report the symmetric solution (zero sum over classes), as sklearn
            b = b - b.mean()
            if l2 == 0:
                W = W - W.mean(axis=0)
        self.coef_ = np.array(W, dtype=float)
        self.intercept_ = np.array(b, dtype=float)
        self.n_iter_ = np.array([n_iter], dtype=np.int32)
        return self

    def _fit_lbfgs(self, loss_grad, start):
        result = minimize(
            loss_grad,
            start,
            jac=True,
            method="L-BFGS-B",
            options={
                "maxiter": self.max_iter,
                "gtol": self.tol,
                "ftol": 64 * np.finfo(float).eps,
            },
        )
        if not result.success:
            self._warn_not_converged()
        return result.x, int(result.nit)

    def _warn_not_converged(self):
        warnings.warn(
            f"The {self.solver} solver did not converge in max_iter={self.max_iter} "
            "iterations; increase max_iter, or scale the features.",
            ConvergenceWarning,
            stacklevel=3,
        )

    def _fit_newton(self, loss_grad, hessian, params, n_outputs, n_params, *, penalised):
        # The softmax loss is flat along "add the same vector to every class";
        # adding u u^T for those directions u makes the Hessian invertible
        # without changing the step (the gradient is orthogonal to them).
        flat = np.zeros_like(params)
        flat_directions = []
        if n_outputs > 1:
            unpenalised = [n_params - 1] if self.fit_intercept else []
            if not penalised:
                unpenalised = range(n_params)
            for j in unpenalised:
                u = flat.copy()
                u[j::n_params] = 1.0 / np.sqrt(n_outputs)
                flat_directions.append(u)
        loss, grad = loss_grad(params)
        n_iter = 0
        while np.max(np.abs(grad)) >= self.tol:
            if n_iter == self.max_iter:
                self._warn_not_converged()
                break
            n_iter += 1
            H = hessian(params)
            for u in flat_directions:
                H += np.outer(u, u)
            try:
                step = np.linalg.solve(H, grad)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(H, grad, rcond=None)[0]
            # backtracking (Armijo) line search: full Newton steps can
            # overshoot far from the optimum
            t = 1.0
            while True:
                candidate = params - t * step
                new_loss, new_grad = loss_grad(candidate)
                if new_loss <= loss - 1e-4 * t * (grad @ step) or t < 1e-10:
                    break
                t *= 0.5
            params, loss, grad = candidate, new_loss, new_grad
        return params, n_iter

    def decision_function(self, X):
        """Linear scores ``X @ coef_.T + intercept_``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For a binary problem, the log-odds of ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_log_proba(self, X):
        """Log-probabilities of the classes, shape (n_samples, n_classes)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Probabilities of the classes, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each sample, shape (n_samples,)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
