"""Pairs of submissions whose answers are nearly identical, for the instructor to review.

For each notebook of an assignment, every student's answer cells (the code
cells that are solution cells in the source notebook) are put together and
fingerprinted with `copydetect <https://github.com/blingenf/copydetect>`_
(winnowing, as MOSS: the code is tokenized with Pygments and names are
replaced by placeholders, so renaming variables or changing comments does
not hide a copy). Fingerprints of the code the students were given (the
release's skeleton) and of the instructor's solution are discarded first:
code everyone was given, or the reference answer that many reach on their
own, is not evidence that two students worked together.

The result is a list for the report, never a penalty: two students who
wrote the same short answer independently look the same here.
"""

from __future__ import annotations

import dataclasses
import io
import itertools

import nbformat
import numpy as np

from grading.core.errors import NbgError

NOISE_THRESHOLD = 25  # copydetect's default: shortest match (filtered characters) that counts
GUARANTEE_THRESHOLD = 30  # copydetect's default: matches this long are always found
DEFAULT_THRESHOLD = 0.8
MIN_SHARED = 2 * NOISE_THRESHOLD  # shared filtered characters below which a pair is not listed


@dataclasses.dataclass(frozen=True)
class SimilarPair:
    """Two students' answers to one notebook that share most of their fingerprints."""

    assignment: str
    notebook: str
    students: tuple
    similarity: tuple  # share of each student's own answer code found in the other's
    highlighted: tuple  # each side's answer cells that share code, as HTML, shared parts in <mark>

    @property
    def score(self) -> float:
        return max(self.similarity)


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _without_solution_markers(text):
    return "\n".join(line for line in text.split("\n")
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


def _fingerprint(text, win_size, boilerplate=None):
    from copydetect import CodeFingerprint

    return CodeFingerprint("answers.py", NOISE_THRESHOLD, win_size, boilerplate=boilerplate,
                           fp=io.StringIO(text))


def answer_texts(course, assignment, notebook_path):
    """(given code, {student: [answer code per answer cell]}) for one source notebook.

    Cells are kept apart (and compared cell with cell) so that code spanning
    two answers never makes a match.
    """
    source = nbformat.read(notebook_path, as_version=4)
    answer_ids = [_grade_id(c) for c in source.cells
                  if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
    given = [_without_solution_markers(c.source) for c in source.cells if _grade_id(c) in answer_ids]
    release_path = course.release_dir(assignment) / notebook_path.name
    if release_path.is_file():
        release = nbformat.read(release_path, as_version=4)
        given += [c.source for c in release.cells if _grade_id(c) in answer_ids]
    answers = {}
    for student in course.submitted_students(assignment):
        path = course.submitted_dir(student, assignment) / notebook_path.name
        try:
            submitted = nbformat.read(path, as_version=4)
        except Exception:  # missing or unreadable: autograde reports it
            continue
        cells = {_grade_id(c): c.source for c in submitted.cells if c.cell_type == "code"}
        answers[student] = [str(cells.get(grade_id) or "") for grade_id in answer_ids]
    return given, answers


def _compare(prints_a, prints_b):
    """Shared share of each side over all answer cells, and the per-cell slices."""
    from copydetect import compare_files

    shared, covered, slices = np.zeros(2), np.zeros(2), []
    for a, b in zip(prints_a, prints_b):
        coverage = np.array([a.token_coverage, b.token_coverage], dtype=float)
        overlap, similarity, cell_slices = compare_files(a, b)
        covered += coverage
        if overlap:
            shared += np.array(similarity) * coverage
        slices.append(cell_slices if overlap else None)
    similarity = tuple(float(s / c) if c else 0.0 for s, c in zip(shared, covered))
    return shared, similarity, slices


def _highlight(prints, slices) -> str:
    from copydetect.utils import highlight_overlap

    parts = []
    for fingerprint, part in zip(prints, slices):
        if part is not None:  # only the answer cells that share code
            parts.append(highlight_overlap(fingerprint.raw_code, part, "<mark>", "</mark>",
                                           escape_html=True)[0])
    return "\n\n".join(parts)


def similar_pairs(course, assignments=None, threshold=DEFAULT_THRESHOLD) -> list:
    """Pairs whose answers share at least ``threshold`` of one side's fingerprinted code.

    Parameters
    ----------
    course : grading.Course
    assignments : list of str, optional
        Default: every assignment in ``source/``.
    threshold : float
        Between 0 and 1.

    Returns
    -------
    list of SimilarPair
        Most similar first.
    """
    if not 0 < threshold <= 1:
        raise NbgError(f"the similarity threshold must be in (0, 1], got {threshold}")
    win_size = GUARANTEE_THRESHOLD - NOISE_THRESHOLD + 1
    pairs = []
    for assignment in assignments or course.source_assignments():
        for notebook_path in course.source_notebooks(assignment):
            given, answers = answer_texts(course, assignment, notebook_path)
            boilerplate = np.array(sorted(set().union(*(_fingerprint(g, 1).hashes for g in given))))
            prints = {s: [_fingerprint(text, win_size, boilerplate) for text in texts]
                      for s, texts in answers.items()}
            # Most pairs share no fingerprint at all: a set intersection rules them out cheaply.
            hashes = {s: set().union(*(p.hashes for p in cells)) for s, cells in prints.items()}
            for first, second in itertools.combinations(sorted(prints), 2):
                if not hashes[first] & hashes[second]:
                    continue
                shared, similarity, slices = _compare(prints[first], prints[second])
                # A few shared characters over a tiny own answer are no evidence.
                if min(shared) < MIN_SHARED or max(similarity) < threshold:
                    continue
                marked = (_highlight(prints[first], [s and s[0] for s in slices]),
                          _highlight(prints[second], [s and s[1] for s in slices]))
                pairs.append(SimilarPair(assignment, notebook_path.stem, (first, second),
                                         similarity, marked))
    return sorted(pairs, key=lambda p: (-p.score, p.assignment, p.students))


