"""Grading on a Dask cluster: ``nbg autograde --scheduler ADDRESS``.

The grading process stays what it is (it prepares every task, and alone
writes the gradebook); only notebook execution moves, from the local process
pool to the workers of a Dask distributed scheduler, through an executor with
the ``concurrent.futures`` interface (:class:`DaskExecutor`). Dask reaches a
few servers (``dask scheduler`` / ``dask worker``), Slurm (dask-jobqueue) and
Kubernetes (dask-kubernetes) alike, and reschedules the tasks of a worker
that disappears. Each task carries the files of its submission's scratch
folder (:func:`pack_task`), unpacked into a temporary folder on the worker
(:func:`execute_packed`), so the workers share no disk with the grader; the
results come back to the grading process, the only writer of the gradebook.

Before grading, :func:`check_workers` runs :func:`worker_report` on every
worker and refuses, naming the worker, when

* the sandbox does not work there (:func:`grading.execution.sandbox.bubblewrap.sandbox_available`),
  unless grading is unsandboxed;
* its Python, installed distributions or the ``nbcore`` and ``grading``
  source files differ from the grader's (:func:`environment_fingerprint`):
  a worker with another numpy or another nbcore would grade differently;
* it runs more than one thread: each kernel's sandbox uid and process budget
  are per worker process, so start workers with ``--nthreads 1`` (and as many
  processes as kernels, ``--nworkers N``).

A task the cluster still cannot run after Dask's retries (``KilledWorker``,
a lost connection) is *left ungraded*: nothing goes to the gradebook or the
state files, the summary lists it, and the next run grades it (the
:class:`~grading.execution.runners.TaskRunner`'s result has status error, which
:mod:`grading.autograde.record` records as ungraded).

Where the scheduler and the grader come from: ``scheduler`` (the argument or
``--scheduler``), else ``c.Nbg.scheduler`` in the course's
``nbgrader_config.py``; ``"local"`` (or nothing) means the local pool. TLS:
a ``tls://`` address with ``c.Nbg.tls_ca_file``, ``c.Nbg.tls_cert`` and
``c.Nbg.tls_key`` (or ``--tls-ca-file``/``--tls-cert``/``--tls-key``), or,
with none of these, Dask's own configuration
(``distributed.comm.tls.*``, e.g. ``DASK_DISTRIBUTED__COMM__TLS__CA_FILE``).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import platform
import re
import tempfile
from pathlib import Path

from grading.core.errors import NbgError
from grading.execution.kernel import execute_task
from grading.execution.sandbox import get_sandbox
from grading.execution.sandbox.bubblewrap import build_matplotlib_cache

LOCAL = "local"
WORKER_WAIT_SECONDS = 60
FINGERPRINT_PACKAGES = ("nbcore", "grading")  # their source files are hashed too
INSTALL_HINT = "install Dask with `pip install -e '.[dask]'` (dask[distributed])"


@dataclasses.dataclass(frozen=True)
class ClusterSettings:
    """Where to execute notebooks: a scheduler address and its TLS files."""

    scheduler: str
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None

    def security(self):
        """A ``distributed.Security`` for these TLS files, or None (Dask's own config)."""
        given = [self.tls_ca_file, self.tls_cert, self.tls_key]
        if not any(given):
            return None
        if not all(given):
            raise NbgError("TLS needs all three of the CA file, the certificate and the key "
                             "(--tls-ca-file, --tls-cert, --tls-key or c.Nbg.tls_*)")
        for path in given:
            if not Path(path).is_file():
                raise NbgError(f"TLS file {path} does not exist")
        from distributed import Security

        return Security(tls_ca_file=self.tls_ca_file, tls_client_cert=self.tls_cert,
                        tls_client_key=self.tls_key, require_encryption=True)


def cluster_settings(course, scheduler=None, tls_ca_file=None, tls_cert=None, tls_key=None):
    """The cluster to grade on, from the arguments, else the course config; None: the local pool.

    Examples
    --------
    >>> from grading.core.course import Course
    >>> course = Course("/tmp/no-such-course")
    >>> cluster_settings(course) is None, cluster_settings(course, "local") is None
    (True, True)
    >>> cluster_settings(course, "tls://10.0.0.5:8786").scheduler
    'tls://10.0.0.5:8786'
    """
    settings = course.settings

    def pick(value, key):
        return value if value is not None else getattr(settings, key)

    address = pick(scheduler, "scheduler")
    if not address or address == LOCAL:
        return None
    if not isinstance(address, str) or not re.match(r"^(tcp|tls|inproc|ucx|ws|wss)://|^[\w.\-\[\]:]+$", address):
        raise NbgError(f"scheduler address {address!r} is not a Dask address such as tcp://host:8786 "
                         "or tls://host:8786")
    return ClusterSettings(address, pick(tls_ca_file, "tls_ca_file"), pick(tls_cert, "tls_cert"),
                           pick(tls_key, "tls_key"))


def environment_fingerprint() -> str:
    """A hash of this interpreter's version, its installed distributions and the
    ``nbcore`` and ``grading`` source files: equal on two machines when they grade alike."""
    digest = hashlib.sha256(f"{platform.python_implementation()} {platform.python_version()}\n".encode())
    versions = sorted({f"{_canonical(d.metadata['Name'])}=={d.version}"
                       for d in importlib.metadata.distributions() if d.metadata["Name"]})
    digest.update("\n".join(versions).encode())
    for package in FINGERPRINT_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            digest.update(f"\0{package} missing".encode())
            continue
        root = Path(list(spec.submodule_search_locations)[0])
        for path in sorted(root.rglob("*.py")):
            digest.update(f"\0{package}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def worker_report(sandbox="bubblewrap") -> dict:
    """Run on a worker: whether it can grade (the sandbox works) and what it runs."""
    return {"python": platform.python_version(), "fingerprint": environment_fingerprint(),
            "sandbox": get_sandbox(sandbox).available()}


def check_workers(client, sandbox="bubblewrap", wait_seconds=WORKER_WAIT_SECONDS) -> int:
    """Refuse, naming the worker, any worker that cannot grade as this machine would.

    Parameters
    ----------
    client : distributed.Client
    sandbox : str
        The sandbox backend that must work on every worker (``"none"``: nothing to check).
    wait_seconds : float
        How long to wait for the first worker to connect.

    Returns
    -------
    int
        The number of workers (each runs one kernel at a time).

    Raises
    ------
    ValueError
        No worker connected, or what is wrong with which worker.
    """
    try:
        client.wait_for_workers(1, timeout=wait_seconds)
    except Exception:
        raise NbgError(f"no Dask worker connected to the scheduler {client.scheduler.address} within "
                         f"{wait_seconds} s: start workers (`dask worker ADDRESS --nthreads 1`)") from None
    workers = client.scheduler_info(n_workers=-1)["workers"] if _takes_n_workers(client) else \
        client.scheduler_info()["workers"]
    reports = client.run(worker_report, sandbox)
    mine = environment_fingerprint()
    problems = []
    for address in sorted(reports):
        report = reports[address]
        name = workers.get(address, {}).get("name", "")
        label = f"worker {address}" + (f" ({name})" if name not in ("", address) else "")
        available, why = report["sandbox"]
        if not available:
            problems.append(f"{label}: the sandbox does not work there: {why}")
        if report["fingerprint"] != mine:
            problems.append(
                f"{label}: its Python ({report['python']}), installed packages or nbcore/grading sources "
                f"differ from this grader's (Python {platform.python_version()}): install the same "
                "environment there (same lock file, same checkout) so it grades alike")
        threads = workers.get(address, {}).get("nthreads", 1)
        if threads != 1:
            problems.append(f"{label}: runs {threads} threads; start workers with `--nthreads 1` (one "
                            "kernel per worker process, each with its own sandbox uid and process limit)")
    if problems:
        raise NbgError("cannot grade on this cluster:\n  " + "\n  ".join(problems))
    return len(reports)


def _takes_n_workers(client) -> bool:
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


def pack_task(task: dict) -> dict:
    """A task that carries its scratch folder's files instead of the grader's local path.

    The grading process prepares each submission in a scratch folder on its
    own disk, which a worker on another machine cannot see; the packed task
    holds the files' bytes (the submission and the assignment's other files,
    a few kB to MB) and is unpacked by :func:`execute_packed` on the worker.
    """
    scratch = Path(task["scratch_dir"])
    files = {path.relative_to(scratch).as_posix(): (None if path.is_dir() else path.read_bytes())
             for path in sorted(scratch.rglob("*")) if not path.is_symlink()}
    packed = {key: value for key, value in task.items() if key not in ("scratch_dir", "matplotlib_cache")}
    return {**packed, "scratch_files": files, "matplotlib_cache": task.get("matplotlib_cache") is not None}


_WORKER_MATPLOTLIB_CACHE = []


def execute_packed(task: dict):
    """Run on a worker: rebuild the scratch folder from the task's files, execute, clean up."""
    with tempfile.TemporaryDirectory(prefix="nbg-worker-") as folder:
        scratch = Path(folder) / "submission"
        scratch.mkdir()
        for name, data in task["scratch_files"].items():
            target = scratch / name
            if ".." in Path(name).parts:
                raise NbgError(f"refusing the path {name!r} in a task")
            if data is None:
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        cache = None
        if task["matplotlib_cache"]:
            if not _WORKER_MATPLOTLIB_CACHE:  # once per worker process, like the grader's once per run
                _WORKER_MATPLOTLIB_CACHE.append(build_matplotlib_cache(Path(tempfile.mkdtemp(prefix="nbg-mpl-"))))
            cache = _WORKER_MATPLOTLIB_CACHE[0]
        unpacked = {key: value for key, value in task.items() if key != "scratch_files"}
        return execute_task({**unpacked, "scratch_dir": str(scratch), "matplotlib_cache": cache})


class DaskExecutor(concurrent.futures.Executor):
    """The process pool's interface on a Dask cluster (what ``autograde`` needs of it).

    ``submit`` returns ``concurrent.futures.Future`` objects, so
    ``concurrent.futures.as_completed`` works unchanged; ``shutdown`` closes
    the client (the cluster itself keeps running). Execution tasks are sent
    with their files (:func:`pack_task`), so workers need no shared disk.
    """

    def __init__(self, client):
        self.client = client
        self._executor = client.get_executor(pure=False)  # every task runs, even twice the same

    def submit(self, fn, /, *args, **kwargs):
        if fn is execute_task and len(args) == 1 and "scratch_dir" in args[0] and not kwargs:
            return self._executor.submit(execute_packed, pack_task(args[0]))
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, *, cancel_futures=False):
        try:
            self._executor.shutdown(wait=wait and not cancel_futures)
        finally:
            self.client.close()


def connect(settings: ClusterSettings, sandbox="bubblewrap") -> DaskExecutor:
    """Connect to the scheduler, check its workers, and return an executor on it.

    Raises
    ------
    ValueError
        Dask is not installed, the scheduler cannot be reached, or a worker
        cannot grade (see :func:`check_workers`).
    """
    try:
        from distributed import Client
    except ImportError:
        raise NbgError(f"--scheduler needs Dask, which is not installed: {INSTALL_HINT}") from None
    security = settings.security()
    try:
        client = Client(settings.scheduler, security=security, timeout=30, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise NbgError(f"cannot reach the Dask scheduler {settings.scheduler}: {error}") from None
    try:
        check_workers(client, sandbox=sandbox)
    except BaseException:
        client.close()
        raise
    return DaskExecutor(client)


