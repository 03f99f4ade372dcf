"""``nbg autograde --scheduler``: grading on a Dask cluster gives the local pool's scores.

Real Dask processes on 127.0.0.1 (the venv's ``dask scheduler`` and ``dask
worker``), or a ``LocalCluster`` over TLS with certificates made at test
time; kernels run sandboxed on the workers. The oracle is twofold: the
hand-derived cell scores of ``fixtures`` and the local pool's grades of the
same class.

Runtime (2 loaded cores): see the notes of issue 13; the worker checks take
a few seconds, each grading of the three-student class 10-25 s.
"""

from __future__ import annotations

import threading
import time

import pytest

import servers
import small_class
from grading.autograde import autograde
from grading.core.records import Status
from grading.execution.runners.dask import environment_fingerprint
from grading.core.course import Course

GRADING_TIMEOUT = 300  # seconds a grading run of the small class may take here


@pytest.fixture(scope="module")
def local_scores(tmp_path_factory):
    """The small class graded by the local process pool (2 workers, sandboxed)."""
    course = Course(small_class.fresh_copy(tmp_path_factory, "local_pool"))
    summary = autograde(course, workers=2)
    assert sorted(r.student for r in summary.records) == sorted(small_class.STUDENTS)
    scores = small_class.cell_scores(course)
    assert scores == small_class.hand_derived_scores()
    return scores


def _worker_by_name(client, name):
    for address, info in client.scheduler_info()["workers"].items():
        if info.get("name") == name:
            return address
    return None


@pytest.mark.slow
def test_dask_processes_grade_like_the_local_pool_when_a_worker_is_killed(tmp_path_factory, local_scores):
    from distributed import Client

    course = Course(small_class.fresh_copy(tmp_path_factory, "dask_processes"))
    with servers.dask_processes(tmp_path_factory.mktemp("dask")) as dask:
        processes = {name: dask.start_worker(name) for name in ("w1", "w2")}
        dask.wait_for_workers(2)
        outcome = {}

        def grade():
            try:
                outcome["summary"] = autograde(course, scheduler=dask.address)
            except BaseException as error:  # re-raised below, in the test's thread
                outcome["error"] = error

        grader = threading.Thread(target=grade)
        started = time.monotonic()
        grader.start()
        killed = None
        with Client(dask.address, set_as_default=False) as observer:
            deadline = time.monotonic() + GRADING_TIMEOUT
            while killed is None and grader.is_alive() and time.monotonic() < deadline:
                busy = [address for address, keys in observer.processing().items() if keys]
                info = observer.scheduler_info()["workers"]
                if busy:
                    killed = info[busy[0]]["name"]
                    processes[killed].kill()  # SIGKILL: no goodbye to the scheduler
                time.sleep(0.2)
        assert killed is not None, f"no worker ever ran a notebook:\n{dask.logs()}"
        grader.join(GRADING_TIMEOUT)
        assert not grader.is_alive(), f"grading did not finish in {GRADING_TIMEOUT} s:\n{dask.logs()}"
        elapsed = time.monotonic() - started
    if "error" in outcome:
        raise outcome["error"]
    summary = outcome["summary"]
    assert processes[killed].returncode == -9
    assert [r for r in summary.records if r.status == Status.UNGRADED] == []
    assert sorted(r.student for r in summary.records) == sorted(small_class.STUDENTS)
    assert small_class.cell_scores(course) == local_scores
    print(f"graded on 2 Dask workers, {killed} killed mid-run: {elapsed:.1f} s")


def _tls_files(folder):
    """A self-signed certificate (distributed's ``Security.temporary``) written as PEM files."""
    from distributed import Security

    security = Security.temporary()
    files = {"tls_ca_file": folder / "ca.pem", "tls_cert": folder / "cert.pem", "tls_key": folder / "key.pem"}
    files["tls_ca_file"].write_text(security.tls_ca_file)
    files["tls_cert"].write_text(security.tls_client_cert)
    files["tls_key"].write_text(security.tls_client_key)
    return security, {name: str(path) for name, path in files.items()}


@pytest.mark.slow
def test_local_cluster_over_tls_grades_like_the_local_pool(tmp_path_factory, local_scores):
    from distributed import LocalCluster

    course = Course(small_class.fresh_copy(tmp_path_factory, "local_cluster"))
    security, files = _tls_files(tmp_path_factory.mktemp("tls"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tls://", host="127.0.0.1",
                      security=security, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tls://127.0.0.1:")
        with pytest.raises(ValueError, match="cannot reach the Dask scheduler"):
            # Without the certificates the grader cannot join (no Dask TLS config here).
            autograde(course, scheduler=cluster.scheduler_address.replace("tls://", "tcp://"))
        summary = autograde(course, scheduler=cluster.scheduler_address, security=files)
    assert [r for r in summary.records if r.status == Status.UNGRADED] == []
    assert small_class.cell_scores(course) == local_scores


def test_workers_that_would_grade_differently_are_refused_by_name(tmp_path):
    fake = tmp_path / "site"
    (fake / "fakepkg-1.0.dist-info").mkdir(parents=True)
    (fake / "fakepkg-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n")
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)}
    with servers.dask_processes(tmp_path / "dask") as dask:
        dask.start_worker("other-packages", env={**base, "PYTHONPATH": str(fake)})
        dask.start_worker("no-bwrap", env={**base, "PATH": str(servers.BIN)})
        dask.wait_for_workers(2)
        with pytest.raises(ValueError) as refused:
            autograde(tmp_path / "course", scheduler=dask.address)
    message = str(refused.value)
    assert "(other-packages): its Python" in message and "installed packages" in message
    assert "(no-bwrap): the sandbox does not work there: bubblewrap (`bwrap`) is not on PATH" in message
    assert message.count("worker tcp://127.0.0.1:") == 2  # one line each, the good parts unmentioned


