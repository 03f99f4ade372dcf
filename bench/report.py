"""Write ``BENCHMARKS.md`` and its PNG figures from the sections' results.

The results of every section are kept in a JSON file next to the figures, so
re-running one section (``--only``) rewrites the report with the others'
latest figures; a section never run says how to run it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from bench import targets

SECTIONS = ("nbcore", "grading", "course", "cluster", "diagnosis", "practice", "startup")
COMMAND = ".venv/bin/python -m bench"


def load_results(path: Path) -> dict:
    if path.is_file():
        return json.loads(path.read_text())
    return {}


def save_results(path: Path, results: dict):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


def _table(header, rows) -> list:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def _seconds(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _mib(value) -> str:
    if value < 2**20:
        return f"{value / 2**10:.0f} KiB"
    return f"{value / 2**20:.0f} MiB"


def _met(flag) -> str:
    return {True: "yes", False: "**no**", None: "not measured"}[flag]


# ---------------------------------------------------------------- figures


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_scaling(section, path: Path):
    """Time against size, one panel per model: both libraries and one pass."""
    plt = _pyplot()
    models = section["models"]
    figure, axes = plt.subplots(1, len(models), figsize=(3.2 * len(models), 3.0), squeeze=False)
    styles = {"fit": "-", "predict_proba": "--"}
    for axis, model in zip(axes[0], models):
        for operation, style in styles.items():
            rows = [r for r in model["timings"] if r["operation"] == operation]
            scales = [r["scale"] for r in rows]
            axis.plot(scales, [r["nbcore_s"] for r in rows], "o" + style, color="C0",
                      label=f"nbcore {operation}")
            axis.plot(scales, [r["sklearn_s"] for r in rows], "s" + style, color="C1",
                      label=f"sklearn {operation}")
        rows = [r for r in model["timings"] if r["operation"] == "fit"]
        axis.plot([r["scale"] for r in rows], [r["one_pass_s"] for r in rows], ":", color="gray",
                  label="one pass")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_title(model["model"], fontsize=9)
        axis.set_xlabel("size (x base)", fontsize=8)
        axis.tick_params(labelsize=7)
    axes[0][0].set_ylabel("seconds (median)", fontsize=8)
    axes[0][-1].legend(fontsize=6, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def plot_ratios(section, path: Path):
    """nbcore/scikit-learn time ratio at the largest size, per model and operation."""
    plt = _pyplot()
    rows = list(targets.largest_scale_rows(section))
    labels = [f"{model}\n{row['operation']}" for model, row in rows]
    ratios = [row["ratio"] for _, row in rows]
    figure, axis = plt.subplots(figsize=(7, 2.8))
    colors = ["C2" if r <= targets.MAX_RATIO_VS_SKLEARN else "C3" for r in ratios]
    axis.bar(range(len(ratios)), ratios, color=colors)
    axis.axhline(1.0, color="black", linewidth=0.8)
    axis.axhline(targets.MAX_RATIO_VS_SKLEARN, color="gray", linestyle=":", linewidth=0.8)
    axis.set_xticks(range(len(ratios)), labels, fontsize=6)
    axis.set_ylabel("nbcore / sklearn time", fontsize=8)
    axis.tick_params(axis="y", labelsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def plot_throughput(section, path: Path):
    plt = _pyplot()
    runs = section["runs"]
    figure, axis = plt.subplots(figsize=(6, 2.4))
    axis.barh([r["grader"] for r in runs], [r["submissions_per_minute"] for r in runs],
              color=["C1"] + ["C0"] * (len(runs) - 1))
    axis.set_xlabel(f"submissions per minute ({section['n_submissions']} of {section['assignment']})",
                    fontsize=8)
    axis.tick_params(labelsize=7)
    axis.invert_yaxis()
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def plot_course(section, path: Path):
    plt = _pyplot()
    rows = section["notebooks"]
    names = [r["notebook"] for r in rows]
    cells = [r["cells_s"] for r in rows]
    other = [r["kernel_and_overhead_s"] for r in rows]
    figure, axis = plt.subplots(figsize=(6, 2.6))
    axis.barh(names, cells, label="inside the cells", color="C0")
    axis.barh(names, other, left=cells, label="kernel start/stop, nbclient", color="C7")
    axis.set_xlabel("seconds", fontsize=8)
    axis.tick_params(labelsize=7)
    axis.invert_yaxis()
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


# ---------------------------------------------------------------- markdown


def _machine_lines(info) -> list:
    versions = ", ".join(f"{name} {version}" for name, version in info["versions"].items())
    return [
        "## Machine",
        "",
        *_table(["", ""], [
            ("date", info["date"]), ("CPU", f"{info['cpu']}, {info['cores']} cores"),
            ("memory", info["memory"]), ("system", f"{info['os']}, Python {info['python']}"),
            ("BLAS", info["blas"]), ("versions", versions),
            ("load average (1, 5, 15 min) at the start", info["load_average"]),
        ]),
        "",
    ]


METHOD = """## Method

