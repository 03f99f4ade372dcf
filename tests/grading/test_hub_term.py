"""A whole term on a real JupyterHub, through nbgrader's exchange.

The hub (``tests/grading/hub.py``) runs on 127.0.0.1 with the dummy authenticator and the
local spawner; an instructor and two students each have a server of their own, started by
the hub. The exchange is a folder of the test's own, named in the course's
``nbgrader_config.py`` (the instructor's) and in each student's ``~/.jupyter/nbgrader_config.py``,
which also sets the student id from ``JUPYTERHUB_USER`` (all servers run as one unix user).

Who runs what, as on a real hub:

* the students fetch, submit and fetch their feedback in their own servers, through the hub's
  proxy with their own tokens, by the requests JupyterLab's Assignments tab makes (nbgrader's
  ``assignment_list`` server extension), and work on the notebook through the Contents API;
* the instructor releases to the exchange, collects and returns feedback by the formgrader's
  requests in the instructor's server (nbgrader's ``release_assignment``, ``collect``,
  ``release_feedback``);
* ``nbg release``, ``nbg autograde``, ``nbg feedback`` and ``nbg export`` are the instructor's
  commands, run as processes with the instructor's environment (the home of the instructor's
  server, its working folder the course), as in a terminal of that server.

The assignment is the fixture's plus a written answer (``hub_formgrader.py``), which the instructor
grades in headless Chromium in the formgrader of the instructor's server, behind the hub; ``nbg
export`` then counts those points.

The practice service (``nbg serve``) runs as a managed service of the same hub, with the hub as
its identity backend (``grading.practice.hub_identity.HubIdentity``): a student's request goes
through the hub's proxy with the student's own hub token (one handed out by the hub, or the one of
the student's running JupyterLab) and is answered for that student only; in headless Chromium a
student logs in, runs the fetched notebook in JupyterLab and reads the service's reply in the page.
A second ``nbg serve`` on the same course runs as an external service of the same hub (started by
the test, registered with its url and api_token): the way to run it outside the hub's machine.

It grades its own small class (the fixture assignment, two students) because the
submissions must come through the exchange; the expected scores are derived by hand in
``fixtures.py``. One hub (and both practice services) serves every test of the module; they run in
file order (the term first, then its written answers; the practice test expects no attempts of
bob's yet, the external service's test comes last).
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

import fixtures
from hub import BIN, PASSWORD, ExternalService, Hub, free_port
from hub_formgrader import WRITTEN_ID, WRITTEN_POINTS, with_written_answer, write_answer
from practice_server import CATALOGUE, WORDS

from grading.core.course import Course
from tests import honest_times
from tests.hostile_markup import MARKDOWN

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]  # the first test carries the hub's set-up

COURSE_ID = "nb101"
ASSIGNMENT = fixtures.FIXTURE_ASSIGNMENT
INSTRUCTOR = "instructor"
PRACTICE = "nbg-practice"  # the practice service's name on the hub: /services/nbg-practice/
EXTERNAL = "nbg-practice-ext"  # the same, run as an external service
# student -> what each submission holds, in order (alice submits twice; the second counts).
# Two students, each server costing seconds of a loaded machine's cores.
ON_TIME = {"alice": ["blank", "wrong_hidden"]}
LATE = {"bob": ["perfect"]}
PERCENT_PER_DAY = 10
MAX_SCORE = fixtures.MAX_SCORE + WRITTEN_POINTS  # 6 autograded + 2 written = 8
# The written answer of each student's last submission: alice's carries markup that would run
# script in the formgrader's page if it were rendered as HTML.
ANSWERS = {"alice": MARKDOWN, "bob": "The count of values changes from one list to the next."}
# Hand-derived: the last submission's score (fixtures.EXPECTED_SCORES; the written answer counts 0
# until graded) less the late penalty, 10 % of the 8 points possible for bob's one started day late.
EXPECTED_TOTALS = {"alice": 4.0, "bob": 6.0 - 0.8}
EXPECTED_PENALTY = {"alice": 0.0, "bob": 0.8}
# The points and comments the instructor types into the formgrader, and the totals nbg export
# must then show: the autograded points plus these, less the same late penalty.
WRITTEN_GRADES = {"alice": (1.5, "Right idea; say what the count is."), "bob": (2.0, "Exactly.")}
EXPECTED_WITH_WRITTEN = {"alice": 4.0 + 1.5, "bob": 6.0 + 2.0 - 0.8}
NOT_GRADED_NOTE = "written answers not graded yet"  # nbg export's note while some wait
STUDENTS = [*ON_TIME, *LATE]


def course_config(exchange: Path) -> str:
    """The course's nbgrader_config.py as an instructor writes it for a hub."""
    return fixtures.CONFIG_TEXT + f"""\
c.CourseDirectory.course_id = {COURSE_ID!r}
c.Exchange.root = {str(exchange)!r}
c.AssignLatePenalties.plugin_class = "grading.plugins.LatePolicy"
c.LatePolicy.percent_per_interval = {PERCENT_PER_DAY}
c.LatePolicy.interval_hours = 24
# The formgrader shows a student's markup (a written answer, an output) as text (docs/security.md)
c.HTMLExporter.preprocessors = ["grading.plugins.InertStudentContent"]
# nbg serve behind the hub: the student is the hub user of the request's token
c.PracticeService.identity_class = "grading.practice.hub_identity.HubIdentity"
c.PracticeService.workers = 1
"""


