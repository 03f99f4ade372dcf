"""``nbg validate``: source notebooks pass their tests, release notebooks fail them.

Each notebook is executed in a fresh kernel (the same executor as
``autograde``) in a scratch copy of its folder, and every test cell is
scored with nbgrader's ``determine_grade``:

* a **source** notebook (it contains ``### BEGIN SOLUTION``) is valid when
  no cell raises and every test cell gets full marks;
* a **release** notebook is valid when every test cell that still holds
  test code scores 0: a test that passes on the blank release cannot tell
  a blank submission from a right one. Test cells whose code was removed
  (hidden tests: only a docstring is left) are not judged.

Unlike ``nbgrader validate`` (its issue #1908) the exit code is 1 when any
notebook is invalid.
"""

from __future__ import annotations

import ast
import dataclasses
import shutil
import tempfile
from pathlib import Path

import nbformat
from nbgrader import utils as nbgrader_utils

from grading.core.errors import NbgError
from grading.core.records import Status
from grading.execution.kernel import execute_notebook
from grading.execution.limits import Limits
from grading.execution.process import make_pool

SOURCE, RELEASE = "source", "release"


@dataclasses.dataclass
class NotebookValidation:
    """The verdict on one notebook."""

    path: Path
    kind: str  # "source" or "release"
    problems: list = dataclasses.field(default_factory=list)
    tests_checked: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def format(self) -> str:
        verdict = "OK  " if self.ok else "FAIL"
        expectation = "tests pass" if self.kind == SOURCE else "tests fail"
        head = f"{verdict} {self.path} ({self.kind}: {expectation}; {self.tests_checked} test cell(s), {self.seconds:.1f} s)"
        return "\n".join([head, *(f"     - {problem}" for problem in self.problems)])


@dataclasses.dataclass
class ValidationResult:
    """Verdicts for every validated notebook."""

    notebooks: list = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(nb.ok for nb in self.notebooks)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def format(self) -> str:
        failed = sum(not nb.ok for nb in self.notebooks)
        lines = [nb.format() for nb in self.notebooks]
        lines.append(f"{len(self.notebooks)} notebook(s) validated, {failed} invalid")
        return "\n".join(lines)


def notebook_kind(notebook) -> str:
    """``"source"`` when the notebook holds solutions, else ``"release"``."""
    for cell in notebook.cells:
        if "### BEGIN SOLUTION" in cell.source:
            return SOURCE
    return RELEASE


def _has_test_code(source: str) -> bool:
    """False for a cell left with only a docstring/comments (hidden tests removed)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    return any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        for node in tree.body
    )


def _label(cell, index):
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index}"


def _judge(executed, kind, status, reason) -> tuple[list, int]:
    problems, checked = [], 0
    if status != Status.OK:
        problems.append(f"execution: {status}: {reason}")
    for index, cell in enumerate(executed.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            errors = []  # the author marked this error as intended
        is_test = nbgrader_utils.is_grade(cell) and not nbgrader_utils.is_solution(cell)
        if kind == SOURCE:
            if errors:
                error = errors[0]
                problems.append(f"{_label(cell, index)} raised {error.get('ename')}: {error.get('evalue', '')}".rstrip())
            elif is_test:
                score, max_score = nbgrader_utils.determine_grade(cell)
                if score != max_score:
                    problems.append(f"{_label(cell, index)} scored {score}/{max_score} (wrote to stderr?)")
            checked += is_test
        elif is_test and _has_test_code(cell.source):
            checked += 1
            score, max_score = nbgrader_utils.determine_grade(cell)
            if score:
                problems.append(
                    f"{_label(cell, index)} passes on the blank release ({score}/{max_score}): "
                    "it cannot tell a blank submission from a right one"
                )
    if kind == SOURCE and checked == 0:
        problems.append("no test cells (nbgrader grade cells) found")
    return problems, checked


def validate_notebook(path, *, cell_timeout=120, expect=None) -> NotebookValidation:
    """Execute one notebook and judge it (see the module docstring)."""
    path = Path(path)
    try:
        notebook = nbformat.read(str(path), as_version=4)
    except Exception as error:
        return NotebookValidation(path, expect or "?", [f"not a readable notebook: {error}"])
    kind = expect or notebook_kind(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    with tempfile.TemporaryDirectory(prefix="nbg-validate-") as scratch:
        # Run in a copy of the notebook's folder: data files are there, and
        # whatever the notebook writes does not land in the course.
        shutil.copytree(path.parent, scratch, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.ipynb"))
        result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(cell_timeout=cell_timeout))
    executed = nbformat.reads(result.notebook_json, as_version=4)
    problems, checked = _judge(executed, kind, result.status, result.reason)
    return NotebookValidation(path, kind, problems, checked, result.seconds)


def _expand(paths) -> list[Path]:
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts))
        elif path.exists():
            found.append(path)
        else:
            raise NbgError(f"{path} does not exist")
    if not found:
        raise NbgError(f"no notebooks in {[str(p) for p in paths]}")
    return found


def validate(paths, *, cell_timeout=120, workers=1, expect=None) -> ValidationResult:
    """Validate notebooks (files, or folders searched for ``*.ipynb``).

    Parameters
    ----------
    paths : list of path
    cell_timeout : float
        Seconds per cell.
    workers : int
        Notebooks executed at once.
    expect : {"source", "release"}, optional
        Force the kind instead of detecting it from the solution markers.

    Returns
    -------
    ValidationResult
    """
    if expect not in (None, SOURCE, RELEASE):
        raise NbgError(f"expect must be 'source', 'release' or None, got {expect!r}")
    notebooks = _expand(paths)
    if workers <= 1 or len(notebooks) == 1:
        verdicts = [validate_notebook(p, cell_timeout=cell_timeout, expect=expect) for p in notebooks]
    else:

        with make_pool(workers) as pool:
            verdicts = list(pool.map(_validate_one, [(p, cell_timeout, expect) for p in notebooks]))
    return ValidationResult(verdicts)


def _validate_one(args):
    path, cell_timeout, expect = args
    return validate_notebook(path, cell_timeout=cell_timeout, expect=expect)
