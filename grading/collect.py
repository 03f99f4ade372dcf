"""``nbg collect``: submissions from a folder or an LMS zip into ``submitted/``.

Every file of the source is matched against the download layouts of the LMSes
(:mod:`grading.lms`: Canvas, Moodle, Blackboard; each file by the first
layout that fits), or against one ``layout``, or a custom ``pattern`` (a
regular expression with a named group ``student`` and optionally
``timestamp``, ``file``, ``late`` and ``attempt``, see
:class:`grading.lms.layout.Layout`), and against the assignment's notebook
names (the student's file name must end with ``<notebook>.ipynb``; an LMS's
resubmission suffix ``-1`` or `` (1)`` is allowed). What matches is written
to nbgrader's ``submitted/<student>/<assignment>/<notebook>.ipynb`` with a
``timestamp.txt``; everything else is listed in the report, never skipped
silently. The report says which layout each file fitted, which part of its
name became the student id and where its time came from, and warns when the
names carry no submission time.

Safety: files are read straight from the zip and written only to paths built
from the assignment, a validated student id and a known notebook name, so
nothing is ever extracted outside the course; entries that try (``../``,
absolute paths), symbolic links, entries nested more than :data:`MAX_DEPTH`
folders deep and files over ``c.Nbg.collect_max_file_bytes`` (read at most that
far, whatever the zip claims) are rejected with a message, and nothing else of
that student is collected. A download is refused whole, with nothing written
(:class:`DownloadRefused`, exit code 1), when it holds more than
:data:`MAX_ENTRIES` entries or when its notebooks expand to more than
``c.Nbg.collect_max_bytes``: checked first against the sizes the zip declares,
then against the bytes actually decompressed while reading
(:mod:`grading.lms.limits`), since a zip's header can lie; every submission is
staged before any is put in place, so a refusal midway leaves ``submitted/`` as
it was. Files that
claim one student id under different names (``Doe, Jane_12345_...`` and ``Eve_12345_...``) are
all rejected, and nothing of that id is collected: a file that only claims a student's id never
replaces the student's own submission. An older file of the same student and notebook is named
as superseded in the report.

A submission is never replaced by an older one: the timestamp comes from the
``timestamp`` group of the name if present, else from the zip entry's date or
the file's modification time (all taken as UTC); between files of the same
time, the higher resubmission number (``attempt``) wins.
"""

from __future__ import annotations

import contextlib
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
from grading.lms import LAYOUTS, Layout
from grading.lms.limits import ByteBudget, DownloadRefused

# Blackboard's download names, e.g.
# "Doe, Jane_12345_attempt_2026-10-01-10-00-00_01_bayes_mle_map.ipynb" (the old default).
DEFAULT_PATTERN = LAYOUTS["blackboard"].pattern
# A folder of per-student folders: "<student>/<notebook>.ipynb".
FOLDER_PATTERN = r"^(?:.*/)?(?P<student>[^/]+)/[^/]+$"
FOLDER_LAYOUT = Layout(name="folder per student", pattern=FOLDER_PATTERN, example="jdoe/<notebook>.ipynb",
                       student_part="the folder holding the notebook", time_from="")
LAYOUT_CHOICES = {**LAYOUTS, "folder": FOLDER_LAYOUT}
RESUBMISSION = re.compile(r"(?:-\d+| \(\d+\))(?=\.ipynb$)")
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")
JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|\.ipynb_checkpoints|Thumbs\.db)(/|$)")
MAX_FILE_BYTES = 50_000_000  # the default of c.Nbg.collect_max_file_bytes (grading.core.settings)
MAX_ENTRIES = 20_000  # files in one download: far more than a class hands in
MAX_DEPTH = 16  # folders an entry may be nested in (an LMS uses two or three)


