"""The progress bar of ``nbg autograde``: tqdm, silent unless stderr is a terminal."""

from __future__ import annotations

import sys

from tqdm import tqdm


class ProgressBar:
    """``5/10 [00:12<00:12] alice/ps1`` redrawn in place (a thin layer over tqdm).

    Parameters
    ----------
    total : int
        Number of steps.
    enabled : bool
        Draw at all (it is drawn only when the stream is a terminal anyway).
    stream : file, optional
        Default ``sys.stderr``.
    """

    def __init__(self, total=None, enabled=True, stream=None):
        self.stream = stream or sys.stderr
        self.wanted = bool(enabled)
        self.enabled = False
        self._bar = None
        if total is not None:
            self._start(total)

    def _start(self, total):
        self.enabled = self.wanted and total > 0 and getattr(self.stream, "isatty", lambda: False)()
        self._bar = tqdm(total=total, file=self.stream, disable=not self.enabled, unit="notebook",
                         dynamic_ncols=True, leave=True)

    def __call__(self, done, total, label=""):
        """The library's ``on_progress(done, total, label)``: the bar is drawn at ``done`` of ``total``."""
        if self._bar is None:
            self._start(total)
        self.advance(done - self.done, label)

    @property
    def done(self) -> int:
        return int(self._bar.n) if self._bar is not None else 0

    def advance(self, steps=1, label=""):
        """Count ``steps`` more done; ``label`` names the last one (e.g. ``alice/ps1``)."""
        if label:
            self._bar.set_postfix_str(label, refresh=False)
        self._bar.update(steps)

    def close(self):
        if self._bar is not None:
            self._bar.close()
