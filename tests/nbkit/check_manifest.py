"""``nbkit/check/assignments.json``: the grader's cells of each assignment, for ``nbkit check``.

Written from the source notebooks (grade ids, cell types, roles and points:
all of it is in the release). ``tests/nbkit/test_check.py`` fails when it is
out of date; then regenerate it from the repository root:

    .venv/bin/python -m tests.nbkit.check_manifest
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from nbkit.check.cells import MANIFEST, manifest_entry

ROOT = Path(__file__).resolve().parents[2]


def build_manifest(course_root=ROOT / "course") -> dict:
    return {path.parent.name: manifest_entry(nbformat.read(path, as_version=4))
            for path in sorted((Path(course_root) / "source").glob("*/*.ipynb"))
            if ".ipynb_checkpoints" not in path.parts}


def manifest_text(manifest: dict) -> str:
    """One line per cell, so a diff shows which cell changed."""
    blocks = []
    for assignment, cells in manifest.items():
        lines = [f"    {json.dumps(grade_id)}: {json.dumps(value)}" for grade_id, value in cells.items()]
        blocks.append(f"  {json.dumps(assignment)}: {{\n" + ",\n".join(lines) + "\n  }")
    return "{\n" + ",\n".join(blocks) + "\n}\n"


if __name__ == "__main__":
    MANIFEST.write_text(manifest_text(build_manifest()), encoding="utf-8")
    print(f"wrote {MANIFEST}")
