"""``nbg feedback``: one HTML page per student and notebook, without the hidden tests.

nbgrader's own ``generate_feedback`` renders the *autograded* notebook, whose
test cells were restored from the gradebook with their hidden tests, so the
page shows the hidden tests' code and the tracebacks quote it (nbgrader
issue #917). Here the same converter (:class:`nbgrader.converters.GenerateFeedback`,
same template, same scores, same late-penalty line) runs with two more
preprocessors:

:class:`HideHiddenTests`
    puts back the *release* version of every cell that holds a hidden-test
    region (the code between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN
    TESTS`` is removed, exactly as ``generate_assignment`` removes it), and
    cleans the outputs: a traceback keeps its last line (e.g.
    ``AssertionError: mean([5.0]) should be 5.0``) and the frames of the
    student's own code, but no frame that quotes a hidden test; a hidden-test
    cell keeps only its text and error outputs.
:class:`GradingNotice`
    adds a note at the top when grading did not go normally (the kernel died
    in a given cell, a cell timed out, ...), read from ``grading_log.jsonl``.

:class:`~grading.feedback.inert.InertStudentContent`
    makes the student's markdown and every output inert (no HTML, script or SVG from the
    notebook reaches the page), and the page carries a Content Security Policy that runs no
    script (:mod:`grading.feedback.inert`).

A notebook that could not be read (truncated JSON) or was missing has no
autograded copy to render: it gets a page of its own saying why it scored 0
and what to do (:mod:`grading.feedback.unreadable`).

The hidden lines are taken from the gradebook's copy of the source notebook,
not only from the autograded notebook, so a student who deleted or renamed a
test cell cannot make them slip through.
"""

from __future__ import annotations

import copy
import logging
import re
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_markdown_cell
from traitlets import Bool, Unicode

from grading.core.cells import split_hidden_region
from grading.core.records import Status, latest_records, read_grading_log

