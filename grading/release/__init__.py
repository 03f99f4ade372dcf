"""``nbg release``: the student version of each assignment, the hand-out, and zips for the LMS.

nbgrader's ``generate_assignment`` converter does the work (clears solutions
and hidden tests, locks cells, records the source cells and checksums in the
gradebook); this module runs it for one or all assignments, checks the
release leaks no solution or hidden test, and zips each release folder
reproducibly (sorted entries, fixed timestamps) into ``release_zips/``. Each release
notebook carries the library rule's lists in ``metadata["nbg"]`` (:func:`stamp_library_rule`), so
``python -m nbkit check`` applies the rule that grades it.
It also writes the course's hand-out (:mod:`grading.release.handout`: the student
kit as a wheel and the student environment files) to ``release/handout/``
and ``release_zips/handout.zip``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat

from grading.core.course import Course
from grading.core.errors import NbgError
from grading.release.handout import HANDOUT_DIRNAME, build_handout

ZIP_DIRNAME = "release_zips"
# Markers nbgrader removes; finding one in a release means something leaked.
LEAK_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def generate_assignment(course: Course, assignment: str) -> Path:
    """Run nbgrader's ``generate_assignment`` for one assignment; returns its release folder."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.converters.base import NbGraderException

    if not course.source_notebooks(assignment):
        raise NbgError(
            f"no notebooks in {course.source_dir(assignment)}: "
            f"put the source notebook at source/{assignment}/<name>.ipynb"
        )
    coursedir = course.coursedir
    coursedir.assignment_id = assignment
    converter = GenerateAssignment(coursedir=coursedir, config=course.config)
    converter.force = True  # a release is rebuilt from the source every time
    converter.create_assignment = True
    try:
        converter.start()
    except NbGraderException as error:
        raise NbgError(f"nbgrader generate_assignment failed for {assignment!r}: {error}") from None
    return course.release_dir(assignment)


def stamp_library_rule(course: Course, assignment: str) -> None:
    """Write into each release notebook what ``nbkit check`` needs to apply the library rule as the grader
    does (:func:`nbkit.librule.cells.release_rule`: the course's lists, the graded functions and the names
    each test looks up, no test code), beside the exercises' own lists (``metadata["nbg"]["libraries"]``)."""
    from nbkit.librule.cells import release_rule
    from nbkit.librule.rule import exercise_libraries

    settings = course.settings
    for source_path in course.source_notebooks(assignment):
        released = course.release_dir(assignment) / source_path.name
        if not released.is_file():
            continue
        source = nbformat.read(str(source_path), as_version=4)
        try:
            exercises = exercise_libraries(source, str(source_path.relative_to(course.root)))
        except ValueError as error:
            raise NbgError(str(error)) from None
        notebook = nbformat.read(str(released), as_version=4)
        nbg = dict(notebook.metadata.get("nbg", {}) or {})
        nbg["libraries"] = {name: {key: list(names) for key, names in lists.items()}
                            for name, lists in exercises.items()}
        nbg["rule"] = release_rule(source, settings.allowed_libraries, settings.forbidden_libraries)
        notebook.metadata["nbg"] = nbg
        nbformat.write(notebook, str(released))


def check_no_leaks(release_dir: Path) -> None:
    """Raise ValueError when a released notebook still holds solution/hidden-test markers."""
    for path in sorted(Path(release_dir).glob("*.ipynb")):
        notebook = nbformat.read(str(path), as_version=4)
        for index, cell in enumerate(notebook.cells):
            for marker in LEAK_MARKERS:
                if marker in cell.source:
                    raise NbgError(
                        f"{path} cell {index} still contains {marker!r}: check the source "
                        "notebook's BEGIN/END markers are on their own lines"
                    )


def zip_release(release_dir: Path, zip_path: Path) -> Path:
    """Zip a release folder as ``<assignment>/<files>``, reproducibly."""
    release_dir = Path(release_dir)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = zip_path.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in release_dir.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(f"{release_dir.name}/{path.relative_to(release_dir).as_posix()}", _ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    tmp.replace(zip_path)
    return zip_path


def released_assignments(course: Course) -> list[str]:
    """Assignments with a release notebook in ``release/``, sorted (the hand-out is not one)."""
    if not course.release_root.is_dir():
        return []
    return sorted(
        path.name
        for path in course.release_root.iterdir()
        if path.is_dir() and path.name != HANDOUT_DIRNAME and any(path.glob("*.ipynb"))
    )


def handout_zip_path(course: Course) -> Path:
    """``<root>/release_zips/handout.zip``: the hand-out for the LMS."""
    return course.root / ZIP_DIRNAME / f"{HANDOUT_DIRNAME}.zip"


def build_release(course, assignments=None, *, handout=True) -> list[Path]:
    """Release one, several or all assignments and zip each release.

    With ``handout`` (the default) the course's hand-out is rebuilt too:
    ``release/handout/`` (see :mod:`grading.release.handout`) and its zip
    :func:`handout_zip_path`.

    Parameters
    ----------
    course : Course or path
    assignments : list of str, optional
        Default: every assignment in ``source/``.
    handout : bool
        Also write the hand-out (the student kit and environment files).

    Returns
    -------
    list of Path
        The zips, ``<root>/release_zips/<assignment>.zip``, one per assignment.
    """
    course = course if isinstance(course, Course) else Course(course)
    known = course.source_assignments()
    if assignments is None:
        assignments = known
        if not assignments:
            raise NbgError(f"no assignments in {course.source_root}: add source/<id>/<id>.ipynb")
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise NbgError(f"unknown assignment(s) {unknown}: {course.source_root} has {known}")
    if HANDOUT_DIRNAME in assignments:
        raise NbgError(
            f"an assignment may not be called {HANDOUT_DIRNAME!r}: release/{HANDOUT_DIRNAME}/ "
            "holds the students' hand-out; rename source/handout/"
        )
    zips = []
    for assignment in assignments:
        release_dir = generate_assignment(course, assignment)
        stamp_library_rule(course, assignment)
        check_no_leaks(release_dir)
        zips.append(zip_release(release_dir, course.root / ZIP_DIRNAME / f"{assignment}.zip"))
    if handout:
        handout_dir = build_handout(course.release_root, released_assignments(course))
        zip_release(handout_dir, handout_zip_path(course))
    return zips
