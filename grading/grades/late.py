"""Late penalties per late interval with a floor, and per-student extensions.

The policy is an nbgrader late-submission plugin (:class:`LatePolicy`), set
in the course's ``nbgrader_config.py``::

    c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"
    c.LatePolicy.percent_per_interval = 10   # % of the points possible ...
    c.LatePolicy.interval_hours = 24         # ... per started day late
    c.LatePolicy.lowest_score_percent = 50   # never below 50% of the points by lateness
    c.LatePolicy.extensions_file = "extensions.csv"

It follows Canvas's late policy: a deduction of ``percent_per_interval`` of
the points possible for every started interval after the due date, never
taking the score below ``lowest_score_percent`` of the points possible (a
score already below that floor loses nothing), optionally capped at
``max_penalty_percent`` of the points possible.

Extensions: ``extensions.csv`` (course root) holds ``student_id,
assignment, due`` rows; a student's due date for that assignment is ``due``
instead of the assignment's due date in the gradebook. They are stored in
nbgrader's own ``SubmittedAssignment.extension`` column (what ``Gradebook.
grant_extension`` sets), so nbgrader's ``total_seconds_late`` honours them.

nbgrader computes the penalty once, when ``AssignLatePenalties`` runs after
autograding, from the notebook's score at that time. :func:`apply_late_policy`
re-runs that step for every graded submission without executing anything:
``nbg export``, ``nbg report`` and ``nbg status`` call it, so a changed due
date, extension, policy or manual grade is reflected in every number nbg
shows and in the gradebook the formgrader reads.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import math
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float, Unicode

from grading.core.errors import NbgError

EXTENSION_COLUMNS = ("student_id", "assignment", "due")


class LatePolicy(LateSubmissionPlugin):
    """A deduction per started late interval, with a floor (Canvas's model).

    Used by nbgrader's ``AssignLatePenalties`` preprocessor, once per
    notebook: the points possible are that notebook's maximum score.
    """

    percent_per_interval = Float(
        0.0, help="Percent of the points possible deducted per started late interval."
    ).tag(config=True)
    interval_hours = Float(24.0, help="Length of one late interval in hours (24: per day).").tag(
        config=True
    )
    lowest_score_percent = Float(
        0.0, help="Lateness never takes a score below this percent of the points possible."
    ).tag(config=True)
    max_penalty_percent = Float(
        100.0, help="At most this percent of the points possible is deducted."
    ).tag(config=True)
    extensions_file = Unicode(
        "extensions.csv",
        help="CSV of student_id,assignment,due (relative to the course root); missing: none.",
    ).tag(config=True)

    def intervals_late(self, seconds_late: float) -> int:
        """Started intervals after the due date (1 minute late counts one day)."""
        if seconds_late <= 0:
            return 0
        if self.interval_hours <= 0:
            raise NbgError("LatePolicy.interval_hours must be positive")
        return math.ceil(seconds_late / (3600.0 * self.interval_hours))

    def penalty(self, score: float, max_score: float, seconds_late: float) -> float:
        """Points deducted from ``score`` (out of ``max_score``), ``seconds_late`` late.

        Examples
        --------
        >>> policy = LatePolicy(percent_per_interval=10, lowest_score_percent=50)
        >>> round(policy.penalty(35, 39, 1.4 * 86400), 6)  # 2 started days: 2 x 3.9
        7.8
        >>> policy.penalty(22, 39, 9 * 86400)  # the floor is 19.5
        2.5
        >>> policy.penalty(10, 39, 9 * 86400)  # already below the floor
        0.0
        """
        deduction = max_score * min(
            self.percent_per_interval * self.intervals_late(seconds_late), self.max_penalty_percent
        ) / 100.0
        floor = max_score * self.lowest_score_percent / 100.0
        return max(0.0, min(deduction, score - floor, score))

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        """nbgrader's hook: the penalty of the notebook being processed."""
        parent = self.parent
        gradebook = getattr(parent, "gradebook", None)
        if gradebook is None:
            raise NbgError("LatePolicy runs inside nbgrader's AssignLatePenalties preprocessor")
        notebook = gradebook.find_submission_notebook(
            parent.notebook_id, parent.assignment_id, student_id
        )
        # The first grading of a submission happens before any `nbg` step could
        # record its extension: record it here, so the penalty is right at once.
        submission = gradebook.find_submission(parent.assignment_id, student_id)
        extension = self.extensions().get((student_id, parent.assignment_id))
        if extension is not None and submission.assignment.duedate is not None:
            submission.extension = extension.due - submission.assignment.duedate
            total_seconds_late = float(submission.total_seconds_late or 0)
        return self.penalty(float(score or 0.0), float(notebook.max_score or 0.0), total_seconds_late)

    def extensions(self) -> dict:
        """The extensions file's entries (relative paths are from the course root)."""
        if not self.extensions_file:
            return {}
        path = Path(self.extensions_file)
        if not path.is_absolute():
            from nbgrader.coursedir import CourseDirectory

            path = Path(CourseDirectory(config=self.config).root) / path
        return read_extensions(path)

    def describe(self) -> str:
        """The policy in one sentence, for the report."""
        unit = "day" if self.interval_hours == 24 else f"{self.interval_hours:g} h"
        text = f"{self.percent_per_interval:g}% of the points possible per started {unit} late"
        if self.max_penalty_percent < 100:
            text += f", at most {self.max_penalty_percent:g}%"
        if self.lowest_score_percent > 0:
            text += f"; lateness never takes a score below {self.lowest_score_percent:g}% of the points"
        return text


@dataclasses.dataclass(frozen=True)
class Extension:
    """A student's own due date for one assignment (one row of the extensions file)."""

    student: str
    assignment: str
    due: dt.datetime  # naive UTC, as nbgrader stores dates


def read_extensions(path) -> dict:
    """``(student, assignment) -> Extension`` from an extensions CSV; {} if there is no file.

    ``due`` is read like nbgrader's ``--duedate`` (``2026-01-20 23:59``,
    UTC unless a zone is given, e.g. ``2026-01-20 23:59 Europe/Paris``).
    """
    from nbgrader.utils import parse_utc

    path = Path(path)
    if not path.is_file():
        return {}
    extensions = {}
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in EXTENSION_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise NbgError(f"{path}: missing column(s) {missing}; the header must be "
                             f"{','.join(EXTENSION_COLUMNS)}")
        for line, row in enumerate(reader, start=2):
            student, assignment = (row["student_id"] or "").strip(), (row["assignment"] or "").strip()
            if not student or not assignment:
                raise NbgError(f"{path}, line {line}: student_id and assignment must not be empty")
            try:
                due = parse_utc((row["due"] or "").strip()).replace(tzinfo=None)
            except Exception:
                raise NbgError(f"{path}, line {line}: cannot read the due date {row['due']!r}; "
                                 "write it like 2026-01-20 23:59 (UTC) or 2026-01-20 23:59 Europe/Paris") from None
            if (student, assignment) in extensions:
                raise NbgError(f"{path}, line {line}: a second extension for {student}/{assignment}; keep one")
            extensions[(student, assignment)] = Extension(student, assignment, due)
    return extensions


def configured_plugin(course):
    """An instance of the late-submission plugin the course's config selects."""
    from nbgrader.preprocessors import AssignLatePenalties

    preprocessor = AssignLatePenalties(config=course.config)
    preprocessor.init_plugin()
    return preprocessor, preprocessor.plugin_inst


@dataclasses.dataclass(frozen=True)
class LatePenalty:
    """Why one submission lost points for lateness (a row of the report)."""

    student: str
    assignment: str
    submitted: dt.datetime
    due: dt.datetime
    extended: bool
    seconds_late: float
    raw_score: float
    max_score: float
    penalty: float

    @property
    def late_by(self) -> str:
        """``1 d 9 h 31 min`` (``on time`` when not late)."""
        if self.seconds_late <= 0:
            return "on time"
        minutes = int(round(self.seconds_late / 60))
        days, rest = divmod(minutes, 24 * 60)
        hours, minutes = divmod(rest, 60)
        parts = [f"{days} d"] if days else []
        if hours or days:
            parts.append(f"{hours} h")
        parts.append(f"{minutes} min")
        return " ".join(parts)


def apply_late_policy(course, assignments=None) -> list:
    """Sync extensions into the gradebook and recompute every late penalty.

    For every submission in the gradebook: set nbgrader's extension from the
    extensions file (or remove it), then run nbgrader's ``AssignLatePenalties``
    logic with the configured plugin on each of its notebooks, as autograding
    does, but without executing anything.

    Parameters
    ----------
    course : grading.Course
    assignments : iterable of str, optional
        Only the submissions of these assignments (``nbg autograde`` passes the
        ones it graded, so a large course is not recomputed after every run);
        default every assignment (``nbg export`` and ``nbg report``).

    Returns
    -------
    list of LatePenalty
        One per late or extended submission (penalty 0 included), sorted.
    """
    course.require_gradebook()  # never create an empty gradebook here
    preprocessor, plugin = configured_plugin(course)
    extensions = plugin.extensions() if isinstance(plugin, LatePolicy) else {}
    late = []
    with course.gradebook() as gradebook:
        known = {a.name: a for a in gradebook.assignments}
        unknown = sorted({a for _, a in extensions} - set(known))
        if unknown:
            raise NbgError(f"{plugin.extensions_file}: unknown assignment(s) {unknown}; "
                             f"the gradebook has {sorted(known)}")
        preprocessor.gradebook = gradebook  # the plugin reads max scores through it
        wanted = set(known) if assignments is None else set(assignments) & set(known)
        for name, assignment in sorted(known.items()):
            if name not in wanted:
                continue
            for submission in gradebook.assignment_submissions(name):
                student = submission.student.id
                extension = extensions.get((student, name))
                if extension is not None and assignment.duedate is not None:
                    submission.extension = extension.due - assignment.duedate
                else:
                    submission.extension = None
                seconds_late = float(submission.total_seconds_late or 0)
                total_penalty = 0.0
                for notebook in submission.notebooks:
                    preprocessor.notebook_id, preprocessor.assignment_id = notebook.name, name
                    preprocessor.student_id = student
                    # As AssignLatePenalties.preprocess: reset, then ask the plugin when late.
                    notebook.late_submission_penalty = None
                    if seconds_late > 0:
                        penalty = plugin.late_submission_penalty(student, notebook.score, seconds_late)
                        if penalty is not None:
                            penalty = preprocessor._check_late_penalty(notebook, penalty)
                            notebook.late_submission_penalty = penalty
                            total_penalty += penalty
                if seconds_late > 0 or extension is not None:
                    late.append(LatePenalty(
                        student=student, assignment=name, submitted=submission.timestamp,
                        due=submission.duedate, extended=extension is not None,
                        seconds_late=seconds_late, raw_score=float(submission.score or 0),
                        max_score=float(submission.max_score or 0), penalty=total_penalty,
                    ))
        gradebook.db.commit()
    return sorted(late, key=lambda p: (p.assignment, p.student))


def describe_policy(course) -> str:
    """The configured late policy in words."""
    _, plugin = configured_plugin(course)
    if isinstance(plugin, LatePolicy):
        return plugin.describe()
    if type(plugin) is LateSubmissionPlugin:
        if plugin.penalty_method == "zero":
            return "nbgrader's 'zero' policy: a late submission scores 0"
        return "nbgrader's 'none' policy: lateness costs nothing"
    return f"set by {type(plugin).__module__}.{type(plugin).__name__}"


