"""A real JupyterHub for the tests, on 127.0.0.1 only, and a client of its REST API.

JupyterHub comes from PyPI (the dev extra), its proxy configurable-http-proxy
from npm (``make hub`` installs it into ``.hub/``; ``make test`` runs that
first). The hub uses the dummy authenticator (every user logs in with one
password) and the simple local spawner: every user's server runs as the one
unix user running the tests, in a home folder of the test's own, so nbgrader
takes each student's id from ``JUPYTERHUB_USER`` in that user's
``~/.jupyter/nbgrader_config.py`` (as a course on such a hub must).

:class:`Hub` starts the hub (which starts the proxy), and on exit stops it,
which stops the proxy and every user's server; whatever of them is still
alive a few seconds later is killed and named (``tests/process_guard.py``
checks the run again at its end). Every request is bounded in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
PROXY = REPO / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
REQUEST_TIMEOUT = 60  # seconds one request gets (a spawn or an nbgrader action included)
START_TIMEOUT = 60
# The hub answers once every service with a url answers (JupyterHub 6 waits for each, at most its
# "timeout", and stops when a managed one does not): nbg serve warms up its workers first, which
# took 26 s on a loaded 2-core machine, beside a second nbg serve.
SERVICE_START_TIMEOUT = 120
HUB_START_TIMEOUT = SERVICE_START_TIMEOUT + START_TIMEOUT
PASSWORD = "hub-test-password"


def require_proxy():
    """configurable-http-proxy, installed by ``make hub``: a skip on a developer's machine
    without it, a failure in CI (a missing tool there is a broken setup)."""
    if PROXY.exists():
        return
    message = f"{PROXY} is missing: run `make hub` (npm installs configurable-http-proxy into .hub/)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _jupyterhub_major() -> int:
    import jupyterhub

    return int(jupyterhub.__version__.split(".")[0])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hub_config(folder: Path, *, port, hub_port, proxy_port, service_token, homes, users, admins,
               services=(), user_scopes=(), environment=None) -> str:
    """The hub's ``jupyterhub_config.py``: loopback only, dummy authenticator, local spawner."""
    return f"""\
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.command = [{str(PROXY)!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{folder / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(folder / "hub.pid")!r}
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allowed_users = {set(users)!r}
c.Authenticator.admin_users = {set(admins)!r}
# Every user's server runs as this unix user, in a home of the test's own.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(homes / "{username}")!r}
c.Spawner.cmd = [{str(BIN / "jupyterhub-singleuser")!r}]
c.Spawner.args = ["--ServerApp.allow_root=True"]  # CI runs as root
c.Spawner.environment = {({"PATH": str(BIN) + ":/usr/bin:/bin", **(environment or {})})!r}
c.Spawner.start_timeout = {START_TIMEOUT}
c.LocalProcessSpawner.interrupt_timeout = 3  # a test's servers hold nothing worth waiting 10 s for
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}  # a spawn request answers at once: start many together
c.Spawner.http_timeout = {START_TIMEOUT}
c.JupyterHub.services = {[{"name": "test-admin", "api_token": service_token}, *services]!r}
c.JupyterHub.load_roles = [{{
    "name": "test-admin",
    "scopes": ["admin:users", "admin:servers", "tokens", "access:servers", "access:services"],
    "services": ["test-admin"],
}}, {{"name": "user", "scopes": {["self", *user_scopes]!r}}}]
# A server's own token ($JUPYTERHUB_API_TOKEN in the user's JupyterLab) gets the services' scopes too.
c.Spawner.server_token_scopes = {["users:activity!user", "access:servers!server", *user_scopes]!r}
"""