- Wall time with `time.perf_counter`; each figure is the **median** of the
  repeated runs, after one untimed warm-up run. The garbage collector is off
  during a timed call.
- nbcore and scikit-learn run in the same process on the same arrays, timed
  **interleaved** (the order alternates each round), so that load from other
  processes hits both; ratios come from one run. "spread" is (max - min) /
  median of the slower library's runs: a large spread means a noisy machine.
- **One pass** is a NumPy reduction over the same input: `X.sum(axis=0)` for
  a dense array, `np.bincount(X.indices, weights=X.data)` (column sums) for a
  CSR matrix. It is the time to read the data once: no model can be faster.
- **Peak memory** is measured in a separate, untimed call with `tracemalloc`:
  the peak allocated during the call above what existed before (the input is
  not counted). It covers NumPy/SciPy arrays, not C-level buffers (BLAS).
- Autograding: each grader is one command in a subprocess (start-up
  included), each on its own copy of the same released course and the same
  submissions. The submissions are split into rounds of about 10; each round
  runs every grader once, in an order that rotates from round to round, so
  that a slow spell of the machine is shared by all graders; a grader's wall
  time is the sum of its rounds. Overhead per notebook = wall time per notebook - mean time
  inside the cells (nbclient's per-cell timestamps in the autograded
  notebooks); it includes kernel start/stop, nbgrader's pre/post-processing,
  the gradebook, and the grader's start-up spread over the notebooks.
