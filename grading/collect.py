"""``nbg collect``: submissions from a folder or an LMS zip into ``submitted/``.

Every notebook file in the source is matched against a regular expression
with a named group ``student`` (and optionally ``timestamp``), and against
the assignment's notebook names (the file name must end with
``<notebook>.ipynb``). What matches is written to nbgrader's
``submitted/<student>/<assignment>/<notebook>.ipynb`` with a
``timestamp.txt``; everything else is listed in the report, never skipped
silently.

Safety: files are read straight from the zip and written only to paths built
from the assignment, a validated student id and a known notebook name, so
nothing is ever extracted outside the course; entries that try (``../``,
absolute paths) and symbolic links are rejected with a message.

A submission is never replaced by an older one: the timestamp comes from the
``timestamp`` group of the name if present, else from the zip entry's date or
the file's modification time (all taken as UTC).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from grading.core.course import Course
from grading.core.errors import NbgError

# Blackboard-style LMS download names, e.g.
# "Doe, Jane_12345_attempt_2026-10-01-10-00-00_01_bayes_mle_map.ipynb":
# the id is the part just before "_attempt_", the timestamp follows it.
DEFAULT_PATTERN = r"(?P<student>[^/_]+)_attempt_(?P<timestamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)"
# A folder of per-student folders: "<student>/<notebook>.ipynb".
FOLDER_PATTERN = r"^(?:.*/)?(?P<student>[^/]+)/[^/]+$"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")
JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|\.ipynb_checkpoints|Thumbs\.db)(/|$)")
MAX_FILE_BYTES = 50_000_000  # a notebook larger than this is not a real submission


@dataclasses.dataclass
class CollectReport:
    """What ``collect`` did with each file of the source."""

    assignment: str
    collected: list = dataclasses.field(default_factory=list)  # (student, [notebooks], timestamp)
    kept_newer: list = dataclasses.field(default_factory=list)  # (student, reason)
    unmatched: list = dataclasses.field(default_factory=list)  # (name, reason)
    rejected: list = dataclasses.field(default_factory=list)  # (name, reason): unsafe entries
    ignored: list = dataclasses.field(default_factory=list)  # OS junk (__MACOSX, .DS_Store)

    @property
    def needs_attention(self) -> bool:
        return bool(self.unmatched or self.rejected)

    def format(self) -> str:
        lines = [f"collect {self.assignment}: {len(self.collected)} submission(s) collected"]
        for student, notebooks, timestamp in self.collected:
            lines.append(f"  {student}: {', '.join(notebooks)} ({timestamp:%Y-%m-%d %H:%M:%S} UTC)")
        for student, reason in self.kept_newer:
            lines.append(f"  kept {student}'s existing submission: {reason}")
        for title, items in (("NOT MATCHED", self.unmatched), ("REJECTED", self.rejected)):
            if items:
                lines.append(f"{title} ({len(items)}):")
                lines.extend(f"  {name}: {reason}" for name, reason in items)
        if self.ignored:
            lines.append(f"ignored {len(self.ignored)} system file(s) (__MACOSX, .DS_Store, ...)")
        return "\n".join(lines)


@dataclasses.dataclass
class _Candidate:
    name: str  # path inside the source, posix
    student: str
    notebook: str
    timestamp: dt.datetime
    read: object  # () -> bytes


def _parse_timestamp(text: str) -> dt.datetime:
    digits = re.findall(r"\d+", text)
    if len(digits) >= 6 and len(digits[0]) == 4:
        return dt.datetime(*(int(d) for d in digits[:6]))
    if len(digits) == 1 and len(digits[0]) == 14:  # 20261001100000
        return dt.datetime.strptime(digits[0], "%Y%m%d%H%M%S")
    raise NbgError(f"cannot read a date and time from {text!r}")


def _unsafe_entry(name: str) -> str | None:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", name):
        return "absolute path in the zip: refusing to extract it"
    if ".." in path.parts:
        return "'..' in the path (zip slip): refusing to extract it outside the course"
    return None


def _entries_from_zip(source: Path):
    """Yield (name, timestamp, reader, problem) for each file of a zip."""
    with zipfile.ZipFile(source) as archive:
        infos = archive.infolist()
    for info in infos:
        if info.is_dir():
            continue
        problem = _unsafe_entry(info.filename)
        mode = info.external_attr >> 16
        if problem is None and stat.S_ISLNK(mode):
            problem = "symbolic link in the zip: refusing to follow it"
        if problem is None and info.file_size > MAX_FILE_BYTES:
            problem = f"{info.file_size} bytes uncompressed, over the {MAX_FILE_BYTES}-byte limit"

        def read(info=info):
            with zipfile.ZipFile(source) as archive, archive.open(info) as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise NbgError(f"over the {MAX_FILE_BYTES}-byte limit")
            return data

        yield info.filename.replace("\\", "/"), dt.datetime(*info.date_time), read, problem


def _entries_from_folder(source: Path):
    for dirpath, dirnames, filenames in os.walk(source, followlinks=False):
        dirnames.sort()
        for filename in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = Path(dirpath) / filename
            name = path.relative_to(source).as_posix()
            if path.is_symlink():
                yield name, None, None, "symbolic link: refusing to follow it"
                continue
            size = path.stat().st_size
            problem = None if size <= MAX_FILE_BYTES else f"{size} bytes, over the {MAX_FILE_BYTES}-byte limit"
            mtime = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).replace(tzinfo=None)
            yield name, mtime, path.read_bytes, problem


def _match_notebook(name: str, notebooks) -> str | None:
    basename = name.rsplit("/", 1)[-1]
    matches = [nb for nb in notebooks if basename.endswith(f"{nb}.ipynb")]
    return max(matches, key=len) if matches else None


def _read_existing_timestamp(folder: Path):
    from nbgrader.utils import parse_utc

    try:
        return parse_utc((folder / "timestamp.txt").read_text().strip())
    except (OSError, ValueError):
        return None


def collect(course, assignment, source, pattern=DEFAULT_PATTERN) -> CollectReport:
    """Copy matching notebooks from ``source`` into ``submitted/``.

    Parameters
    ----------
    course : Course or path
    assignment : str
        The assignment id; its notebooks are those of ``release/<assignment>``
        (run ``release`` first) or else of ``source/<assignment>``.
    source : path
        A folder (searched recursively) or a ``.zip`` file.
    pattern : str
        Regular expression searched in each file's path inside the source
        (forward slashes), with a named group ``student`` and optionally
        ``timestamp`` (``YYYY-MM-DD-HH-MM-SS`` or any six numbers in that
        order). Default :data:`DEFAULT_PATTERN`; :data:`FOLDER_PATTERN` fits
        ``<student>/<notebook>.ipynb``.

    Returns
    -------
    CollectReport
    """
    course = course if isinstance(course, Course) else Course(course)
    regex = re.compile(pattern)
    if "student" not in regex.groupindex:
        raise NbgError(f"the pattern {pattern!r} needs a named group (?P<student>...)")
    source = Path(source)
    notebooks = [p.stem for p in sorted(course.release_dir(assignment).glob("*.ipynb"))] or [
        p.stem for p in course.source_notebooks(assignment)
    ]
    if not notebooks:
        raise NbgError(f"assignment {assignment!r} has no notebooks in release/ or source/: release it first")
    if zipfile.is_zipfile(source):
        entries = _entries_from_zip(source)
    elif source.is_dir():
        entries = _entries_from_folder(source)
    else:
        raise NbgError(f"{source} is neither a folder nor a zip file")

    report = CollectReport(assignment)
    best: dict = {}  # (student, notebook) -> _Candidate, the latest
    for name, when, read, problem in entries:
        if JUNK.search(name):
            report.ignored.append(name)
            continue
        if problem:
            report.rejected.append((name, problem))
            continue
        match = regex.search(name)
        if match is None:
            report.unmatched.append((name, "the name does not match the pattern"))
            continue
        student = match.group("student").strip()
        if not STUDENT_ID.match(student):
            report.unmatched.append((name, f"student id {student!r} is not a safe folder name"))
            continue
        notebook = _match_notebook(name, notebooks)
        if notebook is None:
            report.unmatched.append((name, f"not one of {assignment}'s notebooks ({', '.join(notebooks)})"))
            continue
        if match.groupdict().get("timestamp"):
            try:
                when = _parse_timestamp(match.group("timestamp"))
            except ValueError as error:
                report.unmatched.append((name, str(error)))
                continue
        candidate = _Candidate(name, student, notebook, when, read)
        previous = best.get((student, notebook))
        if previous is None or candidate.timestamp > previous.timestamp:
            best[(student, notebook)] = candidate

    by_student: dict = {}
    for (student, _), candidate in sorted(best.items()):
        by_student.setdefault(student, []).append(candidate)
    for student, candidates in by_student.items():
        _write_submission(course, assignment, student, candidates, report)
    return report


def _write_submission(course, assignment, student, candidates, report):
    timestamp = max(c.timestamp for c in candidates)
    final = course.submitted_dir(student, assignment)
    existing = _read_existing_timestamp(final)
    if existing is not None and existing >= timestamp:
        report.kept_newer.append(
            (student, f"it is from {existing:%Y-%m-%d %H:%M:%S}, the source's from {timestamp:%Y-%m-%d %H:%M:%S}")
        )
        return
    staging = final.with_name(f".{final.name}.collect-{os.getpid()}")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        for candidate in candidates:
            (staging / f"{candidate.notebook}.ipynb").write_bytes(candidate.read())
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        shutil.rmtree(staging)
        report.rejected.extend((c.name, f"could not be read: {error}") for c in candidates)
        return
    (staging / "timestamp.txt").write_text(timestamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)
    report.collected.append((student, [c.notebook for c in candidates], timestamp))
