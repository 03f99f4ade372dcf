"""The checks that need no kernel: the file, its JSON, and the grader's cells.

nbgrader's release notebooks carry, in each cell's metadata, a ``grade_id``
and a checksum of the cell as released (:func:`cell_checksum`, nbgrader's
``compute_checksum``). The grader puts the released version of every test
and given cell back before it runs a notebook, finds the student's answers
by their ``grade_id``, and scores 0 for a test cell that is missing. Which
cells each assignment has comes from ``assignments.json`` beside this module
(grade ids, cell types and points only: all of it is visible in the release).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .findings import OK, PROBLEM, SKIPPED, WARNING, Finding

MANIFEST = Path(__file__).with_name("assignments.json")


def load_manifest(path=MANIFEST) -> dict:
    """The grader's cells of every assignment: ``{assignment: {grade_id: [cell_type, role, points]}}``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def nbgrader_meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def cell_role(cell) -> str | None:
    """``"test"``, ``"answer"`` (code or written), ``"given"`` (locked) or None (not the grader's)."""
    meta = nbgrader_meta(cell)
    if not meta.get("grade_id"):
        return None
    if meta.get("solution"):
        return "answer"
    if meta.get("grade"):
        return "test"
    if meta.get("locked"):
        return "given"
    return None


def manifest_entry(notebook) -> dict:
    """The grader's cells of a source or release notebook, as ``assignments.json`` holds them."""
    entry = {}
    for cell in notebook.cells:
        role = cell_role(cell)
        if role in ("test", "answer"):
            points = nbgrader_meta(cell).get("points", 0) if nbgrader_meta(cell).get("grade") else 0
            entry[nbgrader_meta(cell)["grade_id"]] = [cell.cell_type, role, float(points)]
    return entry


def cell_checksum(cell) -> str:
    """nbgrader's checksum of a cell (``nbgrader.utils.compute_checksum``, reimplemented).

    MD5 of the source, the cell type, whether the cell is graded, a solution
    and locked, its ``grade_id`` and, for a graded cell, its points.
    """
    meta = nbgrader_meta(cell)
    solution = bool(meta.get("solution", False))
    grade = meta.get("grade", False)
    locked = False if solution else (True if grade else meta.get("locked", False))
    digest = hashlib.md5()
    for part in (cell.source, cell.cell_type, str(grade), str(meta.get("solution", False)), str(locked),
                 meta["grade_id"]):
        digest.update(str(part).encode("utf-8"))
    if grade:
        digest.update(str(float(meta["points"])).encode("utf-8"))
    return digest.hexdigest()


def label(notebook, index: int) -> str:
    """How a student finds a cell: its number, and its grade id or first line."""
    cell = notebook.cells[index]
    grade_id = nbgrader_meta(cell).get("grade_id")
    if grade_id:
        return f"cell {index + 1} of {len(notebook.cells)} ({grade_id})"
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "(empty)")
    if len(first) > 60:
        first = first[:57] + "..."
    return f"cell {index + 1} of {len(notebook.cells)} ({first!r})"


def _cut_short(text: str) -> bool:
    """True when the JSON text stops inside a string or with brackets still open."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return in_string or depth > 0


def read_notebook(path: Path):
    """(notebook, finding): the notebook (None when unreadable) and the ``readable`` finding."""
    import nbformat

    data = path.read_bytes()
    checkpoint = path.parent / ".ipynb_checkpoints" / f"{path.stem}-checkpoint.ipynb"
    restore = (f" JupyterLab's last checkpoint of it is {checkpoint}: check it, copy it to "
               f"{path.name} if it has your work." if checkpoint.is_file() else "")
    advice = ("Open the notebook in JupyterLab and save it again (File > Save Notebook); if it does not "
              "open, it was cut short or damaged: start from your last good copy." + restore)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, Finding(PROBLEM, "readable", f"the file is not UTF-8 text ({error.reason} at byte "
                             f"{error.start}): it is not a notebook, or it was damaged.", advice=advice)
    if not text.strip():
        return None, Finding(PROBLEM, "readable", "the file is empty.", advice=advice)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        if _cut_short(text):
            message = ("the file is not complete notebook JSON: it stops in the middle (it was cut short while "
                       "being saved, copied or uploaded); the grader cannot open it.")
        else:
            message = (f"the file is not valid notebook JSON ({error.msg} at line {error.lineno}, column "
                       f"{error.colno}); the grader cannot open it.")
        return None, Finding(PROBLEM, "readable", message, advice=advice)
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        return None, Finding(PROBLEM, "readable", "the file is JSON but not a notebook (it has no list of cells).",
                             advice=advice)
    try:
        notebook = nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as error:  # nbformat raises several kinds for a malformed notebook
        return None, Finding(PROBLEM, "readable", "the file does not follow the notebook format "
                             f"({type(error).__name__}: {str(error).splitlines()[0][:200]}).", advice=advice)
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as error:
        return notebook, Finding(PROBLEM, "readable", "the notebook does not follow the notebook format: "
                                 f"{error.message[:200]}.", advice=advice)
    return notebook, Finding(OK, "readable", f"valid notebook JSON (nbformat {notebook.nbformat}."
                             f"{notebook.nbformat_minor}, {len(notebook.cells)} cells).")


def which_assignment(notebook, path: Path, manifest: dict) -> str | None:
    """The assignment the notebook belongs to: by its file name, else by its cells' grade ids."""
    for assignment in sorted(manifest, key=len, reverse=True):
        if path.name.endswith(f"{assignment}.ipynb"):
            return assignment
    ids = {nbgrader_meta(cell).get("grade_id") for cell in notebook.cells} - {None}
    overlaps = {a: len(ids & set(cells)) for a, cells in manifest.items()}
    best = max(overlaps, key=overlaps.get, default=None)
    return best if best and overlaps[best] else None


