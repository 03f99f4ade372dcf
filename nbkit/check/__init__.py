"""``python -m nbkit check NOTEBOOK``: will this notebook grade? Ask before you submit.

The checks, in order (each prints ``OK``, ``WARNING`` or ``PROBLEM`` and what
to do):

1. *readable*: the file is complete, valid notebook JSON;
2. *file name*: the grader finds a submission by its name;
3. *grade cells*: every test and answer cell of the assignment is there, no
   test cell was edited (the grader puts the original back), answers written;
4. *runs*: a copy runs top to bottom in a fresh kernel within the grader's
   limits (120 s per cell, 900 s in all, 4 GiB of address space, 20 MB of
   output);
5. *visible tests*: every visible test passes (the hidden tests run only
   at grading);
6. *library rule*: every graded function follows the notebook's rule on
   libraries, checked by the grader's own code (:mod:`nbkit.librule`) with the
   allow-list and the exercises' allow and forbid lists the release notebook
   carries; a function with a finding here gets 0 points at grading.

Nothing here knows an answer: the checks use only what the release
notebook shows (its cells, their metadata and the visible tests).

Examples
--------
In a terminal, with the course environment activated::

    python -m nbkit check 03_multinomial_nb.ipynb

Exit code 0: the notebook will grade; 1: something needs attention; 2: the
command was used wrongly (no such file).
"""

from __future__ import annotations

import ast
from pathlib import Path

from .cells import check_grade_cells, check_name, label, load_manifest, read_notebook, which_assignment
from .findings import OK, PROBLEM, SKIPPED, WARNING, Finding, Report
from .run import CELL_TIMEOUT, MAX_CODE_CELLS, MAX_OUTPUT_BYTES, MEMORY_BYTES, NOTEBOOK_TIMEOUT, run_notebook
from .scan import check_library_rule

__all__ = ["check_notebook", "Finding", "Report", "CELL_TIMEOUT", "NOTEBOOK_TIMEOUT"]

MAX_LISTED = 8  # cells listed per finding; the rest are counted


def _is_test(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def _is_visible_test(cell) -> bool:
    """A test cell with code beyond its docstring (a hidden test's body is removed in the release)."""
    if not _is_test(cell):
        return False
    try:
        body = ast.parse(cell.source).body
    except SyntaxError:
        return True
    return any(not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) for node in body)


def _listed(lines) -> list:
    return lines[:MAX_LISTED] + ([f"... and {len(lines) - MAX_LISTED} more"] if len(lines) > MAX_LISTED else [])


def _describe(error) -> str:
    ename, evalue = error
    first = (evalue or "").strip().splitlines()[0] if (evalue or "").strip() else ""
    if len(first) > 200:
        first = first[:197] + "..."
    return f"{ename}: {first}" if first else ename


