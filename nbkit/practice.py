"""Check a notebook against the course's practice service (the hidden tests, not counted).

In a terminal::

    python -m nbkit check --server https://practice.example.org --token T 03_multinomial_nb.ipynb

In the notebook (save it first: the service checks the file as saved)::

    import nbkit.practice
    nbkit.practice.send()  # shows the reply under the cell

The server and token come from the arguments, else the environment variables
``NBKIT_PRACTICE_SERVER`` and ``NBKIT_PRACTICE_TOKEN`` (on a JupyterHub whose practice service is a
hub service, the token defaults to ``JUPYTERHUB_API_TOKEN``, the hub token of the student's own
JupyterLab, and the instructor sets ``NBKIT_PRACTICE_SERVER`` for everyone); the notebook from the argument, else the
one the kernel runs (``JPY_SESSION_NAME``, set by Jupyter). The assignment is the file's name
without ``.ipynb`` unless given. Only the file is sent, with the token; the reply says per graded
function which test cells pass, their messages, the known mistake your answer looks like, and the
section of the notebook to read again. It never counts towards your grade, and each function has a
budget of checks per hour: think before you check again.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

NOT_RUN = ("The hidden tests were not run (only the visible ones, which give no points). Your instructor's "
           "practice service runs them: python -m nbkit check --server URL --token TOKEN NOTEBOOK")
TIMEOUT = 300  # seconds: a check runs the whole notebook


class PracticeError(Exception):
    """The check could not be made; ``usage`` when the student must change the command."""

    def __init__(self, message, usage=False):
        super().__init__(message)
        self.usage = usage


def _settings(server, token):
    server = server or os.environ.get("NBKIT_PRACTICE_SERVER")
    # On a hub the service knows the student by the hub token of their JupyterLab.
    token = token or os.environ.get("NBKIT_PRACTICE_TOKEN") or os.environ.get("JUPYTERHUB_API_TOKEN")
    if not server or not token:
        raise PracticeError("give the practice server's address and your token (--server URL --token T, or "
                            "NBKIT_PRACTICE_SERVER and NBKIT_PRACTICE_TOKEN)", usage=True)
    if urllib.parse.urlparse(server).scheme not in ("http", "https"):
        raise PracticeError(f"{server} is not an http(s) address", usage=True)
    return server.rstrip("/"), token


def check_on_server(notebook, server=None, token=None, assignment=None, functions=(), timeout=TIMEOUT) -> dict:
    """Send ``notebook`` (a path) and return the service's reply (a dict with ``status``).

    A refusal (429 budget or busy, 503, 413, 422) is a reply too, with ``error`` and ``retry_after``;
    a bad token or an unreachable server raises :class:`PracticeError`.
    """
    server, token = _settings(server, token)
    path = Path(notebook)
    if not path.is_file():
        raise PracticeError(f"{path} is not a file: give your notebook's path", usage=True)
    query = urllib.parse.urlencode([("function", f) for f in functions])
    url = f"{server}/check/{urllib.parse.quote(assignment or path.stem)}" + (f"?{query}" if query else "")
    request = urllib.request.Request(url, data=path.read_bytes(), method="POST",
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply, status = json.loads(response.read().decode()), response.status
    except urllib.error.HTTPError as error:
        status = error.code
        try:
            reply = json.loads(error.read().decode())
        except ValueError:
            reply = {"error": error.reason}
        if status == 401:
            raise PracticeError("the practice service did not accept your token: check it (your instructor "
                                "issues it)", usage=True) from None
        if status == 404:
            raise PracticeError(f"the practice service says: {reply.get('error')}", usage=True) from None
        retry = error.headers.get("Retry-After")
        reply["retry_after"] = int(retry) if retry and retry.isdigit() else reply.get("retry_after")
    except (urllib.error.URLError, OSError) as error:
        raise PracticeError(f"cannot reach the practice service at {server}: {getattr(error, 'reason', error)}") from None
    reply["status"] = status
    return reply


def _wait(seconds) -> str:
    seconds = int(seconds or 0)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def format_reply(reply: dict) -> str:
    """The reply as text for a terminal."""
    if reply.get("status") != 200:
        line = f"Not checked: {reply.get('error', 'the service refused')}"
        if reply.get("retry_after"):
            line += f" (try again in {_wait(reply['retry_after'])})"
        return line + "\n"
    lines = [f"Practice check {reply['attempt']} of {reply['assignment']} (does not count towards your grade)"]
    for item in reply["functions"]:
        verdict = "passes every test" if item["passed"] else "fails a test"
        lines.append(f"\n{item['function']}: {verdict} ({item['checks_left']} check(s) left this hour)")
        for cell in item["cells"]:
            kind = "hidden" if cell["hidden"] else "visible"
            lines.append(f"  [{'ok' if cell['passed'] else 'FAIL'}] {kind} test {cell['cell']}")
            if cell["message"]:
                lines.append("        " + cell["message"].replace("\n", "\n        "))
            if cell["diagnosis"]:
                lines.append("        " + cell["diagnosis"].replace("\n", "\n        "))
        if not item["passed"] and item["section"]:
            lines.append(f"  Read again: \"{item['section']}\"")
    for item in reply.get("not_checked", []):
        lines.append(f"\n{item['function']}: not checked ({item['why']})")
    return "\n".join(lines) + "\n"


_PAGE = """<div class="nbkit-practice" style="border:1px solid #999;padding:0.5em">
{%- if reply.status != 200 %}
<p class="nbkit-refused"><b>Not checked:</b> {{ reply.error }}{% if reply.retry_after %} (try again in {{ wait }}){% endif %}</p>
{%- else %}
<p><b>Practice check {{ reply.attempt }}</b> of {{ reply.assignment }}: does not count towards your grade.</p>
{%- for item in reply.functions %}
<div class="nbkit-function" data-function="{{ item.function }}" data-passed="{{ item.passed | lower }}">
<h4>{{ item.function }}: {{ "passes every test" if item.passed else "fails a test" }}
<small>({{ item.checks_left }} check(s) left this hour)</small></h4><ul>
{%- for cell in item.cells %}
<li>{{ "&#10004;" | safe if cell.passed else "&#10008;" | safe }} {{ "hidden" if cell.hidden else "visible" }} test
<code>{{ cell.cell }}</code>{% if cell.message %}<pre>{{ cell.message }}</pre>{% endif %}
{%- if cell.diagnosis %}<p class="nbkit-diagnosis">{{ cell.diagnosis }}</p>{% endif %}</li>
{%- endfor %}</ul>
{%- if not item.passed and item.section %}<p>Read again: <i>{{ item.section }}</i></p>{% endif %}
</div>
{%- endfor %}
{%- for item in reply.not_checked %}<p>{{ item.function }}: not checked ({{ item.why }})</p>{% endfor %}
{%- endif %}</div>"""


def reply_html(reply: dict) -> str:
    """The reply as an HTML fragment (everything from the service escaped)."""
    import jinja2

    template = jinja2.Environment(autoescape=True).from_string(_PAGE)
    return template.render(reply=reply, wait=_wait(reply.get("retry_after")))


def send(notebook=None, server=None, token=None, assignment=None, functions=()):
    """From inside a notebook: send the saved notebook and show the reply under the cell.

    Returns an ``IPython.display.HTML`` (displayed as the cell's result). Save the notebook first
    (Ctrl-S): the file as saved is what is checked.
    """
    from IPython.display import HTML

    if os.environ.get("NBGRADER_EXECUTION"):
        return None  # the grader is running this notebook: nothing to send from there
    notebook = notebook or os.environ.get("JPY_SESSION_NAME")
    if not notebook:
        return HTML(reply_html({"status": 0, "error": "give the notebook's file name: send('03_multinomial_nb.ipynb')"}))
    try:
        reply = check_on_server(notebook, server, token, assignment, functions)
    except PracticeError as error:
        reply = {"status": 0, "error": str(error)}
    return HTML(reply_html(reply))


def main(notebook, server, token, assignment=None, functions=()) -> int:
    """``python -m nbkit check --server``: print the reply; 0 every function checked passes, 1 not
    (or not checked), 2 wrong usage (bad token, unknown assignment)."""
    import sys

    try:
        reply = check_on_server(notebook, server, token, assignment, functions)
    except PracticeError as error:
        print(f"python -m nbkit check: {error}", file=sys.stderr)
        return 2 if error.usage else 1
    print(format_reply(reply), end="")
    passed = reply.get("status") == 200 and all(f["passed"] for f in reply["functions"]) and not reply["not_checked"]
    return 0 if passed else 1
