"""One practice check: a student's notebook through autograde's pipeline, into a reply without grades.

The same parts as ``nbg autograde`` (:mod:`grading.autograde`): nbgrader's sanitizing steps (which
restore the instructor's test cells from the gradebook, read only), the checks of moved and
deleted cells, the answer scan with the rule on ready-made libraries, the sandboxed kernel with
the judge and the diagnosis (:func:`grading.execution.kernel.execute_task`, same limits). What
differs: nothing is written to the gradebook's grades, the autograded folder, the state or the
grading log; the test cells of the functions not checked (over budget, or not asked for) are
left out before the kernel starts, and so are the cells after the last test cell checked (cells
run in order, so no later cell can change what those tests saw: a check of the first function
does not wait for the notebook's plots); and the hidden tests draw fresh inputs, seeded by
:func:`practice_seed` (never the final run's :func:`grading.autograde.seeds.grading_seed`).

A reply names per graded function each test cell's result (not counted), its message with any
line quoting the hidden tests removed, the diagnosis's words, and the notebook's section to read;
never the hidden tests' code or their inputs.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import json
import re
import shutil
import tempfile
from pathlib import Path

import nbformat

from grading.autograde.checks import deleted_cells, moved_cells, restore_order, shadowing_files
from grading.autograde.nbgrader_steps import NbgraderSteps
from grading.autograde.prepare import Preparer, scan_answers
from grading.autograde.scan import library_reason, library_rule
from grading.autograde.seeds import course_secret
from grading.core import mistakes
from grading.core.cells import grade_id, is_test_cell, split_hidden_region
from grading.core.errors import NbgError
from grading.core.practice_log import Attempt, utcnow
from grading.core.records import Status
from grading.core.text import clean_text
from grading.execution.sandbox.bubblewrap import build_matplotlib_cache

MIN_SECRET_LINE = 6  # as the feedback page: shorter hidden lines ("else:") say nothing
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotGradable(NbgError):
    """The request's notebook cannot be checked (not counted); the message says why."""


def practice_seed(secret: bytes, assignment: str, student: str, attempt: int) -> int:
    """The seed of one practice request's hidden inputs (63 bits), apart from every final run's.

    The message starts with ``practice``, which no :func:`~grading.autograde.seeds.grading_seed`
    message does (those start with the assignment and hold a notebook's SHA-256), so the final
    run's inputs are never the ones a student practised on.

    >>> practice_seed(b"k", "a", "s", 1) != practice_seed(b"k", "a", "s", 2)
    True
    """
    message = b"\0".join([b"practice", assignment.encode(), student.encode(), str(int(attempt)).encode()])
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:8], "big") >> 1


def _is_text(source) -> bool:
    return isinstance(source, str) or isinstance(source, list) and all(isinstance(x, str) for x in source)


def function_of(test_id: str, catalogue: dict, functions: set) -> str:
    """The graded function a test cell checks: the catalogue's say, else ``test_<function>_<kind>``."""
    for function, case in catalogue.items():
        if test_id in case.get("tests", []):
            return function
    name = test_id[len("test_"):] if test_id.startswith("test_") else test_id
    for candidate in (name.rsplit("_", 1)[0], name):
        if candidate in functions:
            return candidate
    return test_id


@dataclasses.dataclass
class Check:
    """One request on its way: what the reply needs once the kernel is done."""

    student: str
    assignment: str
    notebook_id: str
    attempt: int
    functions: list  # checked, in the notebook's order
    tests: dict  # test grade_id -> function (checked ones only)
    hidden: set
    secrets: set
    library: dict  # test grade_id -> the rule's words
    deleted: list
    task: dict
    scratch: Path


