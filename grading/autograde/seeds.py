"""Per-student seeds of the hidden tests' random inputs.

The hidden tests draw their inputs from ``nbkit.testing.hidden_rng(base)``,
which the judge mixes with a grading seed. The seed of one submitted notebook
is ``HMAC-SHA256(secret, assignment \\0 student \\0 sha256(notebook bytes))``
(the SHA-256 as 64 hex digits), its first 8 bytes as an integer with the top
bit cleared (63 bits): two students with the same notebook get different
inputs, a changed submission gets new ones, and a regrade of the same
submission gets the same ones (the grading log records the seed).

The secret is the instructor's: ``c.Nbg.test_secret``, or the file
``<course>/.nbg/test_secret`` (mode 0600, in a folder of mode 0700), created on
the first autograde. It never enters a submission's folder, and no sandbox
mounts the course root.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from grading.core.errors import NbgError

SECRET_DIR = ".nbg"
SECRET_FILE = "test_secret"


def secret_path(course) -> Path:
    return course.root / SECRET_DIR / SECRET_FILE


def course_secret(course) -> bytes:
    """The course's secret: ``c.Nbg.test_secret``, else the secret file (created 0600 if missing)."""
    configured = course.settings.test_secret
    if configured:
        return configured.encode()
    path = secret_path(course)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise NbgError(f"{path} must be a regular file holding the course's test secret")
    if not path.exists():
        path.parent.mkdir(mode=0o700, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it meanwhile
            return course_secret(course)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        os.chmod(path, 0o600)
    value = path.read_bytes().strip()
    if not value:
        raise NbgError(f"{path} is empty: delete it (a new secret is made) or write the course's secret in it")
    return value


def grading_seed(secret: bytes, assignment: str, student: str, notebook_bytes: bytes) -> int:
    """The seed of one submitted notebook's hidden inputs (63 bits).

    >>> grading_seed(b"k", "a", "s", b"{}") == grading_seed(b"k", "a", "s", b"{}")
    True
    >>> grading_seed(b"k", "a", "s", b"{}") != grading_seed(b"k", "a", "t", b"{}")
    True
    """
    message = b"\0".join([assignment.encode(), student.encode(), hashlib.sha256(notebook_bytes).hexdigest().encode()])
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1
