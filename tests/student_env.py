"""A student's environment, made from the hand-out alone, for the tests.

A student installs the hand-out's wheel next to the public libraries. The
tests cannot download those libraries (no network at run time), so the fresh
virtual environment sees this project's environment's ``site-packages``
through a plain path line in a ``.pth`` file: a plain line only appends the
folder to ``sys.path``; it does not run the ``.pth`` files inside it, so the
editable install's finder (which makes ``nbcore``, ``nbkit`` and ``grading``
of this repository importable) never runs there. The kit then comes only from
the wheel, installed with ``pip install --no-index --no-deps``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

PTH_NAME = "public-libraries-of-the-test-runner.pth"
# Variables that would point a child interpreter back at this repository's environment.
_LEAKY_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "JUPYTER_PATH",
                    "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTERLAB_DIR", "MPLBACKEND")


def student_python(venv: Path) -> Path:
    return Path(venv) / "bin" / "python"


def clean_env(venv: Path) -> dict:
    """The environment a child of the student's venv runs with (activated, nothing of ours)."""
    env = {key: value for key, value in os.environ.items() if key not in _LEAKY_VARIABLES}
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = os.pathsep.join([str(Path(venv) / "bin"), "/usr/bin", "/bin"])
    return env


def run_student_python(venv: Path, code: str, cwd, timeout=120) -> subprocess.CompletedProcess:
    """Run ``code`` with the student's interpreter in ``cwd`` (not the repository)."""
    return subprocess.run([str(student_python(venv)), "-c", code], cwd=cwd, env=clean_env(venv),
                          capture_output=True, text=True, timeout=timeout)


def make_student_venv(wheel: Path, dest: Path) -> Path:
    """A fresh virtual environment with the public libraries and the wheel installed.

    Parameters
    ----------
    wheel : Path
        The hand-out's ``nbkit-<version>-py3-none-any.whl``.
    dest : Path
        Where to create the environment (must not exist).

    Returns
    -------
    Path
        The environment's folder (its interpreter: :func:`student_python`).
    """
    dest = Path(dest)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    python = student_python(dest)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, env=clean_env(dest), timeout=60,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, PTH_NAME).write_text(ours + "\n")
    # --isolated: no pip configuration (e.g. a find-links folder) of this machine.
    install = subprocess.run(
        [str(python), "-m", "pip", "--isolated", "install", "--no-index", "--no-deps",
         "--no-cache-dir", "--disable-pip-version-check", str(wheel)],
        capture_output=True, text=True, env=clean_env(dest), cwd=dest, timeout=300,
    )
    if install.returncode != 0:
        raise RuntimeError(f"pip could not install {wheel.name}:\n{install.stdout}\n{install.stderr}")
    return dest
