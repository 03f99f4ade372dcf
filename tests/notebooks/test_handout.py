"""The real course's hand-out works for a student who has nothing else.

``nbg release`` (``grading.release.build_release``) releases every assignment
of a scratch copy of the course; a fresh virtual environment gets the
hand-out's wheel (tests/student_env.py: the public libraries, no repository).
There, for each assignment:

* the release notebook with its solution cells filled from the source runs
  in a kernel of that environment with every visible test passing;
* the release as given stops at its first visible test with
  ``NotImplementedError``.

A notebook whose given cells or visible tests still import ``nbcore`` fails
here: students do not have it.

Runtime: the release (~30 s), then about 10 s per notebook on 2 cores.
"""

import ast
import json
import re
import shutil
import subprocess

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from grading.core.course import Course
from grading.release import build_release
from tests.handout_checks import assert_no_answers
from tests.student_env import clean_env, make_student_venv, run_student_python, student_python

from .conftest import COURSE_ROOT, is_autograded_test, nbgrader_meta, notebook_params

CELL_TIMEOUT = 300
KERNEL_NAME = "student"


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A scratch copy of the course after ``nbg release`` of every assignment."""
    root = tmp_path_factory.mktemp("handout-course") / "course"
    root.mkdir()
    shutil.copy(COURSE_ROOT / "nbgrader_config.py", root)
    shutil.copytree(COURSE_ROOT / "source", root / "source",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    course = Course(root)
    build_release(course)
    return course


@pytest.fixture(scope="module")
def student_venv(released, tmp_path_factory):
    (wheel,) = (released.release_root / "handout").glob("*.whl")
    return make_student_venv(wheel, tmp_path_factory.mktemp("student") / "venv")


@pytest.fixture(scope="module")
def kernels_dir(student_venv, tmp_path_factory):
    """A kernelspec folder with one kernel: the student environment's Python."""
    folder = tmp_path_factory.mktemp("kernels")
    spec = folder / KERNEL_NAME
    spec.mkdir()
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [str(student_python(student_venv)), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (student hand-out)",
        "language": "python",
    }))
    return folder


def _execute(notebook, workdir, student_venv, kernels_dir):
    """Run all cells in a kernel of the student's environment, in ``workdir``."""
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME,
                                 kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels_dir)]))
    client = NotebookClient(notebook, km=manager, timeout=CELL_TIMEOUT, kernel_name=KERNEL_NAME,
                            resources={"metadata": {"path": str(workdir)}})
    try:
        client.execute(env=clean_env(student_venv))
    finally:  # a kernel manager given to nbclient is left running when a cell fails: stop it here
        if run_sync(manager.is_alive)():
            run_sync(manager.shutdown_kernel)(now=True)


def _release(released, path):
    return nbformat.read(released.release_dir(path.parent.name) / path.name, as_version=4)


def _filled(release, source):
    """The release with each code solution cell replaced by the source's answer."""
    answers = {nbgrader_meta(cell).get("grade_id"): cell.source for cell in source.cells}
    for cell in release.cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("solution"):
            cell.source = "\n".join(line for line in answers[nbgrader_meta(cell)["grade_id"]].splitlines()
                                    if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)
    return release


def _errors(notebook):
    return [(index, output) for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for output in cell.get("outputs", []) if output.output_type == "error"]


def _where(notebook, index):
    return nbgrader_meta(notebook.cells[index]).get("grade_id") or f"cell {index}"


@pytest.mark.slow
def test_nbcore_is_not_importable_in_the_student_environment(student_venv, tmp_path):
    run = run_student_python(student_venv, "import nbkit.testing\nimport nbcore", cwd=tmp_path)
    assert run.returncode == 1
    assert "ModuleNotFoundError: No module named 'nbcore'" in run.stderr, run.stderr


@pytest.mark.slow
def test_handout_and_releases_hold_no_answers(released):
    files = sorted(p for p in released.release_root.rglob("*") if p.is_file())
    files += sorted((released.root / "release_zips").glob("*.zip"))
    assert len([p for p in files if p.suffix == ".ipynb"]) == len(notebook_params())
    assert_no_answers(files)


@pytest.mark.slow
@pytest.mark.parametrize("path", notebook_params())
def test_release_as_given_stops_at_the_first_visible_test(
        released, student_venv, kernels_dir, path, tmp_path):
    notebook = _release(released, path)
    with pytest.raises(CellExecutionError):
        _execute(notebook, tmp_path, student_venv, kernels_dir)
    first_test = next(i for i, cell in enumerate(notebook.cells) if is_autograded_test(cell))
    errors = _errors(notebook)
    assert len(errors) == 1, [(_where(notebook, i), o.ename, o.evalue) for i, o in errors]
    index, output = errors[0]
    assert (index, output.ename) == (first_test, "NotImplementedError"), (
        f"{path.name}: the first failure is {output.ename}: {output.evalue} in {_where(notebook, index)}, "
        f"expected NotImplementedError in the first visible test {_where(notebook, first_test)}")
    later = [cell for cell in notebook.cells[index + 1:] if cell.cell_type == "code"]
    assert not any(cell.execution_count for cell in later), "cells after the failure ran"


# --- `python -m nbkit check` in the student's environment -------------------------------------

def _answered(release, source):
    """The release with every answer (code and written) filled from the source, as a student would."""
    release = _filled(release, source)
    answers = {nbgrader_meta(cell).get("grade_id"): cell.source for cell in source.cells}
    for cell in release.cells:
        if cell.cell_type == "markdown" and nbgrader_meta(cell).get("solution"):
            cell.source = answers[nbgrader_meta(cell)["grade_id"]]
    return release