"""


def _nbcore_lines(section, figures: Path, out_dir: Path) -> list:
    largest = max(section["scales"])
    lines = [
        "## 1. nbcore vs scikit-learn",
        "",
        f"Reproduce: `{COMMAND} --only nbcore` (one model: `--models GaussianNB`).",
        f"{section['n_classes']} classes, default options of both libraries, median of "
        f"{section['repeats']} runs. The {largest}x size is the one of the issue "
        f"(times {section['size_factor']:g}).",
        "",
        f"### At {largest}x",
        "",
    ]
    rows = []
    for model in section["models"]:
        for row in model["timings"]:
            if row["scale"] == largest:
                rows.append((model["model"], row["shape"], row["operation"], _seconds(row["nbcore_s"]),
                             _seconds(row["sklearn_s"]), f"**{row['ratio']:.2f}**", _seconds(row["one_pass_s"]),
                             f"{row['nbcore_over_pass']:.1f}", f"{row['sklearn_over_pass']:.1f}",
                             f"{row['spread']:.0%}"))
    lines += _table(["model", "data", "operation", "nbcore", "scikit-learn", "nbcore/sklearn",
                     "one pass", "nbcore/pass", "sklearn/pass", "spread"], rows)
    lines += ["", f"![time against size]({_rel(figures / 'nbcore_scaling.png', out_dir)})",
              f"![ratios]({_rel(figures / 'nbcore_ratios.png', out_dir)})", "",
              "### Scaling: median seconds at each size (nbcore / scikit-learn)", ""]
    header = ["model", "operation", *[f"{s}x" for s in section["scales"]],
              f"growth {min(section['scales'])}x to {largest}x (nbcore, sklearn)"]
    rows = []
    for model in section["models"]:
        for operation in ("fit", "predict_proba"):
            timed = [r for r in model["timings"] if r["operation"] == operation]
            cells = [f"{r['nbcore_s']:.3f} / {r['sklearn_s']:.3f}" for r in timed]
            growth = (f"{timed[-1]['nbcore_s'] / timed[0]['nbcore_s']:.1f}x, "
                      f"{timed[-1]['sklearn_s'] / timed[0]['sklearn_s']:.1f}x")
            rows.append((model["model"], operation, *cells, growth))
    lines += _table(header, rows)
    lines += ["", f"Linear cost means the time doubles with the size: {largest}x is "
              f"{largest // min(section['scales'])} times the {min(section['scales'])}x time.", "",
              f"### Peak memory at {largest}x (tracemalloc, beyond the input)", ""]
    rows = []
    for model in section["models"]:
        for row in model["memory"]:
            rows.append((model["model"], row["operation"], _mib(row["input_bytes"]),
                         _mib(row["nbcore_bytes"]), _mib(row["sklearn_bytes"]),
                         f"{row['nbcore_bytes'] / max(1, row['sklearn_bytes']):.2f}"))
    lines += _table(["model", "operation", "input", "nbcore", "scikit-learn", "nbcore/sklearn"], rows)
    lines += ["", "### BLAS threads", ""]
    threads = section.get("blas_threads")
    lines.append(
        f"The comparison ran with the BLAS thread pools limited to {threads} (threadpoolctl; "
        f"`--blas-threads 0` keeps the default, {section.get('blas_default_threads')} here). "
        "Only nbcore's GaussianNB scoring uses dense BLAS products, one small product per block "
        "of rows (rows x 2 n_features times 2 n_features x n_classes): threads gain little, and on a "
        "shared machine whose cores are busy OpenBLAS's spinning threads can make them many "
        "times slower." if threads else
        "The comparison ran with the BLAS libraries' default thread count "
        f"({section.get('blas_default_threads')}).")
    effect = section.get("blas_effect")
    if effect:
        lines += ["", f"nbcore GaussianNB on {effect['shape']}, timed interleaved:", ""]
        lines += _table(["operation", f"default ({effect['default_threads']} threads)",
                         f"limited to {effect['limit']}", "default / limited"],
                        [(r["operation"], _seconds(r["default_s"]), _seconds(r["limited_s"]),
                          f"{r['default_s'] / r['limited_s']:.2f}") for r in effect["rows"]])
    lines += ["", "Largest difference between the two libraries' `predict_proba` at "
              f"{largest}x: " + ", ".join(f"{m['model']} {m['max_proba_difference']:.1e}"
                                         for m in section["models"]) + ".", ""]
    return lines


def _sandbox_overhead_text(section) -> str:
    paired = section["sandbox_paired"]
    text = (f"**{_seconds(paired['overhead_median_s'])}**, the median difference of {paired['pairs']} "
            f"alternating runs of one submission (`{paired['notebook']}`) with and without the sandbox "
            f"(medians {_seconds(paired['sandboxed_median_s'])} and {_seconds(paired['unsandboxed_median_s'])})")
    from_runs = section.get("sandbox_overhead_from_runs_s")
    if from_runs is not None:
        text += (f"; from the two serial runs above, {_seconds(from_runs)} per notebook "
                 "(whole runs minutes apart: load from other processes shows up here)")
    return text


def _judge_overhead_text(section) -> str:
    paired = section.get("judge_paired")
    if not paired:
        return "not measured in this run"
    text = (f"**{_seconds(paired['overhead_median_s'])}**, the median difference of {paired['pairs']} "
            f"alternating runs of `{paired['notebook']}` without the sandbox, so that the kernel's "
            f"hidden tests can import the reference (medians {_seconds(paired['judged_median_s'])} "
            f"judged and {_seconds(paired['in_kernel_median_s'])} in the kernel)")
    if paired.get("server_start_s") is not None:
        where = "sandboxed" if paired.get("server_sandboxed") else "without the sandbox"
        text += (f"; plus, once per grading process, the judge server's start ({where}, its imports): "
                 f"{_seconds(paired['server_start_s'])}")
    return text


def _grading_lines(section, figures: Path, out_dir: Path) -> list:
    lines = [
        "## 2. Autograding throughput",
        "",
        f"Reproduce: `{COMMAND} --only grading`. The same {section['n_submissions']} submissions of "
        f"`{section['assignment']}` (the demo class's students {', '.join(section['variants'])}, "
        f"cycled) graded by each grader, in {section.get('rounds', 1)} interleaved round(s) "
        "(see Method).",
        "",
    ]
    rows = [(r["grader"], r["workers"], _seconds(r["wall_s"]), f"{r['submissions_per_minute']:.1f}",
             _seconds(r["seconds_per_notebook"]), _seconds(r["mean_cells_s"]),
             _seconds(r["overhead_per_notebook_s"]), f"{r['graded']}/{section['n_submissions']}")
            for r in section["runs"]]
    lines += _table(["grader", "workers", "wall", "submissions/min", "wall per notebook",
                     "inside the cells", "overhead per notebook", "graded"], rows)
    sandbox = section.get("sandbox_overhead_per_notebook_s")
    lines += [
        "",
        f"- Speed-up over stock serial nbgrader: **{section['speedup_parallel_vs_stock']:.2f}x** with "
        f"{section['workers']} workers, {section['speedup_serial_vs_stock']:.2f}x with 1.",
        f"- Starting a python3 kernel, waiting until it answers and stopping it: "
        f"{_seconds(section['kernel_start_s'])} (median), part of every notebook's overhead.",
        *(["- Not in the walls above: a course's first `nbg autograde` also times the honest runs "
           "(the time budget), once per course: "
           + ", ".join(f"{_seconds(seconds)} {setting}" for setting, seconds
                       in section["honest_times_first_run_s"].items())
           + " for the first run of one submission."] if section.get("honest_times_first_run_s") else []),
        "- Sandbox overhead per notebook: " + (
            _sandbox_overhead_text(section) if sandbox is not None
            else f"not measured ({section['sandbox_reason']})") + ".",
        "- The judge's cost per notebook (tests run in the judge process, the student's functions "
        "called through the bridge, against the same tests run in the student's kernel as stock "
        "nbgrader does): " + _judge_overhead_text(section) + ".",
        "- Scores: " + ("every grader gave every submission the same score as stock nbgrader."
                        if not section["score_mismatches"]
                        else f"**{len(section['score_mismatches'])} differences** from stock nbgrader, e.g. "
                        + "; ".join(section["score_mismatches"][:3])),
        "",
        f"![throughput]({_rel(figures / 'grading_throughput.png', out_dir)})",
        "",
    ]
    return lines


def _course_lines(section, figures: Path, out_dir: Path) -> list:
    lines = ["## 3. Course execution", "",
             f"Reproduce: `{COMMAND} --only course`. Each source notebook executed once in a fresh "
             "kernel, as `make execute` does (on a copy: the committed notebooks are not touched).", ""]
    rows = [(r["notebook"], r["code_cells"], _seconds(r["wall_s"]), _seconds(r["cells_s"]),
             _seconds(r["kernel_and_overhead_s"]), r["status"]) for r in section["notebooks"]]
    rows.append(("**whole course**", sum(r["code_cells"] for r in section["notebooks"]),
                 f"**{_seconds(section['total_wall_s'])}**", _seconds(section["total_cells_s"]),
                 _seconds(section["total_wall_s"] - section["total_cells_s"]), ""))
    lines += _table(["notebook", "code cells", "wall", "inside the cells", "kernel start/stop", "status"], rows)
    lines += ["", f"![course execution]({_rel(figures / 'course_execution.png', out_dir)})", ""]
    return lines


def _targets_lines(results) -> list:
    rows = []
    if "nbcore" in results:
        rows += targets.nbcore_checks(results["nbcore"]["data"])
    if "grading" in results:
        rows += targets.grading_checks(results["grading"]["data"])
    if "startup" in results:
        from bench.cli_startup import checks

        rows += checks(results["startup"]["data"])
    lines = ["## Targets", "", "Each target of the issue against this run's figures "
             "(nbcore at the largest size).", ""]
    lines += _table(["target", "measured", "met"], [(t, m, _met(ok)) for t, m, ok in rows])
    missed = [t for t, _, ok in rows if ok is False]
    notes = [note for key, note in targets.EXPLANATIONS.items() if any(key in t for t in missed)]
    if notes:
        lines += ["", "Why the missed targets are missed (from profiling):", ""]
        lines += [f"- {note}" for note in notes]
    return lines + [""]


CLUSTER_TITLE = "## 4. Grading on a Dask cluster"


def _cluster_lines(section, figures: Path, out_dir: Path) -> list:
    from bench.cluster_run import report_lines

    return report_lines(section, CLUSTER_TITLE, COMMAND)


DIAGNOSIS_TITLE = "## 5. The diagnosis of known mistakes"
PRACTICE_TITLE = "## 6. The practice service's reply time"


def _diagnosis_lines(section, figures: Path, out_dir: Path) -> list:
    from bench.diagnosis_run import report_lines

    return report_lines(section, DIAGNOSIS_TITLE, COMMAND)


def _practice_lines(section, figures: Path, out_dir: Path) -> list:
    from bench.practice_run import report_lines

    return report_lines(section, PRACTICE_TITLE, COMMAND)


STARTUP_TITLE = "## 7. nbg start-up: --help and usage errors"


def _startup_lines(section, figures: Path, out_dir: Path) -> list:
    from bench.cli_startup import report_lines

    return report_lines(section, STARTUP_TITLE, COMMAND)


def _rel(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()


def write_report(results: dict, out: Path, figures: Path) -> Path:
    """Render ``results`` (section -> {"data", "machine", "command"}) to ``out`` with figures."""
    out = Path(out)
    figures.mkdir(parents=True, exist_ok=True)
    out_dir = out.parent.resolve()
    figures = figures.resolve()
    plots = {"nbcore": [(plot_scaling, "nbcore_scaling.png"), (plot_ratios, "nbcore_ratios.png")],
             "grading": [(plot_throughput, "grading_throughput.png")],
             "course": [(plot_course, "course_execution.png")], "cluster": [], "diagnosis": [], "practice": [], "startup": []}
    for name, section in results.items():
        for plot, filename in plots[name]:
            plot(section["data"], figures / filename)
    lines = ["# Benchmarks", "",
             f"Written by `make bench` (`{COMMAND}`); each section is reproduced by the command "
             "under its title. Figures in `" + _rel(figures, out_dir) + "/`.", ""]
    smoke = [name for name, section in results.items() if section.get("smoke")]
    if smoke:
        lines += [f"**Smoke run** ({', '.join(smoke)}): tiny sizes that only check the code runs; "
                  "these figures say nothing about speed.", ""]
    latest = max(results.values(), key=lambda s: s["machine"]["date"], default=None)
    if latest:
        lines += _machine_lines(latest["machine"])
    for name, section in results.items():
        if latest and section["machine"]["date"] != latest["machine"]["date"]:
            lines.append(f"The `{name}` section was measured on {section['machine']['date']} "
                         f"(load {section['machine']['load_average']}).")
    lines += [""] + _targets_lines(results) + METHOD.splitlines() + [""]
    renderers = {"nbcore": _nbcore_lines, "grading": _grading_lines, "course": _course_lines,
                 "cluster": _cluster_lines, "diagnosis": _diagnosis_lines,
                 "practice": _practice_lines, "startup": _startup_lines}
    titles = {"nbcore": "## 1. nbcore vs scikit-learn", "grading": "## 2. Autograding throughput",
              "course": "## 3. Course execution", "cluster": CLUSTER_TITLE, "diagnosis": DIAGNOSIS_TITLE,
              "practice": PRACTICE_TITLE, "startup": STARTUP_TITLE}
    for name in SECTIONS:
        if name in results:
            lines += renderers[name](results[name]["data"], figures, out_dir)
        else:
            lines += [titles[name], "", f"Not run yet: `{COMMAND} --only {name}`.", ""]
    out.write_text("\n".join(lines).rstrip() + "\n")
    return out
