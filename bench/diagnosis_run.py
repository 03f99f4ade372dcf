"""The diagnosis's cost per notebook: paired runs with and without the catalogue of known mistakes;
the counterexamples' cost: paired runs with the catalogue, with and without the counterexample search.

One submission of ``01_bayes_mle_map`` is executed by nbg's executor (sandboxed when
bubblewrap works, tests in the judge), alternately with the catalogue in the judge's
folder and without it; the median of the paired differences is the diagnosis's cost.
Two submissions are measured: the worst case, where every graded function is its first
catalogued mistake (every function's tests fail, so every failed cell is diagnosed),
and the instructor's answers (no cell fails: the diagnosis never runs). The submissions
are built from the mutation suite's cases (``course/mistakes/``), as the suite builds them.
The counterexamples are switched off by ``"counterexamples": false`` in the judge's catalogue;
each pair's verdicts (which cells failed) must be the same with and without them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "01_bayes_mle_map"
TARGET_S = 0.1
COUNTEREXAMPLE_TARGET_S = 0.2


def _submissions(scratch: Path) -> dict:
    from grading.core.mistakes import load_cases
    from tests.mutation.course_class import plan, submission

    source = nbformat.read(ROOT / "course" / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    students = plan(load_cases(ROOT / "course" / "mistakes" / f"{ASSIGNMENT}.py"), source)
    folders = {}
    for label, student in (("every function a known mistake", "mutant-0"), ("right answers", "correct-0")):
        folder = scratch / student
        folder.mkdir(parents=True)
        nbformat.write(submission(source, students[student][0]), str(folder / f"{ASSIGNMENT}.ipynb"))
        folders[label] = folder
    return folders


def _catalogue_files(counterexamples=True) -> dict:
    from grading.core import mistakes

    source = nbformat.read(ROOT / "course" / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    cases = mistakes.load_cases(mistakes.catalogue_path(ROOT / "course", ASSIGNMENT))
    catalogue = mistakes.judge_catalogue(cases, source)
    if not counterexamples:
        catalogue["counterexamples"] = False
    return {mistakes.JUDGE_FILE: json.dumps(catalogue).encode()}


def _verdicts(notebook_json) -> tuple:
    cells = nbformat.reads(notebook_json, as_version=4).cells
    failed = tuple(i for i, c in enumerate(cells) if any(o.get("output_type") == "error" for o in c.get("outputs", [])))
    shown = sum(1 for c in cells for o in c.get("outputs", []) if "A smaller input on which your" in o.get("evalue", ""))
    return failed, shown


def paired(folder: Path, repeats: int, sandbox: str, counterexamples=False, warm=True) -> dict:
    """With and without the catalogue; with ``counterexamples``, the catalogue with and without them.
    ``warm``: an untimed pair first (a smoke run skips it: its figures mean nothing)."""
    from grading.execution.judge_client import close_judge_servers
    from grading.execution.kernel import execute_notebook
    from grading.execution.limits import Limits
    from grading.execution.sandbox.bubblewrap import build_matplotlib_cache

    notebook_json = (folder / f"{ASSIGNMENT}.ipynb").read_text()
    files = {True: _catalogue_files(), False: _catalogue_files(False) if counterexamples else {}}
    times, failed_times = {True: [], False: []}, {True: [], False: []}
    diagnosed, shown, verdicts = 0, 0, {True: set(), False: set()}
    with tempfile.TemporaryDirectory(prefix="bench-diagnosis-") as scratch_root:
        scratch_root = Path(scratch_root)
        cache = build_matplotlib_cache(scratch_root / "matplotlib")
        first = 0 if warm else 1  # pair 0 is the untimed one
        for index in range(first, repeats + 1):  # pair 0 warms the judge server and the file cache
            for on in ((True, False) if index % 2 else (False, True)):
                scratch = scratch_root / f"run{index}-{on}"
                shutil.copytree(folder, scratch)
                start = time.perf_counter()
                result = execute_notebook(notebook_json, scratch, limits=Limits(cell_timeout=120),
                                          matplotlib_cache=cache, sandbox=sandbox, judged=True,
                                          judge_files=files[on])
                failed, shown_now = _verdicts(result.notebook_json)
                if index:
                    times[on].append(time.perf_counter() - start)
                    # The failed cells' own time (the grader's clock per cell): what the search adds
                    # to, without the kernel's start and the passing cells' noise.
                    failed_times[on].append(sum(seconds for cell, _, seconds in result.cell_seconds if cell in failed))
                verdicts[on].add(failed)
                if on:
                    shown = shown_now
                    cells = nbformat.reads(result.notebook_json, as_version=4).cells
                    diagnosed = sum(1 for c in cells if c.get("metadata", {}).get("nbg_diagnosis"))
    close_judge_servers()  # the runs above ran in this process: so did their judge server
    differences = sorted(a - b for a, b in zip(times[True], times[False]))
    failed_differences = sorted(a - b for a, b in zip(failed_times[True], failed_times[False]))
    return {"pairs": repeats, "with_median_s": sorted(times[True])[repeats // 2],
            "without_median_s": sorted(times[False])[repeats // 2],
            "overhead_median_s": differences[repeats // 2], "diagnosed_cells": diagnosed,
            "failed_with_median_s": sorted(failed_times[True])[repeats // 2],
            "failed_without_median_s": sorted(failed_times[False])[repeats // 2],
            "failed_overhead_median_s": failed_differences[repeats // 2],
            "failed_overhead_range_s": [failed_differences[0], failed_differences[-1]],
            "failed_cells": len(failed), "counterexamples": shown, "same_verdicts": verdicts[True] == verdicts[False]}


def search_calls() -> dict:
    """The counterexample search's calls of the student's function on the worst-case submission's
    failed cells, counted in this process (the judge's own code, the student's function called
    directly: each call is a round trip to the kernel in a real run, what the search's cost is made of)."""
    import pathlib
    import warnings

    from grading.core.mistakes import load_cases
    from grading.execution.evidence import counterexample
    from tests.grading.test_diagnosis_coincidences import failed_cells

    counts = {"searches": 0, "calls": 0, "visible_searches": 0, "visible_calls": 0}
    shrink = counterexample.Shrinker.shrink

    def counted(self, *args):
        try:
            return shrink(self, *args)
        finally:
            evidence_only = self.max_calls < counterexample.MAX_STUDENT_CALLS  # a visible cell's search
            counts["visible_searches" if evidence_only else "searches"] += 1
            counts["visible_calls" if evidence_only else "calls"] += self.calls

    counterexample.Shrinker.shrink = counted
    try:
        with tempfile.TemporaryDirectory(prefix="bench-search-") as scratch, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for function, case in load_cases(ROOT / "course" / "mistakes" / f"{ASSIGNMENT}.py").items():
                mutant = next(iter(case["mutants"].values()))  # mutant-0's, as the submission above
                for grade_id, source, diagnoser in failed_cells(pathlib.Path(scratch) / function, ASSIGNMENT,
                                                                function, mutant):
                    diagnoser.explain(grade_id, counterexample="BEGIN HIDDEN TESTS" in source)
    finally:
        counterexample.Shrinker.shrink = shrink
    from grading.execution.diagnosis_runtime import EVIDENCE_CALLS

    return {**counts, "hidden_max": counterexample.MAX_STUDENT_CALLS, "visible_max": EVIDENCE_CALLS,
            "small_enough": counterexample.SMALL_ENOUGH}


def run(smoke=False, echo=print) -> dict:
    from grading.execution.sandbox import get_sandbox, sandbox_name

    try:
        available = bool(get_sandbox(sandbox_name(True)).available()[0])
    except Exception:
        available = False
    sandbox = sandbox_name(available)
    repeats = 1 if smoke else 10
    results = {"assignment": ASSIGNMENT, "sandbox": sandbox, "target_s": TARGET_S, "runs": {},
               "load_average": [round(os.getloadavg()[0], 2)]}  # 1 minute, before and after: a shared machine
    with tempfile.TemporaryDirectory(prefix="bench-diagnosis-subs-") as scratch:
        for label, folder in _submissions(Path(scratch)).items():
            echo(f"diagnosis: {label}, {repeats} paired runs")
            results["runs"][label] = paired(folder, repeats, sandbox, warm=not smoke)
            echo(f"counterexamples: {label}, {repeats} paired runs")
            results.setdefault("counterexample_runs", {})[label] = paired(folder, repeats, sandbox, counterexamples=True,
                                                                         warm=not smoke)
    results["load_average"].append(round(os.getloadavg()[0], 2))
    results["search_calls"] = search_calls()
    return results


def report_lines(section: dict, title: str, command: str) -> list:
    lines = [title, "", f"`{command} --only diagnosis`: one `{section['assignment']}` notebook executed by "
             f"nbg's executor (sandbox: {section['sandbox']}, tests in the judge), alternately with and "
             "without the catalogue of known mistakes in the judge's folder (with it, the diagnosis and, since "
             "issue 33, the counterexample search run on every failed cell); the cost is the median of the "
             "paired differences (target: under " + f"{section['target_s']:g} s per notebook)."
             + (" Load average (1 minute, 2 cores) before and after: " + ", ".join(f"{x:g}" for x in
                section["load_average"]) + "." if section.get("load_average") else ""), "",
             "| submission | pairs | with (median) | without (median) | diagnosis's cost | failed cells diagnosed "
             "| failed cells' time with (median) | without (median) | cost per failed cell |",
             "|---|---|---|---|---|---|---|---|---|"]
    for label, run in section["runs"].items():
        cells = run.get("failed_cells", 0)
        failed = (f"{run['failed_with_median_s']:.3f} s | {run['failed_without_median_s']:.3f} s "
                  f"| {run['failed_overhead_median_s'] / cells * 1000:+.1f} ms" if cells and "failed_with_median_s" in run
                  else "– | – | –")
        lines.append(f"| {label} | {run['pairs']} | {run['with_median_s']:.2f} s | {run['without_median_s']:.2f} s "
                     f"| {run['overhead_median_s']:+.3f} s | {run['diagnosed_cells']} | {failed} |")
    runs = section.get("counterexample_runs")
    if not runs:
        return lines + [""]
    lines += ["", "The counterexamples (issue 33): the same notebooks, the catalogue in the judge's folder, alternately "
              "with and without the counterexample search (`\"counterexamples\": false` in the judge's catalogue). "
              "The search runs in the failed cells, so its cost is measured there: the failed cells' own time (the "
              "grader's clock per cell, summed), median of the paired differences, over the failed cells (target: "
              f"under {COUNTEREXAMPLE_TARGET_S:g} s per notebook with 24 failed cells). The whole notebook's times are "
              "beside it: their difference is the same cost plus the noise of a kernel's start and the passing cells "
              "(the right answers' row, where nothing fails, shows that noise).", "",
              "| submission | pairs | notebook with (median) | without (median) | difference (median) | failed cells "
              "| their time with (median) | without (median) | cost per failed cell (smallest, largest pair) "
              "| for 24 failed cells | counterexamples shown (hidden cells) | same verdicts |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, run in runs.items():
        cells = run["failed_cells"]
        if cells and "failed_overhead_median_s" in run:
            low, high = (x / cells * 1000 for x in run["failed_overhead_range_s"])
            per_cell = run["failed_overhead_median_s"] / cells
            failed = (f"{run['failed_with_median_s']:.3f} s | {run['failed_without_median_s']:.3f} s "
                      f"| {per_cell * 1000:+.1f} ms ({low:+.1f}, {high:+.1f}) | {per_cell * 24:+.2f} s")
        else:
            failed = "– | – | – | –"
        lines.append(f"| {label} | {run['pairs']} | {run['with_median_s']:.2f} s | {run['without_median_s']:.2f} s "
                     f"| {run['overhead_median_s']:+.3f} s | {cells} | {failed} "
                     f"| {run['counterexamples']} | {'yes' if run['same_verdicts'] else 'NO'} |")
    calls = section.get("search_calls")
    if calls and calls["searches"]:
        visible = ""
        if calls.get("visible_searches"):
            visible = (f", and {calls['visible_calls']} calls over {calls['visible_searches']} visible cells' searches "
                       f"(evidence for the diagnosis only: at most {calls['visible_max']} each)")
        lines += ["", f"What the cost is made of: the search's calls of the student's function, each a round trip to the "
                  f"student's kernel (a few milliseconds; the reference and the bookkeeping run in the judge). Counted in-process "
                  f"on the same submission's failed cells: {calls['calls']} calls over {calls['searches']} hidden cells' searches "
                  f"({calls['calls'] / calls['searches']:.2f} each; at most {calls['hidden_max']}){visible}. The "
                  "search tries an input once, simplifies every argument at once first, and stops once the input has "
                  f"at most {calls['small_enough']} values, all simple."]
    before = section.get("before")  # the same bench with the previous search, recorded by hand
    if before and calls and runs.get(before["label"]):
        run = runs[before["label"]]
        now, then, cells = run["failed_overhead_median_s"], before["failed_overhead_median_s"], run["failed_cells"]
        total = calls["calls"] + calls.get("visible_calls", 0)
        lines += ["", f"Before this change ({before['what']}; load average {before['load']}): "
                  f"{then / cells * 1000:+.1f} ms per failed cell ({then / cells * 24:+.2f} s for 24), {before['calls']} calls "
                  f"over {calls['searches'] + calls.get('visible_searches', 0)} searches; after / before: cost "
                  f"{now / then:.2f}, calls {total / before['calls']:.2f}."]
    return lines + [""]
