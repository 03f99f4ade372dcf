"""Grading on a Dask cluster: its overhead against the local pool, and a projection.

The same submissions (:mod:`bench.grading_run`'s course and students) are
graded by ``nbg autograde -j W`` (the local process pool) and by ``nbg
autograde --scheduler ADDRESS`` on a ``LocalCluster`` of W single-threaded
worker processes started by the benchmark (its start-up is timed apart: a
real cluster is started once per term, not per run). Each grader is one
command in a subprocess, in interleaved rounds as in the grading section.

Measured per notebook:

* the wall time of each grader, and the Dask grader's overhead
  ``(dask wall - local wall) / notebooks``;
* the grading process's own CPU time under Dask (``wait4`` of the ``nbg``
  process: with a scheduler the kernels run in the cluster's processes, not
  its children), the serial part that no number of workers removes;
* worker-seconds per notebook, ``dask wall x W / notebooks``;

the last two beyond the fixed cost of a run (start-up, connecting, checking
the workers), measured by a run with no submissions.

From these, the time to grade a course of ``students x assignments``
notebooks on N workers is projected as ``max(n x worker-seconds / N, n x
grader CPU seconds)``: the workers' share shrinks with N, the single grading
process's does not. The projection assumes every assignment costs what the
benchmark's assignment costs; it is no measurement of a real cluster.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import grading_run

PROJECTED_STUDENTS = 5000
PROJECTED_ASSIGNMENTS = 7
PROJECTED_WORKERS = (2, 8, 32, 128, 512)


def _grade(root, assignment, workers, sandboxed, scheduler=None) -> dict:
    """Run ``nbg autograde`` once; its wall seconds (the caller reads its CPU time)."""
    command = [sys.executable, "-m", "grading", "--course", str(root), "autograde", assignment,
               "-j", str(workers), "--quiet"]
    if scheduler:
        command += ["--scheduler", scheduler]
    if not sandboxed:
        command.append("--unsafe-no-sandbox")
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=root, env=grading_run._environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=3600)
    wall = time.perf_counter() - start
    if process.returncode not in (0, 1):
        raise RuntimeError(f"nbg autograde failed with exit status {process.returncode}:\n{err[-3000:]}")
    return {"wall_s": wall, "stdout": out}


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children (and theirs): a run's share is the difference."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def projection(worker_seconds, grader_seconds, students=PROJECTED_STUDENTS, assignments=PROJECTED_ASSIGNMENTS,
               workers=PROJECTED_WORKERS) -> list:
    """Hours to grade ``students x assignments`` notebooks on each number of workers.

    Examples
    --------
    >>> rows = projection(10.0, 0.5, students=100, assignments=1, workers=(1, 10, 100))
    >>> [(r["workers"], round(r["hours"] * 3600), r["bound"]) for r in rows]
    [(1, 1000, 'workers'), (10, 100, 'workers'), (100, 50, 'grading process')]
    """
    notebooks = students * assignments
    rows = []
    for count in workers:
        on_workers = notebooks * worker_seconds / count
        in_grader = notebooks * grader_seconds
        rows.append({"workers": count, "notebooks": notebooks, "hours": max(on_workers, in_grader) / 3600,
                     "bound": "workers" if on_workers >= in_grader else "grading process"})
    return rows


def run(assignment=grading_run.ASSIGNMENT, n_submissions=grading_run.N_SUBMISSIONS, workers=None,
        smoke=False, rounds=None, echo=print) -> dict:
    """Grade the same submissions with the local pool and a local Dask cluster; the section's results."""
    from distributed import LocalCluster

    workers = workers or os.cpu_count() or 1
    if smoke:
        assignment = grading_run.SMOKE_ASSIGNMENT
    rounds = max(1, min(n_submissions, rounds or -(-n_submissions // 10)))
    available, why_not = grading_run.sandbox_status()
    scratch = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        echo(f"cluster: releasing {assignment} and writing {n_submissions} submissions")
        base = grading_run.build_course(scratch / "base", assignment, smoke=smoke)
        students = grading_run.write_submissions(base, assignment, n_submissions)
        echo(f"cluster: starting a LocalCluster of {workers} single-threaded worker processes")
        start = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        cluster_start = time.perf_counter() - start
        try:
            # The fixed cost of one Dask run (start-up, connecting, checking the workers): a run
            # with no submissions. The projection uses the cost per notebook beyond it.
            empty = grading_run._course_with(base, scratch / "empty", [])
            cpu_before = _children_cpu()
            fixed = _grade(empty, assignment, workers, available, cluster.scheduler_address)
            fixed["cpu_s"] = _children_cpu() - cpu_before
            # Warm-up, untimed: the workers import nbgrader and build their matplotlib cache once,
            # as the long-lived workers of a real cluster have done before any run. A smoke run's
            # figures mean nothing, and its rounds take the same code path without it.
            if not smoke:
                echo("cluster: warming up the workers (untimed)")
                warm = grading_run._course_with(base, scratch / "warm-up", students[:workers])
                _grade(warm, assignment, workers, available, cluster.scheduler_address)
            plan = [("local pool", None), ("dask", cluster.scheduler_address)]
            totals = {label: {"wall_s": 0.0, "cpu_s": 0.0} for label, _ in plan}
            results = {label: {} for label, _ in plan}
            for number in range(rounds):
                group = students[number::rounds]
                for step in range(len(plan)):
                    label, scheduler = plan[(number + step) % len(plan)]
                    root = grading_run._course_with(base, scratch / f"round{number}" / label.replace(" ", "_"), group)
                    echo(f"cluster: round {number + 1}/{rounds}: {label} ({len(group)} submissions)")
                    cpu_before = _children_cpu()
                    outcome = _grade(root, assignment, workers, available, scheduler)
                    totals[label]["wall_s"] += outcome["wall_s"]
                    totals[label]["cpu_s"] += _children_cpu() - cpu_before
                    results[label].update(grading_run.graded_results(root, assignment, group))
        finally:
            cluster.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    local, dask = totals["local pool"], totals["dask"]
    mismatches = [f"{student}: dask {results['dask'][student]['score']}, local {result['score']}"
                  for student, result in results["local pool"].items()
                  if results["dask"].get(student, {}).get("score") != result["score"]]
    graded = {label: sum(1 for r in results[label].values() if r["graded"]) for label in results}
    # Per notebook beyond each run's fixed cost; the nbg process's CPU is its own alone, since
    # with a scheduler the kernels run in the cluster's processes, not in its children.
    worker_seconds = max(0.0, dask["wall_s"] - rounds * fixed["wall_s"]) * workers / n_submissions
    grader_seconds = max(0.0, dask["cpu_s"] - rounds * fixed["cpu_s"]) / n_submissions
    return {
        "assignment": assignment,
        "n_submissions": n_submissions,
        "rounds": rounds,
        "workers": workers,
        "sandboxed": available,
        "sandbox_reason": why_not,
        "cluster_start_s": cluster_start,
        "dask_run_fixed_wall_s": fixed["wall_s"],
        "dask_run_fixed_cpu_s": fixed["cpu_s"],
        "local_wall_s": local["wall_s"],
        "dask_wall_s": dask["wall_s"],
        "local_per_notebook_s": local["wall_s"] / n_submissions,
        "dask_per_notebook_s": dask["wall_s"] / n_submissions,
        "dask_overhead_per_notebook_s": (dask["wall_s"] - local["wall_s"]) / n_submissions,
        "worker_seconds_per_notebook": worker_seconds,
        "grader_cpu_seconds_per_notebook": grader_seconds,
        "graded": graded,
        "score_mismatches": mismatches,
        "projection": projection(worker_seconds, grader_seconds),
    }


def report_lines(section, title, command) -> list:
    """The section of BENCHMARKS.md."""
    s = section
    lines = [
        title, "",
        f"Reproduce: `{command} --only cluster`. The same {s['n_submissions']} submissions of "
        f"`{s['assignment']}` graded by `nbg autograde -j {s['workers']}` (local pool) and by "
        f"`nbg autograde --scheduler ADDRESS` on a `LocalCluster` of {s['workers']} single-threaded "
        f"worker processes, in {s['rounds']} interleaved round(s), "
        + ("sandboxed." if s["sandboxed"] else f"without the sandbox ({s['sandbox_reason']})."), "",
        "| grader | wall | wall per notebook | graded |", "|---|---|---|---|",
        f"| local pool | {s['local_wall_s']:.1f} s | {s['local_per_notebook_s']:.2f} s | "
        f"{s['graded']['local pool']}/{s['n_submissions']} |",
        f"| Dask LocalCluster | {s['dask_wall_s']:.1f} s | {s['dask_per_notebook_s']:.2f} s | "
        f"{s['graded']['dask']}/{s['n_submissions']} |", "",
        f"- Dask's overhead per notebook: **{s['dask_overhead_per_notebook_s']:+.2f} s** (the cluster's "
        f"start, {s['cluster_start_s']:.1f} s, not included: it is paid once, not per run).",
        f"- A Dask run's fixed cost (start-up, connecting, checking the workers), from a run with no "
        f"submissions: {s['dask_run_fixed_wall_s']:.1f} s wall, {s['dask_run_fixed_cpu_s']:.1f} CPU seconds.",
        f"- Per notebook beyond it: {s['worker_seconds_per_notebook']:.2f} worker-seconds on the cluster; "
        f"{s['grader_cpu_seconds_per_notebook']:.3f} CPU seconds in the grading process itself "
        "(sanitising, nbgrader's scoring, the gradebook), the part no number of workers removes.",
        "- Scores: " + ("the same for every submission on both." if not s["score_mismatches"]
                        else f"**{len(s['score_mismatches'])} differences**: " + "; ".join(s["score_mismatches"][:3])),
        "",
        f"Projection, from these two measured costs, for {PROJECTED_STUDENTS} students x "
        f"{PROJECTED_ASSIGNMENTS} assignments, assuming every assignment costs what `{s['assignment']}` "
        "costs here (not measured on a real cluster; network and a server gradebook add to the grader's share):",
        "", "| workers | notebooks | hours | bound by |", "|---|---|---|---|",
    ]
    lines += [f"| {r['workers']} | {r['notebooks']} | {r['hours']:.1f} | {r['bound']} |" for r in s["projection"]]
    return lines + [""]
