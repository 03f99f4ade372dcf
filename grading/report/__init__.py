"""``nbg report``: one self-contained HTML page on how the class did.

Sections: a banner when any submission was graded without the sandbox; the
submissions that need the instructor's attention, with the reason; the
notebooks graded again alone because they failed while others ran beside
them (:mod:`grading.autograde`); the score table (student x assignment); each late penalty explained
(:mod:`grading.grades.late`, recomputed first); pairs of similar answers for review
(:mod:`grading.report.similarity`); the rule on ready-made libraries (:mod:`grading.report.library`:
the graded functions given 0 points, a count per function, the instructor's overrules); the score distribution per assignment;
the pass rate per test cell (which questions the class struggled with); the
class's mistakes per graded function (:mod:`grading.report.mistakes`, also written to
``exports/mistakes.csv``), and the failures no known mistake explains grouped by their
counterexamples (:mod:`grading.report.unmatched`, ``nbg mistakes``); learning from practice (:mod:`grading.report.practice`: what the
attempts at ``nbg serve`` say, also ``exports/practice_*.csv``); the item analysis of the test cells (:mod:`grading.report.items`); the
grading time per submission. Plots are matplotlib (Agg) PNGs embedded as
base64, so the file can be mailed or uploaded as is.

Grades come from nbgrader's gradebook (:func:`grading.grades.read.read_class_grades`); the page is the Jinja2 template ``templates/report.html.j2``;
statuses, reasons, times and the sandbox flag from ``grading_log.jsonl``
(written by ``nbg autograde``; the last record of a submission is its
current state, but a single unsandboxed run anywhere in the log raises the
banner).
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from grading.core.errors import NbgError
from grading.core.lock import unfinished_run
from grading.core.records import Status, latest_records, read_grading_log
from grading.core.text import CSP_META, format_points
from grading.grades.late import apply_late_policy, describe_policy
from grading.grades.read import not_in_source, not_in_source_notice, read_class_grades
from grading.report.items import FLAG_BELOW, class_item_analysis
from grading.report.library import library_section
from grading.report.mistakes import class_mistakes, write_mistakes_csv
from grading.report.plots import grading_time_plot, pass_rate_plot, score_distribution_plot
from grading.report.practice import practice_section
from grading.report.similarity import DEFAULT_THRESHOLD, similar_pairs
from grading.report.timing import COLUMNS as SLOW_COLUMNS
from grading.report.timing import slow_rows
from grading.report.unmatched import unmatched_groups

RECORD_COLUMNS = ("student", "assignment", "notebook", "status", "reason")
LATE_COLUMNS = ("student", "assignment", "submitted (UTC)", "due (UTC)", "late by", "score before", "penalty", "score")
_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("grading.report", "templates"),
                                autoescape=jinja2.select_autoescape(["html", "j2"]), undefined=jinja2.StrictUndefined)
_BREAK_AFTER = re.compile(r"([_/])")


def breakable(value) -> Markup:
    """``value`` escaped, with a line break allowed after each '_' and '/' (``<wbr>``): a table's
    header of assignment names (06_nb_linear_logistic) breaks between words rather than widen the
    table past a laptop's page or break inside a word."""
    return Markup(_BREAK_AFTER.sub(r"\1<wbr>", str(escape(value))))


_TEMPLATES.filters["breakable"] = breakable


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


def needs_attention(records) -> list:
    """The current records flagged for the instructor (or not graded ``ok``)."""
    return [
        r
        for r in records
        if r.get("needs_attention") or r.get("status", Status.OK) != Status.OK
    ]


def _score_table(grades) -> dict:
    assignments = grades.assignments
    rows = [[s, *(format_points(grades.score(s, a)) or "-" for a in assignments), format_points(grades.total(s))]
            for s in grades.students]
    rows.append(["max", *(format_points(grades.max_scores[a]) for a in assignments),
                 format_points(sum(grades.max_scores.values()))])
    return {"header": ["student", *assignments, "total"], "rows": rows,
            "waiting": sum(1 for cell in grades.cells if cell.needs_manual_grade)}


