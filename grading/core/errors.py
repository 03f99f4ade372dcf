"""The grader's own error for what the user can fix.

``nbg`` prints an :class:`NbgError` as one line with exit code 2 (a wrong
course folder, an unknown assignment, a bad option); any other exception is a
bug and keeps its traceback. It subclasses ``ValueError`` so callers of the
library may keep catching that.
"""


class NbgError(ValueError):
    """A problem the user can fix; the message says what to change."""
