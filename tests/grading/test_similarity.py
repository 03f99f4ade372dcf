"""Similar answers: copydetect's fingerprints on real submitted notebooks, in the report.

No grading is needed: the pairs come from ``submitted/``, ``source/`` and ``release/``.
"""

import html
import re

import fixtures
import nbformat
import pytest

from grading import Course
from grading.report.similarity import similar_pairs

OWN_MEAN = '''
def mean(values):
    total = 0.0
    count = 0
    for value in values:
        total = total + value
        count = count + 1
    if count == 0:
        raise ValueError("mean of nothing")
    return total / count
'''
# The same code with every name changed and a comment added: still a copy.
RENAMED_MEAN = '''
def mean(values):
    # my own loop
    acc = 0.0
    n = 0
    for v in values:
        acc = acc + v
        n = n + 1
    if n == 0:
        raise ValueError("empty list")
    return acc / n
'''
OTHER_MEAN = '''
def mean(values):
    items = list(values)
    return sum(item for item in items) / max(len(items), 1)
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("similarity")
    fixtures.write_course(root)
    release = fixtures.stock_generate_assignment(root)
    answers = {"twin_a": OWN_MEAN, "twin_b": RENAMED_MEAN, "other": OTHER_MEAN,
               "perfect": None, "perfect_too": None, "blank": "blank"}
    for student, mean in answers.items():
        notebook = fixtures.student_notebook(release, "blank" if mean == "blank" else "perfect")
        if mean not in (None, "blank"):
            fixtures._replace_solution(notebook, "mean_solution", mean)
        folder = root / "submitted" / student / fixtures.FIXTURE_ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / f"{fixtures.FIXTURE_ASSIGNMENT}.ipynb")
    return Course(root)


def test_only_the_copied_pair_is_listed(course):
    pairs = similar_pairs(course)
    assert [p.students for p in pairs] == [("twin_a", "twin_b")]
    assert min(pairs[0].similarity) > 0.9  # renaming and comments change nothing
    assert "<mark>" in pairs[0].highlighted[0] and "acc" in pairs[0].highlighted[1]
    # Two students with the instructor's solution, or the skeleton, are never a pair.


def test_threshold_is_checked(course):
    with pytest.raises(ValueError, match="threshold"):
        similar_pairs(course, threshold=80)


def test_report_lists_the_pair_without_changing_scores(tmp_path):
    # A graded class is needed for the report: grade nothing, read the empty gradebook.
    root = tmp_path / "course"
    fixtures.write_course(root)
    release = fixtures.stock_generate_assignment(root)
    for student, mean in (("twin_a", OWN_MEAN), ("twin_b", RENAMED_MEAN)):
        notebook = fixtures.student_notebook(release, "perfect")
        fixtures._replace_solution(notebook, "mean_solution", mean)
        folder = root / "submitted" / student / fixtures.FIXTURE_ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / f"{fixtures.FIXTURE_ASSIGNMENT}.ipynb")
    from grading.report import write_report

    page = write_report(Course(root), tmp_path / "report.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    section = text.split("Similar answers")[1]
    assert "ps_fixture/ps_fixture: twin_a and twin_b" in section
    assert "no score is changed" in section
