"""The compiled metadata check agrees with nbgrader's own, notebook by notebook."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator

from grading.autograde.nbgrader_metadata import FastMetadataValidator

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "course" / "source").glob("*/*.ipynb"))


def outcome(validator, notebook):
    try:
        validator.validate_nb(copy.deepcopy(notebook))
    except Exception as error:  # nbgrader raises ValidationError and its schema errors
        return type(error).__name__, str(error).splitlines()[0]
    return "valid", ""


def graded_cell(notebook):
    return next(cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade"))


def breakages():
    yield "valid as released", lambda cell: None
    yield "points removed", lambda cell: cell.metadata.nbgrader.pop("points")
    yield "points not a number", lambda cell: cell.metadata.nbgrader.update(points="three")
    yield "empty grade id", lambda cell: cell.metadata.nbgrader.update(grade_id="")
    yield "schema too old", lambda cell: cell.metadata.nbgrader.update(schema_version=2)
    yield "schema too new", lambda cell: cell.metadata.nbgrader.update(schema_version=4)
    yield "grade not a boolean", lambda cell: cell.metadata.nbgrader.update(grade="yes")
    yield "unknown key", lambda cell: cell.metadata.nbgrader.update(surprise=1)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
@pytest.mark.parametrize("what, breaking", list(breakages()), ids=[name for name, _ in breakages()])
def test_same_verdict_as_nbgraders_validator(path, what, breaking):
    notebook = nbformat.read(path, as_version=4)
    breaking(graded_cell(notebook))
    assert outcome(FastMetadataValidator(), notebook) == outcome(MetadataValidator(), notebook)