def _run_findings(notebook, result, cell_timeout, notebook_timeout) -> list:
    """The ``time``, ``runs`` and ``visible tests`` findings of one run."""
    findings = []
    limits = f"the grader allows {cell_timeout:g} s per cell and {notebook_timeout:g} s in all"
    timed_out = [run for run in result.cells if run.timed_out]
    stop = label(notebook, result.stopped_at) if result.stop_reason else ""
    if timed_out or result.stop_reason in ("notebook timeout", "too many cells"):
        details = [f"{label(notebook, run.index)} ran longer than {cell_timeout:g} s: the grader interrupts it "
                   "there, so what it computes is missing for the cells after it" for run in timed_out]
        if result.stop_reason == "notebook timeout":
            details.append(f"the notebook ran longer than {notebook_timeout:g} s in all: the grader stops before "
                           f"{stop}, and the tests from there on score 0")
        elif result.stop_reason == "too many cells":
            details.append(f"the notebook has more than {MAX_CODE_CELLS} code cells: the grader stops before {stop}")
        findings.append(Finding(PROBLEM, "time", f"the notebook does not run within the time limit ({limits}).",
                                _listed(details),
                                advice="Make the slow cells faster: vectorise with NumPy instead of Python loops "
                                "over samples, and remove searches, prints or experiments you added for "
                                "yourself."))
    elif result.stop_reason not in ("kernel died", "kernel stuck", "too much output"):
        slow = [run for run in result.cells if run.seconds > cell_timeout / 2]
        if slow or result.seconds > notebook_timeout / 2:
            findings.append(Finding(WARNING, "time", f"ran in {result.seconds:.0f} s, close to the limit "
                                    f"({limits}); the grading machine may be slower than yours.",
                                    _listed([f"{label(notebook, r.index)} took {r.seconds:.0f} s" for r in slow]),
                                    advice="Make the slow cells faster so they have room to spare."))
        else:
            findings.append(Finding(OK, "time", f"ran in {result.seconds:.0f} s ({limits})."))

    failed_cells = [f"{label(notebook, run.index)} raised {_describe(run.error)}" for run in result.cells
                    if run.error and not run.timed_out and run.index != result.stopped_at
                    and not _is_test(notebook.cells[run.index])]
    if result.stop_reason == "kernel died":
        findings.append(Finding(PROBLEM, "runs", f"the kernel died in {stop} (it ran out of memory, or the code "
                                "ended the process); the grader scores 0 for every test after it.",
                                advice="Make that cell use less memory (smaller arrays, fewer copies), and do not "
                                "exit Python in it."))
    elif result.stop_reason == "too much output":
        findings.append(Finding(PROBLEM, "runs", f"the notebook printed more than {MAX_OUTPUT_BYTES // 1_000_000} MB "
                                f"of output by the end of {stop}: the grader stops the kernel there, and the tests "
                                "after it score 0.",
                                advice="Print less: no loop that prints every sample, no large arrays printed in "
                                "full (print their shape or a few values)."))
    elif result.stop_reason == "kernel stuck":
        findings.append(Finding(PROBLEM, "runs", f"{stop} ran longer than {cell_timeout:g} s and the kernel did "
                                "not stop when interrupted; the grader stops the notebook there.",
                                advice="Make that cell faster (a loop in compiled code cannot be interrupted)."))
    if failed_cells:
        findings.append(Finding(PROBLEM, "runs", "cells raise errors when the notebook runs from the top in a "
                                "fresh kernel (the first is usually the cause of the others).",
                                _listed(failed_cells),
                                advice="Fix the first one; a cell that worked before may depend on something "
                                "you ran, renamed or deleted in your session. In JupyterLab, Kernel > Restart "
                                "Kernel and Run All Cells shows the same."))
    elif not result.stop_reason and not timed_out:
        findings.append(Finding(OK, "runs", "every cell runs from the top in a fresh kernel."))

    ran = {run.index: run for run in result.cells}
    visible = [i for i, cell in enumerate(notebook.cells) if _is_visible_test(cell)]
    failing = [f"{label(notebook, i)}: "
               + (f"ran longer than {cell_timeout:g} s" if ran[i].timed_out else _describe(ran[i].error))
               + (" (the function is not written yet)" if ran[i].error[0] == "NotImplementedError" else "")
               for i in visible if i in ran and ran[i].error and i != result.stopped_at]
    not_run = [i for i in visible if i not in ran or i == result.stopped_at]
    passed = len(visible) - len(failing) - len(not_run)
    if not visible:
        findings.append(Finding(WARNING, "visible tests", "the notebook has no visible test cell.",
                                advice="Check this is the release notebook."))
    elif failing or not_run:
        details = _listed(failing) + ([f"{len(not_run)} not run (the run stopped before them)"] if not_run else [])
        findings.append(Finding(PROBLEM, "visible tests", f"{passed} of {len(visible)} pass.", details,
                                advice="Read each message: it says what is wrong. A visible test that fails "
                                "scores 0, and its function's hidden tests will most likely fail too."))
    else:
        findings.append(Finding(OK, "visible tests", f"all {len(visible)} pass (the hidden tests run only when "
                                "graded)."))
    return findings


def check_notebook(path, *, cell_timeout=CELL_TIMEOUT, notebook_timeout=NOTEBOOK_TIMEOUT, run=True,
                   progress=None, manifest=None) -> Report:
    """Check that a notebook will grade, without changing it.

    Parameters
    ----------
    path : str or Path
        The notebook (``.ipynb``) to check. It must exist.
    cell_timeout : float
        Seconds a cell may run (default: the grader's, 120).
    notebook_timeout : float
        Seconds the whole notebook may run (default: the grader's, 900).
    run : bool
        Run the notebook in a fresh kernel (the slow part); False checks only the file.
    progress : callable, optional
        Called with a line of text while the notebook runs.
    manifest : dict, optional
        The grader's cells per assignment (default: the course's, ``assignments.json``).

    Returns
    -------
    Report
        One :class:`Finding` per check; ``report.exit_code`` is 0 when the
        notebook will grade, 1 when something needs attention.
    """
    path = Path(path)
    report = Report(path.name)
    notebook, readable = read_notebook(path)
    report.add(readable)
    if notebook is None:
        report.add(Finding(SKIPPED, "everything else", "not checked: the file must be readable first."))
        return report
    manifest = load_manifest() if manifest is None else manifest
    assignment = which_assignment(notebook, path, manifest)
    report.add(check_name(path, assignment))
    for finding in check_grade_cells(notebook, manifest.get(assignment)):
        report.add(finding)
    if run:
        if progress is not None:
            progress(f"Running the code of {path.name} on this computer, as Jupyter would (a copy, in a fresh "
                     f"kernel, with the grader's limits: {cell_timeout:g} s per cell, {notebook_timeout:g} s in all, "
                     f"{MEMORY_BYTES / 2**30:g} GiB of memory, {MAX_OUTPUT_BYTES // 1_000_000} MB of output; this "
                     "takes a minute or two)...")
        try:
            result = run_notebook(notebook, path.parent, cell_timeout=cell_timeout,
                                  notebook_timeout=notebook_timeout)
        except RuntimeError as error:
            report.add(Finding(PROBLEM, "runs", f"not checked: {error}."))
        else:
            for finding in _run_findings(notebook, result, cell_timeout, notebook_timeout):
                report.add(finding)
            if result.not_copied:
                report.add(Finding(WARNING, "data files", result.not_copied + "."))
    else:
        report.add(Finding(SKIPPED, "runs", "not run (--no-run): run the check without it before you submit."))
    report.add(check_library_rule(notebook))
    return report
