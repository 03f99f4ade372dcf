"""Every route to feedback is safe: the course's nbgrader configuration makes
stock ``nbgrader generate_feedback`` (and the formgrader's "Generate Feedback"
button, which calls ``NbGraderAPI.generate_feedback``) hide the hidden tests, make the
student's markup inert and put nbg's Content Security Policy first in the page's ``<head>``.

The graded fixture class (graded_class.py, shared per session) gets the
course's own ``course/nbgrader_config.py`` in front of its fixture settings;
stock nbgrader then renders the feedback. Without that configuration the same
command leaks the hidden tests (test_feedback.py's
``test_stock_nbgrader_feedback_does_leak_hidden_tests`` keeps that control).

Runtime: the shared graded class (~15 s, once per session), then ~15 s.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import fixtures
import pytest
from graded_class import STUDENTS, copy_course, graded_class_root
from test_feedback import hidden_lines, page_text

from grading.core.text import CONTENT_SECURITY_POLICY

COURSE_CONFIG = Path(__file__).resolve().parents[2] / "course" / "nbgrader_config.py"


@pytest.fixture(scope="module")
def course_configured_class(tmp_path_factory):
    """A copy of the graded class whose config starts with the course's own."""
    root = copy_course(graded_class_root(tmp_path_factory), tmp_path_factory.mktemp("stock-fb"))
    fixture_config = (root / "nbgrader_config.py").read_text()
    (root / "nbgrader_config.py").write_text(COURSE_CONFIG.read_text() + "\n" + fixture_config)
    return root


def _run_nbgrader(root, *args):
    env = dict(os.environ)
    # nbgrader runs its environment's `alembic`: the interpreter's bin folder first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def _assert_content_security_policy(path):
    """The policy, as nbg's own pages carry it, before anything else in <head> (a script above it would run)."""
    head = path.read_text(encoding="utf-8").split("</head>")[0]
    (meta,) = re.findall(r"<meta[^>]*Content-Security-Policy[^>]*>", head)
    assert f'content="{CONTENT_SECURITY_POLICY}"' in meta
    assert head.split("<head>", 1)[1].lstrip().startswith(meta), head[:400]


def _assert_no_hidden_source(path):
    text = page_text(path)
    for snippet in fixtures.HIDDEN_SOURCE_SNIPPETS:
        assert snippet not in text, (path, snippet)
    for line in hidden_lines():
        assert line not in text, (path, line)


@pytest.mark.slow
def test_stock_nbgrader_generate_feedback_shows_no_hidden_test(course_configured_class):
    root = course_configured_class
    process = _run_nbgrader(root, "generate_feedback", "ps_fixture", "--force")
    assert process.returncode == 0, process.stdout[-2000:] + process.stderr[-3000:]
    assert "[GenerateFeedbackApp | ERROR]" not in process.stderr, process.stderr[-3000:]

    written = sorted(root.glob("feedback/*/ps_fixture/ps_fixture.html"))
    assert [path.parts[-3] for path in written] == sorted(STUDENTS)
    assert len(hidden_lines()) == 6  # the check below looks for six lines: not vacuous
    for path in written:
        _assert_no_hidden_source(path)
        _assert_content_security_policy(path)
    # What the student may see is still there: the failure message and the visible test.
    wrong = page_text(root / "feedback" / "wrong_hidden" / "ps_fixture" / "ps_fixture.html")
    assert fixtures.HIDDEN_FAILURE_MESSAGES["test_add_hidden"] in wrong
    assert 'assert add(2, 3) == 5, "add(2, 3) should be 5"' in wrong


@pytest.mark.slow
def test_formgrader_generate_feedback_button_shows_no_hidden_test(course_configured_class, tmp_path):
    # The button's handler calls NbGraderAPI.generate_feedback(assignment, student)
    # with the configuration the formgrader loaded from the course folder.
    root = copy_course(course_configured_class, tmp_path)
    result = fixtures._api(root).generate_feedback("ps_fixture", "wrong_hidden", force=True)
    assert result["success"], result.get("log")
    page = root / "feedback" / "wrong_hidden" / "ps_fixture" / "ps_fixture.html"
    _assert_no_hidden_source(page)
    _assert_content_security_policy(page)
    assert fixtures.HIDDEN_FAILURE_MESSAGES["test_add_hidden"] in page_text(page)
