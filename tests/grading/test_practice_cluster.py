"""``nbg serve --scheduler``: the checks run on autograde's Dask runner, on real Dask processes on 127.0.0.1.

A scheduler and one worker (tests/grading/servers.py), a practice server of the fixture course
pointed at them, one check: the reply names the catalogued mistake, and the scheduler saw the task.
"""

from __future__ import annotations

import pytest

from tests.grading import servers
from tests.grading.practice_server import WORDS, PracticeServer, issue_tokens, notebook_bytes, practice_course

pytestmark = pytest.mark.slow


def _scheduler_tasks(address) -> int:
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))


def test_a_check_runs_on_the_dask_cluster(tmp_path):
    root = practice_course(tmp_path / "course")
    tokens = issue_tokens(root, ["alice"], tmp_path / "tokens.csv")
    with servers.dask_processes(tmp_path / "dask") as dask:
        dask.start_worker("w1")
        dask.wait_for_workers(1)
        before = _scheduler_tasks(dask.address)
        server = PracticeServer(root, "--scheduler", dask.address)
        try:
            status, _, reply = server.check(tokens["alice"], notebook_bytes(root, "wrong_hidden"), "?function=add")
        finally:
            server.stop()
        assert status == 200, reply
        add = reply["functions"][0]
        assert add["function"] == "add" and add["passed"] is False
        assert any(WORDS in cell["diagnosis"] for cell in add["cells"]), add
        assert _scheduler_tasks(dask.address) > before, dask.logs()
