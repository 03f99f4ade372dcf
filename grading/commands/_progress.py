"""The progress of ``nbg autograde`` and ``nbg demo``: a tqdm bar on a terminal, else lines or nothing."""

from __future__ import annotations

import sys
import time

from tqdm import tqdm


class ProgressBar:
    """``5/10 [00:12<00:12] alice/ps1`` redrawn in place (a thin layer over tqdm).

    Parameters
    ----------
    total : int
        Number of steps.
    enabled : bool
        Draw at all (the bar is drawn only when the stream is a terminal anyway).
    stream : file, optional
        Default ``sys.stderr``.
    log_every : int, optional
        When the stream is not a terminal (a log file, CI), write one line every ``log_every``
        steps and at the last one: the counts and the seconds since the start. Default: nothing.
    """

    def __init__(self, total=None, enabled=True, stream=None, log_every=None):
        self.stream = stream or sys.stderr
        self.wanted = bool(enabled)
        self.log_every = log_every
        self.enabled = self.lines = False
        self.total, self.done, self.started = 0, 0, time.monotonic()
        self._bar = None
        if total is not None:
            self._start(total)

    def _start(self, total):
        terminal = getattr(self.stream, "isatty", lambda: False)()
        self.total = total
        self.enabled = self.wanted and total > 0 and terminal
        self.lines = self.wanted and total > 0 and not terminal and bool(self.log_every)
        self._bar = tqdm(total=total, file=self.stream, disable=not self.enabled, unit="notebook",
                         dynamic_ncols=True, leave=True)

    def __call__(self, done, total, label=""):
        """The library's ``on_progress(done, total, label)``: the bar is drawn at ``done`` of ``total``."""
        if self._bar is None:
            self._start(total)
        self.advance(done - self.done, label)

    def advance(self, steps=1, label=""):
        """Count ``steps`` more done; ``label`` names the last one (e.g. ``alice/ps1``), or with
        no step says what is under way."""
        before, self.done = self.done, self.done + steps
        if label:
            self._bar.set_postfix_str(label, refresh=False)
        self._bar.update(steps)
        if not self.lines:
            return
        elapsed = f"{time.monotonic() - self.started:.0f} s"
        if not steps and label:
            self._line(f"{self.done}/{self.total} notebooks graded, {elapsed}: {label}")
        elif steps and (self.done // self.log_every > before // self.log_every or self.done == self.total):
            self._line(f"{self.done}/{self.total} notebooks graded, {elapsed}" + (f" (last: {label})" if label else ""))

    def _line(self, text):
        print(f"      {text}", file=self.stream, flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
