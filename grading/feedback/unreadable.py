"""Feedback for a notebook the grader could not read, find or grade (no autograded copy to render).

nbgrader renders feedback from the autograded notebook; a submission whose
notebook is truncated JSON, not a notebook at all, or missing has none, and
neither has one the grader itself failed on: its student would get a 0 or
nothing, and no page. Here such a notebook gets a short page of its own, at
the same place (``feedback/<student>/<assignment>/<notebook>.html``), saying
why and what to do.
"""

from __future__ import annotations

import html

from grading.core.records import Status, latest_records, read_grading_log

TITLES = {
    Status.INVALID: ("Your notebook could not be read",
                     "The grader could not open it as a Jupyter notebook, so none of its cells ran and it "
                     "scored 0.", "Score: 0"),
    Status.MISSING: ("Your notebook was not found",
                     "The submission has no notebook of this name, so it scored 0.", "Score: 0"),
    Status.ERROR: ("Your notebook could not be graded yet",
                   "The grader itself failed on it (not your work): it has no score yet, and your instructor "
                   "will grade it again.", "No score yet"),
    Status.UNGRADED: ("Your notebook could not be graded yet",
                      "The grading machines could not run it: it has no score yet, and it will be graded "
                      "again.", "No score yet"),
}
WHAT_TO_DO = {
    Status.INVALID: (
        "The file you submitted is not a notebook Jupyter can open (for example it was cut off while "
        "uploading, or it is another kind of file renamed to .ipynb). Open it in JupyterLab to check; "
        "then submit the notebook again, saved with File &gt; Save Notebook, as the .ipynb file itself. "
        "Before you submit, <code>python -m nbkit check {notebook}.ipynb</code> says whether it will grade. "
        "Your instructor grades a new submission as soon as it is collected."),
    Status.MISSING: (
        "Your submission has no file named <code>{notebook}.ipynb</code>. Submit the notebook under the "
        "name it was released with (the learning platform may add a prefix; keep the rest of the name)."),
    Status.ERROR: "Nothing: this is the grader's problem, not your notebook's.",
    Status.UNGRADED: "Nothing: this is the grader's problem, not your notebook's.",
}

# A long word in the reason (nbformat's error quotes the file's first characters) wraps inside its box.
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{assignment}: {notebook} (not graded)</title>
<style>body{{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}}
.why{{background:#fff3cd;border:1px solid #e0c36c;padding:.5em 1em}}
p{{overflow-wrap:anywhere}}</style></head>
<body><h1>{assignment}: {notebook}.ipynb</h1>
<h2>{title}</h2>
<p><strong>{score}</strong>. {explanation}</p>
<div class="why"><p><strong>Why:</strong> {reason}</p></div>
<p><strong>What to do:</strong> {what}</p>
</body></html>
"""


def unreadable_notebooks(course, assignments=None, students=None) -> list:
    """The newest grading records (dicts) of notebooks that could not be read, found or graded."""
    found = []
    for (student, assignment, notebook), record in sorted(latest_records(
            read_grading_log(course.grading_log_path)).items(), key=lambda item: tuple(map(str, item[0]))):
        if record.get("status") not in {status.value for status in TITLES}:
            continue
        if not (student and assignment and notebook):
            continue
        if (assignments is not None and assignment not in assignments) or (
                students is not None and student not in students):
            continue
        if not course.submitted_dir(student, assignment).is_dir():
            continue  # collected again under another id, or removed: nothing to say
        found.append(record)
    return found


def write_unreadable_pages(course, assignments=None, students=None) -> list:
    """Write a page for each such notebook that has none from nbgrader; return their paths."""
    written = []
    for record in unreadable_notebooks(course, assignments, students):
        student, assignment, notebook = record["student"], record["assignment"], record["notebook"]
        if (course.autograded_dir(student, assignment) / f"{notebook}.ipynb").is_file():
            continue  # nbgrader renders it (with the grading note)
        status = Status(record["status"])
        title, explanation, score = TITLES[status]
        path = course.feedback_dir(student, assignment) / f"{notebook}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PAGE.format(
            assignment=html.escape(assignment), notebook=html.escape(notebook), title=title, score=score,
            explanation=explanation, reason=html.escape(record.get("reason") or status.value),
            what=WHAT_TO_DO[status].format(notebook=html.escape(notebook))), encoding="utf-8")
        written.append(path)
    return written
