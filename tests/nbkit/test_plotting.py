"""Tests of nbkit.plotting under the Agg backend: objects returned, artists drawn.

Expected curves are written out by hand (e.g. the Beta(3, 2) density is
12 t^2 (1 - t)). Runtime: about 3 s.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from nbcore.plotting import (  # noqa: E402  (nbkit.plotting, plus the coin posterior)
    plot_class_densities,
    plot_coin_posterior,
    plot_confusion_matrix,
    plot_decision_regions,
    plot_learning_curves,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def three_blobs():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    y = np.repeat(np.array(["a", "b", "c"]), 20)
    X = centres[np.repeat(np.arange(3), 20)] + rng.normal(scale=0.5, size=(60, 2))
    return X, y


# --- decision regions ---------------------------------------------------------------


def test_decision_regions_draws_regions_and_one_scatter_per_class(three_blobs):
    X, y = three_blobs
    ax = plot_decision_regions(GaussianNB().fit(X, y), X, y, resolution=50,
                               feature_names=["x0", "x1"])
    assert isinstance(ax, Axes)
    # Each class is one scatter of its 20 points (the filled regions hold no offsets).
    scatters = [c for c in ax.collections if len(c.get_offsets()) == 20]
    assert len(scatters) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    assert ax.get_xlabel() == "x0"
    # The data range plus padding is covered.
    x_lo, x_hi = ax.get_xlim()
    assert x_lo <= X[:, 0].min() - 0.5 + 1e-9 and x_hi >= X[:, 0].max() + 0.5 - 1e-9


def test_decision_regions_uses_the_given_axes(three_blobs):
    X, y = three_blobs
    fig, (left, right) = plt.subplots(1, 2)
    returned = plot_decision_regions(GaussianNB().fit(X, y), X, y, ax=right, resolution=20,
                                     target_names=["one", "two", "three"])
    assert returned is right and not left.collections
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["one", "two", "three"]


def test_decision_regions_rejects_more_than_two_features():
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match=r"shape \(n_samples, 2\)"):
        plot_decision_regions(None, X, np.zeros(4))


# --- class densities -----------------------------------------------------------------


def test_class_densities_one_line_per_class_with_the_right_peak():
    theta = np.array([[0.0, 10.0], [3.0, 20.0]])
    var = np.array([[1.0, 1.0], [0.25, 4.0]])
    ax = plot_class_densities(theta, var, classes=["lo", "hi"], feature=0)
    lines = ax.get_lines()
    assert len(lines) == 2
    for line, mean, variance in zip(lines, [0.0, 3.0], [1.0, 0.25]):
        x, density = line.get_data()
        assert x[np.argmax(density)] == pytest.approx(mean, abs=0.05)
        assert density.max() == pytest.approx(1 / np.sqrt(2 * np.pi * variance), rel=1e-3)
    assert ax.get_ylabel() == "p(x | c)"


def test_class_densities_shared_variance_and_prior_weighting():
    ax = plot_class_densities([[0.0], [2.0]], [1.0], classes=[0, 1], class_prior=[0.25, 0.75])
    peaks = [line.get_data()[1].max() for line in ax.get_lines()]
    np.testing.assert_allclose(peaks, np.array([0.25, 0.75]) / np.sqrt(2 * np.pi), rtol=1e-3)
    assert ax.get_ylabel() == "P(c) p(x | c)"


@pytest.mark.parametrize("kwargs, message", [
    ({"var": [[1.0], [0.0]]}, "variances must be positive"),
    ({"feature": 3}, "feature must be a column index"),
    ({"classes": [0, 1, 2]}, "do not match"),
])
def test_class_densities_errors(kwargs, message):
    arguments = {"theta": [[0.0], [1.0]], "var": [[1.0], [1.0]], "classes": [0, 1]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        plot_class_densities(**arguments)


# --- coin posterior --------------------------------------------------------------------


def test_coin_posterior_panels_and_curves():
    fig = plot_coin_posterior([1, 1, 0], a=1, b=1, checkpoints=[0, 3])
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    assert all(len(ax.get_lines()) == 3 for ax in fig.axes)
    prior, likelihood, posterior = fig.axes[1].get_lines()
    t, density = posterior.get_data()
    # 2 heads, 1 tail under a uniform prior: Beta(3, 2), density 12 t^2 (1 - t).
    np.testing.assert_allclose(density, 12 * t**2 * (1 - t), rtol=1e-9)
    # Uniform prior: the scaled likelihood equals the posterior; the prior is flat at 1.
    np.testing.assert_allclose(likelihood.get_data()[1], density, rtol=1e-9)
    np.testing.assert_allclose(prior.get_data()[1], 1.0)
    assert fig.axes[1].get_title() == "n = 3, heads = 2"


def test_coin_posterior_before_any_toss_is_the_prior():
    fig = plot_coin_posterior([0, 1], a=2, b=2, checkpoints=[0])
    prior, _, posterior = fig.axes[0].get_lines()
    t, density = posterior.get_data()
    np.testing.assert_allclose(density, 6 * t * (1 - t), rtol=1e-9)  # Beta(2, 2)
    np.testing.assert_allclose(prior.get_data()[1], density)


def test_coin_posterior_default_checkpoints_end_with_all_tosses():
    tosses = np.random.default_rng(0).integers(0, 2, size=37)
    fig = plot_coin_posterior(tosses)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("n = 0,") and titles[-1].startswith("n = 37,")
    assert len(fig.axes) <= 6


@pytest.mark.parametrize("kwargs, message", [
    ({"tosses": [0, 2]}, "0 \\(tails\\) and 1 \\(heads\\)"),
    ({"tosses": [0, 1], "a": 0}, "a > 0 and b > 0"),
    ({"tosses": [0, 1], "checkpoints": [3]}, "checkpoints must be numbers of tosses in 0..2"),
])
def test_coin_posterior_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_coin_posterior(**kwargs)


# --- learning curves and confusion matrix ----------------------------------------------


def test_learning_curves_mean_lines_and_bands():
    sizes = [10, 30, 100]
    scores = {"NB": [0.7, 0.8, 0.85], "LR": [[0.6, 0.7], [0.8, 0.8], [0.9, 0.94]]}
    ax = plot_learning_curves(sizes, scores)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["NB", "LR"]
    np.testing.assert_allclose(lines[1].get_data()[1], [0.65, 0.8, 0.92])
    assert len(ax.collections) == 1  # only LR has repeats, hence a band
    assert ax.get_xscale() == "log"


def test_learning_curves_rejects_mismatched_scores():
    with pytest.raises(ValueError, match="one row per training-set size"):
        plot_learning_curves([10, 20], {"NB": [0.5, 0.6, 0.7]})
    with pytest.raises(ValueError, match="non-empty dict"):
        plot_learning_curves([10, 20], [])


def test_confusion_matrix_cells():
    ax = plot_confusion_matrix([[50, 2], [5, 20]], ["ham", "spam"])
    assert len(ax.images) == 1
    assert [t.get_text() for t in ax.texts] == ["50", "2", "5", "20"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ham", "spam"]
    normalized = plot_confusion_matrix([[3, 1], [0, 0]], normalize=True)
    assert [t.get_text() for t in normalized.texts] == ["0.75", "0.25", "0.00", "0.00"]
    with pytest.raises(ValueError, match="square"):
        plot_confusion_matrix([[1, 2, 3]])
