"""``nbg release``: the student release, the hand-out and their LMS zips."""

from __future__ import annotations

from grading.core.course import Course


def add_arguments(parser):
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all in source/)")


def run(args) -> int:
    from grading.release import HANDOUT_DIRNAME, build_release, handout_zip_path  # nbgrader: only when it runs

    course = Course(args.course, db_url=args.db)
    for zip_path in build_release(course, args.assignments or None):
        assignment = zip_path.stem
        print(f"released {assignment}: {course.release_dir(assignment)}  (LMS zip: {zip_path})")
    print(f"student hand-out (kit wheel, environment.yml, requirements.txt, README.md): "
          f"{course.release_root / HANDOUT_DIRNAME}  (LMS zip: {handout_zip_path(course)})")
    return 0