def test_the_environment_fingerprint_changes_with_the_installed_packages(tmp_path, monkeypatch):
    before = environment_fingerprint()
    assert environment_fingerprint() == before
    (tmp_path / "fakepkg-1.0.dist-info").mkdir()
    (tmp_path / "fakepkg-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert environment_fingerprint() != before


def test_a_bad_scheduler_address_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="is not a Dask address"):
        autograde(tmp_path, scheduler="http://nowhere:8786/path")


@pytest.mark.slow
def test_a_task_the_cluster_keeps_losing_is_left_ungraded_and_graded_next_run(tmp_path_factory, local_scores):
    import os
    import signal

    import dask
    from distributed import Client, LocalCluster

    from grading.autograde.budget import cache_path

    course = Course(small_class.fresh_copy(tmp_path_factory, "lost_task"))
    # This run measures its honest times (not the ones shared between test courses): the cache file
    # appearing is how the test knows the measurement is over and the students' tasks are running.
    cache_path(course).unlink(missing_ok=True)
    # No retry: the first worker lost while running a notebook fails its task for good. One task at a
    # time per single-threaded worker (Dask would queue a second one on it, and lose both).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as observer:
        pids = observer.run(os.getpid)
        outcome = {}
        grader = threading.Thread(target=lambda: outcome.update(
            summary=autograde(course, scheduler=cluster.scheduler_address)))
        grader.start()
        killed = None
        deadline = time.monotonic() + GRADING_TIMEOUT

        while killed is None and grader.is_alive() and time.monotonic() < deadline:
            busy = [address for address, keys in observer.processing().items() if keys]
            # the assignment's honest run is measured first (the time budget); lose a student's task
            if busy and cache_path(course).exists():
                killed = busy[0]
                os.kill(pids[killed], signal.SIGKILL)
            time.sleep(0.2)
        grader.join(GRADING_TIMEOUT)
    assert killed is not None and "summary" in outcome
    lost = [r for r in outcome["summary"].records if r.status == Status.UNGRADED]
    # The killed worker's task, and one Dask had already handed it, if any
    assert 1 <= len(lost) <= 2 and all("left ungraded" in r.reason and r.score is None for r in lost)
    students = sorted(r.student for r in lost)
    for student in students:
        assert not (course.root / ".nbg_state" / "autograde" / "ps_fixture" / f"{student}.json").exists()
    assert outcome["summary"].exit_code == 1
    logged = (course.root / "grading_log.jsonl").read_text()
    for student in students:
        assert f'"student": "{student}"' not in logged  # no record of a grade that was never given

    again = autograde(course, workers=2)  # the next run grades them, and only them
    assert sorted(r.student for r in again.records) == students
    assert small_class.cell_scores(course) == local_scores


def test_a_packed_task_runs_without_the_graders_folder(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from grading.execution.runners.dask import execute_packed, pack_task
    from grading.execution.limits import Limits

    scratch = tmp_path / "scratch"
    (scratch / "data").mkdir(parents=True)
    (scratch / "data" / "numbers.txt").write_text("1 2 3\n")
    notebook = new_notebook(cells=[new_code_cell("print(sum(map(int, open('data/numbers.txt').read().split())))")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    task = {"notebook_json": nbformat.writes(notebook), "scratch_dir": str(scratch), "config": None,
            "limits": Limits(cell_timeout=60), "sandbox": "none", "matplotlib_cache": None}
    packed = pack_task(task)
    assert "scratch_dir" not in packed and packed["scratch_files"] == {"data": None, "data/numbers.txt": b"1 2 3\n"}
    import shutil

    shutil.rmtree(scratch)  # the worker must not need it
    result = execute_packed(packed)
    assert result.status == "ok", result.reason
    outputs = nbformat.reads(result.notebook_json, as_version=4).cells[0].outputs
    assert outputs[0]["text"] == "6\n"

    with pytest.raises(ValueError, match="refusing the path"):
        execute_packed({**packed, "scratch_files": {"../escape.txt": b"x"}})


def test_the_scheduler_and_tls_files_come_from_the_course_config_unless_given(tmp_path):
    from grading.execution.runners.dask import cluster_settings

    for name in ("ca.pem", "cert.pem", "key.pem"):
        (tmp_path / name).write_text("not read here")
    (tmp_path / "nbgrader_config.py").write_text(
        'c.Nbg.scheduler = "tls://grading-head:8786"\n'
        f'c.Nbg.tls_ca_file = "{tmp_path}/ca.pem"\nc.Nbg.tls_cert = "{tmp_path}/cert.pem"\n'
        f'c.Nbg.tls_key = "{tmp_path}/key.pem"\n')
    course = Course(tmp_path)
    settings = cluster_settings(course)
    assert (settings.scheduler, settings.tls_key) == ("tls://grading-head:8786", f"{tmp_path}/key.pem")
    assert cluster_settings(course, "tcp://127.0.0.1:8786").scheduler == "tcp://127.0.0.1:8786"
    assert cluster_settings(course, "local") is None  # the local pool, whatever the config says
    security = settings.security()
    assert security.require_encryption and security.tls_client_key == f"{tmp_path}/key.pem"
    with pytest.raises(ValueError, match="needs all three"):
        cluster_settings(course, tls_cert="").security()
