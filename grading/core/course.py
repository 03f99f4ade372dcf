"""One course root, as nbgrader lays it out, and the config that drives nbgrader.

The pipeline never hard-codes a path: every step asks a :class:`Course` where
``source/``, ``release/``, ``submitted/``, ``autograded/`` and ``feedback/``
live, and hands nbgrader's converters the traitlets ``Config`` built here, so
``nbg`` and stock ``nbgrader`` see the same course.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from grading.core.database import ensure_course_row, normalize_db_url
from grading.core.errors import NbgError
from grading.core.settings import Nbg, read_settings

CONFIG_FILENAME = "nbgrader_config.py"
GRADING_LOG_FILENAME = "grading_log.jsonl"


def ensure_alembic_on_path():
    """Make nbgrader's ``alembic`` call work in an un-activated virtualenv.

    nbgrader's ``Gradebook`` runs the ``alembic`` executable (looked up on
    PATH) whenever it creates a new database; with ``.venv/bin/nbg`` or
    ``.venv/bin/pytest`` run directly, that executable sits next to the
    interpreter but not on PATH.
    """
    if shutil.which("alembic") is None:
        bin_dir = str(Path(sys.executable).parent)
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")



class Course:
    """A course root directory and the nbgrader configuration that goes with it.

    Parameters
    ----------
    root : str or Path
        The course root (the folder that holds ``source/``). Need not exist
        yet for a new course, but the ``source/`` folder must exist before
        anything is released.
    db_url : str, optional
        SQLAlchemy URL of the gradebook. Defaults to nbgrader's
        ``sqlite:///<root>/gradebook.db``; pass e.g. a PostgreSQL URL to use a
        server database (``postgresql://`` URLs use psycopg 3, see
        :mod:`grading.core.database`). The course config's
        ``c.CourseDirectory.db_url`` applies when this is not given.

    Examples
    --------
    >>> course = Course("/tmp/my-course")
    >>> course.submitted_dir("alice", "ps1").as_posix()
    '/tmp/my-course/submitted/alice/ps1'
    >>> course.db_url
    'sqlite:////tmp/my-course/gradebook.db'
    """

    def __init__(self, root, db_url=None):
        self.root = Path(root).resolve()
        self.config = self._build_config(db_url)
        ensure_alembic_on_path()  # nbgrader's converters create gradebooks too, not only gradebook()

    def _build_config(self, db_url):
        config = Config()
        config_file = self.root / CONFIG_FILENAME
        if config_file.is_file():
            # The course's own options (timeouts, late penalties...) come first;
            # the root and database we were given win over whatever it says.
            loader = PyFileConfigLoader(CONFIG_FILENAME, path=str(self.root))
            config.merge(loader.load_config())
        config.CourseDirectory.root = str(self.root)
        if db_url is None and "db_url" in config.CourseDirectory:
            db_url = config.CourseDirectory.db_url
        if db_url is not None:
            # A plain postgresql:// URL gets the driver the `postgres` extra installs.
            config.CourseDirectory.db_url = normalize_db_url(db_url)
        self.configured_db_url = config.CourseDirectory.db_url if db_url is not None else None
        return config

    @property
    def coursedir(self):
        """A fresh ``nbgrader.coursedir.CourseDirectory`` for this course."""
        from nbgrader.coursedir import CourseDirectory

        return CourseDirectory(config=self.config)

    @property
    def db_url(self) -> str:
        """The gradebook's SQLAlchemy URL (nbgrader's default unless given)."""
        return self.coursedir.db_url

    @property
    def course_id(self) -> str:
        """nbgrader's ``CourseDirectory.course_id`` (often empty)."""
        return self.coursedir.course_id

    # Paths. Each step folder follows nbgrader's {root}/{step}/{student}/{assignment}.
    @property
    def source_root(self) -> Path:
        return self.root / "source"

    @property
    def release_root(self) -> Path:
        return self.root / "release"

    @property
    def submitted_root(self) -> Path:
        return self.root / "submitted"

    @property
    def autograded_root(self) -> Path:
        return self.root / "autograded"

    @property
    def feedback_root(self) -> Path:
        return self.root / "feedback"

    @property
    def grading_log_path(self) -> Path:
        """JSON Lines log of every grading attempt (read by the report)."""
        return self.root / GRADING_LOG_FILENAME

    def source_dir(self, assignment: str) -> Path:
        return self.source_root / assignment

    def release_dir(self, assignment: str) -> Path:
        return self.release_root / assignment

    def submitted_dir(self, student: str, assignment: str) -> Path:
        return self.submitted_root / student / assignment

    def autograded_dir(self, student: str, assignment: str) -> Path:
        return self.autograded_root / student / assignment

    def feedback_dir(self, student: str, assignment: str) -> Path:
        return self.feedback_root / student / assignment

    def source_assignments(self) -> list[str]:
        """Ids of the assignments in ``source/`` (folders holding a notebook), sorted."""
        if not self.source_root.is_dir():
            return []
        return sorted(
            path.name
            for path in self.source_root.iterdir()
            if path.is_dir() and any(path.glob("*.ipynb"))
        )

    def source_notebooks(self, assignment: str) -> list[Path]:
        """The source notebooks of one assignment, sorted by name."""
        return sorted(self.source_dir(assignment).glob("*.ipynb"))

    def submitted_students(self, assignment: str) -> list[str]:
        """Students with a ``submitted/<student>/<assignment>/`` folder, sorted."""
        if not self.submitted_root.is_dir():
            return []
        return sorted(
            path.name
            for path in self.submitted_root.iterdir()
            if (path / assignment).is_dir()
        )

    @contextlib.contextmanager
    def gradebook(self):
        """Open nbgrader's ``Gradebook`` for this course; closes it on exit.

        Yields
        ------
        nbgrader.api.Gradebook
        """
        from nbgrader.api import Gradebook

        ensure_course_row(self.db_url, self.course_id)
        with Gradebook(self.db_url, self.course_id) as gradebook:
            yield gradebook

    @property
    def settings(self) -> Nbg:
        """The grader's own settings, ``c.Nbg`` of the course config (:mod:`grading.core.settings`)."""
        return read_settings(self.config)

    def gradebook_exists(self) -> bool:
        """Whether the gradebook is there (a server database is taken to be)."""
        url = self.db_url
        return not url.startswith("sqlite:///") or Path(url[len("sqlite:///"):]).is_file()

    def require_gradebook(self) -> None:
        """Raise :class:`NbgError` when the SQLite gradebook does not exist.

        nbgrader would silently create an empty one; reading nothing from it
        hides a wrong ``--course``, so say what is missing instead.
        """
        if not self.gradebook_exists():
            raise NbgError(
                f"no gradebook at {self.db_url[len('sqlite:///'):]}: check --course (or --db), "
                "and run `nbg release` and `nbg autograde` first"
            )

    def require_course(self) -> None:
        """Raise :class:`NbgError` unless the root is a course folder (it holds ``source/``).

        Checked before any step runs, so a wrong ``--course`` creates nothing.
        """
        if self.source_root.is_dir():
            return
        what = "does not exist" if not self.root.exists() else "has no source/ folder"
        hint = ""
        nested = [p for p in (self.root / "course",) if (p / "source").is_dir()]
        if nested:
            hint = f" (the course here is {nested[0]}: write `nbg --course {nested[0].name} ...`)"
        raise NbgError(f"{self.root} {what}: --course must name the course folder, the one holding "
                       f"source/<assignment>/ and nbgrader_config.py{hint}")

    def require_assignments(self, assignments) -> None:
        """Raise :class:`NbgError` naming the valid ids when one of ``assignments`` is unknown."""
        known = self.source_assignments()
        unknown = [a for a in assignments or () if a not in known]
        if unknown:
            raise NbgError(f"unknown assignment(s) {', '.join(map(repr, unknown))}: the course's assignments "
                           f"(in {self.source_root}) are {', '.join(known) or 'none'}")

    def known_students(self) -> list[str]:
        """Students with a submission in ``submitted/`` or a row in the gradebook, sorted."""
        students = set()
        if self.submitted_root.is_dir():
            students.update(p.name for p in self.submitted_root.iterdir() if p.is_dir() and not p.name.startswith("."))
        if self.gradebook_exists():
            with self.gradebook() as gradebook:
                students.update(student.id for student in gradebook.students)
        return sorted(students)

    def require_students(self, students) -> None:
        """Raise :class:`NbgError` naming the known ids when one of ``students`` is unknown."""
        if not students:
            return
        known = self.known_students()
        unknown = [s for s in students if s not in known]
        if unknown:
            shown = ", ".join(known[:30]) + (f" ... ({len(known)} in all)" if len(known) > 30 else "")
            raise NbgError(f"unknown student(s) {', '.join(map(repr, unknown))}: the students with a "
                           f"submission are {shown or 'none yet (run nbg collect first)'}")

    def __repr__(self) -> str:
        return f"Course({str(self.root)!r})"
