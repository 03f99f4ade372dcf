"""The formgrader's submission view of an nbg-autograded notebook runs none of the student's markup.

nbgrader's formgrader (the instructor's web UI for grading by hand) renders the autograded notebook
with nbconvert's HTML exporter inside a page of its own, which needs its own scripts: a Content
Security Policy cannot be put on it, and stock nbgrader renders ``text/html`` outputs and a
markdown cell's raw HTML as they are. The course's ``nbgrader_config.py`` gives that exporter
nbg's inert step (``c.HTMLExporter.preprocessors``, grading/feedback/inert.py).

A copy of the shared graded fixture class (graded once per session, graded_class.py; nothing is
graded here, since grading a class of its own would cost more than the rest of this file) gets,
in one student's autograded notebook as nbg wrote it, hostile markup in every field the student
controls: a markdown cell, the answer cell's outputs (``text/html``, ``text/markdown``,
JavaScript, SVG, a printed line, an error), the failure message and traceback of a test cell
(where nbg writes the judge's message and the diagnosis's words), the reason nbg writes into a
cell it did not run, and nbg's metadata
(``nbg_diagnosis``, ``nbg_library``). A real ``jupyter server`` with the formgrader, started here
on 127.0.0.1 with a token in the course folder, serves the submission view to headless
Chromium (offline); every payload would set ``window.__pwned`` or ``document.title``.

The control runs the same view with the course config minus that one line, and asserts that the
student's script does run there: that is stock nbgrader's formgrader, and why the line is needed.
Runtime: about 15 s (two servers, Chromium once).
"""

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import fixtures
import nbformat
import pytest
from graded_class import copy_course, graded_class_root

from tests.chromium import headless_chromium
from tests.hostile_markup import HTML_OUTPUT, MARKDOWN, OUTPUTS

COURSE_CONFIG = Path(__file__).resolve().parents[2] / "course" / "nbgrader_config.py"
INERT_LINE = 'c.HTMLExporter.preprocessors = ["grading.plugins.InertStudentContent"]\n'
STUDENT = "wrong_hidden"
ASSIGNMENT = fixtures.FIXTURE_ASSIGNMENT
SERVER_START_TIMEOUT = 60
SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.validate_assignment",
                     "nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.course_list",
                     "jupyterlab", "jupyter_lsp", "notebook", "notebook_shim", "jupyter_server_terminals")

# What nbg writes for a failed test cell: the judge's message (here carrying the student's text), the
# diagnosis's words after it, and one traceback line (grading/execution/kernel.py).
TEST_MESSAGE = ("add(-1, 2) returned <script>window.__pwned='test-message'</script>\n\n"
                "This looks like <img src=x onerror=\"window.__pwned='diagnosis'\">")

REASON = "not run because the kernel died in cell 3: <script>window.__pwned='reason'</script>"


