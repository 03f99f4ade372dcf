"""Honest times measured once per test run, given to every test course made from the same notebooks.

The first ``autograde`` of a course measures how long each notebook's honest
runs take (the instructor's solutions and the untouched release, through the
sandbox: :mod:`grading.autograde.budget`) and caches them in the course's
``.nbg_state/honest_times.json``. A fresh test course pays that again: two
notebook runs per notebook, 14 for the real course. Most tests are not about
the time budget, so a course registered here gets the entries that earlier
courses of this run measured for the same notebooks, and gives its own to
the courses after it, in whichever pytest-xdist worker they are.

Nothing is made up: every entry was measured by the grader itself in this run,
and the grader still checks each entry's key (the SHA-256 of the source and
release notebooks and the limits they ran under) before using it; an entry
whose key does not match is measured again. The budget's own tests
(``tests/grading/test_run_bounds.py``) build their course without this, so
they measure for real.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

CACHE = Path(".nbg_state") / "honest_times.json"
# The course roots registered so far in this run, one per line, in a file that every pytest-xdist
# worker of the run appends to (its path is set by tests/conftest.py's pytest_configure before the
# workers start); without it, this process's list.
REGISTRY_VARIABLE = "NBG_TEST_HONEST_TIMES_REGISTRY"
_COURSES: list = []


def _registered() -> list:
    path = os.environ.get(REGISTRY_VARIABLE)
    if not path:
        return list(_COURSES)
    try:
        return [Path(line) for line in Path(path).read_text().splitlines() if line]
    except OSError:
        return []


def _register(root: Path) -> None:
    path = os.environ.get(REGISTRY_VARIABLE)
    if not path:
        _COURSES.append(root)
        return
    with open(path, "a") as registry:  # one short line per write: appends do not interleave
        registry.write(f"{root}\n")


def _read(root: Path) -> dict:
    try:
        data = json.loads((root / CACHE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _notebook_digests(root: Path, name: str) -> list:
    """The SHA-256 of the notebooks an entry ``assignment/notebook`` times, in the key's order."""
    assignment, notebook = name.split("/", 1)
    paths = [root / "source" / assignment / f"{notebook}.ipynb", root / "release" / assignment / f"{notebook}.ipynb"]
    return [_digest(path) for path in paths if path.is_file()]


def _key_digests(key: str) -> list:
    return [part.split(":", 1)[0] for part in str(key).split("+")]


def share(root) -> Path:
    """Register the course at ``root`` (released already): give it the honest times measured so
    far in this run for the same notebooks, and let it give its own to the courses after it."""
    root = Path(root)
    cache = _read(root)
    added = False
    registered = _registered()
    for other in registered:
        for name, entry in _read(other).items():
            if name in cache or not isinstance(entry, dict) or "key" not in entry:
                continue
            try:
                same = _key_digests(entry["key"]) == _notebook_digests(root, name)
            except (OSError, ValueError):
                continue
            if same:
                cache[name] = entry
                added = True
    if added:
        (root / CACHE).parent.mkdir(parents=True, exist_ok=True)
        (root / CACHE).write_text(json.dumps(cache, indent=1, sort_keys=True))
    if root not in registered:
        _register(root)
    return root
