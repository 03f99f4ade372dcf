"""nbcore against scikit-learn: ``fit`` and ``predict_proba`` of the four models.

Both libraries run in this one process on the same arrays, timed interleaved
(:func:`bench.timing.time_interleaved`), at 1x, 2x, 4x and 8x of a base size.
The 8x size is the one the benchmark issue names (GaussianNB 500k x 20,
CategoricalNB 200k x 20 with 10 categories, text 100k documents x 50k words);
``size_factor`` multiplies every size. Next to each operation, the time of
one NumPy pass over the same input (the "single read" limit) is measured.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from bench import datasets
from bench.timing import peak_memory_bytes, time_function, time_interleaved

SCALES = (1, 2, 4, 8)
OPERATIONS = ("fit", "predict_proba")
# Row counts at 8x (the sizes of the issue); the base (1x) is an eighth.
FULL_ROWS = {
    "GaussianNB": 500_000,
    "CategoricalNB": 200_000,
    "MultinomialNB": 100_000,
    "BernoulliNB": 100_000,
}
N_FEATURES_DENSE = 20
N_CATEGORIES = 10
N_WORDS = 50_000
DISTINCT_WORDS = 100


def one_pass_dense(X):
    """One read of a dense array: its column sums."""
    return X.sum(axis=0)


def one_pass_sparse(X):
    """One read of a CSR matrix's stored values and column indices: its column sums."""
    return np.bincount(X.indices, weights=X.data, minlength=X.shape[1])


@dataclasses.dataclass(frozen=True)
class Case:
    """One model, its data and its single-pass reference."""

    model: str
    kind: str  # "dense" or "sparse", for the report
    one_pass: object

    def make_data(self, n_rows, seed=datasets.SEED):
        if self.model == "GaussianNB":
            return datasets.gaussian_data(n_rows, N_FEATURES_DENSE, seed=seed)
        if self.model == "CategoricalNB":
            return datasets.categorical_data(n_rows, N_FEATURES_DENSE, N_CATEGORIES, seed=seed)
        return datasets.zipf_documents(n_rows, N_WORDS, DISTINCT_WORDS, seed=seed)

    def estimators(self):
        """(nbcore estimator, scikit-learn estimator), both with default options."""
        import sklearn.naive_bayes

        import nbcore

        return getattr(nbcore, self.model)(), getattr(sklearn.naive_bayes, self.model)()

    def describe(self, X) -> str:
        if sp.issparse(X):
            per_row = X.nnz / max(1, X.shape[0])
            return f"{X.shape[0]:,} x {X.shape[1]:,} sparse, {per_row:.0f} words/row"
        extra = f", {N_CATEGORIES} categories" if self.model == "CategoricalNB" else ""
        return f"{X.shape[0]:,} x {X.shape[1]} dense {X.dtype}{extra}"


CASES = (
    Case("GaussianNB", "dense", one_pass_dense),
    Case("CategoricalNB", "dense", one_pass_dense),
    Case("MultinomialNB", "sparse", one_pass_sparse),
    Case("BernoulliNB", "sparse", one_pass_sparse),
)
MODELS = tuple(case.model for case in CASES)


def _rows_at(X, n_rows):
    return X[:n_rows]  # a view for dense arrays, a row slice (copy) for CSR


def _max_probability_difference(ours, theirs, X):
    return float(np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))))


