"""The course-wide part of the student hand-out, written by ``nbg release``.

Students receive the release notebooks (one zip per assignment) and this
hand-out, which is all they need to run them without the repository:

``nbkit-<version>-py3-none-any.whl``
    the student kit (:mod:`nbkit`: datasets, the visible tests' helpers,
    tokenizer, plotting) as a wheel, written here with :mod:`zipfile` (no
    build backend, no network). It holds no graded function and no
    ``nbcore``, the instructor's reference solution.
``environment.yml`` and ``requirements.txt``
    a student environment, for conda and for pip: the kit, the public
    libraries the notebooks use, and JupyterLab. Not nbgrader: students get
    no instructor tools (and no "Error fetching courses!").
``README.md``
    how to set up and work, for students.

The hand-out goes to ``<course>/release/handout/`` and is zipped, like each
assignment, into ``<course>/release_zips/handout.zip``.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import re
import shutil
import zipfile
from pathlib import Path

from grading.core.errors import NbgError

HANDOUT_DIRNAME = "handout"
KIT_NAME = "nbkit"
KIT_SUMMARY = "The student kit of the naive Bayes course: datasets, test helpers, tokenizer, plotting."
# The public libraries the release notebooks import, with the project's lower
# bounds (tests/grading/test_handout.py checks they agree with pyproject.toml).
PUBLIC_REQUIREMENTS = (
    "numpy>=1.24",
    "scipy>=1.10",
    "pandas>=2.0",
    "matplotlib>=3.7",
    "scikit-learn>=1.9",
)
# What the student runs the notebooks in. No nbgrader: it would add the
# instructor's menus and an exchange that students do not have.
JUPYTER_REQUIREMENTS = ("jupyterlab>=4.0", "ipykernel>=6.25")
REQUIRES_PYTHON = ">=3.10"
STUDENT_ENV_NAME = "naive-bayes-student"
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def kit_source_dir() -> Path:
    """The folder of the installed :mod:`nbkit` package (found without importing it)."""
    spec = importlib.util.find_spec(KIT_NAME)
    if spec is None or not spec.submodule_search_locations:
        raise NbgError(f"the student kit {KIT_NAME!r} is not installed: run `make venv`")
    return Path(next(iter(spec.submodule_search_locations)))


def kit_version(kit_dir: Path) -> str:
    """``__version__`` of the kit, read from its ``__init__.py`` (not imported)."""
    init = Path(kit_dir) / "__init__.py"
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
            and isinstance(node.value, ast.Constant)
        ):
            return str(node.value.value)
    raise NbgError(f"{init} sets no __version__ = '...': add one (the wheel is named after it)")


def kit_files(kit_dir: Path) -> list[Path]:
    """The files of the kit that go into the wheel: everything but caches."""
    kit_dir = Path(kit_dir)
    return sorted(
        path
        for path in kit_dir.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.relative_to(kit_dir).parts
        and path.suffix not in {".pyc", ".pyo"}
    )


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def wheel_name(version: str) -> str:
    """The wheel's file name (PEP 427), e.g. ``nbkit-0.1.0-py3-none-any.whl``."""
    return f"{KIT_NAME}-{version}-py3-none-any.whl"


