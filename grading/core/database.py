"""The gradebook's database URL: driver choice and a clear error when it cannot be reached.

nbgrader hands the URL to SQLAlchemy. A plain ``postgresql://`` URL names no
driver, and SQLAlchemy picks one by its version (psycopg2 before 2.1,
psycopg 3 from 2.1 on), which may not be installed. The ``postgres`` extra
installs psycopg 3, so :func:`normalize_db_url` spells it out
(``postgresql+psycopg://``); a URL that names a driver is left alone.

:func:`check_database` connects once before a subcommand runs, so a missing
driver, a refused connection or a bad password is one line (exit 2) instead
of nbgrader's "see the above traceback" or a traceback from deep inside a
step.
"""

from __future__ import annotations

from grading.core.errors import NbgError

PLAIN_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
POSTGRES_DRIVER_SCHEME = "postgresql+psycopg://"
INSTALL_HINT = "install the driver with `pip install -e '.[postgres]'` (psycopg 3)"


class DatabaseError(NbgError):
    """The gradebook database cannot be used; the message says what to change."""


def normalize_db_url(url):
    """``postgresql://`` and ``postgres://`` URLs with the installed driver named.

    Examples
    --------
    >>> normalize_db_url("postgresql://grader@db.example.org/ml101")
    'postgresql+psycopg://grader@db.example.org/ml101'
    >>> normalize_db_url("postgres:///ml101?host=/run/postgresql")
    'postgresql+psycopg:///ml101?host=/run/postgresql'
    >>> normalize_db_url("postgresql+psycopg2://grader@db/ml101")
    'postgresql+psycopg2://grader@db/ml101'
    >>> normalize_db_url("sqlite:////srv/course/gradebook.db")
    'sqlite:////srv/course/gradebook.db'
    """
    if url is None:
        return None
    for scheme in PLAIN_POSTGRES_SCHEMES:
        if url.startswith(scheme):
            return POSTGRES_DRIVER_SCHEME + url[len(scheme):]
    return url


def is_postgres(url) -> bool:
    """Whether ``url`` points at a PostgreSQL server (any driver).

    Examples
    --------
    >>> is_postgres("postgresql+psycopg://h/db"), is_postgres("sqlite:///g.db")
    (True, False)
    """
    return url is not None and url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def redact(url) -> str:
    """The URL without its password, for messages.

    Examples
    --------
    >>> redact("postgresql+psycopg://grader:s3cret@db:5432/ml101")
    'postgresql+psycopg://grader:***@db:5432/ml101'
    """
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1] if "@" in url else url


def describe_error(error, url) -> str:
    """One line saying why the database at ``url`` could not be used, and what to do."""
    text = " ".join(str(getattr(error, "orig", None) or error).split())
    if isinstance(error, ModuleNotFoundError) or "No module named" in text:
        missing = getattr(error, "name", None) or text.rsplit(" ", 1)[-1].strip("'")
        hint = INSTALL_HINT if is_postgres(url) else (
            "install it, or use a gradebook nbg supports: sqlite:///<file> (the default) or postgresql://...")
        return f"the gradebook {redact(url)} needs the database driver {missing!r}, which is not installed: {hint}"
    if len(text) > 300:
        text = text[:300] + "..."
    return f"cannot use the gradebook {redact(url)}: {text} (check --db / CourseDirectory.db_url and the server)"


def check_database(url, timeout=10) -> None:
    """Connect to a server gradebook once; raise :class:`DatabaseError` if that fails.

    SQLite URLs are not checked (nbgrader creates the file when needed); any
    other URL (PostgreSQL, or another driver such as ``mysql://``) is.

    Parameters
    ----------
    url : str
        SQLAlchemy URL (already normalised).
    timeout : int
        Seconds to wait for the server.

    Raises
    ------
    DatabaseError
        With one line: the missing driver and how to install it, or the
        server's own reason (refused, unknown database, authentication).
    """
    if url is None or url.startswith("sqlite:"):
        return
    try:
        import sqlalchemy

        connect_args = {"connect_timeout": timeout} if is_postgres(url) else {}
        engine = sqlalchemy.create_engine(url, connect_args=connect_args, poolclass=sqlalchemy.pool.NullPool)
        try:
            with engine.connect() as connection:
                connection.execute(sqlalchemy.text("SELECT 1"))
        finally:
            engine.dispose()
    except Exception as error:  # ImportError (driver), OperationalError (server), ArgumentError (URL)
        raise DatabaseError(describe_error(error, url)) from None


def ensure_course_row(url, course_id) -> None:
    """Give the gradebook a row for the course, as nbgrader does only for a non-empty id.

    nbgrader's default course id is ``""``, for which its ``Gradebook`` adds
    no ``course`` row; SQLite does not enforce the foreign key from
    ``assignment.course_id``, but PostgreSQL does, so every step would fail
    with a foreign-key violation. Done once per process and URL.
    """
    if not is_postgres(url) or (url, course_id) in _COURSE_ROWS:
        return
    from nbgrader.api import Course as CourseRow
    from nbgrader.api import Gradebook

    with Gradebook(url, course_id) as gradebook:
        if gradebook.db.get(CourseRow, course_id) is None:
            gradebook.db.add(CourseRow(id=course_id))
            gradebook.db.commit()
    _COURSE_ROWS.add((url, course_id))


_COURSE_ROWS = set()


def is_database_error(error) -> bool:
    """Whether an exception escaping a subcommand came from the database or its driver."""
    try:
        from sqlalchemy.exc import SQLAlchemyError
    except ImportError:  # pragma: no cover - nbgrader depends on SQLAlchemy
        return False
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, SQLAlchemyError):
            return True
        if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] in ("psycopg", "psycopg2"):
            return True
        error = error.__cause__ or error.__context__
    return False
