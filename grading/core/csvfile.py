"""Every CSV ``nbg`` writes, made safe to open in a spreadsheet (OWASP "CSV injection").

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return before one) as a formula, and student ids, names, LMS roster fields, cell ids
and mistake words can come from outside. Following the OWASP guidance, a text cell that starts
with one of these characters gets a single quote in front (``=cmd|...`` is written
``'=cmd|...``), a text cell holding a separator (``,`` or ``;``, which some locales use), a tab, a quote or
a line break is quoted, and a ``'`` goes after a ``;`` that a formula follows (``ok;=1+1`` is
written ``ok;'=1+1``: a spreadsheet that splits on ``;`` ignores the quotes and would start a
cell there). A
*number* (``-1.5``, ``3``, ``1e-07``) is left as it is, so an LMS still imports a negative
score as a number: it is only ever a number, never a formula.

:func:`write_csv` is the one writer of the grader's CSV files; :func:`unquote_cell` undoes
:func:`spreadsheet_cell` with ``reversible=True`` for a file ``nbg`` reads back
(``overrules.csv``).
"""

from __future__ import annotations

import re
from pathlib import Path

# Characters a spreadsheet reads as the start of a formula (OWASP), with the blanks that some
# programs skip before one.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_NEEDS_QUOTES = (",", ";", '"', "\t", "\r", "\n")
_FORMULA_AFTER_SEMICOLON = re.compile(r";(?=\s*[-=+@])")
_QUOTE_AFTER_SEMICOLON = re.compile(r";(?=')")


def is_plain_number(text: str) -> bool:
    """``-1.5``, ``3``, ``2.5e-07``: text a spreadsheet reads as a number and nothing else."""
    return bool(_NUMBER.fullmatch(text))


def spreadsheet_cell(value, reversible: bool = False) -> str:
    """``value`` as the text of a CSV cell no spreadsheet runs as a formula.

    ``reversible`` also prefixes a text that already starts with a single quote, so that
    :func:`unquote_cell` gives back exactly ``value``.

    Examples
    --------
    >>> [spreadsheet_cell(v) for v in ("=1+1", "-1.5", "@SUM(A1)", "ada", 3, None, "-x")]
    ["'=1+1", '-1.5', "'@SUM(A1)", 'ada', '3', '', "'-x"]
    """
    text = "" if value is None else str(value)
    if is_plain_number(text):
        return text
    if reversible:
        text = _QUOTE_AFTER_SEMICOLON.sub(";'", text)
    text = _FORMULA_AFTER_SEMICOLON.sub(";'", text)
    starts_formula = text[:1] in FORMULA_STARTS or text.lstrip()[:1] in FORMULA_STARTS
    if starts_formula or (reversible and text.startswith("'")):
        return "'" + text
    return text


def unquote_cell(text: str) -> str:
    """The value :func:`spreadsheet_cell` wrote with ``reversible=True``."""
    text = text[1:] if text.startswith("'") else text
    return text.replace(";'", ";")


def csv_line(row, reversible: bool = False, lineterminator: str = "\r\n") -> str:
    """One CSV line: each cell made safe by :func:`spreadsheet_cell`, quoted when it holds a
    separator, a quote, a tab or a line break."""
    cells = []
    for value in row:
        text = spreadsheet_cell(value, reversible)
        if any(c in text for c in _NEEDS_QUOTES):
            text = '"' + text.replace('"', '""') + '"'
        cells.append(text)
    return ",".join(cells) + lineterminator


def csv_text(rows, reversible: bool = False, lineterminator: str = "\r\n") -> str:
    return "".join(csv_line(row, reversible, lineterminator) for row in rows)


def write_csv(path, rows, reversible: bool = False, lineterminator: str = "\r\n") -> Path:
    """Write ``rows`` (lists of cells) to ``path`` as UTF-8 CSV, every cell made safe."""
    path = Path(path)
    path.write_text(csv_text(rows, reversible, lineterminator), encoding="utf-8", newline="")
    return path
