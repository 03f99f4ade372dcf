"""What ``python -m nbkit check`` found: one line per check, and the verdict.

Each check ends in a :class:`Finding`: ``OK``, ``WARNING`` (the notebook
grades, but something will cost points or be flagged) or ``PROBLEM`` (the
notebook will not grade as you expect), with what to do about it.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap

OK = "OK"
WARNING = "WARNING"
PROBLEM = "PROBLEM"
SKIPPED = "SKIPPED"
LEVELS = (OK, WARNING, PROBLEM, SKIPPED)
# What a notebook (its file name, cell sources, outputs, error messages) could use to control the terminal:
# escape sequences (ANSI CSI/OSC: colours, cursor moves, window titles, hyperlinks), other C0/C1 control
# characters and the bidirectional overrides that reorder what is shown.
_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text) -> str:
    """``text`` with every terminal control sequence and control character removed (newlines and tabs kept)."""
    return _CONTROL.sub("", _ESCAPE.sub("", str(text)))


@dataclasses.dataclass
class Finding:
    """The outcome of one check.

    Parameters
    ----------
    level : str
        ``OK``, ``WARNING``, ``PROBLEM`` or ``SKIPPED`` (not checked because
        an earlier check failed).
    check : str
        The check's name, e.g. ``"readable"``.
    message : str
        What was found, in one or two sentences.
    details : list of str
        One line per cell concerned, if any.
    advice : str
        What to do (empty when nothing is to be done).
    """

    level: str
    check: str
    message: str
    details: list = dataclasses.field(default_factory=list)
    advice: str = ""

    def __post_init__(self):
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {self.level!r}")


@dataclasses.dataclass
class Report:
    """All findings for one notebook, in the order the checks ran."""

    notebook: str
    findings: list = dataclasses.field(default_factory=list)

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        return finding

    @property
    def problems(self) -> list:
        return [f for f in self.findings if f.level == PROBLEM]

    @property
    def warnings(self) -> list:
        return [f for f in self.findings if f.level == WARNING]

    @property
    def will_grade(self) -> bool:
        """True when every check passed (nothing needs attention)."""
        return all(f.level == OK for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 when the notebook will grade as it is, 1 when something needs attention."""
        return 0 if self.will_grade else 1

    def format(self, width: int = 88) -> str:
        """The report as text for a terminal."""
        # Everything shown may hold text of the notebook's (names, outputs, errors): printed without controls.
        lines = [f"Checking {printable(self.notebook)} (a copy: your file is not changed)", ""]
        indent = " " * 10
        for finding in self.findings:
            head = printable(f"{finding.level:<9} {finding.check}: {finding.message}")
            lines += textwrap.wrap(head, width, subsequent_indent=indent)
            for detail in finding.details:
                lines += textwrap.wrap(printable(detail), width, initial_indent=indent + "- ",
                                       subsequent_indent=indent + "  ")
            if finding.advice:
                lines += textwrap.wrap(printable("What to do: " + finding.advice), width,
                                       initial_indent=indent, subsequent_indent=indent)
        lines.append("")
        if self.will_grade:
            lines.append("Result: this notebook will grade. Submit it as it is.")
        else:
            counts = [f"{len(found)} {name}{'s' if len(found) != 1 else ''}"
                      for found, name in ((self.problems, "problem"), (self.warnings, "warning")) if found]
            lines += textwrap.wrap(f"Result: needs attention ({', '.join(counts) or 'checks skipped'}). "
                                   "Fix what is listed above, save the notebook and run the check again.", width)
        return "\n".join(lines) + "\n"