# IPython names a notebook cell "Cell In[7], line 3" (older: "<ipython-input-7-...>").
_LOG = logging.getLogger(__name__)
# nbgrader logs every file it removes or writes at INFO/WARNING; keep only errors.
_LOG.setLevel(logging.ERROR)
_CELL_FRAME = re.compile(r"(?:\bIn ?\[(\d+)\]|ipython-input-(\d+)-)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# A hidden line shorter than this ("else:", ")") says nothing about the test and
# appears in any traceback, so only longer ones are looked for in outputs.
MIN_SECRET_LINE_LENGTH = 6
HIDDEN_FRAME_PLACEHOLDER = "(a frame of the hidden tests is not shown)"


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes.

    Examples
    --------
    >>> strip_ansi("\\x1b[31mAssertionError\\x1b[39m: no")
    'AssertionError: no'
    """
    return _ANSI.sub("", text)


def secret_lines(hidden_lines, public_text="") -> set:
    """The hidden lines worth looking for in outputs.

    A line is kept when, stripped, it is at least
    :data:`MIN_SECRET_LINE_LENGTH` characters long and does not also appear
    anywhere in ``public_text`` (the release notebook, the student's code):
    what the student already sees is no secret.
    """
    stripped = {line.strip() for line in hidden_lines}
    return {
        line
        for line in stripped
        if len(line) >= MIN_SECRET_LINE_LENGTH and line not in public_text
    }


def clean_traceback(traceback, secrets, hidden_counts):
    """Drop the frames of a traceback that show hidden-test code.

    Parameters
    ----------
    traceback : list of str
        IPython's traceback entries (header, frames, last line ``Error: msg``).
    secrets : set of str
        Hidden lines (see :func:`secret_lines`).
    hidden_counts : set of int
        Execution counts of the cells that held hidden tests.

    Returns
    -------
    list of str
    """
    cleaned = []
    last = len(traceback) - 1
    for index, entry in enumerate(traceback):
        plain = strip_ansi(entry)
        if index == last:
            # "AssertionError: <message>" is the student-facing part; drop it
            # only in the unlikely case the message repeats a hidden line.
            cleaned.append(entry if not _quotes(plain, secrets) else HIDDEN_FRAME_PLACEHOLDER)
            continue
        match = _CELL_FRAME.search(plain)
        count = match and int(match.group(1) or match.group(2))
        if count in hidden_counts or _quotes(plain, secrets):
            if not cleaned or cleaned[-1] != HIDDEN_FRAME_PLACEHOLDER:
                cleaned.append(HIDDEN_FRAME_PLACEHOLDER)
        else:
            cleaned.append(entry)
    return cleaned


def _quotes(text, secrets) -> bool:
    return any(secret in text for secret in secrets)


def _clean_text(text, secrets) -> str:
    return "\n".join(
        line for line in text.split("\n") if not _quotes(strip_ansi(line), secrets)
    )


def _name_test_cell(cell, hidden: bool):
    """``nbg_title``, what the page calls a test cell: the function its docstring names, and
    whether the test is visible or hidden ("posterior: hidden test"), and for a function's hidden
    cells split by what they check (grade ids ending ``_core``, ``_edges``, ``_inputs``), which."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return
    match = re.match(r'\s*[rubRUB]?("""|\'\'\')\s*([A-Za-z_][\w.]*)\s*:', cell.source or "")
    name = match.group(2) if match else str(meta.get("grade_id", "test"))
    part = re.search(r"_(core|edges|inputs)$", str(meta.get("grade_id", "")))
    what = {"core": "hidden test of the core computation", "edges": "hidden test of the edge cases",
            "inputs": "hidden test of the input kinds and output types"}.get(part.group(1)) if part else None
    cell.metadata["nbg_title"] = f"{name}: {what or ('hidden test' if hidden else 'visible test')}"


class HideHiddenTests(Preprocessor):
    """Show the release version of hidden-test cells and scrub their traces from outputs."""

    # nbconvert preprocessors are off unless enabled; nbgrader registers classes.
    enabled = Bool(True).tag(config=True)
    begin_delimiter = Unicode("BEGIN HIDDEN TESTS").tag(config=True)
    end_delimiter = Unicode("END HIDDEN TESTS").tag(config=True)

    def preprocess(self, nb, resources):
        hidden = list(self._gradebook_hidden_lines(resources))
        hidden_counts = set()
        for cell in nb.cells:
            release_source, cell_hidden = split_hidden_region(
                cell.source, self.begin_delimiter, self.end_delimiter
            )
            _name_test_cell(cell, bool(cell_hidden))
            if cell_hidden:
                hidden.extend(cell_hidden)
                cell.source = release_source
                if cell.get("execution_count") is not None:
                    hidden_counts.add(cell.execution_count)
                if cell.cell_type == "code":
                    # A hidden test's displayed values can reveal it: keep text and errors.
                    cell.outputs = [
                        out for out in cell.outputs if out.output_type in ("stream", "error")
                    ]
        public = "\n".join(cell.source for cell in nb.cells)
        secrets = secret_lines(hidden, public)
        for cell in nb.cells:
            if cell.cell_type == "code":
                self._clean_outputs(cell, secrets, hidden_counts)
        return nb, resources

    def _clean_outputs(self, cell, secrets, hidden_counts):
        for output in cell.outputs:
            if output.output_type == "error":
                output.traceback = clean_traceback(output.traceback, secrets, hidden_counts)
                output.evalue = _clean_text(output.evalue, secrets)
            elif output.output_type == "stream":
                output.text = _clean_text(output.text, secrets)
            else:
                for mime, value in list(output.get("data", {}).items()):
                    if isinstance(value, str) and _quotes(value, secrets):
                        del output.data[mime]

    def _gradebook_hidden_lines(self, resources):
        info = resources.get("nbgrader", {})
        if not info.get("db_url"):
            return
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(info["db_url"]) as gradebook:
            try:
                notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                return
            for source_cell in notebook.source_cells:
                _, hidden = split_hidden_region(
                    source_cell.source or "", self.begin_delimiter, self.end_delimiter
                )
                yield from hidden


_CONSEQUENCES = {
    "kernel_died": "The cells that ran before it kept their scores; the later cells "
    "could not run and scored 0.",
    "timeout": "That cell was interrupted and the rest of the notebook ran on; "
    "whatever depended on it scored 0.",
}


_STOPPED = "The notebook was stopped there: the cells after it were not run and scored 0."


def _current_records(path) -> dict:
    """The newest record per notebook of the log at ``path``, read once while the file is unchanged
    (feedback asks once per notebook: reading the whole log each time is quadratic in the class)."""
    try:
        info = Path(path).stat()
        stamp = (str(path), info.st_mtime_ns, info.st_size)
    except OSError:
        return {}
    if _LOG_CACHE.get("stamp") != stamp:
        _LOG_CACHE.update(stamp=stamp, records=latest_records(read_grading_log(path)))
    return _LOG_CACHE["records"]


_LOG_CACHE = {}


_INSTRUCTOR_ONLY = re.compile(r"(timed out|its kernel died) while other notebooks ran on the same machine|graded again alone")


def for_the_student(reason: str) -> str:
    """A grading log's reason without the parts written for the instructor (the grader's load,
    how many notebooks overlapped, that it was graded again alone: the report keeps those)."""
    parts = [part for part in str(reason).split("; ") if not _INSTRUCTOR_ONLY.match(part)]
    return "; ".join(parts) or "grading did not go normally"


class GradingNotice(Preprocessor):
    """Put a note at the top of the feedback when grading did not go normally."""

    enabled = Bool(True).tag(config=True)
    grading_log_path = Unicode("").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        key = (info.get("student"), info.get("assignment"), info.get("notebook"))
        record = _current_records(self.grading_log_path).get(key) if self.grading_log_path else None
        if record and record.get("status", Status.OK) != Status.OK:
            reason = for_the_student(record.get("reason") or record["status"])
            if record.get("graded_alone"):
                reason += ". It was run a second time, with nothing else running, and that result counts"
            consequence = _CONSEQUENCES.get(record["status"], "")
            if record["status"] == "timeout" and " in total" in reason:  # the notebook's limit or time budget
                consequence = _STOPPED
            nb.cells.insert(
                0, new_markdown_cell(f"**Grading note ({record['status']}):** {reason}\n\n{consequence}")
            )
        return nb, resources


class LibraryNotice(Preprocessor):
    """Say, at the top of the feedback, what the rule on ready-made libraries found in the student's
    graded functions (``nbg_library`` in the autograded notebook's metadata, written by the grading
    process), the rule itself, and that the instructor can overrule a finding (or did)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        entries = nb.metadata.get("nbg_library") or []
        if entries:
            nb.cells.insert(0, new_markdown_cell(library_notice(entries)))
        return nb, resources


def library_notice(entries) -> str:
    """The feedback's words for the library rule's findings (markdown, every value escaped)."""
    from html import escape

    from grading.core.overrules import RULE_TEXT

    rule = escape(RULE_TEXT)  # markdown, as the notebooks show it
    lines = ["**The rule on ready-made libraries.** " + rule, ""]
    for entry in entries:
        function, tests = escape(str(entry.get("function"))), escape(", ".join(map(str, entry.get("tests", []))))
        found = "; ".join(f"{escape(str(f.get('what')))} ({escape(str(f.get('cell')))})"
                          for f in entry.get("findings", []))
        if entry.get("overruled"):
            lines.append(f"- `{function}`: the grader found that it {found}. Your instructor overruled this finding "
                         f"({escape(str(entry['overruled']))}), so its tests ({tests}) count as graded.")
        else:
            lines.append(f"- `{function}`: the grader found that it {found}. So its test cells ({tests}) get "
                         "0 points. If you think this is wrong, ask your instructor, who can overrule the finding.")
    return "\n".join(lines)


_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$")
_MATHML_TAG = re.compile(r'</?(math|m[a-z]+|semantics|annotation)( (xmlns|display|stretchy|fence|separator|'
                         r'lspace|rspace|mathvariant|columnalign|columnlines|columnspacing|rowspacing|'
                         r'linethickness|accent|accentunder|minsize|maxsize|movablelimits|symmetric|width|'
                         r'height|depth|largeop|form|notation|encoding|displaystyle|scriptlevel|mathsize|mathcolor|'
                         r'mathbackground|open|close|frame|rowlines|rowalign)="[^"<>]*")*\s*/?>')
MATHJAX_CDN = re.compile(r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]*">\s*</script>')


def _mathml(latex: str, display: bool) -> str:
    """LaTeX as MathML, which browsers draw without a script or a network; the LaTeX itself when
    the converter does not know it."""
    from latex2mathml.converter import convert

    written = f"${'$' if display else ''}{latex}{'$' if display else ''}$"
    # Left as LaTeX between dollars, which nbconvert's markdown escapes as text.
    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception:
        return written
    if re.search(r"<m[ion]>\\", mathml):  # an unknown command: as written
        return written
    # \text{<script>} is copied into <mtext> as it is, \href into an attribute: only MathML's own
    # elements and attributes may reach the page.
    tags_ok = all(_MATHML_TAG.fullmatch(tag) for tag in re.findall(r"<[^>]*>", mathml))
    return mathml if tags_ok else written


class MathWithoutNetwork(Preprocessor):
    """The markdown cells' maths as MathML (nbconvert's MathJax comes from a CDN, so offline the
    page showed raw LaTeX)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if cell.cell_type == "markdown" and "$" in cell.source:
                text = _DISPLAY_MATH.sub(lambda m: _mathml(m.group(1), True), cell.source)
                cell.source = _INLINE_MATH.sub(lambda m: _mathml(m.group(1), False), text)
        return nb, resources


