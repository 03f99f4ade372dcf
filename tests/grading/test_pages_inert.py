"""No student-controlled text becomes active content in the pages the instructor opens.

A copy of the shared graded fixture class (graded once per session, graded_class.py; nothing
is graded here) gets hostile markup in every student-controlled field the pages show:

- the report: a student id (a submitted folder named like an ``<img onerror>``), the reason of
  a grading-log record, and answer code with ``</pre><script>`` in the similarity section;
- a feedback page: a markdown answer with ``<script>`` and ``<img onerror>``, LaTeX with
  ``\\text{<script>}``, outputs of the student's cell (``text/html`` with a script,
  ``application/javascript``, an SVG with ``onload``, ``text/markdown``), an error message and a
  printed line carrying markup, and a grading-note reason.

Headless Chromium (selenium, as tests/notebooks/test_handout_browser.py) opens each page from
disk. Every payload would set ``window.__pwned`` or change ``document.title``: neither may have
happened, and the payloads must be on the page as text. Runtime: a few seconds after the
shared class (the report draws three plots; one feedback page; Chromium starts once).
"""

import json
import re

import fixtures
import nbformat
import pytest

from tests.chromium import headless_chromium
from tests.hostile_markup import HTML_OUTPUT, MARKDOWN, OUTPUTS
from graded_class import copy_course, graded_class_root

from grading import Course
from grading.core.text import CONTENT_SECURITY_POLICY
from grading.feedback import generate_feedback
from grading.report import write_report

HOSTILE_ID = "<img src=x onerror=window.__pwned='id';document.title='PWNED'>"
REASON = "<script>window.__pwned='reason';document.title='PWNED'</script>"
SIMILAR_CODE = '''
def mean(values):
    """</pre><script>window.__pwned = 'similarity'; document.title = 'PWNED'</script>"""
    total = 0.0
    count = 0
    for value in values:
        total = total + value
        count = count + 1
    if count == 0:
        raise ValueError("mean of nothing")
    return total / count
'''


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path_factory.mktemp("hostile_pages"))
    course = Course(root)
    # The report: a submitted folder named like markup, sharing hostile code with another student.
    assignment = fixtures.FIXTURE_ASSIGNMENT
    for student in (HOSTILE_ID, "twin"):
        folder = root / "submitted" / student / assignment
        folder.mkdir(parents=True)
        notebook = nbformat.read(root / "submitted" / "perfect" / assignment / f"{assignment}.ipynb", 4)
        fixtures._replace_solution(notebook, "mean_solution", SIMILAR_CODE)
        nbformat.write(notebook, folder / f"{assignment}.ipynb")
    records = [{"student": s, "assignment": assignment, "notebook": assignment, "status": "timeout",
                "reason": REASON, "seconds": 1.0, "sandboxed": True, "score": 0, "max_score": 6,
                "needs_attention": True} for s in (HOSTILE_ID, "perfect")]
    course.grading_log_path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = write_report(course, root / "report.html")
    # A feedback page: the perfect student's autograded notebook with hostile markdown and outputs.
    path = root / "autograded" / "perfect" / assignment / f"{assignment}.ipynb"
    notebook = nbformat.read(path, 4)
    notebook.cells.append(nbformat.v4.new_markdown_cell(MARKDOWN))
    answer = fixtures._cell(notebook, "mean_solution")
    answer.outputs = [nbformat.from_dict(o) for o in OUTPUTS]
    nbformat.write(notebook, path)
    (feedback,) = generate_feedback(course, students=["perfect"])
    return report, feedback


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver


def open_page(browser, path):
    browser.get(path.as_uri())
    # The similarity section's code is inside <details>: opened, as the instructor would.
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    return browser.execute_script("return [window.__pwned === undefined ? null : String(window.__pwned), "
                                  "document.title, document.body.innerText]")


def test_no_script_runs_in_the_report_and_its_text_is_shown(browser, pages):
    report, _ = pages
    pwned, title, text = open_page(browser, report)
    assert pwned is None and title == "Grading report"
    assert HOSTILE_ID in text  # the student id, as text (attention list and similarity section)
    assert REASON in text
    assert "</pre><script>window.__pwned = 'similarity'" in text


def test_no_script_runs_in_a_feedback_page_and_its_text_is_shown(browser, pages):
    _, feedback = pages
    pwned, title, text = open_page(browser, feedback)
    assert pwned is None and title != "PWNED"
    assert "<script>window.__pwned='markdown';document.title='PWNED'</script>" in text
    assert HTML_OUTPUT in text  # an HTML output is shown as its source
    assert "<script>window.__pwned='stream'</script>" in text
    assert "ValueError: <img src=x onerror=\"window.__pwned='traceback'\">" in text  # the error, as text
    assert "$\\text{<script>window.__pwned='math'</script>}$" in text  # LaTeX with markup: as written
    assert "window.__pwned='js-output'" not in text  # a script output with a text form shows that


def test_pages_carry_the_content_security_policy(pages):
    for page in pages:
        head = page.read_text(encoding="utf-8").split("</head>")[0]
        (meta,) = re.findall(r"<meta[^>]*Content-Security-Policy[^>]*>", head)
        assert f'content="{CONTENT_SECURITY_POLICY}"' in meta
        assert "<script" not in head[:head.index(meta)]  # the policy comes before any script


def test_attachments_keep_only_images_drawn_as_they_are():
    from grading.feedback.inert import InertStudentContent

    cell = nbformat.v4.new_markdown_cell("![a](attachment:a.svg) ![b](attachment:b.png)")
    cell["attachments"] = {"a.svg": {"image/svg+xml": "<svg onload='x()'/>"}, "b.png": {"image/png": "iVBOR"}}
    raw = nbformat.v4.new_raw_cell("<script>x()</script>", metadata={"format": "text/html"})
    notebook = nbformat.v4.new_notebook(cells=[cell, raw])
    InertStudentContent().preprocess(notebook, {})
    assert notebook.cells[0].attachments == {"b.png": {"image/png": "iVBOR"}}
    assert notebook.cells[1].source == "&lt;script>x()&lt;/script>"