def _nbkit_check(student_venv, path, *options):
    """``python -m nbkit check`` as a student runs it: their interpreter, in the notebook's folder.
    ``run.text`` is its output with the line wrapping undone."""
    run = subprocess.run([str(student_python(student_venv)), "-m", "nbkit", "check", path.name, *options],
                          cwd=path.parent, env=clean_env(student_venv), capture_output=True, text=True,
                          timeout=CELL_TIMEOUT + 300)
    run.text = " ".join(run.stdout.split())
    return run


def _has_code(source):
    """Whether a released test cell has code beyond its docstring (a hidden test's body is cut)."""
    return any(not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               for node in ast.parse(source).body)


def _student_copy(released, path, folder, notebook=None):
    """The notebook (default: the release as given) saved where a student unzipped it."""
    target = folder / path.parent.name / path.name
    target.parent.mkdir(parents=True)
    nbformat.write(notebook if notebook is not None else _release(released, path), target)
    return target


@pytest.mark.slow
@pytest.mark.parametrize("path", notebook_params())
def test_nbkit_check_passes_an_answered_notebook_in_the_student_environment(released, student_venv, path,
                                                                            tmp_path):
    """The release filled with the instructor's answers runs from the top and passes every visible
    test with the hand-out alone (the student's environment: no nbcore), as ``nbkit check`` says.
    One run per notebook checks both: the kit's check and the notebook in the student's environment."""
    notebook = _answered(_release(released, path), nbformat.read(path, as_version=4))
    target = _student_copy(released, path, tmp_path, notebook)
    before = target.read_bytes()
    run = _nbkit_check(student_venv, target)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Result: this notebook will grade." in run.stdout
    visible = [cell for cell in notebook.cells if is_autograded_test(cell) and _has_code(cell.source)]
    assert visible and f"OK visible tests: all {len(visible)} pass" in run.text, run.stdout
    assert "OK runs: every cell runs from the top in a fresh kernel." in run.text, run.stdout
    assert not re.search(r"^(WARNING|PROBLEM|SKIPPED)", run.stdout, re.M), run.stdout
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]


FIRST = notebook_params()[0].values[0]  # the quickest to run


@pytest.mark.slow
def test_nbkit_check_finds_a_truncated_notebook_in_the_student_environment(released, student_venv, tmp_path):
    target = _student_copy(released, FIRST, tmp_path,
                           _answered(_release(released, FIRST), nbformat.read(FIRST, as_version=4)))
    target.write_bytes(target.read_bytes()[:-2000])
    run = _nbkit_check(student_venv, target)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "PROBLEM readable: the file is not complete notebook JSON: it stops in the middle" in run.text, run.stdout


@pytest.mark.slow
def test_nbkit_check_finds_an_edited_test_cell_in_the_student_environment(released, student_venv, tmp_path):
    notebook = _answered(_release(released, FIRST), nbformat.read(FIRST, as_version=4))
    index = next(i for i, cell in enumerate(notebook.cells) if is_autograded_test(cell))
    notebook.cells[index].source += "\n# I made this test pass\n"
    run = _nbkit_check(student_venv, _student_copy(released, FIRST, tmp_path, notebook))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "PROBLEM test cells: test cells were edited" in run.text, run.stdout
    assert f"cell {index + 1} of {len(notebook.cells)} ({nbgrader_meta(notebook.cells[index])['grade_id']})" \
        in run.text


@pytest.mark.slow
def test_nbkit_check_finds_a_notebook_that_takes_too_long_in_the_student_environment(
        released, student_venv, tmp_path):
    notebook = _answered(_release(released, FIRST), nbformat.read(FIRST, as_version=4))
    notebook.cells.append(nbformat.v4.new_code_cell("import time\n\ntime.sleep(120)  # a long experiment"))
    run = _nbkit_check(student_venv, _student_copy(released, FIRST, tmp_path, notebook), "--timeout", "5")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "PROBLEM time: the notebook does not run within the time limit" in run.text, run.stdout
    assert f"cell {len(notebook.cells)} of {len(notebook.cells)} ('import time') ran longer than 5 s" in run.text


@pytest.mark.slow
def test_nbkit_check_says_the_release_as_given_needs_answers(released, student_venv, tmp_path):
    run = _nbkit_check(student_venv, _student_copy(released, FIRST, tmp_path))
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"WARNING answers: \d+ answer cell\(s\) are as released", run.text), run.stdout
    assert "(the function is not written yet)" in run.text, run.stdout


@pytest.mark.slow
def test_nbkit_check_usage_error_in_the_student_environment(student_venv, tmp_path):
    run = _nbkit_check(student_venv, tmp_path / "01_bayes_mle_map.ipynb")
    assert run.returncode == 2 and "does not exist" in run.stderr, run.stdout + run.stderr


@pytest.mark.slow
def test_spambase_loads_from_the_wheel_in_the_student_environment(student_venv, tmp_path):
    code = ("from nbkit.datasets import load_spambase\nimport nbkit.datasets.spambase as s\n"
            "X, y, names = load_spambase()\nprint(X.shape, int(y.sum()), names[0], s.SPAMBASE_FILE.parent.name)")
    run = run_student_python(student_venv, code, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(4601,", "57)", "1813", "word_freq_make", "datasets"]
    assert "site-packages" in run_student_python(
        student_venv, "import nbkit.datasets.spambase as s; print(s.SPAMBASE_FILE)", cwd=tmp_path).stdout
