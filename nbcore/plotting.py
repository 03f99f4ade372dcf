"""Figures that need a graded formula, kept out of the student kit.

:func:`plot_coin_posterior` draws the Beta posterior of notebook 1, whose
update rule is one of that notebook's graded answers; the other figures live
in :mod:`nbkit.plotting` and are re-exported here.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from nbkit.plotting import (
    plot_class_densities,
    plot_confusion_matrix,
    plot_decision_regions,
    plot_learning_curves,
)

__all__ = [
    "plot_decision_regions",
    "plot_class_densities",
    "plot_coin_posterior",
    "plot_learning_curves",
    "plot_confusion_matrix",
]


def _default_checkpoints(n_tosses):
    marks = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    chosen = [m for m in marks if m < n_tosses][:5] + [n_tosses]
    return sorted(set(chosen))


def plot_coin_posterior(tosses, a=1.0, b=1.0, *, checkpoints=None, n_points=401):
    """Prior, likelihood and posterior of a coin's bias as the tosses arrive.

    One panel per checkpoint ``n``: after the first ``n`` tosses with ``k``
    heads it draws the Beta(a, b) prior, the likelihood
    ``theta**k (1-theta)**(n-k)`` rescaled to area one (so it fits on the
    same axes), and the posterior Beta(a + k, b + n - k).

    Parameters
    ----------
    tosses : array-like of 0/1 or bool
        The tosses in order; 1 (True) is heads.
    a, b : float, default=1.0
        Parameters of the Beta prior (both > 0; 1, 1 is uniform).
    checkpoints : sequence of int, default=None
        Numbers of tosses after which to draw a panel (0 shows the prior
        alone). Default: up to five of 0, 1, 2, 5, 10, 20, ... and all tosses.
    n_points : int, default=401
        Grid points on (0, 1).

    Returns
    -------
    fig : matplotlib.figure.Figure
        One axes per checkpoint, each with three lines (prior, likelihood,
        posterior).

    Raises
    ------
    ValueError
        If a toss is not 0/1, ``a`` or ``b`` is not positive, or a checkpoint
        is outside 0..len(tosses).

    Examples
    --------
    >>> fig = plot_coin_posterior([1, 0, 1, 1], a=2, b=2, checkpoints=[0, 4])
    >>> [len(ax.get_lines()) for ax in fig.axes]
    [3, 3]
    >>> plt.close(fig)
    """
    tosses = np.asarray(tosses)
    if tosses.ndim != 1 or not np.isin(tosses, [0, 1]).all():
        raise ValueError("tosses must be a 1-D sequence of 0 (tails) and 1 (heads)")
    if not (a > 0 and b > 0):
        raise ValueError(f"the Beta prior needs a > 0 and b > 0, got a={a}, b={b}")
    n_total = len(tosses)
    checkpoints = _default_checkpoints(n_total) if checkpoints is None else list(checkpoints)
    if not checkpoints or any(not 0 <= n <= n_total for n in checkpoints):
        raise ValueError(f"checkpoints must be numbers of tosses in 0..{n_total}, got {checkpoints}")

    heads_so_far = np.concatenate([[0], np.cumsum(tosses.astype(np.int64))])
    theta = np.linspace(0, 1, n_points)[1:-1]  # open interval: Beta(a<1) is infinite at 0 and 1
    fig, axes = plt.subplots(1, len(checkpoints), figsize=(3.2 * len(checkpoints), 3),
                             sharey=False, squeeze=False)
    for ax, n in zip(axes[0], checkpoints):
        k = int(heads_so_far[n])
        # The likelihood normalised over theta is the Beta(k + 1, n - k + 1) density.
        ax.plot(theta, stats.beta.pdf(theta, a, b), "--", color="tab:gray", label="prior")
        ax.plot(theta, stats.beta.pdf(theta, k + 1, n - k + 1), ":", color="tab:orange",
                label="likelihood (scaled)")
        ax.plot(theta, stats.beta.pdf(theta, a + k, b + n - k), color="tab:blue",
                label="posterior")
        ax.set_title(f"n = {n}, heads = {k}")
        ax.set_xlabel("bias theta")
    axes[0][0].set_ylabel("density")
    axes[0][0].legend(loc="best", fontsize="small")
    fig.tight_layout()
    return fig
