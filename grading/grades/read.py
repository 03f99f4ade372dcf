"""The class's grades, read once from nbgrader's gradebook (scores after late penalties)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class CellGrade:
    """The score of one graded cell in one student's notebook."""

    student: str
    assignment: str
    notebook: str
    grade_id: str
    score: float
    max_score: float
    needs_manual_grade: bool = False
    cell_type: str = "code"  # "markdown" for a written answer

    @property
    def passed(self):
        """True when the cell earned all its points; None while awaiting a manual grade, and for a
        cell of no points (a visible test): the gradebook keeps no pass or fail for it."""
        if self.needs_manual_grade or self.max_score <= 0:
            return None
        # Scores are sums of small decimals; a tolerance avoids 0.1+0.2 surprises.
        return self.score >= self.max_score - 1e-9


@dataclass(frozen=True)
class SubmissionGrade:
    """One student's score on one assignment, as nbgrader stores it."""

    student: str
    assignment: str
    raw_score: float
    late_penalty: float
    max_score: float
    seconds_late: float

    @property
    def score(self) -> float:
        """The score after the late penalty (what goes to the LMS)."""
        return self.raw_score - self.late_penalty


@dataclass
class ClassGrades:
    """Everything the exports and the report need from the gradebook.

    Attributes
    ----------
    students : list of str
        Every student in the gradebook, sorted.
    assignments : list of str
        Every assignment in the gradebook, sorted.
    max_scores : dict of str to float
        Assignment id -> maximum score.
    submissions : dict of (str, str) to SubmissionGrade
        (student, assignment) -> grade, only for submitted assignments.
    cells : list of CellGrade
        Every graded cell of every submission, sorted.
    """

    students: list
    assignments: list
    max_scores: dict
    submissions: dict
    cells: list

    def score(self, student, assignment):
        """The penalised score, or None when the student did not submit."""
        grade = self.submissions.get((student, assignment))
        return None if grade is None else grade.score

    def graded_assignments(self) -> list:
        """The assignments someone submitted (those with grades), sorted."""
        return sorted({assignment for _, assignment in self.submissions})

    def only_graded(self) -> "ClassGrades":
        """The same grades without the assignments nobody submitted (released, not yet due):
        an LMS import would create or touch an empty column for each."""
        return dataclasses.replace(self, assignments=self.graded_assignments())

    def total(self, student) -> float:
        """Sum over assignments, a missing submission counting 0."""
        return sum(self.score(student, a) or 0.0 for a in self.assignments)


def read_class_grades(course) -> ClassGrades:
    """Read every student's and every cell's grade from the course's gradebook.

    Parameters
    ----------
    course : grading.Course
        The course whose gradebook (``course.gradebook()``) is read.

    Returns
    -------
    ClassGrades
    """
    course.require_gradebook()
    with course.gradebook() as gradebook:
        students = sorted(student.id for student in gradebook.students)
        assignments = sorted(assignment.name for assignment in gradebook.assignments)
        max_scores = {a.name: float(a.max_score or 0.0) for a in gradebook.assignments}
        submissions = {}
        cells = []
        for assignment in assignments:
            for submission in gradebook.assignment_submissions(assignment):
                student = submission.student.id
                submissions[(student, assignment)] = SubmissionGrade(
                    student=student,
                    assignment=assignment,
                    raw_score=float(submission.score or 0.0),
                    late_penalty=float(submission.late_submission_penalty or 0.0),
                    max_score=float(submission.max_score or 0.0),
                    seconds_late=float(submission.total_seconds_late or 0.0),
                )
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        cells.append(
                            CellGrade(
                                student=student,
                                assignment=assignment,
                                notebook=notebook.name,
                                grade_id=grade.name,
                                score=float(grade.score or 0.0),
                                max_score=float(grade.max_score or 0.0),
                                needs_manual_grade=bool(grade.needs_manual_grade),
                                cell_type=grade.cell.cell_type,
                            )
                        )
    cells.sort(key=lambda c: (c.student, c.assignment, c.notebook, c.grade_id))
    return ClassGrades(students, assignments, max_scores, submissions, cells)



def not_in_source(course, assignments) -> list:
    """The gradebook's assignments (of ``assignments``) that have no folder in ``source/``: a typo in
    ``nbgrader db assignment add`` or an assignment removed from the course. Nothing can be
    submitted to them, so they show as empty columns."""
    known = set(course.source_assignments())
    return sorted(a for a in assignments if a not in known)


def not_in_source_notice(names) -> str:
    """What ``nbg status``, ``nbg export`` and the report say of :func:`not_in_source`'s assignments."""
    removal = " and ".join(f"`nbgrader db assignment remove {name}`" for name in names)  # the command to copy
    return (f"in the gradebook but not in source/: {', '.join(names)} (a typo in `nbgrader db assignment add`?); "
            f"nothing can be submitted to {'it' if len(names) == 1 else 'them'}: remove with "
            f"{removal}, or add its folder to source/")
