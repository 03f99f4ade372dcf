"""``nbkit.practice``'s rendering of a reply (the service itself: tests/grading/test_practice_service.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from nbkit.practice import format_reply, reply_html

REPLY = {"status": 200, "attempt": 2, "assignment": "01_bayes_mle_map", "not_checked": [], "functions": [
    {"function": "posterior", "passed": False, "section": "1.2 Bayes' rule", "checks_left": 7, "cells": [
        {"cell": "test_posterior_core", "hidden": True, "passed": False, "message": "AssertionError: <b>sum</b>",
         "diagnosis": "Your answer behaves like a known mistake: <script>alert(1)</script>"}]}]}


def test_the_reply_is_escaped_html_and_readable_text():
    html = reply_html(REPLY)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;sum" in html
    assert "Read again: <i>1.2 Bayes&#39; rule</i>" in html and "7 check(s) left this hour" in html
    text = format_reply(REPLY)
    assert "[FAIL] hidden test test_posterior_core" in text and 'Read again: "1.2 Bayes\' rule"' in text


def test_a_refusal_says_when_to_try_again():
    refused = {"status": 429, "error": "no checks left for posterior", "retry_after": 754}
    assert format_reply(refused) == "Not checked: no checks left for posterior (try again in 12 min 34 s)\n"
    assert "try again in 12 min 34 s" in reply_html(refused)


def test_without_a_server_the_local_check_says_the_hidden_tests_did_not_run(tmp_path):
    notebook = tmp_path / "mine.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    done = subprocess.run([sys.executable, "-m", "nbkit", "check", "--no-run", str(notebook)],
                          capture_output=True, text=True, timeout=60)
    assert "The hidden tests were not run" in done.stdout
