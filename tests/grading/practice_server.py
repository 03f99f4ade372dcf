"""A real ``nbg serve`` for the tests: the fixture course with a catalogued mistake, started as a user would.

The course is the small fixture class (:mod:`tests.grading.fixtures`, two functions, seconds per
notebook) plus a one-entry catalogue: ``add`` taking absolute values, which is the fixture's
``wrong_hidden`` submission. The server listens on 127.0.0.1 on a free port, is bounded in time
(``timeout``) and is stopped with its process group by :meth:`PracticeServer.stop`.
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from tests.grading.fixtures import FIXTURE_ASSIGNMENT, stock_generate_assignment, student_notebook, write_course

BIN = Path(sys.executable).parent
WORDS = "add takes the absolute value of its arguments: negative numbers lose their sign."
CATALOGUE = f'''ASSIGNMENT = "{FIXTURE_ASSIGNMENT}"
CASES = {{"add": {{"tests": ["test_add_visible", "test_add_hidden"],
                 "correct": {{"plain": "def add(a, b):\\n    return a + b"}},
                 "mutants": {{"absolute_values": "def add(a, b):\\n    return abs(a) + abs(b)"}},
                 "explanations": {{"absolute_values": "{WORDS}"}}}}}}
'''
SERVER_LIFETIME = 300  # seconds: the server ends by itself even if a test run is killed


def practice_course(root: Path, extra_config: str = "") -> Path:
    """The fixture course, released, with the catalogue and ``extra_config`` in its config."""
    write_course(root)
    stock_generate_assignment(root)
    (root / "mistakes").mkdir()
    (root / "mistakes" / f"{FIXTURE_ASSIGNMENT}.py").write_text(CATALOGUE)
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(extra_config)
    return root


def notebook_bytes(root: Path, kind: str) -> bytes:
    """A fixture submission of ``kind`` (see fixtures.EXPECTED_SCORES) as the student's file."""
    release = root / "release" / FIXTURE_ASSIGNMENT / f"{FIXTURE_ASSIGNMENT}.ipynb"
    return nbformat.writes(student_notebook(release, kind)).encode()


def notebook_with_add(root: Path, add_source: str) -> bytes:
    """The perfect submission with ``add``'s answer cell replaced by ``add_source``."""
    notebook = nbformat.reads(notebook_bytes(root, "perfect").decode(), as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add_solution")
    cell.source = add_source
    return nbformat.writes(notebook).encode()


def nbg(root, *args, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(BIN / "nbg"), "--course", str(root), *args], capture_output=True, text=True,
                            timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"nbg {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result


def issue_tokens(root: Path, students, out: Path) -> dict:
    roster = out.with_suffix(".roster.csv")
    roster.write_text("id\n" + "".join(f"{s}\n" for s in students))
    nbg(root, "serve", "tokens", "--roster", str(roster), "--out", str(out))
    with out.open(newline="") as handle:
        return {row["student"]: row["token"] for row in csv.DictReader(handle)}


def self_signed_certificate(folder: Path) -> tuple:
    """(certificate, key) PEM files of a self-signed certificate for 127.0.0.1, made now
    (``cryptography``); the certificate is its own CA, so a client trusts it by that file."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nbg practice test")])
    now = dt.datetime.now(dt.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(hours=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    cert, key_file = folder / "cert.pem", folder / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_file.chmod(0o600)
    return cert, key_file


class PracticeServer:
    """``nbg serve --port 0`` in its own process group; ``port`` once it listens.

    ``ca``: the CA file a client trusts when the server speaks HTTPS (``--certfile``)."""

    def __init__(self, root: Path, *args, ca=None, log_name="serve.log"):
        self.root = Path(root)
        self.ca = ca
        self.scheme = "http"
        self.log = self.root.parent / log_name
        handle = self.log.open("w")
        self.process = subprocess.Popen(
            ["timeout", str(SERVER_LIFETIME), str(BIN / "nbg"), "--course", str(root), "serve", "--port", "0", *args],
            stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        self.port = None
        while time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"listening on (https?)://127\.0\.0\.1:(\d+)", self.log.read_text())
            if found:
                self.scheme, self.port = found.group(1), int(found.group(2))
                break
            time.sleep(0.2)
        if self.port is None:
            self.stop()
            raise AssertionError(f"nbg serve did not start:\n{self.log.read_text()[-3000:]}")

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def connection(self, timeout=120) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout,
                                               context=ssl.create_default_context(cafile=self.ca))
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, token=None, headers=None, timeout=120):
        """(status, headers, parsed JSON or raw text) of one request on a new connection."""
        connection = self.connection(timeout)
        try:
            sent = dict(headers or {})
            if token is not None:
                sent["Authorization"] = f"token {token}"
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode()
            try:
                data = json.loads(text)
            except ValueError:
                data = text
            return response.status, response.headers, data  # a case-insensitive mapping
        finally:
            connection.close()

    def check(self, token, body, query=""):
        return self.request("POST", f"/check/{FIXTURE_ASSIGNMENT}{query}", body=body, token=token)

    def stop(self):
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
