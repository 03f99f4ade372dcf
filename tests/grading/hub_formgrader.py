"""The written answer of the hub's course, and the instructor grading it in the formgrader behind the hub.

The hub's course (``test_hub_term.py``) is the fixture assignment plus one written answer: a
markdown cell nbgrader calls a "manually graded answer" (``solution`` and ``grade``,
:data:`WRITTEN_POINTS` points), which ``nbg autograde`` leaves to the instructor. The instructor
grades it as on a real hub, in headless Chromium: logs in with the hub's form, opens the
formgrader of their own server (``/user/<name>/formgrader``: nbgrader's server extension, which
finds the course through ``~/.jupyter/nbgrader_config.py``), follows Manual Grading > the
assignment > the notebook > the submission's link, types the points into the answer's score field
and a comment into its comment box, and leaves each field with Tab (the formgrader saves a field
when it changes: a ``PUT`` to its API, which writes the gradebook).

The browser is offline (tests/chromium.py): the formgrader's page loads MathJax from cdnjs, which
fails there, and its script then stops setting up the page (``formgrade.js``: "MathJax is not
defined") after the score and comment fields are bound to the gradebook but before its keyboard
shortcuts and scrolling. Those are what the test does without (:func:`script_errors` says it is
the only error); typing into a field and leaving it is the browser's own.
"""

from __future__ import annotations

import time

import nbformat

WRITTEN_ID = "explain_mean"
WRITTEN_POINTS = 2.0
QUESTION = "## In words\nWhy does `mean` divide by `len(values)` and not by a fixed number?"
MODEL_ANSWER = "Because the number of values differs from list to list: the mean is the sum over their count."
SAVE_TIMEOUT = 30  # seconds for the formgrader to save what was typed


def with_written_answer(notebook) -> nbformat.NotebookNode:
    """The fixture's source notebook with a question (read-only) and its written answer cell at the end."""
    def meta(grade_id, **flags):
        return {"nbgrader": {"grade_id": grade_id, "schema_version": 3, "task": False, "grade": False,
                             "solution": False, "locked": False, **flags}}

    notebook.cells.append(nbformat.v4.new_markdown_cell(QUESTION, metadata=meta("written_question", locked=True),
                                                        id="written_question"))
    notebook.cells.append(nbformat.v4.new_markdown_cell(
        MODEL_ANSWER, metadata=meta(WRITTEN_ID, grade=True, solution=True, points=WRITTEN_POINTS), id=WRITTEN_ID))
    return notebook


def write_answer(notebook, text: str) -> nbformat.NotebookNode:
    """The student's notebook with ``text`` as their written answer."""
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == WRITTEN_ID)
    cell.source = text
    return notebook


def log_in(browser, wait, hub, user, password):
    """The hub's login form, as a person fills it in."""
    from selenium.webdriver.common.by import By

    browser.get(f"{hub.url}/hub/login")
    browser.find_element(By.ID, "username_input").send_keys(user)
    browser.find_element(By.ID, "password_input").send_keys(password)
    browser.find_element(By.ID, "login_submit").click()
    wait.until(lambda d: f"/user/{user}/" in d.current_url)


def _click(wait, locator):
    from selenium.webdriver.support import expected_conditions as ready

    wait.until(ready.element_to_be_clickable(locator)).click()


def open_submission_list(browser, wait, hub, instructor, assignment, notebook_id):
    """From the formgrader's first page to a notebook's submissions, by the links a person clicks:
    Manual Grading, the assignment, the notebook."""
    from selenium.webdriver.common.by import By

    browser.get(f"{hub.url}/user/{instructor}/formgrader")
    _click(wait, (By.LINK_TEXT, "Manual Grading"))
    _click(wait, (By.CSS_SELECTOR, f"td.name a[href$='/formgrader/gradebook/{assignment}']"))
    _click(wait, (By.CSS_SELECTOR, f"td.name a[href$='/formgrader/gradebook/{assignment}/{notebook_id}']"))


def back_to_submission_list(wait, assignment, notebook_id):
    """From a submission's view to its notebook's list: the notebook's link in the page's breadcrumb."""
    from selenium.webdriver.common.by import By

    _click(wait, (By.CSS_SELECTOR, f".breadcrumb a[href$='/formgrader/gradebook/{assignment}/{notebook_id}']"))


def open_submission(wait, submission_id):
    """From the submissions list to one submission's view, once its fields are bound to the gradebook."""
    from selenium.webdriver.common.by import By

    # The list shows "Submission #n" (student names hidden, nbgrader's default); each links to its view.
    _click(wait, (By.CSS_SELECTOR, f"td.name a.name-hidden[href$='/formgrader/submissions/{submission_id}']"))
    wait.until(lambda d: f"/formgrader/submissions/{submission_id}" in d.current_url)
    # The score and comment fields are bound to the gradebook once the page's script has loaded them.
    wait.until(lambda d: d.execute_script(
        "return typeof formgrader !== 'undefined' && formgrader.grades.loaded === true && "
        "formgrader.comments.loaded === true"))


def give_points(browser, points, comment):
    """Type the points and the comment into the written answer's fields and leave each with Tab."""
    from selenium.webdriver.common.keys import Keys

    _field(browser, WRITTEN_ID).send_keys(f"{points:g}", Keys.TAB)
    _field(browser, f"{WRITTEN_ID}-comment").send_keys(comment, Keys.TAB)


def _field(browser, element_id):
    """The field, clicked as a person would: scrolled to the middle of the window first, and clicked
    again a moment later while something drawn over it for a while (the page's saving notice, the
    header) takes the click (a fresh-clone run: a <div> took the comment box's click)."""
    from selenium.common.exceptions import ElementClickInterceptedException
    from selenium.webdriver.common.by import By

    element = browser.find_element(By.ID, element_id)
    deadline = time.monotonic() + 10
    while True:
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        try:
            element.click()
            return element
        except ElementClickInterceptedException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def page_state(browser) -> tuple:
    """(window.__pwned, title, visible text, HTML) of the page, once every image has loaded or failed."""
    deadline = time.monotonic() + 10  # an <img src=x> has failed by then, its onerror run if allowed
    while time.monotonic() < deadline and not browser.execute_script(
            "return Array.from(document.images).every(i => i.complete)"):
        time.sleep(0.1)
    return tuple(browser.execute_script(
        "return [window.__pwned === undefined ? null : String(window.__pwned), document.title, "
        "document.body.innerText, document.documentElement.outerHTML]"))


def saved_grade(course, assignment, notebook_id, student, timeout=SAVE_TIMEOUT) -> tuple:
    """(manual score, manual comment) of the written answer in the gradebook, once both are saved."""
    deadline = time.monotonic() + timeout
    while True:
        with course.gradebook() as gradebook:
            grade = gradebook.find_grade(WRITTEN_ID, notebook_id, assignment, student)
            comment = gradebook.find_comment(WRITTEN_ID, notebook_id, assignment, student)
            found = (grade.manual_score, comment.manual_comment)
        if (found[0] is not None and found[1]) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def script_errors(browser) -> list:
    """The page's errors since the last call, but for the offline browser's MathJax (see above)."""
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
            and "cdnjs.cloudflare.com/ajax/libs/mathjax" not in entry["message"]
            and "MathJax is not defined" not in entry["message"]]