def _metadata(version: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {KIT_NAME}",
        f"Version: {version}",
        f"Summary: {KIT_SUMMARY}",
        "License: MIT",
        f"Requires-Python: {REQUIRES_PYTHON}",
        *(f"Requires-Dist: {requirement}" for requirement in PUBLIC_REQUIREMENTS),
    ]
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: grading.release.handout\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def build_kit_wheel(dest_dir, kit_dir=None) -> Path:
    """Write the student kit as a pure-Python wheel into ``dest_dir``.

    The wheel is reproducible (sorted entries, fixed timestamps) and holds
    the kit's files, ``METADATA`` (with ``Requires-Dist`` for the public
    libraries), ``WHEEL``, ``top_level.txt`` and a ``RECORD`` of sha256
    hashes, so ``pip install --no-index`` installs it.

    Parameters
    ----------
    dest_dir : path
        Folder to write the wheel into (created if missing).
    kit_dir : path, optional
        The ``nbkit`` package folder (default: the installed one).

    Returns
    -------
    Path
        The wheel.
    """
    kit_dir = Path(kit_dir) if kit_dir is not None else kit_source_dir()
    version = kit_version(kit_dir)
    dist_info = f"{KIT_NAME}-{version}.dist-info"
    entries = [
        (f"{KIT_NAME}/{path.relative_to(kit_dir).as_posix()}", path.read_bytes())
        for path in kit_files(kit_dir)
    ]
    entries += [
        (f"{dist_info}/METADATA", _metadata(version).encode()),
        (f"{dist_info}/WHEEL", _wheel_file().encode()),
        (f"{dist_info}/top_level.txt", f"{KIT_NAME}\n".encode()),
    ]
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))

    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    wheel = dest_dir / wheel_name(version)
    tmp = wheel.with_suffix(".whl.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, _ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    tmp.replace(wheel)
    return wheel


def requirements_txt(wheel: str) -> str:
    """The pip requirements of the student environment (run from the hand-out folder)."""
    lines = [
        "# The student environment of the naive Bayes course, for pip. In this folder:",
        "#   python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt",
        *PUBLIC_REQUIREMENTS,
        *JUPYTER_REQUIREMENTS,
        f"./{wheel}",
    ]
    return "\n".join(lines) + "\n"


def environment_yml(wheel: str) -> str:
    """The conda environment file of the student environment (next to the wheel)."""
    dependencies = ["python" + REQUIRES_PYTHON, "pip", *PUBLIC_REQUIREMENTS, *JUPYTER_REQUIREMENTS]
    lines = [
        "# The student environment of the naive Bayes course, for conda. In this folder:",
        "#   conda env create -f environment.yml && conda activate " + STUDENT_ENV_NAME,
        f"name: {STUDENT_ENV_NAME}",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        *(f"  - {dependency}" for dependency in dependencies),
        "  - pip:",
        f"      - ./{wheel}",
    ]
    return "\n".join(lines) + "\n"


def student_readme(wheel: str, assignments) -> str:
    """The hand-out's README, for students."""
    import textwrap

    from nbkit.librule.rule import RULE_TEXT

    listed = "\n".join(f"- `{assignment}.zip`" for assignment in assignments)
    wrapped_rule = "\n".join(textwrap.wrap(RULE_TEXT, 76,
                                           break_on_hyphens=False))
    return f"""\
# Naive Bayes course: the student hand-out

This folder sets up everything the course's notebooks need on your computer:
`{wheel}` (the course's student kit `nbkit`: data sets, the helpers of the
visible tests, plotting), and the public libraries NumPy, SciPy, pandas,
matplotlib, scikit-learn and JupyterLab. You need Python 3.10 or newer.

## Set up once

With conda (Anaconda, Miniconda or Miniforge), in this folder:

    conda env create -f environment.yml
    conda activate {STUDENT_ENV_NAME}

Or with pip, in this folder:

    python3 -m venv .venv
    source .venv/bin/activate          # Windows: .venv\\Scripts\\activate
    python -m pip install -r requirements.txt

## Each assignment

The assignments come as one zip each:

{listed}

1. Unzip the assignment and start JupyterLab in its folder, with the
   environment activated: `jupyter lab`. Open the notebook.
2. Fill every `# YOUR CODE HERE` cell (and the written answers marked
   `YOUR ANSWER HERE`), and run the visible test cell after each function:
   it checks the worked numbers of the lectures and says what is wrong.
   Before you write a function, its test stops with `NotImplementedError`.
3. Restart the kernel and run all cells (Kernel > Restart Kernel and Run
   All Cells): a notebook that only works in your session's state will not
   work when graded.
4. Check that it will grade, in the assignment's folder, with the
   environment activated:

       python -m nbkit check <notebook>.ipynb

   It runs a copy of your notebook in a fresh kernel (your file is not
   changed) and says, check by check, OK, WARNING or PROBLEM and what to
   do: the file is complete, every test and answer cell is there and no
   test cell was edited, it runs from the top within the grader's time
   limits, the visible tests pass, and every graded function follows the
   rule on libraries below (the check is the grader's own code, with the
   lists each exercise gives). Exit code 0 means it will grade as it is.
   The check runs the notebook's code on your computer, as Jupyter would:
   run it on your own notebooks, not on one someone sent you
   (`--no-run` checks a notebook without running it).
5. Submit the `.ipynb` file under its original name. More tests run at
   grading time on other inputs.

## The rule on libraries

Each notebook states it in its introduction, under **Libraries**:

{wrapped_rule}
"""


def build_handout(release_root, assignments, kit_dir=None) -> Path:
    """Write the course's hand-out folder ``<release_root>/handout/``.

    Parameters
    ----------
    release_root : path
        The course's ``release/`` folder.
    assignments : list of str
        The released assignments, listed in the students' README.
    kit_dir : path, optional
        The ``nbkit`` package folder (default: the installed one).

    Returns
    -------
    Path
        The hand-out folder (rebuilt from scratch each time).
    """
    handout = Path(release_root) / HANDOUT_DIRNAME
    if handout.exists():
        shutil.rmtree(handout)
    handout.mkdir(parents=True)
    wheel = build_kit_wheel(handout, kit_dir).name
    (handout / "requirements.txt").write_text(requirements_txt(wheel), encoding="utf-8")
    (handout / "environment.yml").write_text(environment_yml(wheel), encoding="utf-8")
    (handout / "README.md").write_text(student_readme(wheel, assignments), encoding="utf-8")
    return handout


def requirement_name(requirement: str) -> str:
    """The normalised project name of a requirement string.

    Examples
    --------
    >>> requirement_name("scikit_learn>=1.9")
    'scikit-learn'
    """
    match = re.match(r"\s*([A-Za-z0-9_.\-]+)", requirement)
    if not match:
        raise NbgError(f"cannot read a project name from {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()
