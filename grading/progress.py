"""A one-line progress bar on stderr (no dependency; silent unless stderr is a TTY)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """``[#####.....] 5/10 12s alice/ps1`` redrawn in place.

    Parameters
    ----------
    total : int
        Number of steps.
    enabled : bool
        Draw at all (it is drawn only when the stream is a terminal anyway).
    stream : file, optional
        Default ``sys.stderr``.
    """

    def __init__(self, total, enabled=True, stream=None, width=30):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0 and getattr(self.stream, "isatty", lambda: False)()
        self.start = time.monotonic()
        self._draw("")

    def advance(self, steps=1, label=""):
        self.done = min(self.total, self.done + steps)
        self._draw(label)

    def _draw(self, label):
        if not self.enabled:
            return
        filled = int(self.width * self.done / self.total)
        elapsed = time.monotonic() - self.start
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {elapsed:.0f}s {label}"
        self.stream.write("\r" + line[:100].ljust(100))
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
