"""The autograde progress bar (tqdm behind autograde's ProgressBar interface)."""

import io

from grading.commands._progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_draws_counts_and_labels_on_a_terminal():
    stream = Terminal()
    bar = ProgressBar(3, stream=stream)
    bar.advance(1, "alice/ps1")
    bar.advance(2, "bob/ps1")
    bar.close()
    text = stream.getvalue()
    assert "3/3" in text and "bob/ps1" in text
    assert bar.done == 3


def test_silent_when_not_a_terminal_or_disabled():
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        bar = ProgressBar(2, enabled=enabled, stream=stream)
        bar.advance(2, "alice/ps1")
        bar.close()
        assert stream.getvalue() == ""
