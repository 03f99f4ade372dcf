"""Text helpers every part of the grader shares: points, safe text, errors, plain tables."""

from __future__ import annotations

# The policy of every page nbg writes (the report, the feedback pages): it runs no script and loads
# nothing, so markup a student slipped into a page stays inert (styles are inline, images data: URIs).
CONTENT_SECURITY_POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                           "font-src data:; form-action 'none'; base-uri 'none'")
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'


def format_points(value) -> str:
    """Write a score without float noise: ``3.0 -> '3'``, ``2.5 -> '2.5'``, ``None -> ''``.

    Examples
    --------
    >>> format_points(3.0), format_points(2.5), format_points(None), format_points(1 / 3)
    ('3', '2.5', '', '0.333333')
    """
    if value is None:
        return ""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    return f"{value:.6g}"


def clean_text(text: str) -> str:
    """Text from a kernel or a submission, safe to store: no lone surrogates, no NULs."""
    return str(text).encode("utf-8", "replace").decode("utf-8").replace("\x00", "")



def describe_error(error: BaseException, limit: int = 2000) -> str:
    """``"TypeError: message"``, made safe to store and cut to ``limit`` characters."""
    return clean_text(f"{type(error).__name__}: {error}")[:limit]


def text_table(header, rows) -> list:
    """Lines of a plain-text table, columns left-aligned and two spaces apart.

    Examples
    --------
    >>> print("\\n".join(text_table(("name", "score"), [("ada", "3"), ("grace", "10")])))
    name   score
    ada    3
    grace  10
    """
    rows = [tuple(str(x) for x in row) for row in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    return ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in [tuple(header), *rows]]
