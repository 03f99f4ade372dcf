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


def test_a_line_every_n_steps_and_at_the_end_when_not_a_terminal():
    stream = io.StringIO()
    bar = ProgressBar(log_every=2, stream=stream)
    bar(0, 5, "timing the honest runs of 2 notebooks")
    for done, label in enumerate(["a/ps1", "b/ps1", "c/ps1", "d/ps1", "e/ps1"], start=1):
        bar(done, 5, label)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert [line.split(",")[0].strip() for line in lines] == ["0/5 notebooks graded", "2/5 notebooks graded",
                                                             "4/5 notebooks graded", "5/5 notebooks graded"]
    assert lines[0].endswith(": timing the honest runs of 2 notebooks")
    assert lines[1].endswith(" s (last: b/ps1)") and lines[3].endswith(" s (last: e/ps1)")


def test_no_lines_on_a_terminal_or_when_disabled():
    for stream, enabled in ((Terminal(), True), (io.StringIO(), False)):
        bar = ProgressBar(2, enabled=enabled, stream=stream, log_every=1)
        bar.advance(2, "alice/ps1")
        bar.close()
        assert "notebooks graded" not in stream.getvalue()
