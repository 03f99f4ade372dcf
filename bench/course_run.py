"""Course execution: the time to execute each source notebook, and the whole course.

Each notebook is executed as ``make execute`` does (nbclient, a fresh
``python3`` kernel, the notebook's folder as working directory), on an
in-memory copy, so the committed notebooks are never touched. The wall time
includes starting and stopping the kernel; the time inside the cells comes
from the execution timestamps nbclient records per cell.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import nbformat

from bench.datasets import smoke_notebook
from bench.timing import cells_seconds

REPO_ROOT = Path(__file__).resolve().parent.parent
COURSE_SOURCE = REPO_ROOT / "course" / "source"
CELL_TIMEOUT = 600  # seconds; generous, a benchmark should measure, not interrupt


def source_notebooks(source_root=COURSE_SOURCE) -> list:
    """``course/source/<id>/<id>.ipynb`` paths, sorted."""
    return sorted(
        path for path in Path(source_root).glob("*/*.ipynb")
        if ".ipynb_checkpoints" not in path.parts
    )


def execute_notebook(path, timeout=CELL_TIMEOUT) -> dict:
    """Execute one notebook in a fresh kernel; return its timings and status."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", record_timing=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    status = "ok"
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as error:
        status = f"error: {str(error).strip().splitlines()[-1][:120]}"
    wall = time.perf_counter() - start
    cells = cells_seconds(notebook)
    return {
        "notebook": path.stem,
        "code_cells": sum(cell.cell_type == "code" for cell in notebook.cells),
        "wall_s": wall,
        "cells_s": cells,
        "kernel_and_overhead_s": wall - cells,
        "status": status,
    }


def run(notebooks=None, echo=print) -> dict:
    """Execute every source notebook once, in order; returns the section's results."""
    os.environ.setdefault("MPLBACKEND", "Agg")  # the kernels inherit it: no display needed
    notebooks = source_notebooks() if notebooks is None else [Path(p) for p in notebooks]
    if not notebooks:
        raise ValueError(f"no notebooks to execute (looked in {COURSE_SOURCE}/*/*.ipynb)")
    rows = []
    for path in notebooks:
        echo(f"course: executing {path.name}")
        rows.append(execute_notebook(path))
    return {
        "notebooks": rows,
        "total_wall_s": sum(row["wall_s"] for row in rows),
        "total_cells_s": sum(row["cells_s"] for row in rows),
    }


def run_smoke(echo=print) -> dict:
    """The section's code path on one tiny generated notebook (for ``--smoke``)."""

    with tempfile.TemporaryDirectory(prefix="bench-course-") as folder:
        path = Path(folder) / "bench_smoke.ipynb"
        nbformat.write(smoke_notebook(), path)
        return run([path], echo=echo)
