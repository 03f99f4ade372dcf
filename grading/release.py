"""``nbg release``: the student version of each assignment, plus a zip for the LMS.

nbgrader's ``generate_assignment`` converter does the work (clears solutions
and hidden tests, locks cells, records the source cells and checksums in the
gradebook); this module runs it for one or all assignments, checks the
release leaks no solution or hidden test, and zips each release folder
reproducibly (sorted entries, fixed timestamps) into ``release_zips/``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat

from grading.course import Course

ZIP_DIRNAME = "release_zips"
# Markers nbgrader removes; finding one in a release means something leaked.
LEAK_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def generate_assignment(course: Course, assignment: str) -> Path:
    """Run nbgrader's ``generate_assignment`` for one assignment; returns its release folder."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.converters.base import NbGraderException

    if not course.source_notebooks(assignment):
        raise ValueError(
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
        raise ValueError(f"nbgrader generate_assignment failed for {assignment!r}: {error}") from None
    return course.release_dir(assignment)


def check_no_leaks(release_dir: Path) -> None:
    """Raise ValueError when a released notebook still holds solution/hidden-test markers."""
    for path in sorted(Path(release_dir).glob("*.ipynb")):
        notebook = nbformat.read(str(path), as_version=4)
        for index, cell in enumerate(notebook.cells):
            for marker in LEAK_MARKERS:
                if marker in cell.source:
                    raise ValueError(
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


def build_release(course, assignments=None) -> list[Path]:
    """Release one, several or all assignments and zip each release.

    Parameters
    ----------
    course : Course or path
    assignments : list of str, optional
        Default: every assignment in ``source/``.

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
            raise ValueError(f"no assignments in {course.source_root}: add source/<id>/<id>.ipynb")
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise ValueError(f"unknown assignment(s) {unknown}: {course.source_root} has {known}")
    zips = []
    for assignment in assignments:
        release_dir = generate_assignment(course, assignment)
        check_no_leaks(release_dir)
        zips.append(zip_release(release_dir, course.root / ZIP_DIRNAME / f"{assignment}.zip"))
    return zips


def add_arguments(parser):
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all in source/)")


def run(args) -> int:
    course = Course(args.course, db_url=args.db)
    for zip_path in build_release(course, args.assignments or None):
        assignment = zip_path.stem
        print(f"released {assignment}: {course.release_dir(assignment)}  (LMS zip: {zip_path})")
    return 0
