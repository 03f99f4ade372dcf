"""How long a notebook may run: in proportion to the assignment's honest run time.

The honest time of a notebook is the longer of two honest runs: the
instructor's solutions (the source notebook, ``source/<assignment>/<notebook>.ipynb``)
and the untouched release (``release/...``: a student who has not finished an
exercise runs the given fallbacks, which can be slower than the solutions; in
03 the release runs 4 times as long). Each is executed once through the same
executor as the submissions (sandboxed kernel, tests in the judge) and timed
from its first cell to its last. They are measured by the first
``nbg autograde`` that needs them and cached in ``.nbg_state/honest_times.json``,
keyed by the notebooks' SHA-256 and the limits they ran under, so a changed
source, a new release or changed limits are measured again and a fresh course
needs no manual step.

Wall time on a shared machine depends on its load (measured here: the same
notebook 4.6 times slower in one run than in another), so the review compares
the *unloaded* times: the run time less the time the kernel and the judge
waited for a CPU (``/proc/<pid>/schedstat``, :func:`grading.execution.observed.run_delays`).

A submission's budget is ``max(c.Nbg.time_floor, c.Nbg.time_factor x honest)``,
at most ``c.Nbg.notebook_timeout``; the executor stops a notebook past it
(status ``timeout``, a reason naming the budget and how it was derived). A
notebook that finishes but ran more than ``c.Nbg.review_factor`` times the
honest time is flagged for review with its slowest cells (:func:`slow_note`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import nbformat

from grading.core import state
from grading.core.records import Status, now

CACHE_NAME = "honest_times.json"
REVIEW_MIN_SECONDS = 10.0  # below this a notebook is never "slow": kernel jitter, not the student
SLOWEST_CELLS = 3


def cache_path(course) -> Path:
    return course.root / state.STATE_DIRNAME / CACHE_NAME


def _read_cache(course) -> dict:
    try:
        data = json.loads(cache_path(course).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cache_key(source: Path, limits, sandbox: str) -> str:
    """The source notebook's SHA-256 and the limits (and sandbox) it is run under."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    settings = json.dumps({**dataclasses.asdict(limits), "sandbox": sandbox}, sort_keys=True, default=str)
    return f"{digest}:{hashlib.sha256(settings.encode()).hexdigest()[:16]}"


