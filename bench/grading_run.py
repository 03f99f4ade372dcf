"""Autograding throughput: stock ``nbgrader autograde`` against ``nbg autograde``.

One set of submissions is graded by each grader, each in its own copy of
the same released course, each by one command in a subprocess, so every
wall time includes starting the grader, as an instructor sees it:

* stock nbgrader, serial: ``python -m nbgrader autograde <assignment>``;
* ours with 1 worker and with N workers (N = the number of cores):
  ``python -m grading --course <root> autograde <assignment> -j <workers>``,
  sandboxed (nbg's default) when :func:`grading.execution.sandbox.bubblewrap.sandbox_available`
  says the sandbox works here, else with ``--unsafe-no-sandbox``;
* with the sandbox, ours with 1 worker once more without it; and one
  notebook executed alternately with and without the sandbox
  (:func:`paired_sandbox_overhead`): the sandbox's overhead; and alternately
  with its tests in the judge and in the kernel (:func:`paired_judge_overhead`):
  the trust boundary's cost.

The submissions are the demo class's students (:mod:`grading.demo.students`)
whose notebook runs to the end, cycled to the wanted count; each copy gets a
comment naming its submission, so no two are byte-identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from bench.datasets import smoke_notebook
from bench.timing import cells_seconds

REPO_ROOT = Path(__file__).resolve().parent.parent
COURSE_ROOT = REPO_ROOT / "course"
ASSIGNMENT = "01_bayes_mle_map"
N_SUBMISSIONS = 40
# Demo students whose submissions of any assignment run to the end: the
# kernel-killing and the infinite-loop students would measure error handling.
VARIANTS = ("perfect", "blank", "forgot-prior", "denominator-2", "unnormalised", "edits-test")
SMOKE_ASSIGNMENT = "bench_smoke"


def _environment():
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH: put this interpreter's bin folder first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH", "")]))
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _run(command, cwd) -> tuple:
    """Run ``command``; return (wall seconds, completed process)."""
    start = time.perf_counter()
    process = subprocess.run(
        command, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=3600
    )
    return time.perf_counter() - start, process


def _check(process, what):
    if process.returncode not in (0, 1):  # nbg exits 1 when a submission needs attention
        raise RuntimeError(
            f"{what} failed with exit status {process.returncode}:\n{process.stderr[-3000:]}"
        )


# ----------------------------------------------------------------- the course


def build_course(root: Path, assignment: str, smoke=False) -> Path:
    """A course root with the course's config and one assignment's source."""
    root.mkdir(parents=True)
    shutil.copy(COURSE_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    if smoke:
        folder = root / "source" / assignment
        folder.mkdir(parents=True)
        nbformat.write(smoke_notebook(), folder / f"{assignment}.ipynb")
    else:
        if not (COURSE_ROOT / "source" / assignment).is_dir():
            raise ValueError(f"no assignment {assignment!r} in {COURSE_ROOT / 'source'}")
        shutil.copytree(COURSE_ROOT / "source" / assignment, root / "source" / assignment)
    seconds, process = _run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"], root)
    _check(process, "nbgrader generate_assignment")
    return root


def write_submissions(root: Path, assignment: str, n_submissions: int) -> list:
    """``n_submissions`` students' submissions of ``assignment``; returns the student ids."""
    from grading.demo.students import DEMO_STUDENTS, student_notebook

    students_by_id = {student.student_id: student for student in DEMO_STUDENTS}
    variants = [students_by_id[name] for name in VARIANTS]
    sources = sorted((root / "source" / assignment).glob("*.ipynb"))
    ids = []
    for index in range(n_submissions):
        variant = variants[index % len(variants)]
        student_id = f"s{index:03d}-{variant.student_id}"
        folder = root / "submitted" / student_id / assignment
        folder.mkdir(parents=True)
        for source_path in sources:
            source_nb = nbformat.read(source_path, as_version=4)
            release_nb = nbformat.read(root / "release" / assignment / source_path.name, as_version=4)
            notebook = student_notebook(variant, assignment, source_nb, release_nb)
            first_answer = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
            first_answer.source = f"# submission {index} of the benchmark\n" + first_answer.source
            nbformat.write(notebook, folder / source_path.name)
        ids.append(student_id)
    return ids


# ---------------------------------------------------------------- the graders


def grade_stock(root, assignment):
    seconds, process = _run([sys.executable, "-m", "nbgrader", "autograde", assignment], root)
    _check(process, "nbgrader autograde")
    return seconds


