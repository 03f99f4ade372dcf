"""Nothing a student wrote becomes active content in a feedback page.

A feedback page shows the student's own notebook: its markdown and every output its code
produced, and the student's code decides what those hold (``display(HTML("<script>..."))``,
``Javascript(...)``, an SVG with ``onload``, raw HTML in a markdown answer). The instructor and
the student open the page in a browser, so:

- a code cell's outputs keep only what a browser shows without interpreting markup: plain text,
  PNG, JPEG and GIF images (drawn from ``data:`` URIs). HTML, JavaScript, SVG, markdown, LaTeX
  and widget outputs are dropped; an output left with nothing to show keeps the dropped
  markup's *source* as plain text, so the instructor sees what was there;
- a markdown cell's raw HTML is written as text (``<script>`` becomes ``&lt;script>``), outside
  its code spans and maths, which stay as they are (the course's own markdown has no HTML);
- the page carries a Content Security Policy (:data:`grading.core.text.CONTENT_SECURITY_POLICY`,
  also on the report) that forbids every script, frame, plugin, form target and remote load, in case
  anything above were missed.
"""

from __future__ import annotations

import re

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from grading.core.text import CONTENT_SECURITY_POLICY, CSP_META  # noqa: F401 (the page's policy)

# The only representations kept in outputs: none of them is interpreted as markup.
SHOWN_AS_IS = ("text/plain", "image/png", "image/jpeg", "image/gif")
# Fenced code, inline code and maths: left as they are (mistune escapes code; maths becomes MathML).
_PROTECTED = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`|\$\$.+?\$\$|(?<![\\$])\$(?!\$)[^$\n]+?(?<!\\)\$)", re.S)
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def inert_markdown(source: str) -> str:
    """Markdown whose raw HTML is shown as text; code spans and maths unchanged.

    Examples
    --------
    >>> inert_markdown("**a** <script>x()</script> `<b>` $a<b$")
    '**a** &lt;script>x()&lt;/script> `<b>` $a<b$'
    """
    parts = _PROTECTED.split(source)
    # re.split with one group: even indices are ordinary text, odd ones the protected spans.
    return "".join(part if index % 2 else _TAG_START.sub("&lt;", part) for index, part in enumerate(parts))


def inert_outputs(outputs) -> list:
    """The outputs of one code cell with every representation a browser would interpret removed."""
    kept = []
    for output in outputs:
        if output.get("output_type") in ("display_data", "execute_result"):
            data = output.get("data", {})
            shown = {mime: value for mime, value in data.items() if mime in SHOWN_AS_IS}
            if not shown and data:
                mime, value = next(iter(data.items()))
                text = value if isinstance(value, str) else "".join(value) if isinstance(value, list) else str(value)
                shown = {"text/plain": f"[{mime} output, shown as text]\n{text}"}
            if not shown:
                continue
            output["data"] = shown
        kept.append(output)
    return kept


class InertStudentContent(Preprocessor):
    """Make every markdown cell and every output of the feedback's notebook inert (see above)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = inert_outputs(cell.get("outputs", []))
            elif cell.cell_type == "markdown":
                cell.source = inert_markdown(cell.source)
                # An attached SVG or HTML is the student's too: only images drawn as they are stay.
                attachments = cell.get("attachments") or {}
                for name, bundle in list(attachments.items()):
                    kept = {mime: data for mime, data in (bundle or {}).items() if mime in SHOWN_AS_IS}
                    if kept:
                        attachments[name] = kept
                    else:
                        del attachments[name]
            else:  # a raw cell is copied into the page as it is
                cell.source = _TAG_START.sub("&lt;", cell.source)
        return nb, resources