def check_name(path: Path, assignment: str | None) -> Finding:
    if assignment is None:
        return Finding(WARNING, "file name", f"{path.name} is not one of the course's notebooks and has none of "
                       "their graded cells, so the grader will not recognise it.",
                       advice="Check the file you submit is the assignment's notebook.")
    expected = f"{assignment}.ipynb"
    if path.name.endswith(expected):
        return Finding(OK, "file name", f"the grader finds it as {expected}.")
    return Finding(PROBLEM, "file name", f"the grader finds a submission by its name, {expected}; this file is "
                   f"called {path.name}.", advice=f"Rename it to {expected} before you submit it.")


def check_grade_cells(notebook, cells: dict | None) -> list:
    """Findings on the grader's cells: present, not duplicated, unedited; answers written."""
    findings = []
    seen, duplicates, edited_tests, edited_given, unanswered = {}, [], [], [], []
    for index, cell in enumerate(notebook.cells):
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id")
        if not grade_id or not isinstance(grade_id, str):
            continue
        if grade_id in seen:
            duplicates.append(f"{label(notebook, seen[grade_id])} and {label(notebook, index)}")
            continue
        seen[grade_id] = index
        role = cell_role(cell)
        stored = meta.get("checksum")
        if role is None or not stored:
            continue
        try:
            same = cell_checksum(cell) == stored
        except (KeyError, TypeError, ValueError):  # points or grade_id of the wrong type
            same = False
        if role == "test" and not same:
            edited_tests.append(label(notebook, index))
        elif role == "given" and cell.cell_type == "code" and not same:
            edited_given.append(label(notebook, index))
        elif role == "answer" and same:
            unanswered.append(grade_id)

    if cells is None:
        findings.append(Finding(SKIPPED, "grade cells", "unknown assignment: cannot tell whether a graded cell "
                                "is missing."))
    else:
        missing = [grade_id for grade_id in cells if grade_id not in seen]
        if len(missing) == len(cells):
            findings.append(Finding(PROBLEM, "grade cells", "none of the grader's cells is there: this is not the "
                                    "release notebook, or the cells lost their metadata (copying cells into a new "
                                    "notebook does that).",
                                    advice="Start from the release notebook and copy your answers into its answer "
                                    "cells."))
        elif missing:
            tests = [g for g in missing if cells[g][1] == "test"]
            answers = [g for g in missing if cells[g][1] == "answer"]
            details = ([f"test cells (each scores 0): {', '.join(tests)}"] if tests else []) + \
                      ([f"answer cells (the grader cannot find your answer): {', '.join(answers)}"] if answers else [])
            findings.append(Finding(PROBLEM, "grade cells", f"{len(missing)} of the grader's {len(cells)} cells are "
                                    "missing (deleted, or their metadata was lost).", details,
                                    advice="Copy each missing cell back from a fresh copy of the release notebook, "
                                    "at the same place (Edit > Copy Cells, then Paste), and put your answer in it."))
        else:
            findings.append(Finding(OK, "grade cells", f"all {len(cells)} test and answer cells are there."))
    if duplicates:
        findings.append(Finding(PROBLEM, "grade cells", "some of the grader's cells appear twice (a copied cell "
                                "keeps its grade id); the grader refuses such a notebook.", duplicates,
                                advice="Delete the copies you made (keep the one in its original place)."))
    if edited_tests:
        findings.append(Finding(PROBLEM, "test cells", "test cells were edited. The grader puts back the original "
                                "test, so your edit does not count and the check's results may differ from "
                                "the grader's.", edited_tests,
                                advice="Undo your edits (or copy the cell back from a fresh copy of the release "
                                "notebook); write your own checks in a new cell."))
    else:
        findings.append(Finding(OK, "test cells", "no test cell was edited."))
    if edited_given:
        findings.append(Finding(WARNING, "given cells", "code you were given was edited. The grader runs the "
                                "original, so your notebook must work without your change.", edited_given,
                                advice="Undo the edit, or move your change into your own answer cell."))
    if unanswered:
        findings.append(Finding(WARNING, "answers", f"{len(unanswered)} answer cell(s) are as released (not "
                                "answered yet; each scores 0).", [", ".join(unanswered)],
                                advice="Write your answer in each of them."))
    return findings
