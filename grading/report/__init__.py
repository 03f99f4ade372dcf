"""``nbg report``: one self-contained HTML page on how the class did.

Sections: a banner when any submission was graded without the sandbox; the
submissions that need the instructor's attention, with the reason; the
notebooks graded again alone because they failed while others ran beside
them (:mod:`grading.autograde`); the score table (student x assignment); each late penalty explained
(:mod:`grading.grades.late`, recomputed first); pairs of similar answers for review
(:mod:`grading.report.similarity`); the score distribution per assignment;
the pass rate per test cell (which questions the class struggled with); the
grading time per submission. Plots are matplotlib (Agg) PNGs embedded as
base64, so the file can be mailed or uploaded as is.

Grades come from nbgrader's gradebook (:func:`grading.export.read_class_grades`);
statuses, reasons, times and the sandbox flag from ``grading_log.jsonl``
(written by ``nbg autograde``; the last record of a submission is its
current state, but a single unsandboxed run anywhere in the log raises the
banner).
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from grading.export import format_points, read_class_grades
from grading.feedback import latest_records, read_grading_log

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.banner { background: #b00020; color: white; padding: 0.8em 1em; font-weight: bold; }
.ok { color: #1b5e20; } .empty { color: #999; }
img { max-width: 100%; }
"""


def _png(figure) -> str:
    """A matplotlib figure as an <img> tag with the PNG inlined."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="plot" src="data:image/png;base64,{data}">'


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


def _cell_order(course, assignment) -> dict:
    """grade_id -> position in the assignment's source notebooks (questions in order)."""
    import nbformat

    order = {}
    for path in course.source_notebooks(assignment):
        for cell in nbformat.read(path, as_version=4).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id is not None:
                order.setdefault(grade_id, len(order))
    return order


def pass_rates(grades, course=None) -> list:
    """(assignment, grade_id, fraction of submissions that passed, n) per test cell.

    Only code test cells count (written answers are graded by hand). Cells
    are in the order of the source notebooks when ``course`` is given, else
    sorted by id.
    """
    counts = {}
    for cell in grades.cells:
        if cell.passed is None or cell.cell_type != "code":
            continue
        key = (cell.assignment, cell.grade_id)
        passed, total = counts.get(key, (0, 0))
        counts[key] = (passed + int(cell.passed), total + 1)
    orders = {}
    if course is not None:
        orders = {a: _cell_order(course, a) for a in {a for a, _ in counts}}

    def position(key):
        assignment, grade_id = key
        return (assignment, orders.get(assignment, {}).get(grade_id, len(counts)), grade_id)

    return [
        (a, g, counts[(a, g)][0] / counts[(a, g)][1], counts[(a, g)][1])
        for a, g in sorted(counts, key=position)
    ]


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
    colours = ["#3f6fb5" if r.get("status") == "ok" else "#b00020" for r in records]
    figure, axis = plt.subplots(figsize=(8, 0.3 * len(records) + 1))
    positions = range(len(records))[::-1]
    axis.barh(list(positions), seconds, color=colours)
    axis.set_yticks(list(positions), labels, fontsize=8)
    axis.set_xlabel("grading time (s); red: not graded normally")
    return _png(figure)


def _table(header, rows) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def needs_attention(records) -> list:
    """The current records flagged for the instructor (or not graded ``ok``)."""
    return [
        r
        for r in records
        if r.get("needs_attention") or r.get("status", "ok") != "ok"
    ]


def _sandbox_banner(log) -> str:
    unsandboxed = {
        (r.get("student"), r.get("assignment")) for r in log if not r.get("sandboxed", False)
    }
    if not unsandboxed:
        return ""
    return (
        '<div class="banner">Student code ran WITHOUT the sandbox for '
        f"{len(unsandboxed)} submission(s) (<code>--unsafe-no-sandbox</code>): it could "
        "read or change anything the grading account can.</div>"
    )


def _unfinished_banner(course) -> str:
    from grading.core.lock import unfinished_run

    why = unfinished_run(course)
    if not why:
        return ""
    return f'<div class="banner">Grading is not finished: {html.escape(why)}.</div>'


def _attention_section(current, log) -> str:
    parts = ["<h2>Submissions that need attention</h2>"]
    flagged = needs_attention(current)
    if flagged:
        columns = ("student", "assignment", "notebook", "status", "reason")
        parts.append(_table(columns, [[r.get(c) or "" for c in columns] for r in flagged]))
    elif log:
        parts.append('<p class="ok">None: every submission was graded normally.</p>')
    else:
        parts.append(
            "<p>No grading log (<code>grading_log.jsonl</code>): run <code>nbg autograde</code>.</p>"
        )
    return "".join(parts)