STUDENT_CONFIG = """\
import os
c = get_config()
c.CourseDirectory.course_id = {course!r}
c.Exchange.root = {exchange!r}
# every user's server runs as one unix user: the student is the hub user
c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
"""


def write_course(root: Path, exchange: Path):
    source = root / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    nbformat.write(with_written_answer(fixtures.source_notebook()), source / f"{ASSIGNMENT}.ipynb")
    (root / "nbgrader_config.py").write_text(course_config(exchange))
    shutil.copy(fixtures._empty_gradebook(), root / "gradebook.db")
    (root / "mistakes").mkdir()
    (root / "mistakes" / f"{ASSIGNMENT}.py").write_text(CATALOGUE)


def practice_service(root: Path) -> dict:
    """The hub's entry for nbg serve as a managed service (the hub starts and stops it)."""
    port = free_port()
    return {"name": PRACTICE, "url": f"http://127.0.0.1:{port}", "cwd": str(root),
            "command": [str(BIN / "nbg"), "--course", str(root), "serve", "--port", str(port)],
            "environment": {"PATH": f"{BIN}:/usr/bin:/bin"}}


def nbg(home: Path, root: Path, *args) -> subprocess.CompletedProcess:
    """An ``nbg`` command as the instructor runs it in a terminal of the instructor's server."""
    env = {**os.environ, "HOME": str(home), "JUPYTERHUB_USER": INSTRUCTOR}
    result = subprocess.run([str(BIN / "nbg"), "--course", str(root), *args], cwd=root, env=env,
                            capture_output=True, text=True, timeout=180)
    return result


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


