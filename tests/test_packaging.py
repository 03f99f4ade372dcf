"""The install files agree with each other: pyproject.toml and environment.yml."""

import re
from pathlib import Path

import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _normalise(requirement: str) -> tuple[str, str]:
    """Split 'Name>=1.0' into ('name', '>=1.0') with PEP 503 name folding."""
    requirement = requirement.split(";")[0]  # environment markers do not exist in conda
    requirement = re.sub(r"\[[^\]]*\]", "", requirement)  # nor extras: conda packages ship them whole
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", requirement)
    assert match, f"cannot parse requirement {requirement!r}"
    name, spec = match.groups()
    return re.sub(r"[-_.]+", "-", name).lower(), spec.replace(" ", "")


def _pyproject_requirements() -> set[tuple[str, str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"]) + list(project["optional-dependencies"]["dev"])
    return {_normalise(r) for r in requirements}


def _conda_requirements() -> tuple[set[tuple[str, str]], list]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    plain = [d for d in env["dependencies"] if isinstance(d, str)]
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    conda = {_normalise(d) for d in plain if _normalise(d)[0] not in {"python", "pip"}}
    return conda, pip_sections


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    conda, _ = _conda_requirements()
    pyproject = _pyproject_requirements()
    assert conda - pyproject == set(), f"only in environment.yml: {sorted(conda - pyproject)}"
    assert pyproject - conda == set(), f"only in pyproject.toml: {sorted(pyproject - conda)}"


def test_environment_yml_installs_the_project_with_pip():
    _, pip_sections = _conda_requirements()
    assert ["-e ."] in pip_sections, "environment.yml must end with `- pip: [-e .]`"


def test_python_lower_bounds_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert project["requires-python"] == ">=3.10"
    assert "python>=3.10" in env["dependencies"]


def test_ci_runs_make_test():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M), ".ci/run must call `make test`"


# The dev extra's packages, by the module names they install: the test tools.
DEV_ONLY_MODULES = {"pytest", "_pytest", "xdist", "pytest_timeout", "nbval", "hypothesis", "yaml", "selenium",
                    "tomli", "ruff"}


def test_the_instructors_install_needs_no_test_tool():
    """`make demo` installs the project without the dev extra: no module of the three packages
    imports a test tool."""
    import ast

    found = []
    for package in ("grading", "nbcore", "nbkit"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                         else [])
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                          if name.split(".")[0] in DEV_ONLY_MODULES]
    assert found == [], found
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo: \$\(BASE_STAMP\)", makefile, re.M), "make demo must not install the dev extra"
    assert re.search(r"^\t\$\(BIN\)/python -m pip install --quiet -e \.$", makefile, re.M)
