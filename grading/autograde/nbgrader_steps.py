"""The steps of ``nbgrader autograde`` that run in the grading process.

nbgrader's ``Autograde`` converter does, per submission: create the student
and the submission (with its timestamp) in the gradebook, copy the
assignment's other source files, give missing notebooks zero, then per
notebook *sanitize* (ClearOutput, DeduplicateIds, OverwriteKernelspec,
OverwriteCells, CheckCellMetadata), *execute*, and *post-process*
(IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
AssignLatePenalties, CheckCellMetadata). Here the same preprocessor classes,
built from the course's config exactly as the converter builds them, run in
the grading process; only execution moves to worker processes. So the
gradebook is written by this process alone, and scores equal stock
nbgrader's.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nbconvert.exporters import NotebookExporter
from nbgrader import utils as nbgrader_utils
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde
from nbgrader.preprocessors import CheckCellMetadata, Execute

from grading.autograde.nbgrader_metadata import CheckCellMetadataOnce


class NbgraderSteps:
    """nbgrader's autograde preprocessors for one course, ready to apply.

    Parameters
    ----------
    course : grading.core.course.Course
    """

    def __init__(self, course):
        self.course = course
        self.coursedir = course.coursedir
        # The converter carries the configured preprocessor lists
        # (Autograde.sanitize_preprocessors / autograde_preprocessors).
        self.converter = Autograde(coursedir=self.coursedir, config=course.config)
        self.sanitizers = self._build(self.converter.sanitize_preprocessors)
        post = [pp for pp in self.converter.autograde_preprocessors if not _is_execute(pp)]
        self.post_processors = self._build(post)

    def _build(self, classes):
        exporter = NotebookExporter(parent=self.converter, config=self.converter.config)
        exporter._preprocessors = []
        for preprocessor in classes:
            if preprocessor is CheckCellMetadata:  # the same checks, the schema compiled once
                preprocessor = CheckCellMetadataOnce
            exporter.register_preprocessor(preprocessor)
        return list(exporter._preprocessors)

    def resources(self, student, assignment, notebook_id):
        """The resources dict nbgrader's converters hand to preprocessors."""
        return {
            "unique_key": notebook_id,
            "output_files_dir": f"{notebook_id}_files",
            "nbgrader": {
                "student": student,
                "assignment": assignment,
                "notebook": notebook_id,
                "db_url": self.coursedir.db_url,
            },
        }

    @staticmethod
    def _apply(preprocessors, notebook, resources):
        for preprocessor in preprocessors:
            notebook, resources = preprocessor(notebook, resources)
        return notebook, resources

    def sanitize(self, notebook, student, assignment, notebook_id):
        """Clear outputs and restore locked/test cells from the gradebook (read only)."""
        resources = self.resources(student, assignment, notebook_id)
        notebook, _ = self._apply(self.sanitizers, notebook, resources)
        return notebook

    def post_process(self, notebook, student, assignment, notebook_id):
        """Limit outputs, save the auto grades and late penalty (writes the gradebook)."""
        resources = self.resources(student, assignment, notebook_id)
        notebook, _ = self._apply(self.post_processors, notebook, resources)
        return notebook

    # -- what Autograde.init_assignment does, minus the notebook loop ------------------
    def known_notebooks(self, assignment) -> list[str]:
        """Notebook ids of the assignment in the gradebook (set by ``release``)."""
        with self.course.gradebook() as gradebook:
            try:
                return sorted(nb.name for nb in gradebook.find_assignment(assignment).notebooks)
            except MissingEntry:
                return []

    def init_submission(self, student, assignment, submitted_dir: Path, staging_dir: Path):
        """Create the student and the submission, copy supporting files.

        Returns
        -------
        dict
            ``timestamp`` (datetime or None) and ``seconds_late`` (float).
        """
        timestamp = self.coursedir.get_existing_timestamp(str(submitted_dir))
        with self.course.gradebook() as gradebook:
            gradebook.update_or_create_student(student)
            if timestamp:
                submission = gradebook.update_or_create_submission(
                    assignment, student, timestamp=timestamp
                )
            else:
                submission = gradebook.update_or_create_submission(assignment, student)
            seconds_late = float(submission.total_seconds_late or 0)
        staging_dir.mkdir(parents=True, exist_ok=True)
        # The student's own files first (as BaseConverter.init_assignment), then the
        # instructor's source files on top (as Autograde.init_assignment).
        self._copy_files(submitted_dir, staging_dir, exclude=[])
        excluded = self.converter.exclude_overwriting.get(assignment, [])
        self._copy_files(self.course.source_dir(assignment), staging_dir, exclude=excluded)
        return {"timestamp": timestamp, "seconds_late": seconds_late}

    def _copy_files(self, source: Path, dest: Path, exclude):
        source = Path(source)
        if not source.is_dir():
            return
        skip = {os.path.join(str(source), name) for name in exclude}
        for filename in nbgrader_utils.find_all_files(str(source), self.coursedir.ignore + ["*.ipynb"]):
            if filename in skip or os.path.islink(filename):
                continue
            target = dest / os.path.relpath(filename, source)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                target.unlink()
            shutil.copy(filename, target)

    def zero_notebook(self, student, assignment, notebook_id):
        """Give every grade of a missing or unreadable notebook zero (as nbgrader does)."""
        self.zero_cells(student, assignment, notebook_id, None)

    def zero_cells(self, student, assignment, notebook_id, grade_ids):
        """Give the grades ``grade_ids`` (None: all) of one submitted notebook zero."""
        with self.course.gradebook() as gradebook:
            submission = gradebook.find_submission_notebook(notebook_id, assignment, student)
            for grade in submission.grades:
                if grade_ids is None or grade.name in grade_ids:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
            gradebook.db.commit()

    def notebook_score(self, student, assignment, notebook_id) -> tuple[float, float, bool]:
        """(score, max_score, needs_manual_grade) of one submitted notebook."""
        with self.course.gradebook() as gradebook:
            notebook = gradebook.find_submission_notebook(notebook_id, assignment, student)
            return float(notebook.score), float(notebook.max_score), bool(notebook.needs_manual_grade)


def _is_execute(preprocessor) -> bool:
    cls = preprocessor if isinstance(preprocessor, type) else type(preprocessor)
    return issubclass(cls, Execute)


