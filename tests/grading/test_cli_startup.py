"""``nbg --help`` and a usage error answer without loading the pipeline's heavy libraries.

A subcommand's module is imported for its options; what its step needs (nbgrader, the kernels'
clients, NumPy, matplotlib, ...) is imported when the step runs. The check is on ``sys.modules``
of a fresh interpreter, not on a time: deterministic on a loaded machine
(``bench/cli_startup.py`` measures the seconds).

Runtime: about 35 s on 2 cores at load 16 (a fresh interpreter per command line; the probe that
runs ``nbg validate`` imports nbgrader, 14 s of it).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from grading.cli import SUBCOMMANDS

# Each takes from a tenth of a second to seconds to import on the course's 2-core machines.
HEAVY = ("numpy", "pandas", "scipy", "sklearn", "matplotlib", "nbgrader", "nbformat", "nbconvert",
         "jupyter_client", "zmq", "sqlalchemy", "jinja2", "tqdm", "dask", "distributed", "psycopg")

PROBE = """
import json, sys
from grading.cli import main
try:
    code = main({argv!r})
except SystemExit as exit:
    code = exit.code
loaded = sorted({{name.split(".")[0] for name in sys.modules}} & set({heavy!r}))
print(json.dumps({{"code": code, "loaded": loaded}}), file=sys.stderr)
"""


def run_cli(argv, heavy=HEAVY) -> dict:
    """``main(argv)`` in a fresh interpreter: its exit code and which of ``heavy`` it imported."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=list(argv), heavy=heavy)],
                          capture_output=True, text=True, timeout=120, check=False)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["no-such-command"],
    ["--course", "/no/such/course", "status"],
    *([name, "--help"] for name in SUBCOMMANDS),
    *([name, "--no-such-option"] for name in SUBCOMMANDS),
], ids=" ".join)
def test_help_and_usage_errors_import_no_heavy_library(argv):
    outcome = run_cli(argv)
    assert outcome["loaded"] == []
    assert outcome["code"] == (0 if argv[-1] == "--help" else 2)


def test_the_probe_sees_a_step_that_runs_import_its_libraries(tmp_path):
    """The check can fail: ``nbg validate`` of a notebook runs the step, which loads nbgrader."""
    outcome = run_cli(["validate", str(tmp_path / "missing.ipynb")])
    assert "nbgrader" in outcome["loaded"]


def test_validate_choices_are_the_step_s_kinds():
    """``nbg validate --expect`` lists its kinds without importing grading.validate: they agree."""
    from grading.cli import build_parser
    from grading.commands.validate import EXPECT_CHOICES
    from grading.validate import RELEASE, SOURCE

    assert EXPECT_CHOICES == (SOURCE, RELEASE)
    subcommands = next(a for a in build_parser("validate")._actions if isinstance(a, argparse._SubParsersAction))
    assert "--expect {source,release}" in " ".join(subcommands.choices["validate"].format_help().split())
