"""Figures the notebooks show: decision regions, densities, learning curves, confusion.

Every function draws on a Matplotlib ``Axes`` (a new one when ``ax`` is
None) and returns it (or the ``Figure`` for multi-panel plots). None calls
``plt.show()``: the notebook does, so that the figure appears once.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

__all__ = [
    "plot_decision_regions",
    "plot_class_densities",
    "plot_learning_curves",
    "plot_confusion_matrix",
]


def _new_axes(ax, figsize=(6, 4)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _class_colors(n_classes):
    cmap = plt.get_cmap("tab10")
    return [cmap(c % 10) for c in range(n_classes)]


def plot_decision_regions(model, X, y, ax=None, *, resolution=200, padding=0.5,
                          target_names=None, feature_names=None):
    """Colour the plane by the class a fitted 2-D classifier predicts, with the data on top.

    Parameters
    ----------
    model : fitted classifier
        Anything with ``predict(X)`` returning labels that occur in ``y``
        (nbcore or scikit-learn estimators).
    X : array-like of shape (n_samples, 2)
        The points to scatter; they also set the plotted range.
    y : array-like of shape (n_samples,)
        Their labels.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.
    resolution : int, default=200
        Grid points per axis.
    padding : float, default=0.5
        Margin around the data, in data units.
    target_names : sequence of str, default=None
        Legend labels, one per class (in sorted label order).
    feature_names : sequence of 2 str, default=None
        Axis labels.

    Returns
    -------
    ax : matplotlib.axes.Axes
        With one filled contour set (the regions) and one scatter per class.

    Raises
    ------
    ValueError
        If ``X`` does not have exactly two columns or ``y`` has another length.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X = np.array([[0.0, 0.0], [0.2, 0.1], [2.0, 2.0], [2.1, 1.8]])
    >>> y = np.array([0, 0, 1, 1])
    >>> ax = plot_decision_regions(GaussianNB().fit(X, y), X, y)
    >>> len(ax.collections) >= 2
    True
    >>> plt.close(ax.figure)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"plot_decision_regions draws 2-D data: X must have shape (n_samples, 2), "
            f"got {X.shape}; select two features first, e.g. X[:, [0, 1]]"
        )
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) like X's rows, got {y.shape}")
    classes = np.unique(y)
    colors = _class_colors(len(classes))
    ax = _new_axes(ax)

    lo = X.min(axis=0) - padding
    hi = X.max(axis=0) + padding
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], resolution),
                         np.linspace(lo[1], hi[1], resolution))
    predicted = np.asarray(model.predict(np.column_stack([xx.ravel(), yy.ravel()])))
    # Map labels to 0..n_classes-1 so one colour per class works for any label type.
    region = np.searchsorted(classes, predicted).reshape(xx.shape)
    ax.contourf(xx, yy, region, levels=np.arange(len(classes) + 1) - 0.5,
                colors=colors, alpha=0.25)

    names = target_names if target_names is not None else [str(c) for c in classes]
    for index, label in enumerate(classes):
        member = y == label
        ax.scatter(X[member, 0], X[member, 1], color=colors[index], edgecolor="k",
                   s=25, label=names[index])
    if feature_names is not None:
        ax.set_xlabel(feature_names[0])
        ax.set_ylabel(feature_names[1])
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_class_densities(theta, var, classes, feature=0, ax=None, *, class_prior=None,
                         target_names=None, feature_name=None, n_points=400):
    """Draw the class-conditional Gaussian density of one feature, one curve per class.

    Parameters
    ----------
    theta : array-like of shape (n_classes, n_features)
        Per-class means.
    var : array-like of shape (n_classes, n_features) or (n_features,)
        Per-class variances, or one variance per feature shared by the classes.
    classes : array-like of shape (n_classes,)
        Class labels, used in the legend unless ``target_names`` is given.
    feature : int, default=0
        Which feature (column) to draw.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.
    class_prior : array-like of shape (n_classes,), default=None
        If given, draw ``P(c) p(x | c)`` instead of ``p(x | c)``: where these
        curves cross is the decision boundary on this feature alone.
    target_names : sequence of str, default=None
        Legend labels.
    feature_name : str, default=None
        The x-axis label.
    n_points : int, default=400
        Points on each curve.

    Returns
    -------
    ax : matplotlib.axes.Axes
        With one line per class.

    Examples
    --------
    >>> ax = plot_class_densities([[0.0], [3.0]], [[1.0], [0.5]], classes=[0, 1])
    >>> len(ax.get_lines())
    2
    >>> plt.close(ax.figure)
    """
    theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
    var = np.asarray(var, dtype=np.float64)
    var = np.broadcast_to(var, theta.shape) if var.ndim == 1 else var
    classes = np.asarray(classes)
    if var.shape != theta.shape or classes.shape != (theta.shape[0],):
        raise ValueError(
            f"theta {theta.shape}, var {var.shape} and classes {classes.shape} do not "
            "match: expected (n_classes, n_features), the same (or (n_features,)) "
            "and (n_classes,)"
        )
    if not 0 <= feature < theta.shape[1]:
        raise ValueError(f"feature must be a column index in [0, {theta.shape[1]}), got {feature}")
    if np.any(var[:, feature] <= 0):
        raise ValueError("variances must be positive; add a small var_smoothing")
    weights = np.ones(len(classes)) if class_prior is None else np.asarray(class_prior, float)

    mean, std = theta[:, feature], np.sqrt(var[:, feature])
    x = np.linspace((mean - 4 * std).min(), (mean + 4 * std).max(), n_points)
    ax = _new_axes(ax)
    names = target_names if target_names is not None else [str(c) for c in classes]
    for c, color in enumerate(_class_colors(len(classes))):
        ax.plot(x, weights[c] * stats.norm.pdf(x, mean[c], std[c]), color=color, label=names[c])
    ax.set_xlabel(feature_name if feature_name is not None else f"feature {feature}")
    ax.set_ylabel("P(c) p(x | c)" if class_prior is not None else "p(x | c)")
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_learning_curves(sizes, scores_by_model, ax=None, *, ylabel="test accuracy",
                         log_x=True):
    """Score against training-set size, one line per model (mean and spread).

    Parameters
    ----------
    sizes : array-like of shape (n_sizes,)
        Training-set sizes.
    scores_by_model : dict of str to array-like
        Model name -> scores of shape (n_sizes,) or (n_sizes, n_repeats);
        with repeats the line is the mean and a band shows +- one standard
        deviation.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.
    ylabel : str, default="test accuracy"
    log_x : bool, default=True
        Logarithmic x axis (sizes usually grow geometrically).

    Returns
    -------
    ax : matplotlib.axes.Axes
        With one line per model.

    Raises
    ------
    ValueError
        If a model's scores do not have one row per size.

    Examples
    --------
    >>> ax = plot_learning_curves([10, 100], {"NB": [0.8, 0.9], "LR": [[0.7, 0.75], [0.95, 0.9]]})
    >>> len(ax.get_lines())
    2
    >>> plt.close(ax.figure)
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    if not isinstance(scores_by_model, Mapping) or not scores_by_model:
        raise ValueError("scores_by_model must be a non-empty dict: model name -> scores")
    ax = _new_axes(ax)
    for (name, scores), color in zip(scores_by_model.items(),
                                     _class_colors(len(scores_by_model))):
        scores = np.asarray(scores, dtype=np.float64)
        if scores.ndim not in (1, 2) or scores.shape[0] != sizes.shape[0]:
            raise ValueError(
                f"scores of {name!r} have shape {scores.shape}; expected ({len(sizes)},) "
                f"or ({len(sizes)}, n_repeats), one row per training-set size"
            )
        if scores.ndim == 1:
            scores = scores[:, np.newaxis]
        mean = scores.mean(axis=1)
        ax.plot(sizes, mean, "o-", color=color, label=name)
        if scores.shape[1] > 1:
            std = scores.std(axis=1)
            ax.fill_between(sizes, mean - std, mean + std, color=color, alpha=0.2)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel("training-set size")
    ax.set_ylabel(ylabel)
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_confusion_matrix(confusion, target_names=None, ax=None, *, normalize=False):
    """Show a confusion matrix (rows: true class, columns: predicted) with its numbers.

    Parameters
    ----------
    confusion : array-like of shape (n_classes, n_classes)
        Counts, e.g. from ``sklearn.metrics.confusion_matrix``.
    target_names : sequence of str, default=None
        Class names for the tick labels.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.
    normalize : bool, default=False
        Divide each row by its total (then the diagonal is the recall).

    Returns
    -------
    ax : matplotlib.axes.Axes
        With one image and one text label per cell.

    Examples
    --------
    >>> ax = plot_confusion_matrix([[50, 2], [5, 20]], ["ham", "spam"])
    >>> len(ax.images), len(ax.texts)
    (1, 4)
    >>> plt.close(ax.figure)
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    if confusion.ndim != 2 or confusion.shape[0] != confusion.shape[1]:
        raise ValueError(f"confusion must be a square matrix, got shape {confusion.shape}")
    n_classes = confusion.shape[0]
    if normalize:
        totals = confusion.sum(axis=1, keepdims=True)
        confusion = np.divide(confusion, totals, out=np.zeros_like(confusion), where=totals > 0)
    ax = _new_axes(ax, figsize=(4, 4))
    ax.imshow(confusion, cmap="Blues")
    threshold = confusion.max() / 2
    for i in range(n_classes):
        for j in range(n_classes):
            text = f"{confusion[i, j]:.2f}" if normalize else f"{confusion[i, j]:.0f}"
            ax.text(j, i, text, ha="center", va="center",
                    color="white" if confusion[i, j] > threshold else "black")
    names = target_names if target_names is not None else [str(c) for c in range(n_classes)]
    ax.set_xticks(range(n_classes), labels=names)
    ax.set_yticks(range(n_classes), labels=names)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    return ax
