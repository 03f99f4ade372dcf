"""Who sends a practice request: a small seam, so JupyterHub's OAuth can be a second backend.

The service asks its :class:`IdentityBackend` for the student of each request, before it reads
the body; ``None`` is a 401. The backend is chosen by the course's traitlets config::

    c.PracticeService.identity_class = "grading.practice.identity.TokenIdentity"  # the default

:class:`TokenIdentity` (standalone): per-student tokens the instructor issues with
``nbg serve tokens``, sent as ``Authorization: token <T>`` (or ``Bearer``). Only their SHA-256
is stored (``<course>/.nbg/practice_tokens.json``, mode 0600), so the file cannot be replayed;
a token is a 256-bit random string, so an unsalted hash is enough. Revoking removes the hash.

A hub backend (the JupyterHub issue) subclasses :class:`IdentityBackend` and answers with the
hub user of the request's OAuth token (``jupyterhub.services.auth.HubOAuth``'s
``user_for_token``), mapped to the course's student id; the service is unchanged.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
import stat
from pathlib import Path

from traitlets import Unicode
from traitlets.config import LoggingConfigurable

from grading.core.errors import NbgError

TOKENS_FILE = "practice_tokens.json"

TOKEN_PREFIX = "nbgp_"  # "nbg practice"


class IdentityBackend(LoggingConfigurable):
    """Says which student a request comes from."""

    def __init__(self, course, **kwargs):
        super().__init__(**kwargs)
        self.course = course

    def student(self, headers) -> str | None:
        """The student id of a request with these HTTP ``headers`` (a mapping), or None (refused)."""
        raise NotImplementedError


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenStore:
    """The issued tokens' hashes: ``{student: {"sha256": ..., "issued": ...}}`` in one 0600 file."""

    def __init__(self, path):
        self.path = Path(path)

    def read(self) -> dict:
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
            raise NbgError(f"{self.path} must be a regular file (the practice tokens' hashes)")
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text())
        except ValueError as error:
            raise NbgError(f"{self.path} is not readable JSON ({error}): issue the tokens again") from None
        return data if isinstance(data, dict) else {}

    def _write(self, data):
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            json.dump(data, out, indent=1, sort_keys=True)
        os.replace(partial, self.path)
        if stat.S_IMODE(self.path.stat().st_mode) & 0o077:
            os.chmod(self.path, 0o600)

    def issue(self, students) -> dict:
        """A new token for each of ``students`` (an earlier one stops working); student -> token."""
        data, issued = self.read(), {}
        when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        for student in students:
            # A prefix names the secret where it leaks (a log, a paste) and keeps the token from
            # starting with "-", which a spreadsheet (the tokens file) would read as a formula.
            token = TOKEN_PREFIX + secrets.token_urlsafe(32)
            data[student] = {"sha256": _hash(token), "issued": when}
            issued[student] = token
        self._write(data)
        return issued

    def revoke(self, students) -> list:
        """Remove the tokens of ``students``; the ones that had a token."""
        data = self.read()
        found = [s for s in students if data.pop(s, None) is not None]
        self._write(data)
        return found

    def lookup(self) -> dict:
        """sha256 -> student."""
        return {entry["sha256"]: student for student, entry in self.read().items()
                if isinstance(entry, dict) and isinstance(entry.get("sha256"), str)}


def token_store(course) -> TokenStore:
    return TokenStore(course.root / ".nbg" / TOKENS_FILE)


def token_of(headers) -> str | None:
    """The token of ``Authorization: token T`` / ``Bearer T``, else None."""
    value = headers.get("Authorization", "") or ""
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() not in ("token", "bearer") or not token.strip() or len(token) > 200:
        return None
    return token.strip()


class TokenIdentity(IdentityBackend):
    """Standalone: the instructor's per-student tokens (``nbg serve tokens``)."""

    tokens_file = Unicode("", help="the tokens' hashes (default: <course>/.nbg/practice_tokens.json)").tag(config=True)

    def __init__(self, course, **kwargs):
        super().__init__(course, **kwargs)
        self.store = TokenStore(self.tokens_file) if self.tokens_file else token_store(course)
        self._cache = (None, {})

    def _hashes(self) -> dict:
        """Re-read when the file changed, so a revocation takes effect without a restart."""
        try:
            info = self.store.path.stat()
            key = (info.st_mtime_ns, info.st_size, info.st_ino)
        except FileNotFoundError:
            return {}
        if self._cache[0] != key:
            self._cache = (key, self.store.lookup())
        return self._cache[1]

    def student(self, headers):
        token = token_of(headers)
        return None if token is None else self._hashes().get(_hash(token))
