"""``nbg serve`` as a student meets it: a real server on loopback, a real HTTP client, sandboxed kernels.

One server (started once for the module, as a user would: ``nbg --course C serve``) checks the
small fixture class (:mod:`tests.grading.practice_server`); every check runs a real kernel and the
judge, a few seconds each, so the tests send as few as they can. The budget is 3 checks per
function and hour, 2 workers and a queue of 2, a body must arrive within 3 s.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from grading.core.course import Course
from grading.core.practice_log import read_attempts
from tests.grading.fixtures import FIXTURE_ASSIGNMENT, HIDDEN_FAILURE_MESSAGES, HIDDEN_SOURCE_SNIPPETS
from tests.grading.practice_server import (WORDS, PracticeServer, issue_tokens, nbg, notebook_bytes, notebook_with_add,
                                           practice_course)

pytestmark = pytest.mark.slow

BUDGET = 3
STUDENTS = ["alice", "bob", "carol", "dave", "eve", "frank", *(f"load{i}" for i in range(10))]


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
    assert left == [2, 1, 0] and [f["function"] for f in reply["functions"]] == ["mean"]
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
    assert 'data-function="add" data-passed="true"' in html and "1 check(s) left" in html