@dataclasses.dataclass
class CollectReport:
    """What ``collect`` did with each file of the source."""

    assignment: str
    collected: list = dataclasses.field(default_factory=list)  # (student, [notebooks], timestamp)
    kept_newer: list = dataclasses.field(default_factory=list)  # (student, reason)
    unmatched: list = dataclasses.field(default_factory=list)  # (name, reason)
    rejected: list = dataclasses.field(default_factory=list)  # (name, reason): unsafe entries
    ignored: list = dataclasses.field(default_factory=list)  # OS junk (__MACOSX, .DS_Store)
    superseded: list = dataclasses.field(default_factory=list)  # (name, reason): older copies of a file
    other_files: list = dataclasses.field(default_factory=list)  # non-notebooks of students who sent one
    details: dict = dataclasses.field(default_factory=dict)  # student -> _Candidate (the newest)
    layouts: dict = dataclasses.field(default_factory=dict)  # layout name -> Layout, those that matched

    @property
    def needs_attention(self) -> bool:
        return bool(self.unmatched or self.rejected)

    @property
    def untimed(self) -> list:
        """Students whose submission time did not come from the file name."""
        return [s for s, _, _ in self.collected if self.details[s].time_source != "the name"]

    def format(self) -> str:
        lines = [f"collect {self.assignment}: {len(self.collected)} submission(s) collected"]
        for layout in self.layouts.values():
            lines.append(f"  {layout.name} layout (e.g. {layout.example}): student id = {layout.student_part}"
                         + (f"; its gradebook export's column {layout.roster_id!r} holds it "
                            f"(nbg export --roster-id {layout.roster_id!r})" if layout.roster_id else ""))
        for student, notebooks, timestamp in self.collected:
            detail = self.details[student]
            extra = [f"time from {detail.time_source}"]
            if detail.display:
                extra.insert(0, f"name part {detail.display!r}")
            if detail.late:
                extra.append(f"marked late by {detail.layout.name}")
            lines.append(f"  {student}: {', '.join(notebooks)} ({timestamp:%Y-%m-%d %H:%M:%S} UTC; "
                         f"{'; '.join(extra)})")
        for student, reason in self.kept_newer:
            lines.append(f"  kept {student}'s existing submission: {reason}")
        untimed = self.untimed
        if untimed:
            sources = sorted({self.details[s].time_source for s in untimed})
            lines.append(
                f"WARNING: no submission time in the file names of {len(untimed)} submission(s); their time is "
                f"{' or '.join(sources)}, which may not be when the student submitted. With a due date set, "
                "check the times above (nbg report's late table) before exporting, or give --pattern a "
                "(?P<timestamp>...) group")
        if self.superseded:
            lines.append(f"superseded ({len(self.superseded)}): older files of the same student and notebook")
            lines.extend(f"  {name}: {reason}" for name, reason in self.superseded)
        for title, items in (("NOT MATCHED", self.unmatched), ("REJECTED", self.rejected)):
            if items:
                lines.append(f"{title} ({len(items)}):")
                lines.extend(f"  {name}: {reason}" for name, reason in items)
        if self.other_files:
            lines.append(f"skipped {len(self.other_files)} file(s) that are not notebooks, of students who "
                         f"also submitted one: {', '.join(self.other_files)}")
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
    layout: Layout = FOLDER_LAYOUT
    time_source: str = "the name"
    display: str = ""  # the name part of the file name (Canvas's lastfirst, Moodle's full name)
    late: bool = False
    attempt: int = 0

    @property
    def order(self):
        return (self.timestamp, self.attempt)


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
    if len(path.parts) > MAX_DEPTH + 1:
        return f"nested {len(path.parts) - 1} folders deep, over the limit of {MAX_DEPTH}: not an LMS's layout"
    return None


def _entries_from_zip(source: Path, budget: ByteBudget):
    """(name, timestamp, reader, problem) for each file of a zip; the download refused whole first."""
    with zipfile.ZipFile(source) as archive:
        infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise DownloadRefused(
            f"{source} holds {len(infos)} entries, over the limit of {MAX_ENTRIES}: this is not an LMS's "
            "download of one assignment; nothing was collected: unpack what you need into a folder and collect that")
    entries, declared = [], 0
    for info in infos:
        if info.is_dir():
            continue
        name = info.filename.replace("\\", "/")
        problem = _unsafe_entry(info.filename)
        mode = info.external_attr >> 16
        if problem is None and stat.S_ISLNK(mode):
            problem = "symbolic link in the zip: refusing to follow it"
        if problem is None and info.file_size > budget.max_file_bytes:
            problem = (f"{info.file_size} bytes uncompressed, over the {budget.max_file_bytes}-byte limit "
                       "(c.Nbg.collect_max_file_bytes)")
        if problem is None and name.lower().endswith(".ipynb") and not JUNK.search(name):
            declared += info.file_size  # only notebooks are ever read

        def read(info=info, name=name):
            # zipfile stops at the declared size and then fails the CRC; the budget counts the bytes anyway.
            with zipfile.ZipFile(source) as archive, archive.open(info) as handle:
                return budget.read(handle, name)

        entries.append((name, dt.datetime(*info.date_time), read, problem))
    if declared > budget.max_bytes:
        raise budget.refuse(f"its notebooks declare {declared:,} bytes uncompressed")
    return entries


def _entries_from_folder(source: Path, budget: ByteBudget):
    for dirpath, dirnames, filenames in os.walk(source, followlinks=False):
        dirnames.sort()
        for filename in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = Path(dirpath) / filename
            name = path.relative_to(source).as_posix()
            if path.is_symlink():
                yield name, None, None, "symbolic link: refusing to follow it"
                continue
            size = path.stat().st_size
            problem = None if size <= budget.max_file_bytes else (
                f"{size} bytes, over the {budget.max_file_bytes}-byte limit (c.Nbg.collect_max_file_bytes)")
            mtime = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).replace(tzinfo=None)

            def read(path=path, name=name):
                with path.open("rb") as handle:
                    return budget.read(handle, name)

            yield name, mtime, read, problem


