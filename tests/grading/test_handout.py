"""The hand-out ``nbg release`` writes: the kit wheel, the student environment
files and README, and nothing from the answer key.

The end-to-end checks (the real course's release notebooks run in an
environment made from the hand-out alone; JupyterLab in a browser) are in
tests/notebooks/test_handout.py and test_handout_browser.py.

Runtime: about 15 s (one fixture release, a fresh virtual environment).
"""

import ast
import base64
import hashlib
import re
import zipfile
from email.parser import Parser
from pathlib import Path

import fixtures
import pytest
import yaml

from grading.core.course import Course
from grading.release.handout import (
    JUPYTER_REQUIREMENTS,
    PUBLIC_REQUIREMENTS,
    build_handout,
    build_kit_wheel,
    kit_source_dir,
    requirement_name,
)
from grading.release import build_release, handout_zip_path
from tests.nbkit.test_no_answers import graded_function_names
from tests.handout_checks import assert_no_answers, course_secrets
from tests.notebooks.conftest import source_notebooks
from tests.student_env import make_student_venv, run_student_python

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_LIBRARIES = {"numpy", "scipy", "pandas", "matplotlib", "scikit-learn"}
@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("handout-course")
    fixtures.write_course(root)
    course = Course(root)
    build_release(course)
    return course


@pytest.fixture(scope="module")
def handout(released):
    return released.release_root / "handout"


def _wheel(handout):
    (wheel,) = handout.glob("*.whl")
    return wheel


def test_release_writes_the_handout_and_its_zip(released, handout):
    assert sorted(p.name for p in handout.iterdir()) == [
        "README.md", "environment.yml", "nbkit-0.1.0-py3-none-any.whl", "requirements.txt"]
    with zipfile.ZipFile(handout_zip_path(released)) as archive:
        assert sorted(archive.namelist()) == sorted(f"handout/{p.name}" for p in handout.iterdir())
        assert archive.read("handout/README.md") == (handout / "README.md").read_bytes()
    readme = (handout / "README.md").read_text()
    assert "`ps_fixture.zip`" in readme and "pip install -r requirements.txt" in readme


def test_wheel_record_hashes_every_file_and_metadata_requires_the_public_libraries(handout):
    with zipfile.ZipFile(_wheel(handout)) as wheel:
        names = wheel.namelist()
        record = wheel.read("nbkit-0.1.0.dist-info/RECORD").decode().splitlines()
        rows = dict((name, (digest, size)) for name, digest, size in (line.split(",") for line in record))
        assert sorted(rows) == sorted(names)
        for name in names:
            if name.endswith("RECORD"):
                assert rows[name] == ("", "")
                continue
            data = wheel.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert rows[name] == (f"sha256={expected}", str(len(data))), name
        metadata = Parser().parsestr(wheel.read("nbkit-0.1.0.dist-info/METADATA").decode())
        tags = wheel.read("nbkit-0.1.0.dist-info/WHEEL").decode()
    kit = kit_source_dir()
    sources = sorted(f"nbkit/{p.relative_to(kit).as_posix()}" for p in kit.rglob("*.py")
                     if "__pycache__" not in p.parts)
    assert sorted(n for n in names if n.endswith(".py")) == sources
    assert metadata["Name"] == "nbkit" and metadata["Version"] == "0.1.0"
    assert {requirement_name(r) for r in metadata.get_all("Requires-Dist")} == PUBLIC_LIBRARIES
    assert "Root-Is-Purelib: true" in tags and "Tag: py3-none-any" in tags


def test_wheel_is_reproducible(tmp_path):
    first = build_kit_wheel(tmp_path / "a").read_bytes()
    second = build_kit_wheel(tmp_path / "b").read_bytes()
    assert first == second


def test_public_requirements_are_the_projects_own():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in PUBLIC_REQUIREMENTS:
        assert requirement in project["dependencies"], f"{requirement} differs from pyproject.toml"
    assert {requirement_name(r) for r in PUBLIC_REQUIREMENTS} == PUBLIC_LIBRARIES


