"""Real servers for the tests, on this machine only: a Dask cluster and a PostgreSQL server.

Both are started by the tests themselves, listen on 127.0.0.1 (Dask) or only
on a unix socket in a temporary folder (PostgreSQL), are bounded in time, and
are stopped by the context managers even when a test fails.

PostgreSQL comes from Debian's ``postgresql`` package (the Makefile's
``postgres`` target installs it where apt-get can). When it is missing the
tests skip on a developer's machine and fail in CI (``CI=true``), where a
missing tool is a broken setup, not a reason to test less.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
START_TIMEOUT = 60  # seconds a server gets to come up


def _wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise TimeoutError(f"{what} did not happen within {timeout} s")


def _stop(process, sig=signal.SIGTERM, timeout=15):
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout)


class DaskProcesses:
    """A ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (the venv's dask CLI)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.scheduler_file = self.folder / "scheduler.json"
        self.scheduler = None
        self.workers = []

    def _spawn(self, args, name, env=None):
        log = open(self.folder / f"{name}.log", "w")
        return subprocess.Popen([str(BIN / "dask"), *args], stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=env)

    def start_scheduler(self):
        self.scheduler = self._spawn(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(self.scheduler_file)], "scheduler")
        _wait_for(self.scheduler_file.exists, START_TIMEOUT, "the Dask scheduler's start")
        return self.address

    @property
    def address(self) -> str:
        return json.loads(self.scheduler_file.read_text())["address"]

    def start_worker(self, name, env=None):
        """One worker process (no nanny, one thread): killing it kills the worker."""
        process = self._spawn(["worker", "--scheduler-file", str(self.scheduler_file), "--host", "127.0.0.1",
                               "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name,
                               "--local-directory", str(self.folder / name)], f"worker-{name}", env=env)
        self.workers.append(process)
        return process

    def wait_for_workers(self, count):
        from distributed import Client

        with Client(self.address, timeout=START_TIMEOUT, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.folder.glob("*.log")))

    def stop(self):
        for process in [*self.workers, self.scheduler]:
            if process is not None:
                _stop(process)


@contextlib.contextmanager
def dask_processes(folder):
    """A started scheduler (no workers yet); every process is stopped on exit."""
    cluster = DaskProcesses(folder)
    try:
        cluster.start_scheduler()
        yield cluster
    finally:
        cluster.stop()


def postgres_bin() -> Path | None:
    """The newest Debian PostgreSQL server binaries, or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
                   if p.parent.parent.name.isdigit() else 0)
    return found[-1].parent if found else None


def require_postgres() -> Path:
    """The server binaries; skip without them, but fail in CI (where they must be installed)."""
    binaries = postgres_bin()
    if binaries is None:
        message = ("PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) are missing: "
                   "`make postgres` installs Debian's postgresql")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binaries


class PostgresServer:
    """A throw-away PostgreSQL cluster in a temporary folder, reachable only by its unix socket.

    ``initdb`` refuses to run as root, so as root the server runs as the
    ``postgres`` account (Debian's package creates it).
    """

    def __init__(self, binaries: Path):
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="nbg-pg-"))
        self.data = self.folder / "data"
        self.user = None
        if os.geteuid() == 0:
            try:  # Debian's package creates this account; any unprivileged one will do
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                self.user = pwd.getpwnam("nobody")
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self.process = None

    def _run_as_owner(self):
        if self.user is not None:
            os.setgid(self.user.pw_gid)
            os.setgroups([])
            os.setuid(self.user.pw_uid)

    def _run(self, *args, timeout=START_TIMEOUT):
        subprocess.run([str(self.binaries / args[0]), *args[1:]], check=True, capture_output=True,
                       timeout=timeout, preexec_fn=self._run_as_owner, cwd=self.folder)

    def start(self):
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync", "--locale=C")
        log = open(self.folder / "server.log", "w")
        # No TCP at all (listen_addresses=''): the socket in our folder is the only way in.
        self.process = subprocess.Popen(
            [str(self.binaries / "postgres"), "-D", str(self.data), "-k", str(self.folder),
             "-c", "listen_addresses=", "-c", "fsync=off"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=self._run_as_owner, start_new_session=True,
            cwd=self.folder)
        _wait_for(lambda: (self.folder / ".s.PGSQL.5432").exists() or self.process.poll() is not None,
                  START_TIMEOUT, "the PostgreSQL server's start")
        if self.process.poll() is not None:
            raise RuntimeError(f"PostgreSQL did not start:\n{(self.folder / 'server.log').read_text()}")
        return self

    def url(self, database="postgres") -> str:
        """A plain ``postgresql://`` URL (no driver named), as an instructor would write it."""
        return f"postgresql://postgres@/{database}?host={self.folder}"

    def create_database(self, name) -> str:
        self._run("createdb", "-h", str(self.folder), "-U", "postgres", name)
        return self.url(name)

    def stop(self):
        if self.process is not None:
            _stop(self.process, signal.SIGINT)  # fast shutdown
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def postgres_server():
    server = PostgresServer(require_postgres())
    try:
        yield server.start()
    finally:
        server.stop()
