"""How every figure of the benchmarks is measured: wall time, peak memory, the machine.

Times are ``time.perf_counter`` wall times; a figure is the median of
``repeats`` runs after ``warmup`` untimed runs (caches, lazy imports, page
faults of first use). Two functions compared with each other are timed
interleaved, alternating which goes first, so that a burst of load from
other processes on a shared machine hits both.

Peak memory is measured in a separate, untimed call with ``tracemalloc``:
the peak of memory allocated through Python's allocators during the call,
above what was allocated before it. NumPy and SciPy arrays are allocated
that way, so it covers the arrays a library creates; it misses only
allocations made directly in C (e.g. BLAS work buffers).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import os
import platform
import statistics
import time
import tracemalloc


@dataclasses.dataclass
class Timing:
    """Wall times of repeated runs of one function, in seconds.

    Attributes
    ----------
    runs : list of float
        Each timed run, in order.
    """

    runs: list

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def spread(self) -> float:
        """(max - min) / median: how noisy the runs were."""
        return (max(self.runs) - min(self.runs)) / self.median if self.median > 0 else 0.0


def time_once(func) -> float:
    """Seconds ``func()`` takes, with the garbage collector off during the call.

    (No collection is forced before it either: with the collector off, none
    can happen inside the timed call, and a forced one costs more than a
    small call takes.)
    """
    gc.disable()
    try:
        start = time.perf_counter()
        func()
        return time.perf_counter() - start
    finally:
        gc.enable()


def time_function(func, repeats=5, warmup=1) -> Timing:
    """Median-of-``repeats`` timing of ``func()`` after ``warmup`` untimed calls."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    for _ in range(warmup):
        func()
    return Timing([time_once(func) for _ in range(repeats)])


def time_interleaved(funcs: dict, repeats=5, warmup=1) -> dict:
    """Time several functions in one loop, rotating which runs first each round.

    Parameters
    ----------
    funcs : dict of str to callable
    repeats, warmup : int

    Returns
    -------
    dict of str to Timing
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    names = list(funcs)
    for _ in range(warmup):
        for name in names:
            funcs[name]()
    runs = {name: [] for name in names}
    for round_index in range(repeats):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(time_once(funcs[name]))
    return {name: Timing(values) for name, values in runs.items()}


def peak_memory_bytes(func) -> int:
    """Peak bytes allocated (through Python's allocators) while ``func()`` runs.

    Counts what the call allocates on top of what already exists, so the
    input arrays are not included. Not timed: tracemalloc slows allocation.
    """
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return max(0, peak - before)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return None


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info

        libraries = [
            f"{info.get('internal_api')} {info.get('version')} ({info.get('num_threads')} threads)"
            for info in threadpool_info()
            if info.get("user_api") == "blas"
        ]
        return ", ".join(libraries) or "unknown"
    except Exception:  # threadpoolctl is a scikit-learn dependency, but be safe
        return "unknown"


def machine_info() -> dict:
    """The machine, the library versions and the date, for the report."""
    import importlib.metadata as metadata

    versions = {}
    for package in ("numpy", "scipy", "scikit-learn", "nbgrader", "nbclient", "jupyter_client", "ipykernel"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    try:
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        load = "unknown"
    memory = _memory_gib()
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory": f"{memory:.0f} GiB" if memory else "unknown",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "blas": _blas(),
        "load_average": load,
        "versions": versions,
    }


def _timestamp(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def cells_seconds(notebook) -> float:
    """Sum over code cells of the time between execute_input and execute_reply."""
    total = 0.0
    for cell in notebook.cells:
        timing = cell.get("metadata", {}).get("execution", {})
        start = timing.get("iopub.execute_input") or timing.get("shell.execute_request")
        end = timing.get("shell.execute_reply")
        if cell.cell_type == "code" and start and end:
            total += (_timestamp(end) - _timestamp(start)).total_seconds()
    return total

