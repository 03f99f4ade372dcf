"""``nbg demo``: the whole pipeline on a generated demo class.

Builds a fresh course root in ``<out>/course`` from the course's own source
notebooks (:data:`grading.demo.students.DEMO_ASSIGNMENTS`), then, as an
instructor would:

1. ``release`` the assignments (and their LMS zips);
2. generate the demo students' submissions (:mod:`grading.demo.students`) and
   pack them as an LMS download (Blackboard-style names in a nested folder,
   one student with two attempts), then ``collect`` that zip;
3. ``autograde`` everything in parallel;
4. ``feedback``, ``export``, ``report``;

and prints the class's score table and where each output was written.

The demo's course config differs from the course's in one option, written
into ``<out>/course/nbgrader_config.py`` with a comment: a per-cell timeout
of :data:`DEMO_CELL_TIMEOUT` seconds (the infinite loop costs that, not two
minutes). The course's late policy applies (:mod:`grading.grades.late`: 10% of the
points possible per started day, floor 50%), with the extension of
:data:`grading.demo.students.DEMO_EXTENSIONS` in ``extensions.csv``; the
raw per-cell scores of late work stay visible in ``cells.csv``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import time
import zipfile
from pathlib import Path

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.demo.students import (
    DEMO_ASSIGNMENTS,
    DEMO_EXTENSIONS,
    DEMO_STUDENTS,
    student_notebook,
)

# The pipeline's steps (nbformat, nbgrader, the kernels' clients, matplotlib) are imported by the
# functions that run them, so `nbg demo --help` reads DEFAULT_OUT without loading them (grading/cli.py).

DEFAULT_OUT = "demo-output"
DEMO_CELL_TIMEOUT = 25  # seconds; the slowest legitimate cells, 03's spam filter and feature selection
# with the underflow student's dense multinomial_jll, took 7-9 s on a machine busy with another grader
# (2026-11-29). The infinite loop waits this out twice (it is graded again alone).
DUE_DATE = dt.datetime(2026, 1, 15, 23, 59, 0)  # UTC, both assignments
ON_TIME = dt.datetime(2026, 1, 14, 10, 0, 0)
FIRST_ATTEMPT = dt.datetime(2026, 1, 12, 8, 30, 0)  # perfect's earlier, blank attempt
LATE = dt.datetime(2026, 1, 17, 9, 30, 0)
MARKER = ".nbg-demo"  # marks a folder this module made, so re-running may replace it

DEMO_CONFIG = f"""

