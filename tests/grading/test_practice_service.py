"""``nbg serve`` as a student meets it: a real server on loopback, a real HTTP client, sandboxed kernels.

One server (started once for the module, as a user would: ``nbg --course C serve``) checks the
small fixture class (:mod:`tests.grading.practice_server`); every check runs a real kernel and the
judge, a few seconds each, so the tests send as few as they can and assert all they can on each
reply. The budget is 2 checks per function and hour, 2 workers and a queue of 2, a body must
arrive within 3 s. The HTTPS and Dask test starts a second server on the same course (its own
certificate, its own Dask scheduler and worker); the JupyterLab test runs the student's
JupyterLab from the hand-out's environment (the kit's wheel, tests/student_env.py).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.chromium import browser_tools, headless_chromium

from grading.core.course import Course
from grading.core.practice_log import read_attempts
from tests.grading.fixtures import FIXTURE_ASSIGNMENT, HIDDEN_FAILURE_MESSAGES, HIDDEN_SOURCE_SNIPPETS
from tests.grading.practice_server import (WORDS, PracticeServer, issue_tokens, nbg, notebook_bytes, notebook_with_add,
                                           practice_course, self_signed_certificate)

pytestmark = pytest.mark.slow

BUDGET = 2
STUDENTS = ["alice", "bob", "carol", "dave", "eve", "frank", "gina", "hal", "ivy", *(f"load{i}" for i in range(10))]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("practice")
    root = practice_course(folder / "course", "c.PracticeService.body_timeout = 3\n")
    tokens = issue_tokens(root, STUDENTS, folder / "tokens.csv")
    server = PracticeServer(root, "--budget", str(BUDGET), "--workers", "2", "--queue", "2",
                            "--max-bytes", "200000")
    try:
        yield server, tokens, root
    finally:
        server.stop()
    assert server.process.returncode is not None


def _attempts(root, student=None):
    return read_attempts(Course(root).db_url, FIXTURE_ASSIGNMENT, student)


def _function(reply, name):
    return next(f for f in reply["functions"] if f["function"] == name)


def test_a_catalogued_mistake_gets_its_words_and_the_fix_passes(served):
    server, tokens, root = served
    status, _, reply = server.check(tokens["alice"], notebook_bytes(root, "wrong_hidden"))
    assert status == 200, reply
    add = _function(reply, "add")
    assert add["passed"] is False and add["section"] == "Fixture assignment" and add["checks_left"] == BUDGET - 1
    hidden = next(c for c in add["cells"] if c["cell"] == "test_add_hidden")
    assert hidden == {"cell": "test_add_hidden", "hidden": True, "passed": False,
                      "message": f"AssertionError: {HIDDEN_FAILURE_MESSAGES['test_add_hidden']}",
                      "diagnosis": f"Your answer behaves like a known mistake: {WORDS}"}
    assert _function(reply, "mean")["passed"] is True and reply["counted"] is False
    text = json.dumps(reply)
    assert not any(snippet in text for snippet in HIDDEN_SOURCE_SNIPPETS)  # never the hidden tests' code

    status, _, fixed = server.check(tokens["alice"], notebook_bytes(root, "perfect"))
    assert status == 200 and all(f["passed"] for f in fixed["functions"]) and fixed["attempt"] == 2
    assert _function(fixed, "add")["checks_left"] == BUDGET - 2
    rows = _attempts(root, "alice")
    assert [(a.function, a.attempt, a.passed, a.mistakes) for a in rows] == [
        ("add", 1, False, ("absolute_values",)), ("mean", 1, True, ()), ("add", 2, True, ()), ("mean", 2, True, ())]
    with Course(root).gradebook() as gradebook:  # nothing reached the grades
        assert gradebook.find_assignment(FIXTURE_ASSIGNMENT).submissions == [] and gradebook.students == []


def test_another_student_cannot_read_those_results(served):
    server, tokens, root = served
    status, _, own = server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", token=tokens["bob"])
    assert status == 200 and own["student"] == "bob" and own["attempts"] == []
    # asking for alice by name changes nothing: the identity is the token's
    status, _, same = server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}?student=alice", token=tokens["bob"],
                                     headers={"X-Forwarded-User": "alice", "X-Student": "alice"})
    assert status == 200 and same["student"] == "bob" and same["attempts"] == []


@pytest.mark.parametrize("headers", [{}, {"Authorization": "token not-a-token"}, {"Authorization": "Basic YWxpY2U6eA=="},
                                     {"Authorization": "token "}, {"X-Forwarded-User": "alice"}])
def test_no_valid_token_is_401_and_counts_nothing(served, headers):
    server, _, root = served
    before = len(_attempts(root))
    for method, path, body in (("POST", f"/check/{FIXTURE_ASSIGNMENT}", notebook_bytes(server.root, "perfect")),
                               ("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", None)):
        status, answer_headers, reply = server.request(method, path, body=body, headers=headers)
        assert status == 401 and "token" in reply["error"] and "WWW-Authenticate" in answer_headers
    assert len(_attempts(root)) == before


def test_the_budget_is_enforced_exactly_and_refusals_cost_nothing(served):
    server, tokens, root = served
    body = notebook_bytes(root, "wrong_hidden")
    left = []
    for _ in range(BUDGET):
        status, _, reply = server.check(tokens["dave"], body, "?function=mean")
        assert status == 200, reply
        left.append(_function(reply, "mean")["checks_left"])
    assert left == [1, 0] and [f["function"] for f in reply["functions"]] == ["mean"]
    status, headers, reply = server.check(tokens["dave"], body, "?function=mean")
    assert status == 429 and int(headers["Retry-After"]) > 3500 and reply["checks_left"] == {"mean": 0}
    # asking for both functions checks only the one with checks left, and says so
    status, _, reply = server.check(tokens["dave"], body)
    assert status == 200 and [f["function"] for f in reply["functions"]] == ["add"]
    assert reply["not_checked"] == [{"function": "mean", "why": "no checks left in this window", "checks_left": 0}]
    rows = _attempts(root, "dave")
    assert sum(a.function == "mean" for a in rows) == BUDGET and sum(a.function == "add" for a in rows) == 1


def test_budget_evasion_by_names_and_by_a_second_request_at_once(served):
    server, tokens, root = served
    body = notebook_bytes(root, "perfect")
    for query in ("?function=Mean", "?function=mean_", "?notebook=other", "?function=test_mean_hidden"):
        status, _, reply = server.check(tokens["carol"], body, query)
        assert status == 404, (query, reply)
    status, _, _ = server.request("POST", "/check/..%2Fsource", body=body, token=tokens["carol"])
    assert status == 404
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(server.check(tokens["carol"], body, "?function=add")))
               for _ in range(2)]
    for thread in threads:
        thread.start()
        time.sleep(0.3)  # the second arrives while the first runs
    for thread in threads:
        thread.join()
    assert sorted(status for status, _, _ in answers) == [200, 429]
    refused = next(a for a in answers if a[0] == 429)
    assert "still running" in refused[2]["error"] and int(refused[1]["Retry-After"]) >= 1
    assert [(a.function, a.attempt) for a in _attempts(root, "carol")] == [("add", 1)]


def test_oversized_missing_length_and_unreadable_bodies_are_refused_uncounted(served):
    server, tokens, root = served
    before = len(_attempts(root))
    status, _, reply = server.request("POST", f"/check/{FIXTURE_ASSIGNMENT}", token=tokens["eve"],
                                      headers={"Content-Length": "999999999"})
    assert status == 413 and "Clear Outputs" in reply["error"]
    big = b'{"cells": [], "pad": "' + b"x" * 300_000 + b'"}'
    status, _, _ = server.check(tokens["eve"], big)
    assert status == 413
    for broken in (b'{"cells": [ this is not JSON', b"\xff\xfe not utf-8", b'{"cells": [{"cell_type": "code", "source": 7}]}'):
        status, _, reply = server.check(tokens["eve"], broken)
        assert status == 422 and "not counted" in reply["error"], reply
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)  # chunked: no length
    connection.sendall(f"POST /check/{FIXTURE_ASSIGNMENT} HTTP/1.1\r\nHost: x\r\nAuthorization: token {tokens['eve']}\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n".encode())
    assert b" 411 " in connection.recv(4096).split(b"\r\n")[0]
    connection.close()
    assert len(_attempts(root)) == before


def test_a_slow_body_is_cut_off_and_the_service_keeps_answering(served):
    server, tokens, root = served
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    connection.sendall(f"POST /check/{FIXTURE_ASSIGNMENT} HTTP/1.1\r\nHost: x\r\nAuthorization: token {tokens['eve']}\r\n"
                       "Content-Length: 5000\r\n\r\n{\"cells\"".encode())
    started = time.monotonic()
    assert server.request("GET", "/health")[0] == 200  # others are served meanwhile
    data = connection.recv(4096)  # the server closes it after the body timeout (3 s)
    assert time.monotonic() - started < 15 and (data == b"" or b" 400 " in data or b" 408 " in data)
    connection.close()
    assert _attempts(root, "eve") == []


def test_a_hostile_notebook_gains_nothing(served):
    server, tokens, root = served
    secret = (root / ".nbg" / "test_secret").read_text().strip()
    hashes = (root / ".nbg" / "practice_tokens.json").read_text()
    steal = ("def add(a, b):\n"  # the course root is not in the sandbox: both reads fail
             f"    found = [open(p).read() for p in ('{root}/.nbg/test_secret', '{root}/.nbg/practice_tokens.json')]\n"
             "    raise ValueError(str(found))")
    body = notebook_with_add(root, steal)
    status, _, reply = server.check(tokens["eve"], body, "?function=add")
    assert status == 200 and _function(reply, "add")["passed"] is False
    assert "FileNotFoundError" in next(c for c in _function(reply, "add")["cells"] if c["cell"] == "test_add_hidden")["message"]
    text = json.dumps(reply)
    assert secret not in text and hashes[:40] not in text and "sha256" not in text


def test_a_token_outside_the_header_is_no_identity(served):
    server, tokens, root = served
    for path in (f"/attempts/{FIXTURE_ASSIGNMENT}?token={tokens['hal']}", f"/attempts/{FIXTURE_ASSIGNMENT}?student=hal"):
        assert server.request("GET", path)[0] == 401
    cookie = {"Cookie": f"token={tokens['hal']}", "X-Student": "hal"}
    assert server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", headers=cookie)[0] == 401
    hashes = json.loads((root / ".nbg" / "practice_tokens.json").read_text())
    assert server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", token=hashes["hal"]["sha256"])[0] == 401  # the stored hash is no token


def test_an_answer_that_tampers_with_the_test_machinery_still_fails_and_is_named(served):
    """The tests run in the judge, not in the student's kernel: patching builtins there changes no verdict."""
    server, tokens, root = served
    cheat = ("import builtins\n"
             "builtins.AssertionError = type('Silenced', (Exception,), {})\n"
             "def add(a, b):\n"
             "    print('test_add_hidden passed')\n"
             "    return abs(a) + abs(b)")
    status, _, reply = server.check(tokens["hal"], notebook_with_add(root, cheat), "?function=add")
    assert status == 200 and _function(reply, "add")["passed"] is False
    hidden = next(c for c in _function(reply, "add")["cells"] if c["cell"] == "test_add_hidden")
    assert hidden["passed"] is False and WORDS in hidden["diagnosis"]