def test_student_environment_files_install_the_kit_and_no_instructor_tool(handout):
    wheel = _wheel(handout).name
    env = yaml.safe_load((handout / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert pip_sections == [[f"./{wheel}"]]
    requirements = [line for line in (handout / "requirements.txt").read_text().splitlines()
                    if line and not line.startswith("#")]
    assert requirements[-1] == f"./{wheel}"
    expected = PUBLIC_LIBRARIES | {requirement_name(r) for r in JUPYTER_REQUIREMENTS}
    assert {requirement_name(r) for r in requirements[:-1]} == expected
    assert {requirement_name(d) for d in conda} - {"python", "pip"} == expected
    for text in ((handout / "environment.yml").read_text(), (handout / "requirements.txt").read_text()):
        assert not re.search(r"nbgrader|nbcore|-e \.|naive-bayes-course", text)


def test_an_assignment_named_handout_is_refused(tmp_path):
    fixtures.write_course(tmp_path, assignment="handout")
    with pytest.raises(ValueError, match="may not be called 'handout'"):
        build_release(Course(tmp_path))


def test_wheel_installs_offline_in_a_fresh_venv_where_nbcore_is_absent(handout, tmp_path):
    venv = make_student_venv(_wheel(handout), tmp_path / "venv")
    code = (
        "import importlib.util, nbkit, nbkit.testing, nbkit.datasets, sklearn\n"
        "print(nbkit.__file__)\n"
        "print([m for m in ('nbcore', 'grading', 'nbgrader') if importlib.util.find_spec(m)])\n"
        "import nbcore\n"
    )
    run = run_student_python(venv, code, cwd=tmp_path)
    kit_file, importable = run.stdout.splitlines()
    assert Path(kit_file).is_relative_to(venv), f"nbkit came from {kit_file}, not the wheel"
    assert "nbcore" not in importable and "grading" not in importable
    assert run.returncode == 1 and "ModuleNotFoundError: No module named 'nbcore'" in run.stderr
    check = run_student_python(venv, "import subprocess, sys; sys.exit(subprocess.call("
                               "[sys.executable, '-m', 'pip', '--isolated', 'check']))", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr  # Requires-Dist all satisfied


def test_the_kit_in_the_wheel_defines_no_graded_function(handout):
    graded = graded_function_names()
    with zipfile.ZipFile(_wheel(handout)) as wheel:
        modules = [name for name in wheel.namelist() if name.endswith(".py")]
        assert len(modules) >= 5
        for name in modules:
            tree = ast.parse(wheel.read(name))
            defined = {node.name for node in ast.walk(tree)
                       if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            assert not defined & graded, f"{name} defines graded function(s) {sorted(defined & graded)}"
            assert not {n for n in defined if n.endswith("NB")}, f"{name} defines an estimator"


def test_no_handout_file_holds_answers_of_the_course(tmp_path):
    handout = build_handout(tmp_path, [assignment for assignment, _ in source_notebooks()])
    checked = assert_no_answers(sorted(handout.iterdir()))
    assert checked >= 12  # the README, both environment files and every file in the wheel


def test_the_answer_check_sees_a_leak(tmp_path):
    # The check above is not blind: a kit module that carries one solution line fails it.
    blocks, _ = course_secrets()
    leaky = tmp_path / "leaky.py"
    leaky.write_text("def helper():\n" + blocks[0])
    with pytest.raises(AssertionError, match="leaky.py contains"):
        assert_no_answers([leaky])


def test_nbg_release_says_where_the_handout_is(tmp_path, capsys):
    from grading.cli import main

    fixtures.write_course(tmp_path)
    assert main(["--course", str(tmp_path), "release"]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path.resolve() / 'release' / 'handout'}" in out
    assert f"{tmp_path.resolve() / 'release_zips' / 'handout.zip'}" in out