def _match_notebook(filename: str, notebooks) -> str | None:
    basename = filename.rsplit("/", 1)[-1]
    for name in (basename, RESUBMISSION.sub("", basename)):  # "nb-1.ipynb": an LMS's resubmission
        matches = [nb for nb in notebooks if name.endswith(f"{nb}.ipynb")]
        if matches:
            return max(matches, key=len)
    return None


def _match(name, layouts):
    for layout in layouts:
        match = layout.regex.search(name)
        if match is not None:
            return layout, match
    return None, None


def _read_existing_timestamp(folder: Path):
    from nbgrader.utils import parse_utc

    try:
        return parse_utc((folder / "timestamp.txt").read_text().strip())
    except (OSError, ValueError):
        return None


def collect(course, assignment, source, pattern=None, layout=None, max_bytes=None,
            max_file_bytes=None) -> CollectReport:
    """Copy matching notebooks from ``source`` into ``submitted/``.

    Parameters
    ----------
    course : Course or path
    assignment : str
        The assignment id; its notebooks are those of ``release/<assignment>``
        (run ``release`` first) or else of ``source/<assignment>``.
    source : path
        A folder (searched recursively) or a ``.zip`` file.
    pattern : str, optional
        Regular expression searched in each file's path inside the source
        (forward slashes), with a named group ``student`` and optionally
        ``timestamp`` (``YYYY-MM-DD-HH-MM-SS`` or any six numbers in that
        order), ``file``, ``late`` and ``attempt``. :data:`FOLDER_PATTERN`
        fits ``<student>/<notebook>.ipynb``.
    layout : str, optional
        One of :data:`LAYOUT_CHOICES` (``canvas``, ``moodle``, ``blackboard``,
        ``folder``). Without ``pattern`` or ``layout``, every LMS layout is tried.
    max_bytes, max_file_bytes : int, optional
        The download's and one notebook's uncompressed bytes; default ``c.Nbg.collect_max_bytes``
        and ``c.Nbg.collect_max_file_bytes`` of the course config.

    Returns
    -------
    CollectReport

    Raises
    ------
    DownloadRefused
        The download is over a limit; nothing was written.
    """
    course = course if isinstance(course, Course) else Course(course)
    settings = course.settings
    budget = ByteBudget(source, settings.collect_max_bytes if max_bytes is None else max_bytes,
                     settings.collect_max_file_bytes if max_file_bytes is None else max_file_bytes)
    if pattern is not None:
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise NbgError(f"--pattern {pattern!r} is not a regular expression: {error}") from None
        if "student" not in regex.groupindex:
            raise NbgError(f"the pattern {pattern!r} needs a named group (?P<student>...)")
        layouts = [Layout(name="--pattern", pattern=pattern, example=pattern,
                          student_part="the pattern's group 'student'")]
    elif layout is not None:
        if layout not in LAYOUT_CHOICES:
            raise NbgError(f"unknown layout {layout!r}; use one of {', '.join(LAYOUT_CHOICES)}")
        layouts = [LAYOUT_CHOICES[layout]]
    else:
        layouts = list(LAYOUTS.values())
    no_match = ("the name does not match the pattern" if pattern is not None else
                f"the name fits none of the layouts ({', '.join(lay.name for lay in layouts)}): "
                "give --layout or --pattern")
    source = Path(source)
    notebooks = [p.stem for p in sorted(course.release_dir(assignment).glob("*.ipynb"))] or [
        p.stem for p in course.source_notebooks(assignment)
    ]
    if not notebooks:
        known = course.source_assignments()
        raise NbgError(f"unknown assignment {assignment!r}: the course has "
                       f"{', '.join(known) if known else 'no assignment in ' + str(course.source_root)}")
    if zipfile.is_zipfile(source):
        entries, fallback_time = _entries_from_zip(source, budget), "the zip entry's date"
    elif source.is_dir():
        entries, fallback_time = _entries_from_folder(source, budget), "the file's modification time"
    else:
        raise NbgError(f"{source} is neither a folder nor a zip file: give the LMS's download (a .zip) "
                       "or the folder it was unpacked to")

    report = CollectReport(assignment)
    best: dict = {}  # (student, notebook) -> _Candidate, the latest
    names_by_student: dict = {}  # student -> the name parts of the files claiming that id
    older_by_student: dict = {}  # student -> names of the files superseded by a newer one
    not_notebooks = []  # (name, student or None)
    refused_of: dict = {}  # student -> a rejected notebook of theirs: none of their files is collected
    for name, when, read, problem in entries:
        if JUNK.search(name):
            report.ignored.append(name)
            continue
        if problem:
            report.rejected.append((name, problem))
            _, match = _match(name, layouts)
            if match is not None and name.lower().endswith(".ipynb"):  # e.g. the student's newer, oversized file
                refused_of.setdefault(match.group("student").strip(), name)
            continue
        matched_layout, match = _match(name, layouts)
        if not name.lower().endswith(".ipynb"):
            not_notebooks.append((name, match.group("student").strip() if match else None))
            continue
        if match is None:
            report.unmatched.append((name, no_match))
            continue
        student = match.group("student").strip()
        if not STUDENT_ID.match(student):
            report.unmatched.append((name, f"student id {student!r} is not a safe folder name"))
            continue
        groups = match.groupdict()
        filename = (groups.get("file") or "") + (groups.get("ext") or "") if groups.get("file") else name
        notebook = _match_notebook(filename, notebooks)
        if notebook is None:
            report.unmatched.append((name, f"not one of {assignment}'s notebooks ({', '.join(notebooks)})"))
            continue
        time_source = fallback_time
        if groups.get("timestamp"):
            try:
                when, time_source = _parse_timestamp(match.group("timestamp")), "the name"
            except ValueError as error:
                report.unmatched.append((name, str(error)))
                continue
        candidate = _Candidate(name, student, notebook, when, read, layout=matched_layout,
                               time_source=time_source, display=(groups.get("name") or "").strip(),
                               late=bool(groups.get("late")), attempt=int(groups.get("attempt") or 0))
        previous = best.get((student, notebook))
        if previous is None or candidate.order > previous.order:
            best[(student, notebook)] = candidate
            older = previous
        else:
            older = candidate
        if older is not None:  # a resubmission, or a file that only claims this id: either way, named
            winner = best[(student, notebook)]
            report.superseded.append((older.name, f"{student}'s {notebook} here is older than {winner.name}"))
            older_by_student.setdefault(student, []).append(older.name)
        names_by_student.setdefault(student, set()).add(candidate.display)

    by_student: dict = {}
    for (student, _), candidate in sorted(best.items()):
        by_student.setdefault(student, []).append(candidate)
    to_stage = []
    for student, candidates in by_student.items():
        names = sorted(names_by_student.get(student, ()))
        if len(names) > 1:
            # One id under two names: a file that only claims the id must not replace the student's own.
            claimed = older_by_student.get(student, [])
            report.superseded = [(n, r) for n, r in report.superseded if n not in claimed]
            report.rejected.extend(
                (name, f"files claim student id {student!r} under different names ({', '.join(map(repr, names))}): "
                       "nothing of this id is collected; check with the LMS who submitted what")
                for name in sorted({c.name for c in candidates} | set(claimed)))
            continue
        if student in refused_of:  # collecting the rest would pass off part (or an older copy) as the whole
            report.rejected.extend(
                (c.name, f"{student}'s {refused_of[student]} was rejected: nothing of {student}'s submission is "
                         "collected, so no part or older copy of it stands in for the whole") for c in candidates)
            continue
        to_stage.append((student, candidates))
    staged = []  # (student, candidates, staging folder): put in place only once every one is read
    try:
        for student, candidates in to_stage:
            staging = _stage_submission(course, assignment, student, candidates, report)
            if staging is not None:
                staged.append((student, candidates, staging))
    except BaseException:
        for _, _, staging in staged:
            _discard(staging)
        raise
    for student, candidates, staging in staged:
        _put_in_place(course, assignment, student, candidates, staging, report)
    for name, student in not_notebooks:
        if student is not None and student in by_student:
            report.other_files.append(name)
        else:
            report.unmatched.append((name, "not a notebook (.ipynb)" + (
                f", and {student!r} submitted no notebook" if student else f"; {no_match}")))
    return report


def _stage_submission(course, assignment, student, candidates, report):
    """A staging folder beside ``submitted/<student>/<assignment>`` holding the student's files, or
    ``None`` (an existing submission is newer, or a file could not be read: named in the report)."""
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
    except DownloadRefused:
        _discard(staging)
        raise
    except (OSError, ValueError, zipfile.BadZipFile) as error:  # BadZipFile: a CRC that does not match
        _discard(staging)
        report.rejected.extend((c.name, f"could not be read: {error}") for c in candidates)
        return None
    (staging / "timestamp.txt").write_text(timestamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    return staging


def _discard(staging):
    """Remove a staging folder, and the student's folder it made if nothing else is in it."""
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.parent.rmdir()


def _put_in_place(course, assignment, student, candidates, staging, report):
    timestamp = max(c.timestamp for c in candidates)
    newest = max(candidates, key=lambda c: c.order)
    final = course.submitted_dir(student, assignment)
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)
    report.collected.append((student, [c.notebook for c in candidates], timestamp))
    report.details[student] = newest
    report.layouts.setdefault(newest.layout.name, newest.layout)