# --- nbg demo: the option that differs from the course's config ---
# A short per-cell timeout: the demo's infinite loop costs seconds, not minutes.
c.Execute.timeout = {DEMO_CELL_TIMEOUT}
"""


def repository_course_root() -> Path:
    """The course folder of this repository (``course/`` next to ``grading/``)."""
    return Path(__file__).resolve().parents[2] / "course"


@dataclasses.dataclass
class DemoResult:
    """What ``run_demo`` produced.

    Attributes
    ----------
    course_root : Path
    scores : dict of str to dict of str to float or None
        student -> assignment -> score after the late penalty (None: no submission).
    max_scores : dict of str to float
    summary : grading.autograde.AutogradeSummary
    collect_reports : list of grading.collect.CollectReport
    release_zips, feedback : list of Path
    grades_csv, cells_csv, report : Path
    sandboxed : bool
        Whether the students' kernels ran in the sandbox.
    seconds : float
    """

    course_root: Path
    scores: dict
    max_scores: dict
    summary: object
    collect_reports: list
    release_zips: list
    feedback: list
    grades_csv: Path
    cells_csv: Path
    report: Path
    sandboxed: bool
    seconds: float

    def total(self, student) -> float:
        return sum(score or 0.0 for score in self.scores[student].values())


def earlier_honest_times(out_dir: Path) -> str | None:
    """The honest-time cache of an earlier demo in ``out_dir`` (None: none there).

    An earlier demo of the same checkout ran the same source notebooks, the same release
    (nbgrader's is byte for byte the same) under the same limits: its measurements are this
    run's. The cache is keyed by those (:func:`grading.autograde.budget.cache_key`), so a
    changed notebook or limit is measured again; only a fresh demo folder times them."""
    from grading.autograde.budget import CACHE_NAME
    from grading.core.state import STATE_DIRNAME

    cache = Path(out_dir) / "course" / STATE_DIRNAME / CACHE_NAME
    if not (Path(out_dir) / MARKER).is_file() or not cache.is_file():
        return None
    try:
        return cache.read_text()
    except OSError:
        return None


def _fresh_folder(out_dir: Path) -> Path:
    """Create ``out_dir``, replacing an earlier demo there but nothing else."""
    if out_dir.exists():
        if not (out_dir / MARKER).exists() and any(out_dir.iterdir()):
            raise NbgError(
                f"{out_dir} exists and is not an earlier demo's output: "
                "choose another --out folder or empty it"
            )
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    (out_dir / MARKER).write_text("made by `nbg demo`; safe to delete\n")
    return out_dir


def build_demo_course(course_root: Path, source_root: Path, assignments) -> Path:
    """Copy the source notebooks, their catalogues of known mistakes and the config of
    ``assignments`` into a new course root."""
    missing = [a for a in assignments if not (source_root / "source" / a).is_dir()]
    if missing:
        raise NbgError(
            f"the demo needs {missing} in {source_root / 'source'}; "
            "pass source_root= the course folder that has them"
        )
    for assignment in assignments:
        shutil.copytree(
            source_root / "source" / assignment,
            course_root / "source" / assignment,
            ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
        )
    for assignment in assignments:  # the known mistakes, for the judge's diagnosis (never released)
        catalogue = source_root / "mistakes" / f"{assignment}.py"
        if catalogue.is_file():
            (course_root / "mistakes").mkdir(exist_ok=True)
            shutil.copy2(catalogue, course_root / "mistakes" / catalogue.name)
    config = source_root / "nbgrader_config.py"
    base = config.read_text() if config.is_file() else "c = get_config()  # noqa: F821\n"
    (course_root / "nbgrader_config.py").write_text(base + DEMO_CONFIG)
    (course_root / "extensions.csv").write_text(
        "student_id,assignment,due\n"
        + "".join(f"{s},{a},{due}\n" for s, a, due in DEMO_EXTENSIONS if a in assignments))
    return course_root


def _lms_name(student, assignment, notebook, when) -> str:
    # Blackboard's download names: "<Last, First>_<id>_attempt_<time>_<file>".
    display = student.replace("-", " ").title() + ", Demo"
    return (
        f"gradebook_{assignment}_download/{display}_{student}_attempt_"
        f"{when:%Y-%m-%d-%H-%M-%S}_{notebook}.ipynb"
    )


def build_lms_zip(course, assignment, zip_path: Path, students=DEMO_STUDENTS) -> Path:
    """The LMS download of every demo student's submission of ``assignment``.

    Entries get a fixed date, so the zip is byte-for-byte reproducible.
    """
    import nbformat

    source_nbs = {p.stem: nbformat.read(p, as_version=4) for p in course.source_notebooks(assignment)}
    entries = []
    for notebook_id, source_nb in source_nbs.items():
        release_nb = nbformat.read(course.release_dir(assignment) / f"{notebook_id}.ipynb", as_version=4)
        for student in students:
            when = LATE if assignment in student.late else ON_TIME
            submitted = student_notebook(student, assignment, source_nb, release_nb)
            entries.append((_lms_name(student.student_id, assignment, notebook_id, when), submitted))
            if student.student_id == "perfect":
                # An earlier attempt of the release as is: collect must keep the newer one.
                entries.append(
                    (_lms_name("perfect", assignment, notebook_id, FIRST_ATTEMPT), release_nb)
                )
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, notebook in sorted(entries, key=lambda e: e[0]):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 18, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, nbformat.writes(notebook))
    return zip_path


def _set_due_dates(course, assignments):
    with course.gradebook() as gradebook:
        for assignment in assignments:
            gradebook.update_or_create_assignment(assignment, duedate=DUE_DATE)


def run_demo(
    out_dir=DEFAULT_OUT,
    workers=None,
    *,
    source_root=None,
    assignments=DEMO_ASSIGNMENTS,
    cell_timeout=None,
    sandboxed=None,
    echo=None,
    on_progress=None,
) -> DemoResult:
    """Run release, collect, autograde, feedback, export and report on the demo class.

    Parameters
    ----------
    out_dir : str or Path
        Made afresh (an earlier demo there is replaced; any other non-empty
        folder is refused). The course root is ``<out_dir>/course``.
    workers : int, optional
        Parallel kernels for autograde (default: the number of cores).
    source_root : path, optional
        The course folder whose ``source/`` and ``nbgrader_config.py`` are
        used (default: this repository's ``course/``).
    assignments : tuple of str
        Which assignments (default :data:`DEMO_ASSIGNMENTS`).
    cell_timeout : float, optional
        Per-cell timeout (default: the demo config's :data:`DEMO_CELL_TIMEOUT`).
    sandboxed : bool, optional
        Run the students' kernels in the sandbox (default: when the machine
        has it; otherwise the demo grades unsandboxed and the report says so).
    echo : callable
        Where progress lines go (e.g. ``print``; default: nowhere).
    on_progress : callable, optional
        Passed to :func:`grading.autograde.autograde`.

    Returns
    -------
    DemoResult
    """

    from grading.autograde import autograde
    from grading.autograde.budget import cache_path
    from grading.collect import collect
    from grading.execution.sandbox.bubblewrap import sandbox_available
    from grading.export import export_grades
    from grading.feedback import generate_feedback
    from grading.grades.read import read_class_grades
    from grading.release import build_release
    from grading.report import write_report

    start = time.monotonic()
    honest_times = earlier_honest_times(Path(out_dir))
    out_dir = _fresh_folder(Path(out_dir))
    source_root = Path(source_root) if source_root else repository_course_root()
    course_root = build_demo_course(out_dir / "course", source_root, assignments)
    course = Course(course_root)
    if honest_times is not None:
        cache_path(course).parent.mkdir(parents=True, exist_ok=True)
        cache_path(course).write_text(honest_times)

    echo = echo or (lambda *args: None)
    echo(f"[1/6] release {', '.join(assignments)}")
    release_zips = build_release(course, list(assignments))
    _set_due_dates(course, assignments)

    echo(f"[2/6] collect {len(DEMO_STUDENTS)} students from an LMS download")
    reports = []
    for assignment in assignments:
        lms_zip = build_lms_zip(course, assignment, out_dir / "lms" / f"{assignment}_download.zip")
        reports.append(collect(course, assignment, lms_zip))

    if sandboxed is None:
        sandboxed, why_not = sandbox_available()
        if not sandboxed:
            echo(f"      no sandbox on this machine ({why_not}): grading unsandboxed")
    n_jobs = len(DEMO_STUDENTS) * len(assignments)
    where = "in the sandbox" if sandboxed else "WITHOUT a sandbox"
    echo(f"[3/6] autograde {n_jobs} notebooks in parallel, one kernel each, {where}")
    if honest_times is not None:
        echo("      with the honest run times the earlier demo in this folder measured (a changed notebook "
             "or limit is timed again)")
    summary = autograde(course, list(assignments), workers=workers, cell_timeout=cell_timeout,
                        sandboxed=sandboxed, on_progress=on_progress)

    echo("[4/6] feedback")
    feedback = generate_feedback(course, list(assignments))
    echo("[5/6] export")
    # The course's own exports/, where `nbg export` and `nbg report` write: grades.csv, cells.csv and the
    # report's mistakes.csv side by side.
    grades_csv, cells_csv = export_grades(course, course.root / "exports")
    echo("[6/6] report")
    report = write_report(course, out_dir / "report.html")

    grades = read_class_grades(course)
    scores = {s: {a: grades.score(s, a) for a in grades.assignments} for s in grades.students}
    return DemoResult(
        course_root=course.root,
        scores=scores,
        max_scores=dict(grades.max_scores),
        summary=summary,
        collect_reports=reports,
        release_zips=release_zips,
        feedback=feedback,
        grades_csv=grades_csv,
        cells_csv=cells_csv,
        report=report,
        sandboxed=sandboxed,
        seconds=time.monotonic() - start,
    )
