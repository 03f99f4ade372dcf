"""Per-submission state on disk: what was graded, and the folders a run swaps in.

Crash safety and idempotency of ``nbg autograde`` rest on these, in this
order per submission: the autograded folder is assembled in a staging folder
and swapped in (:func:`swap_in`); the gradebook is updated; a state file
records the content hash of what was graded (:func:`state_path`). A
submission whose hash matches its state file, with its autograded folder in
place, is up to date (:func:`is_up_to_date`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

STATE_DIRNAME = ".nbg_state"


def submission_hash(submitted_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in submitted_dir.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(str(path.relative_to(submitted_dir)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def state_path(course, student: str, assignment: str) -> Path:
    return course.root / STATE_DIRNAME / "autograde" / assignment / f"{student}.json"


def write_atomic(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8", errors="replace")  # text from submissions may hold lone surrogates
    os.replace(tmp, path)


def is_up_to_date(course, student, assignment, content_hash) -> bool:
    state = state_path(course, student, assignment)
    if not state.exists() or not course.autograded_dir(student, assignment).is_dir():
        return False
    try:
        return json.loads(state.read_text()).get("hash") == content_hash
    except ValueError:
        return False


def mark_for_regrade(course, student, assignment) -> bool:
    """Make a graded submission pending until it is graded again (``--force``): a forced run
    that is interrupted then leaves what it did not reach pending, for ``status`` and the
    next run. Returns whether there was a state to mark."""
    path = state_path(course, student, assignment)
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    saved["hash"] = "regrade-requested"
    write_atomic(path, json.dumps(saved, sort_keys=True))
    return True


def swap_in(staging: Path, final: Path):
    """Replace ``final`` by ``staging`` (two renames; a crash in between leaves no
    folder, which the next run regrades)."""
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    if old.exists():
        shutil.rmtree(old)


def set_read_only(folder: Path, permissions: int):
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(permissions)


def clean_stale_folders(course):
    """Remove staging folders left by a grader that was killed (their process is gone)."""
    root = course.root / "autograded"
    for staging in root.glob("*/*/.*.staging-*") if root.is_dir() else []:
        pid = staging.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(staging, ignore_errors=True)
    for old in root.glob("*/*/.*.old-*") if root.is_dir() else []:
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    scratch_parent = Path(tempfile.gettempdir())
    for scratch in scratch_parent.glob("nbg-*"):  # scratch roots of killed graders (owner pid unknown)
        try:
            if scratch.is_dir() and time.time() - scratch.stat().st_mtime > 24 * 3600:
                shutil.rmtree(scratch, ignore_errors=True)
        except OSError:
            pass


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