def benchmark_case(case, size_factor=1.0, scales=SCALES, repeats=5, warmup=1, memory=True, echo=print):
    """Time one model at every scale; measure memory at the largest.

    Returns
    -------
    dict
        ``timings``: one row per (scale, operation) with the medians (s),
        ``nbcore/sklearn`` and each library's time over one pass;
        ``memory``: one row per operation with each library's peak (bytes);
        ``max_proba_difference``: how far apart the two libraries' probabilities are.
    """
    full_rows = max(max(scales), int(FULL_ROWS[case.model] * size_factor))
    base_rows = full_rows // max(scales)
    X_all, y_all = case.make_data(base_rows * max(scales))
    result = {"model": case.model, "kind": case.kind, "timings": [], "memory": []}
    fitted = None
    for scale in scales:
        n_rows = base_rows * scale
        X, y = _rows_at(X_all, n_rows), y_all[:n_rows]
        echo(f"  {case.model} {scale}x: {case.describe(X)}")
        one_pass = time_function(lambda: case.one_pass(X), repeats=max(repeats, 5), warmup=1)
        ours, theirs = case.estimators()
        fit_times = time_interleaved(
            {"nbcore": lambda: ours.fit(X, y), "sklearn": lambda: theirs.fit(X, y)},
            repeats=repeats, warmup=warmup,
        )
        predict_times = time_interleaved(
            {"nbcore": lambda: ours.predict_proba(X), "sklearn": lambda: theirs.predict_proba(X)},
            repeats=repeats, warmup=warmup,
        )
        for operation, times in (("fit", fit_times), ("predict_proba", predict_times)):
            nbcore_s, sklearn_s = times["nbcore"].median, times["sklearn"].median
            result["timings"].append({
                "scale": scale,
                "shape": case.describe(X),
                "n_rows": n_rows,
                "operation": operation,
                "nbcore_s": nbcore_s,
                "sklearn_s": sklearn_s,
                "ratio": nbcore_s / sklearn_s,
                "one_pass_s": one_pass.median,
                "nbcore_over_pass": nbcore_s / one_pass.median,
                "sklearn_over_pass": sklearn_s / one_pass.median,
                "spread": max(times["nbcore"].spread, times["sklearn"].spread),
            })
        fitted = (ours, theirs, X, y)
    ours, theirs, X, y = fitted
    result["max_proba_difference"] = _max_probability_difference(ours, theirs, X)
    result["largest_shape"] = case.describe(X)
    if memory:
        input_bytes = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) if sp.issparse(X) else X.nbytes
        for operation in OPERATIONS:
            peaks = {}
            for library, model in (("nbcore", ours), ("sklearn", theirs)):
                call = (lambda m=model: m.fit(X, y)) if operation == "fit" else (lambda m=model: m.predict_proba(X))
                peaks[library] = peak_memory_bytes(call)
            result["memory"].append({
                "operation": operation,
                "input_bytes": int(input_bytes),
                "nbcore_bytes": peaks["nbcore"],
                "sklearn_bytes": peaks["sklearn"],
            })
    return result


def blas_threads_now():
    """The largest thread count of the loaded BLAS libraries (None if unknown)."""
    from threadpoolctl import threadpool_info

    counts = [info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"]
    return max(counts) if counts else None


def blas_thread_effect(size_factor=1.0, repeats=3, limit=1):
    """nbcore GaussianNB (the one model using dense BLAS products) at the largest
    size, with the BLAS libraries' default threads and with ``limit`` threads."""
    from threadpoolctl import ThreadpoolController

    controller = ThreadpoolController()  # found once: entering a limit then costs microseconds
    case = CASES[0]
    X, y = case.make_data(max(1, int(FULL_ROWS[case.model] * size_factor)))
    model, _ = case.estimators()
    model.fit(X, y)

    def limited(func):
        def call():
            with controller.limit(limits=limit, user_api="blas"):
                func()
        return call

    rows = []
    for operation, func in (("fit", lambda: model.fit(X, y)), ("predict_proba", lambda: model.predict_proba(X))):
        times = time_interleaved({"default": func, "limited": limited(func)}, repeats=repeats, warmup=1)
        rows.append({"operation": operation, "default_s": times["default"].median,
                     "limited_s": times["limited"].median})
    return {"shape": case.describe(X), "default_threads": blas_threads_now(), "limit": limit, "rows": rows}


def run(models=MODELS, size_factor=1.0, scales=SCALES, repeats=5, warmup=1, memory=True,
        blas_threads=1, echo=print):
    """Benchmark each model in ``models``; returns the section's results (JSON-able).

    ``blas_threads`` limits the BLAS thread pools during the comparison (None:
    the libraries' default); the effect of the limit is measured separately.
    """
    from threadpoolctl import threadpool_limits

    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise ValueError(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    cases = [case for case in CASES if case.model in models]
    results = []
    default_threads = blas_threads_now()
    with threadpool_limits(limits=blas_threads, user_api="blas"):
        for case in cases:
            echo(f"nbcore vs scikit-learn: {case.model}")
            results.append(benchmark_case(case, size_factor, scales, repeats, warmup, memory, echo))
    effect = None
    if "GaussianNB" in models and blas_threads is not None:
        echo("nbcore vs scikit-learn: GaussianNB with and without the BLAS thread limit")
        effect = blas_thread_effect(size_factor, repeats=max(1, min(repeats, 3)), limit=blas_threads)
    return {
        "scales": list(scales),
        "size_factor": size_factor,
        "repeats": repeats,
        "warmup": warmup,
        "n_classes": datasets.N_CLASSES,
        "blas_threads": blas_threads,
        "blas_default_threads": default_threads,
        "blas_effect": effect,
        "models": results,
    }
