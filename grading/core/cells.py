"""Notebook cells as the grader sees them: reading a notebook, test cells, hidden regions."""

from __future__ import annotations

from pathlib import Path

import nbformat

from grading.core.errors import NbgError


def grade_id(cell) -> str | None:
    """The nbgrader ``grade_id`` of a cell (a dict or a NotebookNode), or None."""
    metadata = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def is_test_cell(cell) -> bool:
    """A grade cell that is not an answer: its code is the tests, run by the judge."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def read_notebook(path: Path):
    """Read a submitted notebook; raise ValueError saying why it cannot be graded."""
    try:
        notebook = nbformat.read(str(path), as_version=4)
    except Exception as error:  # invalid JSON, not a notebook, unknown nbformat...
        raise NbgError(f"{path.name} is not a readable notebook: {type(error).__name__}: {error}") from None
    if not isinstance(notebook.get("cells"), list):
        raise NbgError(f"{path.name} has no list of cells")
    return notebook


def split_hidden_region(source: str, begin="BEGIN HIDDEN TESTS", end="END HIDDEN TESTS"):
    """Split a cell's source into its release version and its hidden lines.

    Parameters
    ----------
    source : str
        The source of a cell, maybe holding ``### BEGIN HIDDEN TESTS`` ...
        ``### END HIDDEN TESTS`` regions.
    begin, end : str
        The delimiters (nbgrader's ``ClearHiddenTests`` settings).

    Returns
    -------
    release_source : str
        The source without the hidden regions (what students were given).
    hidden_lines : list of str
        The lines inside the regions, delimiters excluded.

    Examples
    --------
    >>> source = "# check f\\n### BEGIN HIDDEN TESTS\\nassert f(2) == 4\\n### END HIDDEN TESTS"
    >>> split_hidden_region(source)
    ('# check f', ['assert f(2) == 4'])
    """
    kept, hidden = [], []
    inside = False
    for line in source.split("\n"):
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            hidden.append(line)
        else:
            kept.append(line)
    # An unclosed region hides everything after BEGIN (safer than showing it).
    return "\n".join(kept), hidden