def _graded_alone_section(current) -> str:
    """Notebooks that failed while others ran beside them and were graded again alone."""
    alone = [r for r in current if r.get("graded_alone")]
    if not alone:
        return ""
    columns = ("student", "assignment", "notebook", "status", "reason")
    return ("<h2>Graded again alone</h2><p>These notebooks timed out or lost their kernel while other "
            "notebooks were being graded on the same machine. Each was graded once more, with nothing "
            "else running, at the end of the run; the scores are from that run.</p>"
            + _table(columns, [[r.get(c) or "" for c in columns] for r in alone]))


def _scores_section(grades) -> str:
    assignments = grades.assignments
    rows = [
        [s, *(format_points(grades.score(s, a)) or "-" for a in assignments),
         format_points(grades.total(s))]
        for s in grades.students
    ]
    rows.append(["max", *(format_points(grades.max_scores[a]) for a in assignments),
                 format_points(sum(grades.max_scores.values()))])
    parts = [
        "<h2>Scores</h2>",
        _table(["student", *assignments, "total"], rows),
        "<p>Scores are after nbgrader's late penalty; '-' means no submission.</p>",
    ]
    waiting = sum(1 for cell in grades.cells if cell.passed is None)
    if waiting:
        parts.append(
            f"<p><b>{waiting} written answer(s) await a manual grade</b> (nbgrader's "
            "formgrader); until then they count 0 in the scores above.</p>"
        )
    return "".join(parts)


def write_report(course, out_path, similarity_threshold=None) -> Path:
    """Write the class report as one self-contained HTML file.

    Parameters
    ----------
    course : grading.Course
    out_path : str or Path
        The HTML file to write (its folder is created).
    similarity_threshold : float, optional
        Share of answer code two submissions must have in common to be listed
        (default :data:`grading.report.similarity.DEFAULT_THRESHOLD`).

    Returns
    -------
    Path
    """
    out_path = Path(out_path)
    if out_path.is_dir():
        raise ValueError(f"{out_path} is a folder; give a file name such as report.html")
    from grading.grades.late import apply_late_policy, describe_policy, late_section_html

    # Recompute late penalties first (due dates, extensions, manual grades may have changed).
    late = apply_late_policy(course)
    grades = read_class_grades(course)
    log = read_grading_log(course.grading_log_path)
    current = sorted(
        latest_records(log).values(),
        key=lambda r: (r.get("student", ""), r.get("assignment", ""), r.get("notebook", "")),
    )
    parts = [
        "<h1>Grading report</h1>",
        f"<p>Course root: <code>{html.escape(str(course.root))}</code></p>",
        _unfinished_banner(course),
        _sandbox_banner(log),
        _attention_section(current, log),
        _graded_alone_section(current),
        _scores_section(grades),
        late_section_html(late, describe_policy(course)),
    ]
    from grading.report.similarity import DEFAULT_THRESHOLD, similar_pairs, similarity_section_html

    threshold = similarity_threshold or DEFAULT_THRESHOLD
    parts.append(similarity_section_html(similar_pairs(course, threshold=threshold), threshold))
    if grades.submissions:
        parts.append("<h2>Score distribution per assignment</h2>" + score_distribution_plot(grades))
    rates = pass_rates(grades, course)
    if rates:
        parts.append("<h2>Pass rate per test cell</h2>")
        parts.append("<p>The lowest bars are the questions the class struggled with.</p>")
        parts.append(pass_rate_plot(rates))
        parts.append(_table(("assignment", "test cell", "passed", "submissions"),
                            [(a, g, f"{100 * r:.0f}%", n) for a, g, r, n in rates]))
    if current:
        parts.append("<h2>Grading time per submission</h2>" + grading_time_plot(current))
        total = sum(float(r.get("seconds") or 0.0) for r in current)
        parts.append(f"<p>{len(current)} notebook(s), {total:.1f} s of kernel time in all.</p>")

    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Grading report</title>'
        f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>\n"
    )
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(page, encoding="utf-8")
    return out_path


def add_arguments(parser) -> None:
    """Options of ``nbg report``."""
    parser.add_argument(
        "--out", default=None, help="HTML file to write (default: <course root>/report.html)"
    )
    parser.add_argument("--similarity-threshold", type=float, default=None, metavar="SHARE",
                        help="list pairs sharing at least this share of their answer code (default: 0.8)")


def run(args) -> int:
    """Entry point of ``nbg report``; returns the exit code."""
    from grading.core.course import Course

    from grading.core.lock import warn_if_unfinished

    course = Course(args.course, db_url=args.db)
    warn_if_unfinished(course, "report")  # the page carries the same warning (write_report)
    out_path = Path(args.out) if args.out else course.root / "report.html"
    print(f"report: {write_report(course, out_path, args.similarity_threshold)}")
    return 0