class PracticeGrader:
    """The grading process's side of the practice service for one course (prepare, then interpret)."""

    def __init__(self, course, limits, sandbox):
        self.course, self.limits, self.sandbox = course, limits, sandbox
        self.steps = NbgraderSteps(course)
        self.preparer = Preparer(course, self.steps, limits, sandbox.name, recorder=None)
        self.secret = course_secret(course)
        self.scratch_root = Path(tempfile.mkdtemp(prefix="nbg-practice-"))
        if sandbox.confined:
            self.preparer.matplotlib_cache = build_matplotlib_cache(self.scratch_root / "matplotlib")
        self._layouts = {}

    def close(self):
        shutil.rmtree(self.scratch_root, ignore_errors=True)

    def warm_up(self):
        """Prepare (no kernel) a check of every released notebook's source (the instructor's
        answers stand in for a student's) once, before the first student waits for it: the
        gradebook's source cells, the layout, the judge's files and the library rule's imports of
        what the answers call (scipy.stats: 2.6 s of 01's first check) are then in memory."""
        for assignment in self.course.source_assignments():
            for notebook_id in self.notebook_ids(assignment):
                source = self.course.source_dir(assignment) / f"{notebook_id}.ipynb"
                try:
                    check = self.prepare("nbg-warm-up", assignment, notebook_id, source.read_bytes(), 0,
                                         set(self.layout(assignment, notebook_id)["functions"]))
                except (OSError, NbgError):
                    continue  # not released as a file, or not gradable: each check says why
                shutil.rmtree(check.scratch, ignore_errors=True)

    def notebook_ids(self, assignment) -> list:
        return self.steps.known_notebooks(assignment)

    def layout(self, assignment, notebook_id) -> dict:
        """The source notebook's graded functions, their test cells and sections (cached)."""
        key = (assignment, notebook_id)
        if key not in self._layouts:
            path = self.course.source_dir(assignment) / f"{notebook_id}.ipynb"
            source = nbformat.read(str(path), as_version=4)
            path = mistakes.catalogue_path(self.course.root, assignment)
            catalogue = mistakes.load_cases(path) if path.is_file() else {}
            defined, sections, heading = [], {}, ""
            for cell in source.cells:
                if cell.cell_type == "markdown":
                    found = _HEADING.findall(cell.source)
                    heading = found[-1].strip() if found else heading
                elif cell.metadata.get("nbgrader", {}).get("solution"):
                    for name in re.findall(r"^def\s+([A-Za-z_]\w*)\s*\(", cell.source, re.MULTILINE):
                        defined.append(name)
                        sections.setdefault(name, heading)
            tests = {grade_id(c): function_of(grade_id(c), catalogue, set(defined))
                     for c in source.cells if is_test_cell(c)}
            hidden = {grade_id(c) for c in source.cells if is_test_cell(c) and split_hidden_region(c.source)[1]}
            order = list(dict.fromkeys(tests.values()))
            self._layouts[key] = {"tests": tests, "hidden": hidden, "functions": order, "sections": sections}
        return self._layouts[key]

    def prepare(self, student, assignment, notebook_id, notebook_bytes, attempt, allowed) -> Check:
        """The execution task of one request, only the test cells of the functions in ``allowed``.

        Raises :class:`NotGradable` for a notebook that cannot be read (nothing is counted).
        """
        layout = self.layout(assignment, notebook_id)
        try:
            text = notebook_bytes.decode("utf-8")
            parsed = json.loads(text)  # checked as sent: nbformat's conversions would repair it silently
            cells = parsed.get("cells") if isinstance(parsed, dict) else None
            if not isinstance(cells, list) or not all(isinstance(c, dict) and _is_text(c.get("source", ""))
                                                      for c in cells):
                raise ValueError("its cells are not a list of cells whose source is text")
            raw = nbformat.reads(text, as_version=4)
            notebook = self.steps.sanitize(nbformat.from_dict(copy.deepcopy(raw)), student, assignment, notebook_id)
        except Exception as error:
            raise NotGradable(f"the notebook could not be read: {type(error).__name__}: "
                              f"{clean_text(str(error))[:300]}") from None
        source_cells = self.preparer.source_cells(assignment, notebook_id)
        order = self.preparer.source_order(assignment, notebook_id)
        if not {grade_id(c) for c in raw.cells} & set(order):
            raise NotGradable(f"the notebook has none of {assignment}'s cells: send the assignment's own "
                              "notebook (or check the assignment in the address)")
        if moved_cells(notebook, order):
            restore_order(notebook, order)
        for cell in notebook.cells:
            if isinstance(cell.get("source"), str):
                cell.source = clean_text(cell.source)
        rule = library_rule(self.course, assignment, student, notebook_id)
        scan = scan_answers(notebook, source_cells, rule)
        library = {test: library_reason(entry) for entry in scan.library if not entry["overruled"]
                   for test in entry["tests"]}
        deleted = deleted_cells(notebook, source_cells).get("tests", [])
        checked = {t: f for t, f in layout["tests"].items() if f in allowed}
        # The tests of functions not checked never run: nothing of them reaches the kernel or the reply;
        # nor does any cell after the last test checked (it could not change their results).
        notebook.cells = [c for c in notebook.cells if not is_test_cell(c) or grade_id(c) in checked]
        last = max((i for i, c in enumerate(notebook.cells) if is_test_cell(c)), default=len(notebook.cells) - 1)
        del notebook.cells[last + 1:]
        scratch = Path(tempfile.mkdtemp(prefix="p", dir=self.scratch_root))
        self._copy_assignment_files(assignment, scratch)
        for name in shadowing_files(scratch):
            target = scratch / name
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        hidden_lines = [line for c in source_cells for line in split_hidden_region(c["source"])[1]]
        public = json.dumps([c.source for c in notebook.cells if not is_test_cell(c)])
        secrets = {s for s in (line.strip() for line in hidden_lines) if len(s) >= MIN_SECRET_LINE and s not in public}
        task = {**self.preparer.base_task(assignment), "notebook_json": nbformat.writes(notebook),
                "scratch_dir": str(scratch), "time_budget": None,
                "grading_seed": practice_seed(self.secret, assignment, student, attempt)}
        functions = [f for f in layout["functions"] if f in set(checked.values())]
        return Check(student, assignment, notebook_id, attempt, functions, checked, layout["hidden"], secrets,
                     library, deleted, task, scratch)

    def _copy_assignment_files(self, assignment, scratch):
        """The instructor's data files (never a notebook), as autograde puts them beside a submission."""
        folder = self.course.source_dir(assignment)
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb" \
                    and ".ipynb_checkpoints" not in path.parts:
                target = scratch / path.relative_to(folder)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)

    def interpret(self, check: Check, result) -> tuple:
        """(reply per function, attempts to record) from the executed notebook; raises
        :class:`RuntimeError` when the grader itself failed (never counted)."""
        shutil.rmtree(check.scratch, ignore_errors=True)
        if result.status == Status.ERROR:
            raise RuntimeError(f"the grader could not run the notebook ({result.reason})")
        executed = nbformat.reads(result.notebook_json, as_version=4)
        outputs = {grade_id(c): c for c in executed.cells if is_test_cell(c)}
        sections = self.layout(check.assignment, check.notebook_id)["sections"]
        at, replies, attempts = utcnow(), [], []
        for function in check.functions:
            cells, named = [], []
            for test, owner in check.tests.items():
                if owner != function:
                    continue
                cells.append(self._cell_reply(test, outputs.get(test), check))
                named += [m.split("/", 1)[1] for m in (outputs.get(test) or {}).get("metadata", {})
                          .get("nbg_diagnosis", []) if m.startswith(function + "/")]
            passed = all(cell["passed"] for cell in cells)
            replies.append({"function": function, "passed": passed, "section": sections.get(function, ""),
                            "cells": cells})
            attempts.append(Attempt(check.student, check.assignment, function, check.attempt, at, passed,
                                    {c["cell"]: c["passed"] for c in cells}, tuple(dict.fromkeys(named))))
        return replies, attempts

    def _cell_reply(self, test, cell, check) -> dict:
        reply = {"cell": test, "hidden": test in check.hidden, "passed": False, "message": "", "diagnosis": ""}
        if test in check.deleted or cell is None:
            reply["message"] = "this test cell was deleted from your notebook: it would get 0 points"
            return reply
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            text = f"{errors[0].get('ename', 'Error')}: {errors[0].get('evalue', '')}"
            if cell.get("metadata", {}).get("nbg_diagnosis") and "\n\nYour " in text:
                text, words = text.split("\n\nYour ", 1)
                reply["diagnosis"] = "Your " + words
            reply["message"] = self._without_secrets(text, check.secrets)
        elif test in check.library:
            reply["message"] = check.library[test]
        else:
            reply["passed"] = True
        return reply

    @staticmethod
    def _without_secrets(text, secrets) -> str:
        lines = [line for line in _ANSI.sub("", text).split("\n") if not any(s in line for s in secrets)]
        return clean_text("\n".join(lines))[:2000]
