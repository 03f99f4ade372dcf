"""The course's secret is on no file system the student's kernel or the judge sees.

The class run (test_adversarial_class.py, case reads_course_secret) tries it from a student's
cell; here one small notebook, sandboxed, tries it from both sides at once: a student's cell in
the kernel and a test cell in the judge, by the secret's absolute path and by searching every
file they can list. Runtime about 10 s (one kernel, one judge).
"""

import nbformat

from grading.execution.kernel import execute_notebook
from grading.execution.limits import Limits

SEARCH = (
    "import os\n"
    "try:\n    print('secret:', open({path!r}).read())\nexcept OSError as error:\n    print('secret:', type(error).__name__)\n"
    "found = []\n"
    "for folder, dirs, files in os.walk('/'):\n"
    "    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ('/proc', '/sys', '/dev', '/usr')]\n"
    "    found += [os.path.join(folder, f) for f in files if f == 'test_secret']\n"
    "print('found:', found)\n"
)


def test_neither_the_kernel_nor_the_judge_can_read_the_secret(tmp_path):
    secret = tmp_path / "course" / ".nbg" / "test_secret"
    secret.parent.mkdir(parents=True)
    secret.write_text("the-instructors-secret-3b1f\n")
    scratch = tmp_path / "course" / "s"  # inside the course, as close as it gets (short: a socket path)
    scratch.mkdir()
    test = {"nbgrader": {"grade": True, "solution": False, "grade_id": "t", "points": 1, "locked": True,
                         "schema_version": 3}}
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(SEARCH.format(path=str(secret))),
        nbformat.v4.new_code_cell(SEARCH.format(path=str(secret)), metadata=test),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(cell_timeout=60), sandbox="bubblewrap")
    assert result.status == "ok", result.reason
    cells = nbformat.reads(result.notebook_json, 4).cells
    kernel_side = "".join(o.get("text", "") for o in cells[0].outputs)
    judge_side = "".join(o.get("text", "") for o in cells[1].outputs)
    for text in (kernel_side, judge_side):
        assert text == "secret: FileNotFoundError\nfound: []\n", text
    assert "3b1f" not in result.notebook_json