def grade_ours(root, assignment, workers, sandboxed):
    command = [sys.executable, "-m", "grading", "--course", str(root), "autograde", assignment,
               "-j", str(workers), "--quiet"]
    if not sandboxed:
        command.append("--unsafe-no-sandbox")
    seconds, process = _run(command, root)
    _check(process, "nbg autograde")
    return seconds


def sandbox_status() -> tuple:
    """(available, why not) from the grading package; never raises."""
    try:
        from grading.execution.sandbox.bubblewrap import sandbox_available

        return sandbox_available()
    except Exception as error:  # the grading package is still being written
        return False, f"{type(error).__name__}: {error}"


def graded_results(root: Path, assignment: str, students) -> dict:
    """Per student: total score (gradebook) and seconds inside the cells (autograded notebook)."""
    from nbgrader.api import Gradebook, MissingEntry

    results = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in students:
            try:
                score = float(gradebook.find_submission(assignment, student).score)
            except MissingEntry:
                score = None
            notebooks = sorted((root / "autograded" / student / assignment).glob("*.ipynb"))
            cells = sum(cells_seconds(nbformat.read(p, as_version=4)) for p in notebooks)
            results[student] = {"score": score, "cells_s": cells, "graded": bool(notebooks)}
    return results


def kernel_start_seconds(repeats=3) -> float:
    """Median seconds to start a python3 kernel, wait until it answers, and stop it."""
    from jupyter_client.manager import KernelManager

    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        manager = KernelManager(kernel_name="python3")
        manager.start_kernel()
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=120)
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
        runs.append(time.perf_counter() - start)
    return sorted(runs)[len(runs) // 2]


def _paired_runs(submission_dir: Path, option: str, repeats: int, warmup: bool, sandboxed=True) -> dict:
    """One submission executed by nbg's executor with ``option`` on and off, alternately.

    The median of the paired differences is robust to load that comes and goes
    between pairs. ``option`` is ``"sandboxed"`` or ``"judged"`` (tests in the
    judge process rather than in the student's kernel).
    """
    from grading.execution.judge_client import close_judge_servers
    from grading.execution.kernel import execute_notebook
    from grading.execution.limits import Limits
    from grading.execution.sandbox import sandbox_name
    from grading.execution.sandbox.bubblewrap import build_matplotlib_cache

    notebook_path = sorted(submission_dir.glob("*.ipynb"))[0]
    notebook_json = notebook_path.read_text()
    with tempfile.TemporaryDirectory(prefix=f"bench-{option}-") as scratch_root:
        scratch_root = Path(scratch_root)
        cache = build_matplotlib_cache(scratch_root / "matplotlib")
        times = {True: [], False: []}
        first = 0 if warmup else 1
        for index in range(first, repeats + 1):  # pair 0 warms the file cache, untimed
            order = (True, False) if index % 2 else (False, True)
            for on in order:
                scratch = scratch_root / f"run{index}-{on}"
                shutil.copytree(submission_dir, scratch)
                settings = ({"sandbox": sandbox_name(on), "judged": True} if option == "sandboxed"
                            else {"sandbox": sandbox_name(sandboxed), "judged": True, option: on})
                start = time.perf_counter()
                result = execute_notebook(notebook_json, scratch, limits=Limits(cell_timeout=120),
                                          matplotlib_cache=cache, **settings)
                if index:
                    times[on].append(time.perf_counter() - start)
                if result.status != "ok":
                    raise RuntimeError(f"the paired {option} run failed: {result.status} {result.reason}")
        close_judge_servers()  # the runs above ran in this process: so did their judge servers
    differences = sorted(a - b for a, b in zip(times[True], times[False]))
    return {
        "notebook": notebook_path.name,
        "pairs": repeats,
        "on_median_s": sorted(times[True])[repeats // 2],
        "off_median_s": sorted(times[False])[repeats // 2],
        "overhead_median_s": differences[repeats // 2],
    }


def paired_sandbox_overhead(submission_dir: Path, repeats=6, warmup=True) -> dict:
    """Seconds the sandbox adds to one notebook (paired runs with and without it)."""
    paired = _paired_runs(submission_dir, "sandboxed", repeats, warmup)
    return {"notebook": paired["notebook"], "pairs": repeats, "sandboxed_median_s": paired["on_median_s"],
            "unsandboxed_median_s": paired["off_median_s"], "overhead_median_s": paired["overhead_median_s"]}


def paired_judge_overhead(submission_dir: Path, repeats=6, warmup=True) -> dict:
    """Seconds the judge adds to one notebook: its test cells run in a judge forked from
    the judge server (the student's functions called through the bridge) against the same
    tests run in the student's kernel, as stock nbgrader does.

    Both without the sandbox, so that the hidden tests in the kernel can import the
    reference as stock nbgrader's do (a sandboxed kernel cannot); the sandbox's own cost
    is measured apart, and so is the judge server's start (:func:`judge_server_start_seconds`),
    which a grading process pays once, not per notebook. The warm-up pair starts the server.
    """
    paired = _paired_runs(submission_dir, "judged", repeats, warmup, sandboxed=False)
    return {"notebook": paired["notebook"], "pairs": repeats, "judged_median_s": paired["on_median_s"],
            "in_kernel_median_s": paired["off_median_s"], "overhead_median_s": paired["overhead_median_s"]}


def judge_server_start_seconds(sandboxed: bool, repeats=3) -> float:
    """Median seconds from starting a judge server to its first judge's ``ready``
    (its imports of NumPy, SciPy, scikit-learn and nbcore): paid once per grading process."""
    from grading.execution.judge_client import JudgeServer
    from grading.execution.limits import Limits
    from grading.execution.sandbox import sandbox_name

    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        server = JudgeServer(sandbox=sandbox_name(sandboxed), limits=Limits())
        try:
            server.wait_ready()
            runs.append(time.perf_counter() - start)
        finally:
            server.close()
    return sorted(runs)[len(runs) // 2]


# ---------------------------------------------------------------- the section


def _summarise(label, command, seconds, results, n_submissions, workers):
    graded = [r for r in results.values() if r["graded"]]
    mean_cells = sum(r["cells_s"] for r in graded) / len(graded) if graded else float("nan")
    per_notebook = seconds / n_submissions
    return {
        "grader": label,
        "command": command,
        "workers": workers,
        "wall_s": seconds,
        "submissions_per_minute": 60.0 * n_submissions / seconds,
        "seconds_per_notebook": per_notebook,
        "mean_cells_s": mean_cells,
        # Only meaningful serially: wall time per notebook not spent in its cells.
        "overhead_per_notebook_s": per_notebook - mean_cells if workers == 1 else None,
        "graded": len(graded),
    }


def _course_with(base: Path, root: Path, students) -> Path:
    """A copy of the released course ``base`` holding only ``students``' submissions."""
    shutil.copytree(base, root, ignore=shutil.ignore_patterns("submitted"))
    for student in students:
        shutil.copytree(base / "submitted" / student, root / "submitted" / student)
    return root


HONEST_TIMES = Path(".nbg_state") / "honest_times.json"


def measure_honest_times(base: Path, scratch: Path, assignment: str, student: str, sandbox_settings) -> tuple:
    """Let ``nbg autograde`` time the honest runs once per sandbox setting.

    The first ``nbg autograde`` of a course measures the source's and the release's
    run times (the time budget; :mod:`grading.autograde.budget`): a cost per course,
    not per submission, which stock nbgrader does not pay. It is measured here once
    per setting, on one submission, and its cache is copied into every round's course
    of that setting, so that the rounds time the grading alone.
    Returns ({sandboxed: the cache's text}, {sandboxed: seconds of that first run}).
    """
    caches, seconds = {}, {}
    for sandboxed in sandbox_settings:
        root = _course_with(base, scratch / f"honest-{'sandboxed' if sandboxed else 'unsandboxed'}", [student])
        seconds[sandboxed] = grade_ours(root, assignment, 1, sandboxed)
        caches[sandboxed] = (root / HONEST_TIMES).read_text()
    return caches, seconds


def run(assignment=ASSIGNMENT, n_submissions=N_SUBMISSIONS, workers=None, workdir=None,
        smoke=False, keep=False, rounds=None, echo=print) -> dict:
    """Grade the same submissions with each grader; returns the section's results.

    The submissions are graded in ``rounds`` groups (default: one per 10
    submissions); each round runs every grader once on that round's group,
    the graders' order rotating from round to round, so that a slow spell of
    a shared machine hits every grader rather than whichever ran then. A
    grader's wall time is the sum over the rounds (its start-up is paid once
    per round). ``keep`` leaves the scratch courses (in ``workdir`` or the
    temporary folder) for inspection instead of deleting them.
    """
    workers = workers or os.cpu_count() or 1
    if smoke:
        assignment = SMOKE_ASSIGNMENT
    rounds = max(1, min(n_submissions, rounds or -(-n_submissions // 10)))
    scratch = Path(tempfile.mkdtemp(prefix="bench-grading-", dir=workdir))
    try:
        echo(f"grading: releasing {assignment} and writing {n_submissions} submissions")
        base = build_course(scratch / "base", assignment, smoke=smoke)
        students = write_submissions(base, assignment, n_submissions)
        # nbg grades sandboxed by default; where the sandbox cannot run, unsandboxed
        # (--unsafe-no-sandbox). With the sandbox, one more serial run without it.
        available, why_not = sandbox_status()
        suffix = " (sandboxed)"
        plan = [("stock nbgrader autograde", 1, grade_stock, f"python -m nbgrader autograde {assignment}", None)]
        ours = [(count, available) for count in sorted({1, workers})]
        if available:
            ours.append((1, False))
        for count, sandboxed in ours:
            flag = "" if sandboxed else " --unsafe-no-sandbox"
            plan.append((f"nbg autograde -j {count}" + (suffix if sandboxed else " (no sandbox)"),
                         count,
                         lambda root, a, count=count, sandboxed=sandboxed: grade_ours(root, a, count, sandboxed),
                         f"python -m grading --course <root> autograde {assignment} -j {count}{flag}", sandboxed))
        echo("grading: the honest runs' times, once per sandbox setting (a cost per course)")
        caches, honest_seconds = measure_honest_times(base, scratch, assignment, students[0],
                                                      sorted({sandboxed for _, sandboxed in ours}))
        seconds = {label: 0.0 for label, *_ in plan}
        results = {label: {} for label, *_ in plan}
        for number in range(rounds):
            group = students[number::rounds]
            for step in range(len(plan)):
                label, count, grade, command, sandboxed = plan[(number + step) % len(plan)]
                slug = label.replace(" ", "_").replace("(", "").replace(")", "")
                root = _course_with(base, scratch / f"round{number}" / slug, group)
                if sandboxed is not None:  # nbg: the honest times measured above
                    (root / HONEST_TIMES).parent.mkdir(parents=True, exist_ok=True)
                    (root / HONEST_TIMES).write_text(caches[sandboxed])
                echo(f"grading: round {number + 1}/{rounds}: {label} ({len(group)} submissions)")
                seconds[label] += grade(root, assignment)
                results[label].update(graded_results(root, assignment, group))
        runs, mismatches = [], []
        reference = results[plan[0][0]]
        for label, count, grade, command, _ in plan:
            runs.append(_summarise(label, command, seconds[label], results[label], n_submissions, count))
            for student, result in results[label].items():
                if result["score"] != reference[student]["score"]:
                    mismatches.append(f"{label}: {student} scored {result['score']}, "
                                      f"stock nbgrader {reference[student]['score']}")
        echo("grading: timing kernel start-up")
        kernel = kernel_start_seconds(1 if smoke else 3)
        paired = judge = None
        if available:
            echo("grading: the sandbox's overhead on one notebook, paired runs")
            paired = paired_sandbox_overhead(base / "submitted" / students[0] / assignment,
                                             repeats=1 if smoke else 6, warmup=not smoke)
        echo("grading: the judge's cost on one notebook, paired runs")
        judge = paired_judge_overhead(base / "submitted" / students[0] / assignment,
                                      repeats=1 if smoke else 6, warmup=not smoke)
        judge["server_start_s"] = judge_server_start_seconds(available, repeats=1 if smoke else 3)
        judge["server_sandboxed"] = available
    finally:
        if keep:
            echo(f"grading: kept the scratch courses in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    stock = runs[0]
    by_setting = dict(zip(ours, runs[1:]))  # (workers, sandboxed) -> run
    parallel, serial = by_setting[(workers, available)], by_setting[(1, available)]
    unsandboxed = by_setting.get((1, False)) if available else None
    return {
        "assignment": assignment,
        "n_submissions": n_submissions,
        "rounds": rounds,
        "variants": list(VARIANTS),
        "workers": workers,
        "runs": runs,
        "speedup_parallel_vs_stock": stock["wall_s"] / parallel["wall_s"],
        "speedup_serial_vs_stock": stock["wall_s"] / serial["wall_s"],
        "kernel_start_s": kernel,
        "honest_times_first_run_s": {("sandboxed" if key else "unsandboxed"): value for key, value in honest_seconds.items()},
        "sandbox_available": available,
        "sandbox_reason": why_not,
        # The target's figure: paired runs of one notebook (see paired_sandbox_overhead).
        "sandbox_overhead_per_notebook_s": paired["overhead_median_s"] if paired else None,
        "sandbox_paired": paired,
        # The same from two whole serial runs: includes their run-to-run noise.
        "sandbox_overhead_from_runs_s": (
            (serial["wall_s"] - unsandboxed["wall_s"]) / n_submissions if unsandboxed else None
        ),
        "score_mismatches": mismatches,
        # The trust boundary's cost: tests in the judge against tests in the kernel, paired.
        "judge_overhead_per_notebook_s": judge["overhead_median_s"] if judge else None,
        "judge_paired": judge,
    }