@pytest.fixture(scope="module")
def term_hub(tmp_path_factory):
    """The instructor's set-up: the course (nbg release done), the users' configs, the hub with the
    practice service, every user's server started; yields (hub, tokens, course root, exchange)."""
    folder = tmp_path_factory.mktemp("hub")
    exchange = folder / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    homes = folder / "homes"
    instructor_home = homes / INSTRUCTOR
    root = instructor_home / "course"
    write_course(root, exchange)
    (instructor_home / ".jupyter").mkdir(parents=True)
    (instructor_home / ".jupyter" / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\n")
    for student in STUDENTS:
        (homes / student / ".jupyter").mkdir(parents=True)
        (homes / student / ".jupyter" / "nbgrader_config.py").write_text(
            STUDENT_CONFIG.format(course=COURSE_ID, exchange=str(exchange)))
    # The instructor's first step: nbg's release (nbgrader's release_assignment comes in the term).
    released = nbg(instructor_home, root, "release", ASSIGNMENT)
    assert released.returncode == 0, released.stdout + released.stderr
    honest_times.share(root)  # the honest times of this notebook, measured once per test run
    external = ExternalService(EXTERNAL)
    hub = Hub(folder, users=[INSTRUCTOR, *STUDENTS], admins=[INSTRUCTOR],
              services=[practice_service(root), external.entry()],
              user_scopes=[f"access:services!service={PRACTICE}", f"access:services!service={EXTERNAL}"],
              environment={"NBKIT_PRACTICE_SERVER": "{url}/services/" + PRACTICE})
    # The instructor starts the external one first (here on this machine; anywhere the hub can reach):
    # the hub waits at its start for every service with a url to answer.
    external.start(hub, [str(BIN / "nbg"), "--course", str(root), "serve", "--port", str(external.port)], root)
    try:
        with hub:
            try:
                tokens = hub.start_users([INSTRUCTOR, *STUDENTS])
                external.wait_until_listening()
                yield hub, tokens, root, exchange
            finally:
                external.stop()  # before the hub stops, which would count it as left behind
    finally:
        external.stop()
    assert not hub.left_behind, f"left running after the hub stopped: {hub.left_behind}"


def test_a_term_through_the_exchange_on_a_real_hub(term_hub):
    hub, tokens, root, exchange = term_hub
    students = STUDENTS

    def formgrader(action):
        reply = hub.user_api(INSTRUCTOR, tokens[INSTRUCTOR], "POST",
                             f"/formgrader/api/assignment/{ASSIGNMENT}/{action}", body={})
        assert reply["success"], f"formgrader {action}: {reply}"
        return reply

    def student_action(student, action):
        reply = hub.user_api(student, tokens[student], "POST", f"/assignments/{action}",
                             form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}, body={})
        assert not (isinstance(reply, dict) and reply.get("success") is False), f"{student} {action}: {reply}"
        return reply

    # The instructor releases to the exchange (nbg release ran in the set-up).
    instructor_home = hub.homes / INSTRUCTOR
    formgrader("release")
    assert (exchange / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()

    def work_and_submit(student, kind):
        path = f"/api/contents/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        fetched = hub.user_api(student, tokens[student], "GET", path)
        notebook = fixtures.student_notebook(nbformat.from_dict(fetched["content"]), kind)
        if kind != "blank":
            write_answer(notebook, ANSWERS[student])
        hub.user_api(student, tokens[student], "PUT", path,
                     body={"type": "notebook", "format": "json", "content": notebook})
        student_action(student, "submit")

    for student in students:
        listing = student_action(student, "fetch")
        assert (hub.homes / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists(), listing
    for student, kinds in ON_TIME.items():
        for kind in kinds:
            work_and_submit(student, kind)
    # The due date falls between the on-time submissions and the late one; only the
    # exchange's timestamps decide who is late.
    time.sleep(0.5)
    due = utc_now()
    time.sleep(0.5)
    for student, kinds in LATE.items():
        for kind in kinds:
            work_and_submit(student, kind)
    with Course(root).gradebook() as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=due)

    # The instructor collects, grades, writes and returns the feedback.
    formgrader("collect")
    for student in students:
        assert (root / "submitted" / student / ASSIGNMENT / "timestamp.txt").exists()
    graded = nbg(instructor_home, root, "autograde", ASSIGNMENT, "-j", "2", "--quiet")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    feedback = nbg(instructor_home, root, "feedback", ASSIGNMENT)
    assert feedback.returncode == 0, feedback.stdout + feedback.stderr
    formgrader("release_feedback")
    exported = nbg(instructor_home, root, "export")
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert NOT_GRADED_NOTE in exported.stdout  # the written answers wait for the formgrader

    for student in students:
        student_action(student, "fetch_feedback")

    # Every student's score and late penalty: nbg's export, and the penalty in the gradebook.
    with open(root / "exports" / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == set(students)
    for student, total in EXPECTED_TOTALS.items():
        assert float(rows[student][ASSIGNMENT]) == pytest.approx(total), (student, rows[student])
    with Course(root).gradebook() as gradebook:
        for student, penalty in EXPECTED_PENALTY.items():
            submission = gradebook.find_submission(ASSIGNMENT, student)
            assert submission.late_submission_penalty == pytest.approx(penalty), student

    # The submission times are the exchange's: what each student's last submit wrote there.
    for student, kinds in {**ON_TIME, **LATE}.items():
        submitted = (root / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text().strip()
        inbound = sorted(p.name for p in (exchange / COURSE_ID / "inbound").iterdir()
                         if p.name.startswith(f"{student}+{ASSIGNMENT}+"))
        assert len(inbound) == len(kinds), inbound  # alice's two submissions both reached the exchange
        assert inbound[-1].split("+")[2] == submitted
        when = dt.datetime.strptime(submitted, "%Y-%m-%d %H:%M:%S.%f UTC")
        assert (when > due) == (student in LATE)

    # The returned feedback: in each student's home, for the submission that counted, nbg's page.
    for student in students:
        pages = list((hub.homes / student / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(pages) == 1, (student, pages)
        submitted = (root / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text().strip()
        assert pages[0].parent.name == submitted
        page = pages[0].read_text(encoding="utf-8")
        assert page == (root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert f"{ASSIGNMENT} (Score: {EXPECTED_TOTALS[student]:.1f} / {MAX_SCORE:.1f})" in text, student
        assert ("Late submission penalty" in text) == (student in LATE), student
        for snippet in fixtures.HIDDEN_SOURCE_SNIPPETS:
            assert snippet not in page


def test_the_instructor_grades_the_written_answers_in_the_formgrader_behind_the_hub(term_hub):
    """Headless Chromium: the instructor logs in to the hub, opens the formgrader of their server, goes
    to each student's submission through Manual Grading and types points and a comment into the
    written answer's fields (hub_formgrader.py); the formgrader saves them to the gradebook, and
    nbg export adds them to the autograded points, the late penalty still taken. The term's graded
    class, nothing graded again. alice's answer carries markup: the page shows it as text."""
    from selenium.webdriver.support.ui import WebDriverWait

    from hub_formgrader import (back_to_submission_list, give_points, log_in, open_submission, open_submission_list,
                                page_state, saved_grade, script_errors)
    from tests.chromium import headless_chromium

    hub, _, root, _ = term_hub
    course = Course(root)
    with course.gradebook() as gradebook:
        submissions = {s: gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, s).id for s in STUDENTS}
        for student in STUDENTS:  # nbg autograde left every written answer to the instructor
            assert gradebook.find_grade(WRITTEN_ID, ASSIGNMENT, ASSIGNMENT, student).needs_manual_grade, student
    seen = {}
    with headless_chromium(offline=True) as browser:
        wait = WebDriverWait(browser, 60)
        log_in(browser, wait, hub, INSTRUCTOR, PASSWORD)
        open_submission_list(browser, wait, hub, INSTRUCTOR, ASSIGNMENT, ASSIGNMENT)
        for student, (points, comment) in WRITTEN_GRADES.items():
            if seen:
                back_to_submission_list(wait, ASSIGNMENT, ASSIGNMENT)
            open_submission(wait, submissions[student])
            seen[student] = page_state(browser)
            give_points(browser, points, comment)
            assert saved_grade(course, ASSIGNMENT, ASSIGNMENT, student) == (points, comment), student
            assert not script_errors(browser), student

    # alice's answer is on the page as she wrote it, as text: no script of hers ran, no element of hers.
    pwned, title, text, page = seen["alice"]
    assert "Student's answer" in text and f"/ {WRITTEN_POINTS:.1f}" in text  # the grading view of the answer
    assert pwned is None and title != "PWNED", (pwned, title)
    assert "<script>window.__pwned='markdown';document.title='PWNED'</script>" in text
    assert "<img src=x onerror=\"window.__pwned='markdown-img';document.title='PWNED'\">" in text
    assert not re.search(r"<(script|img src=\"?x)[^>]*__pwned", page, re.I)
    assert ANSWERS["bob"] in seen["bob"][2]
    with course.gradebook() as gradebook:
        for student in STUDENTS:
            assert not gradebook.find_grade(WRITTEN_ID, ASSIGNMENT, ASSIGNMENT, student).needs_manual_grade

    exported = nbg(hub.homes / INSTRUCTOR, root, "export")
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert NOT_GRADED_NOTE not in exported.stdout
    with open(root / "exports" / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    for student, total in EXPECTED_WITH_WRITTEN.items():
        assert float(rows[student][ASSIGNMENT]) == pytest.approx(total), (student, rows[student])
    with course.gradebook() as gradebook:
        for student, penalty in EXPECTED_PENALTY.items():
            assert gradebook.find_submission(ASSIGNMENT, student).late_submission_penalty == pytest.approx(penalty)


def practice(hub, token, method, path, body=None, service=PRACTICE):
    """A request to a practice service through the hub's proxy; (status, JSON reply)."""
    request = urllib.request.Request(f"{hub.url}/services/{service}{path}", data=body, method=method)
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_the_practice_service_behind_the_hub_answers_the_hub_user_only(term_hub):
    hub, tokens, root, _ = term_hub
    release = root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.writes(fixtures.student_notebook(release, "wrong_hidden")).encode()
    status, reply = practice(hub, tokens["alice"], "POST", f"/check/{ASSIGNMENT}", notebook)
    assert status == 200, reply
    assert reply["student"] == "alice" and reply["counted"] is False
    add = next(item for item in reply["functions"] if item["function"] == "add")
    assert WORDS in json.dumps(add)  # the catalogued mistake, named for alice
    status, mine = practice(hub, tokens["alice"], "GET", f"/attempts/{ASSIGNMENT}")
    assert status == 200 and mine["student"] == "alice" and mine["attempts"]
    # A second student sees only their own attempts: none.
    status, theirs = practice(hub, tokens["bob"], "GET", f"/attempts/{ASSIGNMENT}")
    assert status == 200 and theirs == {"student": "bob", "assignment": ASSIGNMENT, "attempts": []}
    # No token, or one the hub does not know: refused before anything runs.
    assert practice(hub, None, "GET", f"/attempts/{ASSIGNMENT}")[0] == 401
    assert practice(hub, "not-a-hub-token", "POST", f"/check/{ASSIGNMENT}", notebook)[0] == 401
    # A hub user's token without this service's scope, and a service's token: refused too.
    narrow = hub.api("POST", "/hub/api/users/bob/tokens", {"scopes": ["read:users:name!user=bob"],
                                                          "expires_in": 600})["token"]
    assert practice(hub, narrow, "GET", f"/attempts/{ASSIGNMENT}")[0] == 401
    assert practice(hub, hub.token, "GET", f"/attempts/{ASSIGNMENT}")[0] == 401


def test_a_students_jupyterlab_reaches_the_practice_service_with_its_own_hub_token(term_hub, monkeypatch):
    """nbkit's send() in the student's JupyterLab: the server's $JUPYTERHUB_API_TOKEN (read from the
    running server's environment) is the student's identity, no token handed out."""
    from nbkit.practice import check_on_server

    hub, _, root, _ = term_hub
    servers = [p for p in hub.running_servers() if p.cwd() == str(hub.homes / "bob")]
    token = next(p.environ()["JUPYTERHUB_API_TOKEN"] for p in servers if "JUPYTERHUB_API_TOKEN" in p.environ())
    release = root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook = hub.folder / "bob_perfect.ipynb"
    nbformat.write(fixtures.student_notebook(release, "perfect"), notebook)
    monkeypatch.delenv("NBKIT_PRACTICE_TOKEN", raising=False)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
    monkeypatch.setenv("NBKIT_PRACTICE_SERVER", f"{hub.url}/services/{PRACTICE}")
    reply = check_on_server(notebook, assignment=ASSIGNMENT)
    assert reply["status"] == 200, reply
    assert reply["student"] == "bob"


def test_in_the_browser_a_student_logs_in_and_sends_the_fetched_notebook_to_the_practice_service(term_hub, tmp_path):
    """Headless Chromium: bob logs in to the hub with the login form, opens the notebook he fetched
    in his JupyterLab, runs it (its last cell is ``nbkit.practice.send()``, with the address from the
    hub's environment and his server's own token), and reads the reply in the page; a screenshot
    of it in the test's tmp_path."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.chromium import headless_chromium
    from hub import PASSWORD

    hub, tokens, root, _ = term_hub
    hub.user_api("bob", tokens["bob"], "POST", "/assignments/fetch",  # done already when the term ran first
                 form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}, body={})
    path = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    fetched = hub.user_api("bob", tokens["bob"], "GET", f"/api/contents/{path}")["content"]
    notebook = fixtures.student_notebook(nbformat.from_dict(fetched), "wrong_hidden")
    notebook.cells.append(nbformat.v4.new_code_cell(
        f"import nbkit.practice\nnbkit.practice.send(assignment='{ASSIGNMENT}')"))
    hub.user_api("bob", tokens["bob"], "PUT", f"/api/contents/{path}",
                 body={"type": "notebook", "format": "json", "content": notebook})
    with headless_chromium() as browser:
        wait = WebDriverWait(browser, 120)
        browser.get(f"{hub.url}/hub/login")
        browser.find_element(By.ID, "username_input").send_keys("bob")
        browser.find_element(By.ID, "password_input").send_keys(PASSWORD)
        browser.find_element(By.ID, "login_submit").click()
        wait.until(lambda d: "/user/bob/" in d.current_url)
        browser.get(f"{hub.url}/user/bob/lab/tree/{path}?reset")
        wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")))
        wait.until(lambda d: "Idle" in d.find_element(By.ID, "jp-main-statusbar").text)
        browser.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') and text()='Run']").click()
        wait.until(ready.element_to_be_clickable(
            (By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"))).click()
        reply = WebDriverWait(browser, 180).until(ready.presence_of_element_located(
            (By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output .nbkit-practice")))
        add = reply.find_element(By.CSS_SELECTOR, '[data-function="add"]')
        assert add.get_attribute("data-passed") == "false" and WORDS in add.text, reply.text
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", reply)
        browser.save_screenshot(str(tmp_path / "hub-practice.png"))
    # The service recorded the check as bob's, and only bob's.
    status, attempts = practice(hub, tokens["bob"], "GET", f"/attempts/{ASSIGNMENT}")
    assert status == 200 and any(a["function"] == "add" and not a["passed"] for a in attempts["attempts"])


def test_the_practice_service_as_an_external_service_answers_the_hub_user(term_hub):
    """``nbg serve`` started by the instructor, not the hub, with the variables docs/jupyterhub.md names
    (``hub.ExternalService``), registered in the hub's config with its url and api_token: the hub's
    proxy forwards /services/nbg-practice-ext/ to it and it answers each student as that hub user. It
    shares the course, and so the attempts, with the managed service (a hub runs one or the other)."""
    hub, tokens, root, _ = term_hub
    release = root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.writes(fixtures.student_notebook(release, "wrong_hidden")).encode()

    def attempts(student):
        status, reply = practice(hub, tokens[student], "GET", f"/attempts/{ASSIGNMENT}", service=EXTERNAL)
        assert status == 200 and reply["student"] == student, reply
        return reply["attempts"]

    alice_before, bob_before = attempts("alice"), attempts("bob")
    status, reply = practice(hub, tokens["alice"], "POST", f"/check/{ASSIGNMENT}", notebook, service=EXTERNAL)
    assert status == 200 and reply["student"] == "alice", reply
    add = next(item for item in reply["functions"] if item["function"] == "add")
    assert WORDS in json.dumps(add)
    assert len(attempts("alice")) > len(alice_before)
    assert attempts("bob") == bob_before  # alice's check is not bob's
    assert practice(hub, None, "GET", f"/attempts/{ASSIGNMENT}", service=EXTERNAL)[0] == 401
    # A token that may use the managed service only is refused by this one: the scope names the service.
    managed_only = hub.api("POST", "/hub/api/users/bob/tokens", {
        "scopes": [f"access:services!service={PRACTICE}"], "expires_in": 600})["token"]
    assert practice(hub, managed_only, "GET", f"/attempts/{ASSIGNMENT}", service=PRACTICE)[0] == 200
    assert practice(hub, managed_only, "GET", f"/attempts/{ASSIGNMENT}", service=EXTERNAL)[0] == 401
