"""Student-controlled markup for the tests that open the instructor's pages in a browser.

Every payload would set ``window.__pwned`` or change ``document.title`` if it ran; the tests
(tests/grading/test_pages_inert.py, test_formgrader_inert.py) assert that none did and that
each is on the page as text.
"""

import nbformat

MARKDOWN = ("My answer: <script>window.__pwned='markdown';document.title='PWNED'</script> and "
            "<img src=x onerror=\"window.__pwned='markdown-img';document.title='PWNED'\"> and "
            "[click](javascript:window.__pwned='link') and "
            "$\\text{<script>window.__pwned='math'</script>}$")
HTML_OUTPUT = "<script>window.__pwned='html-output';document.title='PWNED'</script><b>bold</b>"
OUTPUTS = [
    nbformat.v4.new_output("display_data", data={"text/html": HTML_OUTPUT}),
    nbformat.v4.new_output("display_data", data={
        "text/html": "<img src=x onerror=\"window.__pwned='html-img';document.title='PWNED'\">"}),
    nbformat.v4.new_output("display_data", data={"application/javascript": "window.__pwned='js-output'",
                                                 "text/plain": "<IPython.core.display.Javascript object>"}),
    nbformat.v4.new_output("display_data", data={
        "image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' onload=\"window.__pwned='svg'\"></svg>"}),
    nbformat.v4.new_output("display_data", data={"text/markdown": "<img src=x onerror=\"window.__pwned='md-out'\">"}),
    nbformat.v4.new_output("stream", name="stdout", text="<script>window.__pwned='stream'</script>\n"),
    nbformat.v4.new_output("error", ename="ValueError", evalue="<img src=x onerror=\"window.__pwned='error'\">",
                           traceback=["ValueError: <img src=x onerror=\"window.__pwned='traceback'\">"]),
]