class ExternalService:
    """A process the hub proxies to but does not start: an external service (``url`` and ``api_token``
    in its entry of ``c.JupyterHub.services``, :meth:`entry`), started here as an administrator would,
    with the variables of :meth:`Hub.service_environment`, and stopped with its process group."""

    def __init__(self, name):
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(16)
        self.process = None
        self.log_path = None

    def entry(self) -> dict:
        return {"name": self.name, "url": self.url, "api_token": self.token}

    def start(self, hub, command, cwd):
        """Start ``command`` (it must listen on :attr:`port`); :meth:`wait_until_listening` waits for it."""
        env = {**os.environ, "PATH": f"{BIN}:/usr/bin:/bin", **hub.service_environment(self.name, self.token)}
        self.log_path = hub.folder / f"{self.name}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def wait_until_listening(self, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}):\n{self.log_text()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.2)
        raise TimeoutError(f"{self.name} did not listen within {timeout} s:\n{self.log_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path else ""

    def stop(self):
        if self.process is None or self.process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


class Hub:
    """A running JupyterHub; ``with Hub(folder, users, admins) as hub:``."""

    def __init__(self, folder: Path, users, admins=(), services=(), user_scopes=(), environment=None,
                 extra_config=""):
        """``environment``: more variables of every user's server; ``{url}`` in a value is the hub's address."""
        require_proxy()
        self.folder = Path(folder)
        self.homes = self.folder / "homes"
        self.homes.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(16)
        hub_port = free_port()
        self.api_url = f"http://127.0.0.1:{hub_port}/hub/api"  # the hub's own API, as services reach it
        if _jupyterhub_major() >= 6:  # the service's "timeout" is new in JupyterHub 6 (an error before)
            services = [{"timeout": SERVICE_START_TIMEOUT, **entry} if "url" in entry else entry
                        for entry in services]
        text = hub_config(self.folder, port=self.port, hub_port=hub_port, proxy_port=free_port(),
                          service_token=self.token, homes=self.homes, users=users, admins=admins,
                          services=services, user_scopes=user_scopes,
                          environment={k: v.replace("{url}", f"http://127.0.0.1:{self.port}")
                                       for k, v in (environment or {}).items()})
        (self.folder / "jupyterhub_config.py").write_text(text + extra_config)
        self.process = None
        self.log = None

    def __enter__(self):
        self.log = open(self.folder / "hub.log", "wb")
        env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
        self.process = subprocess.Popen(
            [str(BIN / "jupyterhub"), "-f", str(self.folder / "jupyterhub_config.py")],
            cwd=self.folder, stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            self._wait_until_up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_until_up(self):
        deadline = time.monotonic() + HUB_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.process.returncode}):\n{self.log_text()}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                if self.api("GET", "/hub/api/")["version"]:
                    return
            time.sleep(0.2)
        raise TimeoutError(f"the hub did not answer within {HUB_START_TIMEOUT} s:\n{self.log_text()}")

    def log_text(self) -> str:
        return (self.folder / "hub.log").read_text(errors="replace")[-4000:]

    def __exit__(self, *exc):
        ours = self._descendants_and_servers()
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # the hub stops the users' servers and the proxy
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        _, alive = psutil.wait_procs([p for p in ours if p.is_running()], timeout=10)
        for process in alive:
            with contextlib.suppress(psutil.Error):
                process.kill()
        if self.log:
            self.log.close()
        self.left_behind = alive  # a test may assert the hub stopped everything itself

    def _descendants_and_servers(self) -> list:
        """The hub's process tree and every process working in the test's folder (the users'
        servers run in their own sessions, so the hub's tree may not hold them)."""
        found = {}
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                found[child.pid] = child
        folder = str(self.folder)
        for process in psutil.process_iter(["cwd"]):
            with contextlib.suppress(psutil.Error):
                if (process.info["cwd"] or "").startswith(folder) and process.pid != os.getpid():
                    found[process.pid] = process
        return list(found.values())

    def service_environment(self, name, token) -> dict:
        """What an external service started by hand needs (the hub sets the same for a managed one):
        its token and name (``api_token`` and ``name`` of its entry in ``c.JupyterHub.services``),
        the hub's API and the prefix the proxy forwards."""
        return {"JUPYTERHUB_API_TOKEN": token, "JUPYTERHUB_API_URL": self.api_url,
                "JUPYTERHUB_SERVICE_NAME": name, "JUPYTERHUB_SERVICE_PREFIX": f"/services/{name}/"}

    # -- REST ---------------------------------------------------------------------------------
    def api(self, method, path, body=None, token=None, raw=False):
        """A request to the hub's public address (through the proxy); JSON in and out."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"token {token or self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            payload = response.read()
        if raw:
            return payload
        return json.loads(payload) if payload else None

    def start_users(self, names) -> dict:
        """Create the users, start their servers together, and return a token of each user."""
        for name in names:
            with contextlib.suppress(urllib.error.HTTPError):  # 409: already there
                self.api("POST", f"/hub/api/users/{name}")
            self.api("POST", f"/hub/api/users/{name}/server")
        deadline = time.monotonic() + START_TIMEOUT
        waiting = set(names)
        while waiting and time.monotonic() < deadline:
            for name in sorted(waiting):
                if self.api("GET", f"/hub/api/users/{name}").get("servers", {}).get("", {}).get("ready"):
                    waiting.discard(name)
            time.sleep(0.3)
        if waiting:
            raise TimeoutError(f"servers not up within {START_TIMEOUT} s: {sorted(waiting)}:\n{self.log_text()}")
        return {name: self.api("POST", f"/hub/api/users/{name}/tokens",
                               {"note": "hub test", "expires_in": 3600})["token"] for name in names}

    def running_servers(self) -> list:
        """The users' server processes (working in their homes)."""
        homes = str(self.homes)
        found = []
        for process in psutil.process_iter(["cwd"]):
            with contextlib.suppress(psutil.Error):
                if (process.info["cwd"] or "").startswith(homes):
                    found.append(process)
        return found

    def user_api(self, name, token, method, path, body=None, form=None, raw=False):
        """A request to ``name``'s own server through the hub's proxy, with that user's token."""
        path = f"/user/{name}{path}"
        if form is not None:
            path += "?" + urllib.parse.urlencode(form)
        return self.api(method, path, body, token=token, raw=raw)
