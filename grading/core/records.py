"""The grading log: one record per graded notebook, and the statuses it can have.

``grading_log.jsonl`` in the course root gets one JSON line per notebook each
time it is graded (appended, never rewritten); the newest line of a notebook
is its current state. Writers and readers share :class:`GradingRecord`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
from pathlib import Path


class Status(str, enum.Enum):
    """How the grading of one notebook ended (written to the log as its value)."""

    OK = "ok"
    KERNEL_DIED = "kernel_died"
    TIMEOUT = "timeout"
    ERROR = "error"  # the grader failed on it, never the student: not a grade
    INVALID = "invalid_notebook"
    MISSING = "missing"
    FLAGGED = "flagged"  # the answer scan distrusts some tests, or test cells were deleted or edited
    BLOCKED = "blocked"  # the sandbox or a limit stopped something (see execution.incidents)
    UNGRADED = "ungraded"  # the grader could not run it: no grade, graded again next run

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec) -> str:
        return format(self.value, spec)


def now() -> str:
    """The current UTC time as the log writes it."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@dataclasses.dataclass
class GradingRecord:
    """How one submitted notebook was graded (one line of ``grading_log.jsonl``)."""

    student: str
    assignment: str
    notebook: str
    status: str
    reason: str = ""
    seconds: float = 0.0
    sandboxed: bool = False  # the backend confined student code (False: the report's red banner)
    sandbox: str = ""  # the backend's name (grading.execution.sandbox); "" in logs before it was recorded
    score: float | None = None
    max_score: float | None = None
    late: bool = False
    graded_at: str = ""
    graded_alone: bool = False  # it failed while other notebooks ran, and was graded again alone
    grading_seed: int | None = None  # the hidden tests' seed (autograde/seeds.py): a regrade reuses it
    budget_seconds: float | None = None  # the time the whole notebook was allowed (autograde/budget.py)
    honest_seconds: float | None = None  # the instructor's solutions' run time it was compared with
    run_seconds: float | None = None  # its own run time on the same clock (first cell to last)
    unloaded_seconds: float | None = None  # run_seconds less its waits for a busy CPU (what the review compares)
    honest_unloaded_seconds: float | None = None  # the honest run's, counted alike
    slowest_cells: list = dataclasses.field(default_factory=list)  # [label, seconds], slowest first

    @property
    def needs_attention(self) -> bool:
        return self.status != Status.OK

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["needs_attention"] = self.needs_attention
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> "GradingRecord":
        """A record from one parsed log line (unknown keys ignored, old logs' fields mapped)."""
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in fields})


def append_records(path, records) -> None:
    """Append records to the grading log at ``path``."""
    with open(path, "a", encoding="utf-8") as log:
        for record in records:
            log.write(record.to_json() + "\n")


def read_grading_log(path) -> list:
    """Every record of ``grading_log.jsonl`` (E1's autograde log), oldest first.

    A missing file gives ``[]``; a line that is not JSON (a crash mid-write)
    is skipped rather than failing the whole report.
    """
    path = Path(path)
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def latest_records(records) -> dict:
    """The last record per (student, assignment, notebook): the current state."""
    latest = {}
    for record in records:
        key = (record.get("student"), record.get("assignment"), record.get("notebook"))
        latest[key] = record
    return latest



def needing_attention(course) -> list:
    """The newest grading records (dicts) whose status is not ok, of submissions still in ``submitted/``."""
    found = []
    for (student, assignment, _), record in sorted(latest_records(read_grading_log(course.grading_log_path)).items()):
        if record.get("status", Status.OK) != Status.OK and course.submitted_dir(student, assignment).is_dir():
            found.append(record)
    return found