def _late_rows(penalties) -> list:
    return [(p.student, p.assignment, f"{p.submitted:%Y-%m-%d %H:%M}",
             f"{p.due:%Y-%m-%d %H:%M}" + (" (extension)" if p.extended else ""), p.late_by,
             f"{format_points(p.raw_score)} / {format_points(p.max_score)}",
             f"-{format_points(p.penalty)}" if p.penalty else "0", format_points(p.raw_score - p.penalty))
            for p in penalties]


def _figure(value) -> str:
    return "-" if value != value else f"{value:.2f}"  # NaN: undefined


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
        raise NbgError(f"{out_path} is a folder; give a file name such as report.html")
    # Recompute late penalties first (due dates, extensions, manual grades may have changed).
    late = apply_late_policy(course)
    grades = read_class_grades(course)
    log = read_grading_log(course.grading_log_path)
    current = sorted(latest_records(log).values(),
                     key=lambda r: (r.get("student", ""), r.get("assignment", ""), r.get("notebook", "")))
    threshold = similarity_threshold or DEFAULT_THRESHOLD
    pairs = [{"assignment": p.assignment, "notebook": p.notebook, "students": p.students,
              "similarity": p.similarity, "marked": [(s, Markup(code)) for s, code in zip(p.students, p.highlighted)]}
             for p in similar_pairs(course, threshold=threshold)]  # copydetect escaped the code it marked
    rates = pass_rates(grades, course)
    mistakes = class_mistakes(course, grades)
    if mistakes:
        write_mistakes_csv(mistakes, course.root / "exports" / "mistakes.csv")
    items = class_item_analysis(grades, {a: _cell_order(course, a) for a in grades.assignments})
    page = _TEMPLATES.get_template("report.html.j2").render(
        csp_meta=Markup(CSP_META),  # the page runs no script and loads nothing
        course_root=str(course.root),
        unfinished=unfinished_run(course),
        unsandboxed=len({(r.get("student"), r.get("assignment")) for r in log if not r.get("sandboxed", False)}),
        record_columns=RECORD_COLUMNS,
        has_log=bool(log),
        attention=[[r.get(c) or "" for c in RECORD_COLUMNS] for r in needs_attention(current)],
        graded_alone=[[r.get(c) or "" for c in RECORD_COLUMNS] for r in current if r.get("graded_alone")],
        slow={"header": SLOW_COLUMNS, "rows": slow_rows(current),
              "review": course.settings.review_factor},
        scores=_score_table(grades),
        not_in_source=not_in_source_notice(unknown) if (unknown := not_in_source(course, grades.assignments)) else "",
        late={"policy": describe_policy(course), "header": LATE_COLUMNS, "rows": _late_rows(late)},
        similarity={"threshold": threshold, "pairs": pairs},
        library=library_section(course),
        pass_rates=[(a, g, f"{100 * r:.0f}%", n) for a, g, r, n in rates],
        mistakes=mistakes,
        unmatched=unmatched_groups(course, grades) if mistakes else [],
        practice=practice_section(course),
        flag_below=FLAG_BELOW,
        items=[{"assignment": a.assignment, "students": a.students, "alpha": _figure(a.alpha),
                "rows": [(i.grade_id, f"{i.facility:.2f}", _figure(i.discrimination), "check this test" if i.flagged else "")
                         for i in a.items]} for a in items],
        time={"notebooks": len(current), "seconds": sum(float(r.get("seconds") or 0.0) for r in current)}
        if current else None,
        plots={"scores": score_distribution_plot(grades) if grades.submissions else None,
               "pass_rates": pass_rate_plot(rates) if rates else None,
               "time": grading_time_plot(current) if current else None},
    )
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(page + "\n", encoding="utf-8")
    return out_path