def feedback_preprocessors() -> list:
    """nbgrader's ``GenerateFeedback`` preprocessors with the hidden tests removed.

    ``nbg feedback`` runs these, and the course's ``nbgrader_config.py`` sets
    ``c.GenerateFeedback.preprocessors`` to them, so that stock ``nbgrader
    generate_feedback`` and the formgrader's "Generate Feedback" button are
    safe too.
    """
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    from grading.feedback.inert import InertStudentContent

    # InertStudentContent after the notices (a reason may quote the student's error message),
    # before the maths becomes MathML (whose tags it would otherwise show as text).
    return [GetGrades, HideHiddenTests, LibraryNotice, GradingNotice, InertStudentContent, MathWithoutNetwork,
            CSSHTMLHeaderPreprocessor]


def feedback_template() -> dict:
    """The ``HTMLExporter`` settings of the feedback page: nbgrader's page with each test cell named
    by what it tests and the Content Security Policy first in ``<head>`` (templates/nbg_feedback).

    The course's ``nbgrader_config.py`` sets them under ``c.GenerateFeedback.HTMLExporter`` (the
    exporter of stock ``nbgrader generate_feedback`` and of the formgrader's "Generate Feedback"
    button), not under ``c.HTMLExporter``, which the formgrader's own submission view also reads.
    """
    import nbgrader

    nbgrader_templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    return {
        # The feedback runs the inert step among its own preprocessors, in their order: not also the
        # one the course config gives the formgrader's exporter (c.HTMLExporter.preprocessors).
        "preprocessors": [],
        "template_name": "nbg_feedback",
        "template_file": "nbg_index.html.j2",  # it extends nbgrader's index.html.j2
        "extra_template_basedirs": [str(Path(__file__).parent / "templates"), str(nbgrader_templates)],
    }


