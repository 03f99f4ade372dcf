"""The targets of the benchmark issue, checked against measured results.

Each check returns rows ``(target, measured, met)`` for the report's summary;
a target that was not measured in this run is left out.
"""

from __future__ import annotations

MAX_RATIO_VS_SKLEARN = 1.05  # nbcore/scikit-learn time, "within noise"
GAUSSIAN_SPEEDUP = 2.0  # GaussianNB fit and predict_proba at least 2x faster
MAX_OVER_ONE_PASS = 3.0  # no model more than 3x slower than one pass over its input
PARALLEL_SPEEDUP = 1.8  # nbg autograde -j 2 vs stock serial nbgrader
MAX_SANDBOX_OVERHEAD_S = 0.3  # per notebook
MAX_JUDGE_OVERHEAD_S = 0.5  # issue 10: the trust boundary costs under half a second per notebook

# Why a target is missed, from profiling with cProfile at the sizes
# (November 2026). Shown under the summary when a target whose name contains
# the key is missed.
EXPLANATIONS = {
    "GaussianNB.fit": (
        "GaussianNB.fit: validation reads X once (scikit-learn's checks and a finite check, a "
        "sum); the sufficient statistics then take one blocked pass: per block of rows that stays "
        "in the CPU cache, x - shift, its square and two sparse one-hot products, four operations "
        "per entry. About 3.5 passes in all; 3x would need the finite check fused into the sums, "
        "i.e. compiled code."
    ),
    "GaussianNB.predict_proba": (
        "GaussianNB.predict_proba: scoring is O(n_samples x n_features x n_classes): one product "
        "per block of rows makes 2 n_classes multiply-adds per input entry (10 here), which no "
        "single read can match; then the (n_samples, n_classes) scores are normalised (maximum, "
        "exp, sum, divide). One pass over X is the bound for fitting, not for scoring K classes."
    ),
    "CategoricalNB": (
        "CategoricalNB: counting needs an index per (sample, feature): code + feature offset + "
        "class offset, two int64 passes, then np.bincount's random-access increment per entry; "
        "scoring builds a one-hot CSR matrix (one column index per entry) and multiplies it with "
        "the (n_classes, sum K_j) table: n_classes random reads per entry, O(n_samples x "
        "n_features x n_classes). A sum of the codes is not a reachable bound for a table look-up "
        "per entry."
    ),
    "MultinomialNB": (
        "MultinomialNB: the CSR product with the (n_features, n_classes) table makes n_classes "
        "multiply-adds per stored value with random access into the table: the same SciPy "
        "routine (csr_matvecs) as scikit-learn, so both stay 2-3x one pass."
    ),
    "BernoulliNB": (
        "BernoulliNB: binarizing copies X (data, indices, indptr), runs np.where/np.isnan over "
        "the values and eliminate_zeros, at fit and at every predict; when every stored value "
        "is above the threshold (counts > 0, no NaN) the binary matrix is ones on X's own "
        "structure and needs no copy of the index arrays."
    ),
    "nbg autograde": (
        "nbg autograde -j 2: each notebook costs about the same CPU time under either grader "
        "(a kernel start, timed above, and the setup cell's imports of NumPy, SciPy, "
        "scikit-learn and matplotlib are most of it); two workers on two cores can at best halve "
        "the wall time, and the grading process itself (nbgrader's pre- and post-processors and "
        "the gradebook) competes with them for the same cores. nbg gains over stock nbgrader "
        "what stock nbgrader spends waiting, e.g. on its graceful kernel shutdown."
    ),
    "judge's cost": (
        "The judge's cost: each notebook's judge is forked from a judge server that imported "
        "NumPy, SciPy, scikit-learn and nbcore once per grading process; a test cell that uses "
        "the notebook costs one silent execution in the kernel (shared by consecutive test "
        "cells), and each call of a student's function one round trip of plain data on the "
        "kernel's stdin channel, not a cell's execution; the paired figure moves with the load."
    ),
    "sandbox overhead": (
        "Sandbox overhead: bubblewrap's own start takes milliseconds; the paired figure moves "
        "with the load other processes put on the machine (compare the two measurements above)."
    ),
}


def largest_scale_rows(nbcore_section):
    """(model, row) at the largest scale for each model and operation."""
    largest = max(nbcore_section["scales"])
    for model in nbcore_section["models"]:
        for row in model["timings"]:
            if row["scale"] == largest:
                yield model["model"], row


def nbcore_checks(section):
    rows = []
    for model, row in largest_scale_rows(section):
        name = f"{model}.{row['operation']}"
        ratio = row["ratio"]
        if model == "GaussianNB":
            rows.append((f"{name}: nbcore at least {GAUSSIAN_SPEEDUP:g}x faster than scikit-learn",
                         f"{1 / ratio:.2f}x faster" if ratio <= 1 else f"{ratio:.2f}x slower",
                         1 / ratio >= GAUSSIAN_SPEEDUP))
        else:
            rows.append((f"{name}: nbcore/scikit-learn <= {MAX_RATIO_VS_SKLEARN}",
                         f"{ratio:.2f}", ratio <= MAX_RATIO_VS_SKLEARN))
        rows.append((f"{name}: nbcore <= {MAX_OVER_ONE_PASS:g}x one pass over the input",
                     f"{row['nbcore_over_pass']:.1f}x", row["nbcore_over_pass"] <= MAX_OVER_ONE_PASS))
    return rows


def grading_checks(section):
    workers = section["workers"]
    rows = [(f"nbg autograde -j {workers}: >= {PARALLEL_SPEEDUP}x the throughput of stock serial nbgrader",
             f"{section['speedup_parallel_vs_stock']:.2f}x",
             section["speedup_parallel_vs_stock"] >= PARALLEL_SPEEDUP)]
    overhead = section.get("sandbox_overhead_per_notebook_s")
    if overhead is None:
        rows.append((f"sandbox overhead < {MAX_SANDBOX_OVERHEAD_S} s per notebook",
                     f"not measured: {section['sandbox_reason']}", None))
    else:
        rows.append((f"sandbox overhead < {MAX_SANDBOX_OVERHEAD_S} s per notebook",
                     f"{overhead:.2f} s", overhead < MAX_SANDBOX_OVERHEAD_S))
    judge = section.get("judge_overhead_per_notebook_s")
    if judge is not None:
        rows.append((f"judge's cost < {MAX_JUDGE_OVERHEAD_S} s per notebook (against tests in the kernel)",
                     f"{judge:.2f} s", judge < MAX_JUDGE_OVERHEAD_S))
    return rows