def test_forty_requests_from_ten_students_at_once_are_each_answered_once(served):
    server, tokens, root = served
    body = notebook_bytes(root, "perfect")
    students = [f"load{i}" for i in range(10)]
    answers, lock = [], threading.Lock()

    def send(student, index):
        answer = server.check(tokens[student], body, "?function=mean")
        with lock:
            answers.append((student, index, answer))

    threads = [threading.Thread(target=send, args=(s, i)) for s in students for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert len(answers) == 40 and len({(s, i) for s, i, _ in answers}) == 40  # none lost, none twice
    statuses = [a[0] for _, _, a in answers]
    assert set(statuses) <= {200, 429, 503} and statuses.count(200) >= 2
    for _, _, (status, headers, reply) in answers:
        if status != 200:
            assert int(headers["Retry-After"]) >= 1 and reply["retry_after"] >= 1
    # each 200 is one recorded attempt, and no student had two checks at once (each got attempt 1 at most once)
    rows = [a for a in _attempts(root) if a.student.startswith("load")]
    assert len(rows) == statuses.count(200) and len({(a.student, a.attempt) for a in rows}) == len(rows)


def test_revoking_a_token_locks_it_out_at_once(served):
    server, tokens, root = served
    assert server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", token=tokens["bob"])[0] == 200
    nbg(root, "serve", "tokens", "--revoke", "bob")
    status, _, _ = server.request("GET", f"/attempts/{FIXTURE_ASSIGNMENT}", token=tokens["bob"])
    assert status == 401


def test_the_student_kit_sends_from_a_terminal_and_from_a_notebook(served, tmp_path):
    """``python -m nbkit check --server`` (a subprocess, as a student runs it) and ``nbkit.practice.send()``."""
    server, tokens, root = served
    notebook = tmp_path / f"{FIXTURE_ASSIGNMENT}.ipynb"
    notebook.write_bytes(notebook_bytes(root, "wrong_hidden"))
    command = [sys.executable, "-m", "nbkit", "check", "--server", server.url, "--function", "add", str(notebook)]
    done = subprocess.run([*command, "--token", tokens["frank"]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert WORDS in done.stdout and "[FAIL] hidden test test_add_hidden" in done.stdout
    assert 'Read again: "Fixture assignment"' in done.stdout and "mean" not in done.stdout
    refused = subprocess.run([*command, "--token", "forged"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "did not accept your token" in refused.stderr

    from nbkit.practice import send

    notebook.write_bytes(notebook_bytes(root, "perfect"))
    os.environ.pop("NBKIT_PRACTICE_TOKEN", None)
    html = send(str(notebook), server=server.url, token=tokens["frank"], functions=["add"]).data
    assert 'data-function="add" data-passed="true"' in html and "0 check(s) left" in html



def _scheduler_tasks(address) -> int:
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))


def test_over_https_a_check_runs_on_the_dask_cluster(served, tmp_path):
    """``nbg serve --certfile --keyfile --scheduler``: a second server on the module's course, with a
    certificate made here for 127.0.0.1, running its checks on real Dask processes (a scheduler and
    one worker, tests/grading/servers.py). One server for both: each start costs seconds."""
    import ssl
    import urllib.error
    import urllib.request

    from tests.grading import servers

    _, tokens, root = served
    cert, key = self_signed_certificate(tmp_path / "tls")
    with servers.dask_processes(tmp_path / "dask") as dask:
        dask.start_worker("w1")
        dask.wait_for_workers(1)
        before = _scheduler_tasks(dask.address)
        server = PracticeServer(root, "--scheduler", dask.address, "--certfile", str(cert), "--keyfile", str(key),
                                ca=str(cert), log_name="serve-https.log")
        try:
            assert server.url.startswith("https://127.0.0.1:")
            status, _, health = server.request("GET", "/health")  # over HTTPS, trusting the certificate
            assert (status, health) == (200, {"ok": True})
            with pytest.raises(urllib.error.URLError) as refused:  # without it the client refuses the server
                urllib.request.urlopen(f"{server.url}/health", timeout=30)
            assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
            plain = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:  # plain HTTP to the TLS port gets no HTTP answer: the handshake fails, the server hangs up
                with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError, http.client.BadStatusLine)):
                    plain.request("GET", "/health")
                    plain.getresponse()
            finally:
                plain.close()
            status, _, reply = server.check(tokens["ivy"], notebook_bytes(root, "wrong_hidden"), "?function=add")
        finally:
            server.stop()
        assert status == 200, reply
        add = reply["functions"][0]
        assert add["function"] == "add" and add["passed"] is False
        assert any(WORDS in cell["diagnosis"] for cell in add["cells"]), add
        assert _scheduler_tasks(dask.address) > before, dask.logs()
    assert [(a.function, a.passed, a.mistakes) for a in _attempts(root, "ivy")] == [("add", False, ("absolute_values",))]


def _student_venv(folder):
    """The hand-out's environment: the kit's wheel as ``nbg release`` hands it out
    (grading.release.handout), installed in a fresh venv beside the public libraries
    (tests/student_env.py; about 2 s). Built here rather than shared with
    tests/notebooks/test_handout_browser.py: living there, this test would need a second
    practice course and server, which take ten times as long to start."""
    from grading.release.handout import build_handout
    from tests.student_env import make_student_venv

    (wheel,) = build_handout(folder / "release", [FIXTURE_ASSIGNMENT]).glob("*.whl")
    return make_student_venv(wheel, folder / "venv")


def _jupyterlab(folder, venv, env):
    """JupyterLab of the student's environment ``venv`` on 127.0.0.1, serving ``folder``;
    (process, url, token). Its page assets are those of this installation (as in
    tests/notebooks/test_handout_browser.py): the student venv has no share/jupyter/lab."""
    import secrets
    import sysconfig
    import urllib.request

    from tests.student_env import clean_env, student_python

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(16)
    home = folder.parent / "jupyter"
    env = {**clean_env(venv), **env, "JUPYTERLAB_DIR": str(Path(sysconfig.get_paths()["data"]) / "share" / "jupyter" / "lab"),
           "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "IPYTHONDIR": str(home / "ipython")}
    process = subprocess.Popen(
        ["timeout", "300", str(student_python(venv)), "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--port-retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
         "--LabApp.extension_manager=readonly", "--LabApp.news_url=",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=folder, env=env, stdout=(folder.parent / "lab.log").open("w"), stderr=subprocess.STDOUT,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5):
                return process, url, token
        except OSError:
            time.sleep(0.5)
    _stop_group(process)
    raise AssertionError(f"JupyterLab did not start:\n{(folder.parent / 'lab.log').read_text()[-3000:]}")


def _stop_group(process):
    import signal

    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(15)


def _run_all_and_read_the_reply(browser, url, token, path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{url}/lab/tree/{path}?reset&token={token}")  # reset: this notebook alone, no restored tabs
    wait = WebDriverWait(browser, 120)
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")))
    wait.until(lambda d: "Idle" in d.find_element(By.ID, "jp-main-statusbar").text)
    browser.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') and text()='Run']").click()
    wait.until(ready.element_to_be_clickable(
        (By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"))).click()
    return WebDriverWait(browser, 240).until(ready.presence_of_element_located(  # a check: seconds, more under load
        (By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output .nbkit-practice")))


def test_in_jupyterlab_a_student_sees_the_mistake_then_the_pass(served, tmp_path):
    """The student's JupyterLab, from the hand-out's environment, in headless Chromium: the
    notebook's last cell is ``nbkit.practice.send(...)``; Run All Cells shows the reply in the page
    (checked in the DOM; screenshots of both replies in the test's tmp_path)."""

    from selenium.webdriver.common.by import By

    import nbformat

    server, tokens, root = served
    browser_tools()  # before JupyterLab starts: fails saying what to install
    venv = _student_venv(tmp_path / "handout")
    folder = tmp_path / "student"
    for sub, kind in (("first", "wrong_hidden"), ("fixed", "perfect")):
        notebook = nbformat.reads(notebook_bytes(root, kind).decode(), as_version=4)
        notebook.cells.append(nbformat.v4.new_code_cell(
            f"import sys\nimport nbkit.practice\nprint('kernel of', sys.prefix)\n"
            f"nbkit.practice.send(assignment='{FIXTURE_ASSIGNMENT}')"))
        (folder / sub).mkdir(parents=True)
        nbformat.write(notebook, str(folder / sub / f"{FIXTURE_ASSIGNMENT}.ipynb"))
    lab, url, token = _jupyterlab(folder, venv, {"NBKIT_PRACTICE_SERVER": server.url,
                                                 "NBKIT_PRACTICE_TOKEN": tokens["gina"]})
    shots = {name: tmp_path / f"practice-{name}.png" for name in ("mistake", "pass")}
    try:
        with headless_chromium() as browser:
            reply = _run_all_and_read_the_reply(browser, url, token, f"first/{FIXTURE_ASSIGNMENT}.ipynb")
            page = browser.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden)").text
            assert f"kernel of {venv}" in page  # the kernel is the hand-out environment's Python
            add = reply.find_element(By.CSS_SELECTOR, '[data-function="add"]')
            assert add.get_attribute("data-passed") == "false" and WORDS in add.text, reply.text
            assert "Read again: Fixture assignment" in add.text
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", reply)
            browser.save_screenshot(str(shots["mistake"]))
            reply = _run_all_and_read_the_reply(browser, url, token, f"fixed/{FIXTURE_ASSIGNMENT}.ipynb")
            passed = {e.get_attribute("data-function"): e.get_attribute("data-passed")
                      for e in reply.find_elements(By.CSS_SELECTOR, "[data-function]")}
            assert passed == {"add": "true", "mean": "true"}, reply.text
            assert WORDS not in reply.text
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", reply)
            browser.save_screenshot(str(shots["pass"]))
    finally:
        _stop_group(lab)
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in shots.values())
    assert [(a.function, a.passed) for a in _attempts(root, "gina")] == [
        ("add", False), ("mean", True), ("add", True), ("mean", True)]
