"""Where student code runs: a kernel inside a bubblewrap sandbox.

Every kernel that runs a submission during autograding is started by
:func:`make_kernel_manager`. With ``sandboxed=True`` its command is wrapped
in `bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``):

* new network, PID, IPC and UTS namespaces: no network at all (not even
  loopback to the host), no view of the grader's processes;
* a file system built from scratch: read-only ``/usr``, the Python
  installation and virtual environment that run the kernel, the student kit
  ``nbkit`` (never the reference ``nbcore``: the tests run in the judge), a few
  files of ``/etc`` (fonts, the loader cache); a private empty ``/tmp``; and, writable, only the scratch
  copy of this one submission, which is also the working directory. The
  gradebook, the course's folders, other students' submissions and the
  source notebooks are simply not there;
* resource limits (``prlimit``): address space, processes, CPU seconds,
  file size; the grader itself caps the output (:mod:`grading.execution.kernel`);
* an empty environment (the grader's variables, tokens included, do not
  leak in) and one BLAS thread per kernel (parallelism is across kernels).

The kernel talks to the grader over unix sockets in the scratch folder
(ZMQ over TCP cannot cross the new network namespace), and is interrupted
with a control message rather than a signal (a signal would stop at the
sandbox's outer process).

``RLIMIT_NPROC`` does not apply to root, so when the grader runs as root
(CI, containers) bubblewrap starts as root without a user namespace and
the kernel is switched to an unprivileged uid of its own
(:func:`sandbox_uid`) with no capabilities and ``no_new_privs``; as an
ordinary user, bubblewrap makes a user namespace and the process limit
counts on top of the user's current processes.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grading.core.errors import NbgError
from grading.execution.limits import Limits

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora/RHEL: "
    "`sudo dnf install bubblewrap`; Arch: `sudo pacman -S bubblewrap`; it needs Linux), "
    "or, only on a machine where the submissions are trusted, grade with "
    "--unsafe-no-sandbox (sandboxed=False): the report then says so"
)
# Kernels run as uid SANDBOX_UID_BASE + (worker pid mod SANDBOX_UID_SPAN) when the
# grader is root: a uid no real account uses, distinct per worker, so that
# concurrent kernels do not share one process budget.
SANDBOX_UID_BASE = 1_900_000_000
SANDBOX_UID_SPAN = 1_000_000
# /etc files some libraries read; everything else of /etc stays hidden.
ETC_FILES = ("/etc/alternatives", "/etc/fonts", "/etc/ld.so.cache", "/etc/localtime", "/etc/mime.types")


def _running_as_root() -> bool:
    return os.geteuid() == 0


def sandbox_uid() -> int:
    """The unprivileged uid a kernel started by this process runs as (grader as root)."""
    return SANDBOX_UID_BASE + os.getpid() % SANDBOX_UID_SPAN


def _package_dir(name) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()


# The packages a student's kernel can read: the student kit, never the reference (nbcore).
KERNEL_PACKAGES = ("nbkit",)
# What a student's kernel must never read, even when installed inside the environment.
REFERENCE_PACKAGES = ("nbcore", "grading")


def readable_paths(kernel_cmd=(), packages=KERNEL_PACKAGES) -> list[Path]:
    """The host folders bound read-only into the sandbox (besides ``/usr`` and ``/etc`` files).

    The Python installation, the virtual environment, ``nbcore`` (an
    editable install lives outside the environment), and the installation
    of the kernel's own interpreter if it is somewhere else.
    """
    paths = [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()]
    for package in packages:
        package_dir = _package_dir(package)
        if package_dir is not None:
            paths.append(package_dir)
    if kernel_cmd:
        executable = shutil.which(kernel_cmd[0]) or kernel_cmd[0]
        # <prefix>/bin/python -> <prefix>
        paths.append(Path(os.path.realpath(executable)).parent.parent)
    return _outermost([p for p in paths if p != Path("/")])


def _outermost(paths) -> list[Path]:
    """Drop paths inside others (or inside /usr, bound anyway), keep order."""
    kept = []
    for path in sorted(set(paths), key=lambda p: len(p.parts)):
        if not any(path == k or k in path.parents for k in [Path("/usr"), *kept]):
            kept.append(path)
    return kept


def _rlimit_args(limits: Limits, *, as_root: bool) -> list[str]:
    args = []
    if limits.memory_bytes is not None:
        args.append(f"--as={limits.memory_bytes}")
    if limits.max_processes is not None:
        # Not root: RLIMIT_NPROC counts every task of the user, so add the current ones.
        nproc = limits.max_processes if as_root else _user_task_count() + limits.max_processes
        args.append(f"--nproc={nproc}")
    if limits.cpu_seconds is not None:
        args.append(f"--cpu={limits.cpu_seconds}")
    if limits.file_bytes is not None:
        args.append(f"--fsize={limits.file_bytes}")
    return ["prlimit", *args, "--"] if args else []


def _user_task_count() -> int:
    uid, count = os.getuid(), 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue  # the process ended meanwhile
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            count += int(fields.get("Threads", "1"))
    return count


def _dirs_for(path: Path, mounted: set, created: set) -> list[str]:
    """``--dir`` options creating the parents of ``path`` world-traversable.

    bubblewrap run as root creates missing parents with mode 0700, which the
    kernel's unprivileged uid could not traverse. Parents already created or
    lying inside a mount are left alone.
    """
    args = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in created or any(m == parent or m in parent.parents for m in mounted):
            continue
        created.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def bwrap_command(kernel_cmd, scratch_dir, limits: Limits, *, uid=None, bwrap="bwrap",
                  packages=KERNEL_PACKAGES) -> list[str]:
    """The full command that runs ``kernel_cmd`` inside the sandbox.

    Parameters
    ----------
    kernel_cmd : list of str
        The kernel's own command line.
    scratch_dir : str or Path
        The only writable folder (absolute), also the working directory.
    limits : Limits
    uid : int, optional
        Run the kernel as this uid (the grader must be root). Default: the
        grader's own uid when it is not root, :func:`sandbox_uid` when it is.
    bwrap : str
        The bubblewrap executable.
    packages : tuple of str
        Python packages installed outside the environment (editable installs)
        to bind read-only: the student kit for kernels; the judge adds nbcore.

    Returns
    -------
    list of str
    """
    scratch = Path(scratch_dir).resolve()
    as_root = _running_as_root()
    if as_root and uid is None:
        uid = sandbox_uid()
    if as_root:
        # No user namespace: RLIMIT_NPROC must count against a real non-root uid.
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                      "--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--bounding-set=-all"]
    else:
        namespaces, drop = ["--unshare-all"], []
    # `env -i`: bubblewrap itself starts with an empty environment, or the sandbox's
    # PID 1 (a copy of bwrap) would show the grader's in /proc/1/environ.
    bwrap = shutil.which(bwrap) or bwrap
    command = ["/usr/bin/env", "-i", bwrap, *namespaces, "--die-with-parent", "--new-session", "--clearenv",
               "--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        host = Path("/") / name
        if host.is_symlink():  # merged /usr: /lib -> usr/lib
            command += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            command += ["--ro-bind", str(host), str(host)]
    command += ["--dir", "/etc"]
    for etc_path in ETC_FILES:
        command += ["--ro-bind-try", etc_path, etc_path]
    # World-writable like on a normal system: the kernel runs as another uid than bwrap.
    size = ["--size", str(limits.tmpfs_bytes)] if limits.tmpfs_bytes else []
    command += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", *size, "--tmpfs", "/dev/shm",
                "--perms", "1777", *size, "--tmpfs", "/tmp"]
    mounted = {Path("/usr")}  # read-only binds: nothing can be created inside them
    created = {Path("/etc"), Path("/proc"), Path("/dev"), Path("/tmp")}  # exist already; inside /tmp is fine
    for path in readable_paths(kernel_cmd, packages):
        command += _dirs_for(path, mounted, created) + ["--ro-bind", str(path), str(path)]
        mounted.add(path)
    for package in REFERENCE_PACKAGES:
        # A regular (non-editable) install puts the reference inside the environment
        # bound above: cover it with an empty folder unless this sandbox may read it.
        package_dir = None if package in packages else _package_dir(package)
        if package_dir is not None and any(m == package_dir or m in package_dir.parents for m in mounted):
            command += ["--tmpfs", str(package_dir)]
    command += _dirs_for(scratch, mounted, created) + ["--bind", str(scratch), str(scratch), "--chdir", str(scratch)]
    environment = {
        "HOME": str(scratch),
        "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLCONFIGDIR": str(scratch / ".config" / "matplotlib"),
        "IPYTHONDIR": str(scratch / ".ipython"),
        "NBGRADER_EXECUTION": "autograde",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    for key, value in environment.items():
        command += ["--setenv", key, value]
    return [*command, "--", *drop, *_rlimit_args(limits, as_root=as_root), *kernel_cmd]


_PROBES: dict = {}


def sandbox_available(bwrap=None) -> tuple[bool, str]:
    """Whether kernels can run sandboxed here, and why not if they cannot.

    Runs a trivial command in the sandbox once per process (the result is
    cached), so a bubblewrap that is installed but not allowed to create
    namespaces (some containers) is caught before grading starts.

    Parameters
    ----------
    bwrap : str, optional
        The bubblewrap executable (default: ``bwrap`` on PATH).

    Returns
    -------
    available : bool
    reason : str
        Empty when available, else what is missing and how to install it.
    """
    if not sys.platform.startswith("linux"):
        return False, f"the sandbox needs Linux (this is {sys.platform}); {INSTALL_HINT}"
    executable = shutil.which(bwrap or "bwrap")
    if executable is None:
        return False, f"bubblewrap (`bwrap`) is not on PATH; {INSTALL_HINT}"
    needed = ["prlimit"] + (["setpriv"] if _running_as_root() else [])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        return False, f"{' and '.join(missing)} (util-linux) not on PATH; install util-linux"
    if executable not in _PROBES:
        _PROBES[executable] = _probe(executable)
    return _PROBES[executable]


def _probe(executable) -> tuple[bool, str]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nbg-sandbox-probe-") as scratch:
        uid = sandbox_uid() if _running_as_root() else None
        if uid is not None:
            os.chown(scratch, uid, uid)
        # Finds the kit without importing it (an import would take seconds): the
        # interpreter starts, the student kit is mounted and the reference is not.
        check = ("import importlib.util, sys; "
                 "sys.exit('nbkit is not visible in the sandbox' if not importlib.util.find_spec('nbkit') else "
                 "'nbcore is visible in the sandbox' if importlib.util.find_spec('nbcore') else 0)")
        command = bwrap_command([sys.executable, "-c", check], scratch, Limits(), uid=uid, bwrap=executable)
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            return False, f"bubblewrap could not start a test sandbox ({error}); {INSTALL_HINT}"
    if run.returncode != 0:
        detail = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return False, (f"bubblewrap is installed but could not start a test sandbox ({detail}); "
                       "unprivileged user namespaces may be disabled (sysctl "
                       f"kernel.unprivileged_userns_clone=1) or the container forbids them; {INSTALL_HINT}")
    return True, ""


MATPLOTLIB_CACHE_FILES = "fontlist-*.json"


def build_matplotlib_cache(folder) -> Path | None:
    """Build matplotlib's font list once in ``folder``, for every sandboxed kernel.

    A sandboxed kernel's home is its fresh scratch folder, so matplotlib would
    scan the system's fonts again (~0.3 s) in every notebook that imports it;
    :func:`make_kernel_manager` copies this cache into the scratch folder instead.
    Built with the home set to ``folder``, like the sandbox (no user fonts).

    Returns
    -------
    Path or None
        ``folder``, or None when matplotlib is not installed or the build failed
        (kernels then build their own cache, as before: slower, not wrong).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    environment = {"HOME": str(folder), "MPLCONFIGDIR": str(folder), "LANG": "C.UTF-8",
                   "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
    try:
        subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=environment,
                       capture_output=True, timeout=120, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return folder if any(folder.glob(MATPLOTLIB_CACHE_FILES)) else None


def _seed_matplotlib_cache(scratch: Path, matplotlib_cache) -> None:
    if matplotlib_cache is None:
        return
    target = scratch / ".config" / "matplotlib"  # the sandbox's MPLCONFIGDIR
    target.mkdir(parents=True, exist_ok=True)
    for path in Path(matplotlib_cache).glob(MATPLOTLIB_CACHE_FILES):
        shutil.copyfile(path, target / path.name)


def prepare_scratch(scratch_dir) -> int | None:
    """Give the scratch folder to the uid the sandboxed kernel runs as.

    Returns the uid (None when the grader is not root and nothing changes).
    Called in the worker that starts the kernel, so the uid matches it.
    """
    if not _running_as_root():
        return None
    uid = sandbox_uid()
    scratch = Path(scratch_dir)
    for path in [scratch, *scratch.rglob("*")]:
        os.lchown(path, uid, uid)
    return uid


def _sandboxed_manager_class():
    from jupyter_client.manager import AsyncKernelManager

    class SandboxedKernelManager(AsyncKernelManager):
        """An ``AsyncKernelManager`` whose kernel runs under :func:`bwrap_command`."""

        def __init__(self, *, scratch_dir, limits, uid, **kwargs):
            super().__init__(**kwargs)
            self.scratch_dir, self.limits, self.uid = Path(scratch_dir), limits, uid

        def format_kernel_cmd(self, extra_arguments=None):
            kernel_cmd = super().format_kernel_cmd(extra_arguments)
            return bwrap_command(kernel_cmd, self.scratch_dir, self.limits, uid=self.uid)

        def write_connection_file(self, **kwargs):
            super().write_connection_file(**kwargs)
            if self.uid is not None:  # the kernel's uid must read its (0600) connection file
                os.chown(self.connection_file, self.uid, self.uid)

    return SandboxedKernelManager


def make_kernel_manager(scratch_dir, *, limits: Limits, sandboxed: bool, kernel_name="python3",
                        matplotlib_cache=None):
    """A kernel manager whose kernel runs in ``scratch_dir``.

    Parameters
    ----------
    scratch_dir : str or Path
        The working directory of the kernel: a throw-away copy of the
        submission's files, the only writable path inside the sandbox.
    limits : Limits
        The limits to enforce (memory, processes, CPU and file size only
        inside the sandbox; the grader enforces time and output).
    sandboxed : bool
        Run the kernel inside the sandbox; check :func:`sandbox_available` first.
    kernel_name : str
        The Jupyter kernel spec to start.
    matplotlib_cache : str or Path, optional
        A folder from :func:`build_matplotlib_cache`, copied into a sandboxed
        kernel's matplotlib folder (not used without the sandbox).

    Returns
    -------
    jupyter_client.AsyncKernelManager
        Not started; nbclient starts it (nbgrader's executor needs the async manager).
    """
    scratch = Path(scratch_dir).resolve()
    if not scratch.is_dir():
        raise NbgError(f"scratch_dir {scratch_dir} is not a directory")
    if not sandboxed:
        from jupyter_client.manager import AsyncKernelManager

        return AsyncKernelManager(kernel_name=kernel_name)
    if len(os.fsencode(scratch / ".kernel-99999")) > UNIX_SOCKET_PATH_MAX:
        raise NbgError(f"the scratch folder {scratch} is too long a path for the kernel's sockets (a unix socket's "
                       f"path has at most {UNIX_SOCKET_PATH_MAX} bytes): use a scratch folder with a shorter path")
    _seed_matplotlib_cache(scratch, matplotlib_cache)
    uid = prepare_scratch(scratch)
    manager = _sandboxed_manager_class()(
        scratch_dir=scratch, limits=limits, uid=uid, kernel_name=kernel_name,
        transport="ipc", ip=str(scratch / ".kernel"),
        connection_file=str(scratch / ".kernel-connection.json"),
    )
    # A signal would reach only the sandbox's outer process: interrupt by message.
    manager.kernel_spec.interrupt_mode = "message"
    return manager


UNIX_SOCKET_PATH_MAX = 107  # bytes of sun_path on Linux, less its final NUL
JUDGE_UID_OFFSET = 1_000_000  # the judge runs as another uid than the kernel of the same worker
JUDGE_PACKAGES = ("nbkit", "nbcore", "grading")


class Bubblewrap:
    """The ``"bubblewrap"`` backend: this module's sandbox, for kernels and judges alike."""

    name = "bubblewrap"
    confined = True

    def available(self) -> tuple[bool, str]:
        return sandbox_available()

    def readable_paths(self) -> list[Path]:
        return readable_paths()

    def kernel_manager(self, scratch_dir, *, limits: Limits, kernel_name="python3", matplotlib_cache=None):
        return make_kernel_manager(scratch_dir, limits=limits, sandboxed=True, kernel_name=kernel_name,
                                   matplotlib_cache=matplotlib_cache)

    def judge_command(self, argv, workdir, limits: Limits):
        uid = None
        if _running_as_root():
            uid = sandbox_uid() + JUDGE_UID_OFFSET
            os.chown(workdir, uid, uid)
        return bwrap_command(list(argv), workdir, limits, uid=uid, packages=JUDGE_PACKAGES), {}, uid