def hostile_course(graded_root, tmp_path, config_text):
    """A copy of the graded class with the hostile autograded notebook and ``config_text`` first."""
    root = copy_course(graded_root, tmp_path)
    fixture_config = (root / "nbgrader_config.py").read_text()
    (root / "nbgrader_config.py").write_text(config_text + "\n" + fixture_config)
    path = root / "autograded" / STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.read(path, 4)
    notebook.cells.append(nbformat.v4.new_markdown_cell(MARKDOWN))
    fixtures._cell(notebook, "mean_solution").outputs = [nbformat.from_dict(o) for o in OUTPUTS]
    test = fixtures._cell(notebook, "test_add_hidden")
    test.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=TEST_MESSAGE,
                                           traceback=[f"AssertionError: {TEST_MESSAGE}"])]
    # A cell left unrun: nbg writes the reason, which can quote the student's own error message.
    fixtures._cell(notebook, "test_mean_hidden").outputs = [nbformat.v4.new_output(
        "error", ename="NotExecuted", evalue=REASON, traceback=[f"NotExecuted: {REASON}"])]
    test.metadata["nbg_diagnosis"] = ["add/<img src=x onerror=\"window.__pwned='nbg_diagnosis'\">"]
    notebook.metadata["nbg_library"] = {"add": ["<script>window.__pwned='nbg_library'</script>"]}
    nbformat.write(notebook, path)
    return root


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(process):
    """Stop the server (its own process group); kill what is left."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=15)


@contextlib.contextmanager
def formgrader(root, tmp_path):
    """A real ``jupyter server`` with nbgrader's formgrader in ``root``; yields (url, token)."""
    port, token = _free_port(), secrets.token_hex(16)
    home = tmp_path / "jupyter"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # The formgrader alone: JupyterLab, the language servers and the rest add seconds to the start.
    (home / "config").mkdir(parents=True)
    (home / "config" / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"jpserver_extensions": {
        name: name == "nbgrader.server_extensions.formgrader" for name in SERVER_EXTENSIONS}}}))
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             "--port-retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             *(["--allow-root"] if os.geteuid() == 0 else [])],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while True:
                assert process.poll() is None, log_path.read_text()[-3000:]
                try:
                    with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5):
                        break
                except OSError:
                    assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                    time.sleep(0.3)
            yield url, token
        finally:
            _stop(process)
            sys.stdout.write(log_path.read_text()[-2000:])


def submission_id(root):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, STUDENT).id


def open_submission(browser, root, tmp_path):
    """The formgrader's view of the hostile submission: (window.__pwned, title, text, html)."""
    with formgrader(root, tmp_path) as (url, token):
        browser.get(f"{url}/formgrader/submissions/{submission_id(root)}/?token={token}")
        deadline = time.monotonic() + 10  # every <img src=x> has failed (its onerror ran, if allowed)
        while time.monotonic() < deadline and not browser.execute_script(
                "return document.readyState === 'complete' && "
                "Array.from(document.images).every(i => i.complete)"):
            time.sleep(0.1)
        time.sleep(0.5)
        return browser.execute_script(
            "return [window.__pwned === undefined ? null : String(window.__pwned), document.title, "
            "document.body.innerText, document.documentElement.outerHTML]")


@pytest.fixture(scope="module")
def graded_root(tmp_path_factory):
    return graded_class_root(tmp_path_factory)


@pytest.fixture(scope="module")
def browser():
    with headless_chromium(offline=True) as driver:
        yield driver


def test_the_formgrader_runs_no_script_of_the_students_and_shows_it_as_text(graded_root, browser, tmp_path):
    root = hostile_course(graded_root, tmp_path, COURSE_CONFIG.read_text())
    pwned, title, text, html = open_submission(browser, root, tmp_path)
    assert "Full credit" in text and "def add(a, b)" in text  # the grading view itself, with the answer
    assert pwned is None and title != "PWNED", (pwned, title)
    assert "<script>window.__pwned='markdown';document.title='PWNED'</script>" in text
    assert HTML_OUTPUT in text  # an HTML output is shown as its source
    assert "<script>window.__pwned='stream'</script>" in text
    assert "ValueError: <img src=x onerror=\"window.__pwned='traceback'\">" in text
    assert "add(-1, 2) returned <script>window.__pwned='test-message'</script>" in text
    assert "This looks like <img src=x onerror=\"window.__pwned='diagnosis'\">" in text
    assert f"NotExecuted: {REASON}" in text
    assert not re.search(r"<(script|img src=\"?x|svg)[^>]*__pwned", html, re.I)  # no payload is an element


def test_stock_formgrader_runs_the_students_script_the_control(graded_root, browser, tmp_path):
    """Without the course config's inert line the same view runs the student's markup: the line is needed."""
    config = COURSE_CONFIG.read_text()
    assert INERT_LINE in config
    root = hostile_course(graded_root, tmp_path, config.replace(INERT_LINE, ""))
    pwned, _, _, _ = open_submission(browser, root, tmp_path)
    assert pwned is not None
