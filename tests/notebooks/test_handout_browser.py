"""A student opens a release notebook in JupyterLab and runs all cells.

JupyterLab runs from an environment made from the hand-out alone
(tests/student_env.py: the kit's wheel, the public libraries, no nbgrader
config, no repository) on 127.0.0.1 with a random free port and a token, in a
temporary folder holding only the release notebook. Headless Chromium
(Debian's ``chromium`` and ``chromium-driver``: ``make browser`` installs
them) opens the notebook, clicks Run > Run All Cells as a person would, and
must see the first visible test fail on the stub with ``NotImplementedError``,
and no instructor tools (nbgrader's menu, "Error fetching courses!").

The environment sees the public libraries of this project's environment
(JupyterLab included) through a ``.pth`` line; JupyterLab's page assets are
those of that same installation (``JUPYTERLAB_DIR``), since the student
environment has no ``share/jupyter/lab`` of its own. No other Jupyter
folder of this machine is read: config, data, runtime and settings folders
are temporary.

Runtime: about 40 s (one release, a fresh environment, JupyterLab, a kernel).
"""

import http.client
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.chromium import headless_chromium

from grading.core.course import Course
from grading.release import build_release
from tests.student_env import clean_env, make_student_venv, student_python

from .conftest import COURSE_ROOT, is_autograded_test

ASSIGNMENT = "01_bayes_mle_map"
SERVER_START_TIMEOUT = 90
PAGE_TIMEOUT = 120  # the notebook page and its kernel ready
RUN_TIMEOUT = 180  # Run All Cells reaching the first visible test
SCREENSHOT = Path("/tmp/handout-browser-jupyterlab.png")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(url, process, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, http.client.HTTPException):  # not up yet, or another process's socket on the port
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer {url} within {timeout} s")


def _stop(process):
    """Stop the server and its kernels (its own process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # kernels left behind, if any
    except ProcessLookupError:
        pass
    process.wait(timeout=15)


@pytest.fixture
def release_notebook(tmp_path):
    root = tmp_path / "course"
    (root / "source").mkdir(parents=True)
    shutil.copy(COURSE_ROOT / "nbgrader_config.py", root)
    shutil.copytree(COURSE_ROOT / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    course = Course(root)
    build_release(course, [ASSIGNMENT])
    (wheel,) = (course.release_root / "handout").glob("*.whl")
    venv = make_student_venv(wheel, tmp_path / "student-venv")
    workdir = tmp_path / "student"
    workdir.mkdir()
    notebook = shutil.copy(course.release_dir(ASSIGNMENT) / f"{ASSIGNMENT}.ipynb", workdir)
    return venv, Path(notebook)


@pytest.fixture
def jupyterlab(release_notebook, tmp_path):
    """JupyterLab of the student environment serving the notebook's folder; yields (url, token)."""
    venv, notebook = release_notebook
    token = secrets.token_hex(16)
    env = clean_env(venv)
    jupyter_home = tmp_path / "jupyter"
    env.update(
        JUPYTERLAB_DIR=str(Path(sysconfig.get_paths()["data"]) / "share" / "jupyter" / "lab"),
        JUPYTER_CONFIG_DIR=str(jupyter_home / "config"),
        JUPYTER_DATA_DIR=str(jupyter_home / "data"),
        JUPYTER_RUNTIME_DIR=str(jupyter_home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(jupyter_home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(jupyter_home / "workspaces"),
        IPYTHONDIR=str(jupyter_home / "ipython"),
    )
    log = (tmp_path / "jupyterlab.log").open("w")
    # The free port can be taken by another process (a kernel's ZMQ socket of the other test worker)
    # before JupyterLab binds it; JupyterLab then exits (--port-retries=0) and starts on a new one.
    for attempt in range(3):
        port = _free_port()
        process = subprocess.Popen(
            [str(student_python(venv)), "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
             f"--ServerApp.root_dir={notebook.parent}",
             # No network: no extension catalogue, news or update check.
             "--LabApp.extension_manager=readonly", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             *(["--allow-root"] if os.geteuid() == 0 else [])],  # CI runs as root
            cwd=notebook.parent, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_for_server(f"{url}/api/status?token={token}", process, SERVER_START_TIMEOUT)
            break
        except RuntimeError:  # exited before answering
            _stop(process)
            if attempt == 2:
                log.close()
                raise
        except BaseException:  # did not answer in time, or the test run was stopped
            _stop(process)
            log.close()
            raise
    try:
        yield url, token, notebook
    finally:
        _stop(process)
        log.close()
        sys.stdout.write((tmp_path / "jupyterlab.log").read_text()[-3000:])


@pytest.fixture
def browser():
    with headless_chromium(page_timeout=PAGE_TIMEOUT) as driver:
        yield driver


def _first_visible_test_source(notebook_path):
    notebook = nbformat.read(notebook_path, as_version=4)
    return next(cell.source for cell in notebook.cells if is_autograded_test(cell))


@pytest.mark.slow
def test_run_all_cells_in_jupyterlab_fails_the_first_visible_test_on_the_stub(jupyterlab, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    url, token, notebook = jupyterlab
    browser.get(f"{url}/lab/tree/{notebook.name}?token={token}")
    wait = WebDriverWait(browser, PAGE_TIMEOUT)
    # The notebook is open and its kernel (the student environment's Python) is idle.
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")))
    wait.until(lambda d: "Idle" in d.find_element(By.ID, "jp-main-statusbar").text)

    menus = [item.text for item in browser.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")]
    assert "Run" in menus and "Kernel" in menus, menus
    assert not [m for m in menus if "nbgrader" in m.lower()], f"instructor menu in the student's JupyterLab: {menus}"

    browser.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') and text()='Run']").click()
    wait.until(ready.element_to_be_clickable(
        (By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"))).click()

    error = WebDriverWait(browser, RUN_TIMEOUT).until(ready.presence_of_element_located(
        (By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")))
    time.sleep(2)  # let the aborted queue settle before the picture and the count
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", error)
    browser.save_screenshot(str(SCREENSHOT))

    errors = browser.find_elements(
        By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert len(errors) == 1, [e.text[:200] for e in errors]
    assert "NotImplementedError" in error.text, error.text[-2000:]
    failed_cell = error.find_element(By.XPATH, "./ancestor::div[contains(@class,'jp-CodeCell')]")
    shown_source = failed_cell.find_element(By.CSS_SELECTOR, ".jp-InputArea-editor").text
    first_line = _first_visible_test_source(notebook).strip().splitlines()[0]
    assert first_line in shown_source, (
        f"the error is not in the first visible test (starts {first_line!r}):\n{shown_source[:500]}")
    assert "Error fetching courses" not in browser.page_source