def _feedback_config(course):
    from traitlets.config import Config

    config = Config()
    config.merge(copy.deepcopy(course.config))  # merge shares sections: the settings below would change the course's
    config.GenerateFeedback.preprocessors = feedback_preprocessors()
    config.GradingNotice.grading_log_path = str(course.grading_log_path)
    for name, value in feedback_template().items():
        setattr(config.HTMLExporter, name, value)
    # Follow the course's own hidden-test delimiters if it changed them.
    clear = course.config.get("ClearHiddenTests", {})
    if "begin_test_delimeter" in clear:
        config.HideHiddenTests.begin_delimiter = clear["begin_test_delimeter"]
    if "end_test_delimeter" in clear:
        config.HideHiddenTests.end_delimiter = clear["end_test_delimeter"]
    return config


def autograded_submissions(course, assignments=None, students=None) -> list:
    """(student, assignment) pairs with an ``autograded/`` folder, sorted, filtered."""
    root = course.autograded_root
    if not root.is_dir():
        return []
    pairs = []
    for student_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        if students is not None and student_dir.name not in students:
            continue
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            if assignments is not None and assignment_dir.name not in assignments:
                continue
            if any(assignment_dir.glob("*.ipynb")):
                pairs.append((student_dir.name, assignment_dir.name))
    return pairs


def generate_feedback(course, assignments=None, students=None) -> list:
    """Write HTML feedback for every autograded submission (or the selected ones).

    Parameters
    ----------
    course : grading.Course
    assignments, students : list of str, optional
        Restrict to these assignment / student ids (default: all autograded).

    Returns
    -------
    list of Path
        The HTML files written, ``feedback/<student>/<assignment>/<notebook>.html``.

    Raises
    ------
    RuntimeError
        When nbgrader fails to render a submission (its log says why).
    """
    from grading.feedback.unreadable import write_unreadable_pages

    pairs = autograded_submissions(course, assignments, students)
    if not pairs:
        return write_unreadable_pages(course, assignments, students)
    coursedir = course.coursedir
    coursedir.assignment_id = "*"
    coursedir.student_id = "*"
    # One converter for all submissions: nbconvert compiles its templates once.
    converter = _selected_feedback_class()(
        coursedir=coursedir, config=_feedback_config(course), log=_LOG
    )
    converter.selected = set(pairs)
    converter.force = True  # grades may have changed since the last run
    try:
        converter.start()
    except Exception as error:  # nbgrader raises NbGraderException after logging
        raise RuntimeError(f"nbgrader could not render some feedback: {error}") from error
    for student, assignment in pairs:  # the maths is MathML now: no script from the network
        for page in course.feedback_dir(student, assignment).glob("*.html"):
            text = page.read_text(encoding="utf-8")
            if MATHJAX_CDN.search(text):
                page.write_text(MATHJAX_CDN.sub("", text), encoding="utf-8")
    unread = write_unreadable_pages(course, assignments, students)  # after nbgrader's: they replace stale pages
    return sorted({*unread, *(page for student, assignment in pairs
                              for page in course.feedback_dir(student, assignment).glob("*.html"))})




def _selected_feedback_class():
    from nbgrader.converters import GenerateFeedback

    class SelectedFeedback(GenerateFeedback):
        """nbgrader's GenerateFeedback limited to chosen (student, assignment) pairs."""

        selected = set()

        def init_notebooks(self):
            super().init_notebooks()
            self.assignments = {
                folder: notebooks
                for folder, notebooks in self.assignments.items()
                if tuple(Path(folder).parts[-2:]) in self.selected
            }

    return SelectedFeedback
