"""The suite's own guards, planted and caught: a hang fails its test, a leaked process fails the run.

Each case runs a small pytest session of its own in a subprocess (a few
seconds), so what is planted never touches this run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _inner_pytest(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    test_file = tmp_path / "test_planted.py"
    test_file.write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.process_guard", "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path), "--basetemp", str(tmp_path / "inner-tmp"), *args, str(test_file)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_planted_hang_fails_within_its_timeout_with_a_traceback(tmp_path):
    run = _inner_pytest(tmp_path, """
        import time

        def test_sleeps_forever():
            time.sleep(3600)
        """, "--timeout=3")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed" in out and "Timeout" in out, out
    assert "time.sleep(3600)" in out, out  # the traceback points at the line that hung


@pytest.mark.parametrize("workers", [(), ("-n", "1")], ids=["serial", "xdist-worker"])
def test_a_planted_leaked_judge_server_fails_the_run(tmp_path, workers):
    """Run serially and on an xdist worker (as `make test` does): a worker's exit status is not
    the run's, so the worker hands what it found to the controller, which fails the run."""
    run = _inner_pytest(tmp_path, """
        from grading.execution.judge_client import JudgeServer
        from grading.execution.limits import Limits

        LEAKED = []

        def test_starts_a_judge_server_and_never_stops_it():
            server = JudgeServer(sandbox="none", limits=Limits())
            server.wait_ready()
            LEAKED.append(server)  # kept alive past the test: nothing closes it
            with open("leaked.pid", "w") as handle:
                handle.write(str(server.process.pid))
        """, *workers)
    out = run.stdout + run.stderr
    assert "1 passed" in out, out  # the test itself passed ...
    assert run.returncode == 1, out  # ... and the run failed
    assert "processes left behind" in out and "judge_server" in out, out
    pid = int((tmp_path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # and it was killed


def test_a_run_that_stops_what_it_starts_passes(tmp_path):
    run = _inner_pytest(tmp_path, """
        from grading.execution.judge_client import JudgeServer
        from grading.execution.limits import Limits

        def test_starts_and_stops_a_judge_server():
            server = JudgeServer(sandbox="none", limits=Limits())
            server.wait_ready()
            server.close()
        """)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "processes left behind" not in out, out
