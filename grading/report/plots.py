"""The report's plots: matplotlib (Agg) figures as inline PNG ``<img>`` tags."""

from __future__ import annotations

import base64
import io

from markupsafe import Markup

from grading.core.records import Status
from grading.core.text import format_points


def _png(figure) -> str:
    """A matplotlib figure as an <img> tag with the PNG inlined."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return Markup(f'<img alt="plot" src="data:image/png;base64,{data}">')


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display on a grading server
    import matplotlib.pyplot as plt

    return plt


def score_distribution_plot(grades) -> str:
    """Histogram of the (penalised) scores of each assignment, one panel each."""
    plt = _pyplot()
    assignments = grades.assignments
    figure, axes = plt.subplots(
        1, max(len(assignments), 1), figsize=(4 * max(len(assignments), 1), 3), squeeze=False
    )
    for axis, assignment in zip(axes[0], assignments):
        scores = [
            grade.score for (_, a), grade in grades.submissions.items() if a == assignment
        ]
        top = grades.max_scores.get(assignment) or max(scores, default=1.0) or 1.0
        axis.hist(scores, bins=10, range=(0, top), color="#3f6fb5", edgecolor="white")
        axis.set_title(f"{assignment} (n={len(scores)})")
        axis.set_xlabel(f"score / {format_points(top)}")
        axis.set_ylabel("submissions")
    return _png(figure)


def pass_rate_plot(rates) -> str:
    """Horizontal bars: the share of the class that passed each test cell (red: few)."""
    plt = _pyplot()
    labels = [f"{assignment}: {grade_id}" for assignment, grade_id, _, _ in rates]
    values = [100 * rate for _, _, rate, _ in rates]
    figure, axis = plt.subplots(figsize=(8, 0.28 * len(rates) + 1))
    positions = list(range(len(rates)))[::-1]  # first cell at the top
    axis.barh(positions, values, color=plt.cm.RdYlGn([rate for _, _, rate, _ in rates]))
    for y, value in zip(positions, values):
        axis.text(value + 1, y, f"{value:.0f}%", va="center", fontsize=7)
    axis.set_yticks(positions, labels, fontsize=8)
    axis.set_xlim(0, 108)
    axis.set_xlabel("% of submissions passing")
    return _png(figure)


def grading_time_plot(records) -> str:
    """Horizontal bars: seconds spent grading each submission, red when not ok."""
    plt = _pyplot()
    records = sorted(records, key=lambda r: (r.get("assignment", ""), r.get("student", "")))
    labels = [f"{r.get('student')} / {r.get('notebook') or r.get('assignment')}" for r in records]
    seconds = [float(r.get("seconds") or 0.0) for r in records]
    colours = ["#3f6fb5" if r.get("status") == Status.OK else "#b00020" for r in records]
    figure, axis = plt.subplots(figsize=(8, 0.3 * len(records) + 1))
    positions = range(len(records))[::-1]
    axis.barh(list(positions), seconds, color=colours)
    axis.set_yticks(list(positions), labels, fontsize=8)
    axis.set_xlabel("grading time (s); red: not graded normally")
    return _png(figure)

