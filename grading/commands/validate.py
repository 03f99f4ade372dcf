"""``nbg validate``: source notebooks pass their tests, release notebooks fail them."""

from __future__ import annotations

from grading.core.course import Course
from grading.core.errors import NbgError

# grading.validate's SOURCE and RELEASE, written out: importing it loads nbgrader and the kernels'
# clients, which `nbg validate --help` does not need (tests/test_cli_startup.py checks they agree).
EXPECT_CHOICES = ("source", "release")


def add_arguments(parser):
    parser.add_argument("paths", nargs="*",
                        help="notebooks or folders (default: the course's source/ and release/)")
    parser.add_argument("--timeout", type=float, default=120, dest="cell_timeout", help="seconds per cell")
    parser.add_argument("-j", "--workers", type=int, default=1, help="notebooks executed at once")
    parser.add_argument("--expect", choices=list(EXPECT_CHOICES), default=None,
                        help="judge every notebook as source or release (default: detect)")


def run(args) -> int:
    from grading.validate import validate

    paths = args.paths
    if not paths:
        course = Course(args.course, db_url=args.db)
        paths = [p for p in (course.source_root, course.release_root) if p.is_dir()]
        if not paths:
            raise NbgError(f"{course.root} has no source/ or release/ folder: pass notebooks to validate")
    result = validate(paths, cell_timeout=args.cell_timeout, workers=args.workers, expect=args.expect)
    print(result.format())
    return result.exit_code
