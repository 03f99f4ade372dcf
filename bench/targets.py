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

# Why a target is missed, from profiling with cProfile at the sizes
# (November 2026). Shown under the summary when a target whose name contains
# the key is missed.
EXPLANATIONS = {
    "GaussianNB.fit": (
        "GaussianNB.fit: the class sums are products with a CSR one-hot label matrix (one "
        "stored value per row), which run in SciPy's single-threaded loop in about one pass "
        "each. NumPy makes every step a full pass over X: the finite check, the class sums, "
        "X - theta[y], its square, and their class sums (two passes by design, for a stable "
        "variance): about 6 "
        "passes, so 3x one pass needs a fused compiled kernel."
    ),
    "GaussianNB.predict_proba": (
        "GaussianNB.predict_proba: X - reference, its square and two products with "
        "(n_classes, n_features) matrices are 4-5 separate passes over X plus the NaN check "
        "(NumPy cannot fuse them); 3x one pass needs a compiled kernel. With 2 BLAS threads on a "
        "busy machine the products collapse (see 'BLAS threads')."
    ),
    "CategoricalNB": (
        "CategoricalNB: the integer codes are validated as float64 (a converted copy), checked "
        "for NaN, negative and fractional values and turned back into int64: 4-5 passes before "
        "any counting; counting and scoring then gather one table entry per (sample, feature). "
        "A one-pass sum of int64 codes is not a reachable bound for a table look-up per entry."
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
    return rows
