"""``nbkit check`` on a hostile notebook: it says it runs the code, and prints nothing that controls the terminal.

A student may check a notebook a classmate shared. Its file name, cell sources, outputs and error
messages carry terminal escape sequences (clear screen, window title, OSC 8 hyperlink, C1 CSI, bell,
carriage return, a right-to-left override); the command's output must hold none of them. One real run
of a small notebook (one kernel, a few seconds).
"""

from __future__ import annotations

import re

import nbformat
from nbformat.v4 import new_code_cell

from nbkit.check.findings import printable
from tests.nbkit.test_check import ROOT
from tests.nbkit.test_check import answered, run_cli

HOSTILE = "\x1b[2J\x1b]0;owned\x07\x1b]8;;http://example.invalid\x1b\\link\x1b]8;;\x1b\\\x9b31m\r\u202e\x07"
# Anything a terminal acts on: ESC, BEL, CR, other C0 and C1 controls, bidirectional overrides.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_printable_removes_every_control_and_keeps_the_text():
    assert printable(f"cell 3{HOSTILE} raised ValueError: bad\tvalue\nnext") == "cell 3link raised ValueError: bad\tvalue\nnext"
    assert CONTROLS.search(printable(HOSTILE + "".join(map(chr, range(0x20))) + "\x7f\x85\x9c")) is None


def test_a_hostile_notebook_cannot_control_the_terminal(tmp_path):
    notebook = answered()
    payload = repr(HOSTILE)
    notebook.cells.insert(3, new_code_cell(f"print({payload})\nimport sys\nsys.stderr.write({payload})\n"
                                           f"raise ValueError({payload})"))
    notebook.cells[2].source = (f"def add(a, b):\n    {payload}\n    import sys\n    sys.stdout.write({payload})\n"
                                f"    raise RuntimeError({payload})")
    name = f"99_check_fixture{HOSTILE.replace('/', '')}.ipynb"
    nbformat.write(notebook, tmp_path / name)
    run = run_cli("check", name, cwd=tmp_path)
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert CONTROLS.search(output.replace("\n", "").replace("\t", "")) is None, repr(output)
    words = " ".join(output.split())
    assert "raised ValueError: link" in words and "RuntimeError: link" in words  # the errors are shown, as text
    assert "Running the code of 99_check_fixturelink.ipynb on this computer" in words


def test_usage_errors_and_help_say_what_the_check_does(tmp_path):
    run = run_cli("check", f"missing{HOSTILE}.ipynb", cwd=tmp_path)
    assert run.returncode == 2 and CONTROLS.search(run.stderr.replace("\n", "")) is None, repr(run.stderr)
    assert "does not exist" in run.stderr
    run = run_cli("check", "--help", cwd=tmp_path)
    assert "RUNS THE NOTEBOOK'S CODE" in " ".join(run.stdout.split()) and "--no-run" in run.stdout


def test_the_kits_limits_are_the_graders():
    from grading.execution.limits import Limits
    from nbkit.check.run import MAX_OUTPUT_BYTES, MEMORY_BYTES, THREAD_ENV

    assert (MEMORY_BYTES, MAX_OUTPUT_BYTES) == (Limits().memory_bytes, Limits().max_output_bytes)
    source = (ROOT / "grading" / "execution" / "sandbox" / "bubblewrap.py").read_text()
    for key, value in THREAD_ENV.items():  # the grader's kernel runs its linear algebra on one thread too
        assert f'"{key}": "{value}"' in source


def test_memory_past_the_limit_fails_in_the_kernel_and_a_flood_of_output_stops_the_run(tmp_path):
    """The kernel runs under the grader's address-space limit (np.empty of 5 GiB touches no page, so
    without the limit it would succeed); 21 MB printed stops the run after that cell, as in the grader,
    and the check keeps no more than the limit of it."""
    from nbkit.check import check_notebook
    from tests.nbkit.test_check import MANIFEST, only

    notebook = answered()
    notebook.cells.insert(3, new_code_cell("import os\nassert os.environ.get('OPENBLAS_NUM_THREADS') == '1', 'threads'\n"
                                           "import numpy as np\nbig = np.empty(5 * 2**30, dtype=np.uint8)"))
    notebook.cells.insert(4, new_code_cell("for _ in range(21):\n    print('x' * 1_000_000)"))
    path = tmp_path / "99_check_fixture.ipynb"
    nbformat.write(notebook, path)
    report = check_notebook(path, manifest=MANIFEST)
    runs = [f for f in report.findings if f.check == "runs"]
    words = " ".join(" ".join([f.message, *f.details]) for f in runs)
    assert "raised MemoryError" in words, report.format()
    assert "threads" not in words, report.format()  # the kernel has the grader's one-thread environment
    assert "printed more than 20 MB of output by the end of cell 5 of 8" in words, report.format()
    assert only(report, "visible tests").level == "PROBLEM" and report.exit_code == 1
    assert path.stat().st_size < 100_000  # the student's file is not changed (no output written into it)


def test_a_forged_allow_list_does_not_import_a_file_beside_the_notebook(tmp_path):
    """The check resolves allowed names by importing them, in its own process; the allow-list comes from the
    notebook's metadata, which anyone can edit. A module next to the notebook is never imported (--no-run:
    nothing of the notebook's may run at all)."""
    (tmp_path / "helpers_beside.py").write_text("open('IMPORTED', 'w').close()\n")
    notebook = answered()
    notebook.metadata["nbg"]["rule"]["allowed"].append("helpers_beside")
    notebook.cells[2].source = "import helpers_beside\n\ndef add(a, b):\n    return helpers_beside.plus(a, b)"
    nbformat.write(notebook, tmp_path / "99_check_fixture.ipynb")
    run = run_cli("check", "99_check_fixture.ipynb", "--no-run", cwd=tmp_path)
    assert not (tmp_path / "IMPORTED").exists(), run.stdout
    assert "not an installed library" in " ".join(run.stdout.split()), run.stdout  # and it is a finding