class Budgets:
    """The honest time and the time budget of each notebook of a run.

    Parameters
    ----------
    course : Course
    limits : Limits
        The limits of the run (the notebook limit caps every budget).
    sandbox : str
        The backend's name (part of the cache key).
    """

    def __init__(self, course, limits, sandbox: str):
        self.course, self.limits, self.sandbox = course, limits, sandbox
        settings = course.settings
        self.factor, self.floor, self.review = settings.time_factor, settings.time_floor, settings.review_factor
        self.cache = _read_cache(course)
        self.failed = {}  # (assignment, notebook) -> why it could not be timed

    def _source(self, assignment, notebook_id) -> Path:
        return self.course.source_dir(assignment) / f"{notebook_id}.ipynb"

    def notebooks(self, assignment, notebook_id) -> dict:
        """The honest notebooks that are timed: {"source": path, "release": path (once released)}."""
        found = {"source": self._source(assignment, notebook_id)}
        release = self.course.release_dir(assignment) / f"{notebook_id}.ipynb"
        if release.is_file():
            found["release"] = release
        return found

    def _key(self, assignment, notebook_id) -> str:
        return "+".join(cache_key(path, self.limits, self.sandbox)
                        for path in self.notebooks(assignment, notebook_id).values())

    def honest(self, assignment, notebook_id) -> float | None:
        """The cached honest time (seconds), or None when it is not measured for this source and limits."""
        entry = self.cache.get(f"{assignment}/{notebook_id}")
        if isinstance(entry, dict) and entry.get("key") == self._key(assignment, notebook_id):
            return float(entry["seconds"])
        return None

    def honest_unloaded(self, assignment, notebook_id) -> float | None:
        """The cached honest time less its waits for a CPU (what the review compares with)."""
        if self.honest(assignment, notebook_id) is None:
            return None
        entry = self.cache[f"{assignment}/{notebook_id}"]
        return float(entry.get("unloaded_seconds", entry["seconds"]))

    def missing(self, pairs) -> list:
        """The (assignment, notebook) pairs whose honest time must be measured."""
        return sorted({pair for pair in pairs if self._source(*pair).is_file() and self.honest(*pair) is None})

    def measuring_tasks(self, assignment, notebook_id, scratch_root: Path, base_task: dict) -> dict:
        """{kind: an execution task that runs that honest notebook (outputs cleared) in a copy of its folder}."""
        return {kind: self._task(path, assignment, scratch_root, base_task)
                for kind, path in self.notebooks(assignment, notebook_id).items()}

    def _task(self, path, assignment, scratch_root: Path, base_task: dict) -> dict:
        notebook = nbformat.read(str(path), as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        scratch = Path(tempfile.mkdtemp(prefix="h", dir=scratch_root))
        shutil.copytree(path.parent, scratch, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        return {**base_task, "notebook_json": nbformat.writes(notebook), "scratch_dir": str(scratch)}

    def store(self, assignment, notebook_id, results: dict) -> None:
        """Keep the measurements ({kind: ``ExecutionResult``}); if one did not run cleanly nothing is
        cached, and the notebooks get the notebook limit as their budget."""
        bad = {kind: result for kind, result in results.items() if result.status != Status.OK}
        if bad or not results:
            self.failed[(assignment, notebook_id)] = "; ".join(
                f"the {kind} ran {result.status}: {result.reason}"[:300] for kind, result in bad.items())
            return
        self.cache[f"{assignment}/{notebook_id}"] = {
            "key": self._key(assignment, notebook_id),
            "seconds": round(max(result.run_seconds for result in results.values()), 3),
            "unloaded_seconds": round(max(result.unloaded_seconds for result in results.values()), 3),
            "runs": {kind: {"seconds": round(result.run_seconds, 3), "unloaded_seconds": result.unloaded_seconds,
                            "cells": result.cell_seconds} for kind, result in sorted(results.items())},
            "measured_at": now()}
        state.write_atomic(cache_path(self.course), json.dumps(self.cache, indent=1, sort_keys=True))

    def budget(self, assignment, notebook_id) -> dict | None:
        """``{"seconds", "why", "honest"}`` for the executor, or None (the notebook limit alone)."""
        honest = self.honest(assignment, notebook_id)
        cap = self.limits.notebook_timeout
        if honest is None:
            return None
        seconds = round(max(self.floor, self.factor * honest), 1)
        why = (f"{self.factor:g} x the {honest:.1f} s an honest run takes"
               if self.factor * honest >= self.floor else
               f"the floor of {self.floor:g} s, more than {self.factor:g} x the {honest:.1f} s an honest run takes")
        if cap is not None and cap < seconds:
            seconds, why = cap, f"the notebook limit, less than {why}"
        return {"seconds": seconds, "why": why, "honest": honest}


def slowest(cell_seconds, count=SLOWEST_CELLS) -> list:
    """[label, seconds] of the slowest cells, slowest first (ties in notebook order)."""
    ordered = sorted(cell_seconds or [], key=lambda item: (-float(item[2]), int(item[0])))
    return [[str(label), float(seconds)] for _, label, seconds in ordered[:count]]


def slow_note(result, honest, review_factor) -> str:
    """Why a notebook that finished is flagged for its run time, or ''.

    ``honest`` is the honest run's unloaded time; the notebook's own unloaded time is compared with it."""
    run = float(result.unloaded_seconds or 0.0)
    if honest is None or honest <= 0 or run < REVIEW_MIN_SECONDS or run <= review_factor * honest:
        return ""
    cells = ", ".join(f"{label} {seconds:.1f} s" for label, seconds in slowest(result.cell_seconds))
    return (f"it ran {result.run_seconds:.1f} s ({run:.1f} s without waiting for a busy CPU), {run / honest:.1f} "
            f"times the {honest:.1f} s an honest run takes (the instructor's solutions or the untouched release, "
            f"counted alike; flagged for review above {review_factor:g} times); slowest cells: {cells}")
