"""Prepare: one submission into execution tasks, checked before any of it runs.

Per notebook: the size and symbolic-link checks, nbgrader's sanitizing steps,
a scratch copy without files that would shadow a module the tests import,
the answer scan, and the assignment's own data files for the judge. A
notebook that cannot be run gets its record here (missing, invalid) and no task.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from pathlib import Path

import nbformat

from grading.autograde.checks import (
    deleted_cells,
    edited_tests,
    moved_cells,
    notebook_problem,
    restore_order,
    shadowing_files,
    source_order,
    symlinked_folder,
)
from grading.autograde.jobs import SubmissionJob
from grading.autograde.scan import ScanResult, library_rule, scan_notebook
from grading.autograde.seeds import grading_seed
from grading.core import mistakes
from grading.core.cells import read_notebook
from grading.core.errors import NbgError
from grading.core.records import Status
from grading.core.text import clean_text

JUDGE_FILES_BYTES = 50 * 2**20
MAX_SUBMISSION_BYTES = 200 * 2**20  # a submission's folder, copied once per notebook


def scan_answers(notebook, source_cells, rule=None) -> ScanResult:
    """The answer scan; an answer too deeply nested to parse is itself a finding to review."""
    try:
        return scan_notebook(notebook, source_cells, rule)
    except (RecursionError, MemoryError, ValueError) as error:
        result = ScanResult()
        result.flagged_tests = {"(all)": f"the answers could not be scanned ({type(error).__name__})"}
        return result


class Preparer:
    """The grading process's first half: submissions into execution tasks."""

    def __init__(self, course, steps, limits, sandbox: str, recorder):
        self.course, self.steps, self.limits, self.sandbox = course, steps, limits, sandbox
        self.recorder = recorder  # records the notebooks that get no task
        self.matplotlib_cache = None
        self.budgets = None  # budget.Budgets: each notebook's time budget (None: the notebook limit)
        self.secret = None  # the course's test secret (seeds.py); None: the hidden tests' own seeds
        self._sources = {}
        self._orders = {}
        self._data_files = {}

    def prepare(self, job: SubmissionJob, scratch_root: Path):
        """Yield (notebook id, execution task or None) for one submission."""
        final = self.course.autograded_dir(job.student, job.assignment)
        job.staging = final.with_name(f".{final.name}.staging-{os.getpid()}")
        if job.staging.exists():
            shutil.rmtree(job.staging)
        size = sum(p.stat().st_size for p in job.submitted.rglob("*") if p.is_file() and not p.is_symlink())
        if size > MAX_SUBMISSION_BYTES:
            raise NbgError(f"the submission holds {size} bytes of files, more than the "
                             f"{MAX_SUBMISSION_BYTES} the grader copies for each notebook")
        job.info = self.steps.init_submission(job.student, job.assignment, job.submitted, job.staging)
        linked = symlinked_folder(self.course, job.student, job.assignment)
        links = sorted(str(p.relative_to(job.submitted)) for p in job.submitted.rglob("*") if p.is_symlink())
        for notebook_id in job.notebook_ids:
            path = job.submitted / f"{notebook_id}.ipynb"
            problem = linked or notebook_problem(path, job.submitted)
            if problem:
                self.steps.zero_notebook(job.student, job.assignment, notebook_id)
                status = Status.MISSING if not (path.exists() or path.is_symlink()) and not linked else Status.INVALID
                job.records[notebook_id] = self.recorder.record(job, notebook_id, status, problem)
                yield notebook_id, None
                continue
            if self.secret is not None:  # before reading it: the bytes graded are the bytes seeded
                job.seeds[notebook_id] = grading_seed(self.secret, job.assignment, job.student, path.read_bytes())
            try:
                raw = read_notebook(path)
                not_text = [i for i, c in enumerate(raw.get("cells", [])) if not isinstance(c.get("source", ""), (str, list))
                            or isinstance(c.get("source"), list) and not all(isinstance(x, str) for x in c["source"])]
                if not_text:
                    raise NbgError(f"cell {not_text[0]}'s source is not text: not a readable notebook")
                notebook = self.steps.sanitize(nbformat.from_dict(copy.deepcopy(raw)), job.student,
                                               job.assignment, notebook_id)
            except Exception as error:
                self.steps.zero_notebook(job.student, job.assignment, notebook_id)
                job.records[notebook_id] = self.recorder.record(job, notebook_id, Status.INVALID, str(error))
                yield notebook_id, None
                continue
            source_cells = self._source_cells(job.assignment, notebook_id)
            order = self._source_order(job.assignment, notebook_id)
            moved = moved_cells(notebook, order)
            if moved:  # test cells are graded where the instructor put them
                restore_order(notebook, order)
            # Short and free of the student's id: the kernel's sockets live in it (107-byte limit).
            scratch = Path(tempfile.mkdtemp(prefix="s", dir=scratch_root))
            shutil.copytree(job.staging, scratch, dirs_exist_ok=True)
            removed = shadowing_files(scratch)
            for name in removed:  # e.g. a numpy.py that would replace numpy for the tests
                target = scratch / name
                shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
            ignored = [f"ignored the symbolic link(s) {', '.join(links)} in the submission"] if links else []
            if removed:
                ignored.append(f"removed {', '.join(removed)} from the submission: a module name the "
                               "tests import, or kernel settings that would run before the notebook")
            for cell in notebook.cells:  # hostile Unicode (lone surrogates) cannot travel to a kernel
                if isinstance(cell.get("source"), str):
                    cell.source = clean_text(cell.source)
            rule = library_rule(self.course, job.assignment, job.student, notebook_id)
            job.notes[notebook_id] = (scan_answers(notebook, source_cells, rule), ignored,
                                      deleted_cells(notebook, source_cells), edited_tests(raw, source_cells), moved)
            job.waiting.add(notebook_id)
            yield notebook_id, {
                "notebook_json": nbformat.writes(notebook),
                "scratch_dir": str(scratch),
                "config": self.steps.converter.config,
                "limits": self.limits,
                "sandbox": self.sandbox,
                "matplotlib_cache": self.matplotlib_cache,
                "judge_files": self._assignment_files(job.assignment),
                "time_budget": self.budgets.budget(job.assignment, notebook_id) if self.budgets else None,
                "grading_seed": job.seeds.get(notebook_id),
            }

    def base_task(self, assignment) -> dict:
        """What every execution task of ``assignment`` shares (the source's timing runs on it)."""
        return {"config": self.steps.converter.config, "limits": self.limits, "sandbox": self.sandbox,
                "matplotlib_cache": self.matplotlib_cache, "judge_files": self._assignment_files(assignment)}

    def source_cells(self, assignment, notebook_id) -> list:
        """The gradebook's source cells of a notebook (what the scan and the checks trust)."""
        return self._source_cells(assignment, notebook_id)

    def source_order(self, assignment, notebook_id) -> list:
        """The grade_ids of the source notebook, in order (test cells are graded where they stand)."""
        return self._source_order(assignment, notebook_id)

    def _assignment_files(self, assignment) -> dict:
        """The assignment's own data files (from source/, never a submission), for the judge."""
        if assignment not in self._data_files:
            folder = self.course.root / "source" / assignment
            files, total = {}, 0
            for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
                if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb" \
                        and ".ipynb_checkpoints" not in path.parts:
                    total += path.stat().st_size
                    if total > JUDGE_FILES_BYTES:
                        raise NbgError(f"source/{assignment} holds more than {JUDGE_FILES_BYTES} bytes of data "
                                         "files; the judge gets a copy of them for every notebook")
                    files[str(path.relative_to(folder))] = path.read_bytes()
            catalogue = mistakes.catalogue_path(self.course.root, assignment)
            if catalogue.is_file():  # the known mistakes, for the judge's diagnosis only (never the kernel's copy)
                source = next(iter(sorted(folder.glob("*.ipynb"))), None)
                notebook = nbformat.read(str(source), as_version=4) if source else None
                files[mistakes.JUDGE_FILE] = json.dumps(
                    mistakes.judge_catalogue(mistakes.load_cases(catalogue), notebook)).encode()
            self._data_files[assignment] = files
        return self._data_files[assignment]

    def _source_order(self, assignment, notebook_id) -> list:
        """The grade_ids of the source notebook (from source/, never a submission), in order."""
        if (assignment, notebook_id) not in self._orders:
            path = self.course.source_dir(assignment) / f"{notebook_id}.ipynb"
            self._orders[assignment, notebook_id] = \
                source_order(nbformat.read(str(path), as_version=4)) if path.is_file() else []
        return self._orders[assignment, notebook_id]

    def _source_cells(self, assignment, notebook_id) -> list:
        """The gradebook's source cells of a notebook (what the scan trusts), cached."""
        key = (assignment, notebook_id)
        if key not in self._sources:
            with self.course.gradebook() as gradebook:
                notebook = gradebook.find_notebook(notebook_id, assignment)
                graded = {cell.name for cell in notebook.grade_cells}
                solution = {cell.name for cell in notebook.solution_cells}
                self._sources[key] = [
                    {"name": cell.name, "source": cell.source or "", "locked": bool(cell.locked),
                     "grade": cell.name in graded, "solution": cell.name in solution,
                     "cell_type": cell.cell_type}
                    for cell in notebook.source_cells
                ]
        return self._sources[key]

