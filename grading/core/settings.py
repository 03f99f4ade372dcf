"""``c.Nbg``: the grader's own settings in a course's ``nbgrader_config.py``.

A traitlets :class:`~traitlets.config.Configurable`, as nbgrader's own options
are: types are checked when the config is read, and ``nbg autograde --help``
lists every option with its help text. For example::

    c.Nbg.scheduler = "tls://grading.example.org:8786"
    c.Nbg.memory_bytes = 8 * 2**30
"""

from __future__ import annotations

from traitlets import Float, Integer, List, TraitError, Unicode
from traitlets.config import Configurable

from grading.core.errors import NbgError


class Nbg(Configurable):
    """Where notebooks run and the limits each notebook is graded under."""

    scheduler = Unicode(None, allow_none=True, help=(
        "Dask scheduler to execute notebooks on (tcp://host:8786, tls://host:8786); "
        "'local' or unset: the local process pool")).tag(config=True)
    tls_ca_file = Unicode(None, allow_none=True, help="TLS: CA certificate of the Dask cluster").tag(config=True)
    tls_cert = Unicode(None, allow_none=True, help="TLS: this grader's certificate").tag(config=True)
    tls_key = Unicode(None, allow_none=True, help="TLS: this grader's private key").tag(config=True)

    max_output_bytes = Integer(20_000_000, help=(
        "output a notebook may print before its kernel is stopped")).tag(config=True)
    memory_bytes = Integer(4 * 2**30, allow_none=True, help=(
        "address-space limit of a kernel (None: no limit)")).tag(config=True)
    max_processes = Integer(64, allow_none=True, help="processes and threads a kernel may have").tag(config=True)
    cpu_seconds = Integer(600, allow_none=True, help="CPU seconds of a whole kernel").tag(config=True)
    file_bytes = Integer(100_000_000, allow_none=True, help="largest file a kernel may write").tag(config=True)
    notebook_timeout = Float(900, allow_none=True, help=(
        "seconds a whole notebook may run, its cells and its tests")).tag(config=True)
    max_code_cells = Integer(500, allow_none=True, help="code cells of one notebook that are run").tag(config=True)
    tmpfs_bytes = Integer(256 * 2**20, allow_none=True, help=(
        "size of the sandbox's /tmp and /dev/shm each")).tag(config=True)
    max_answer_bytes = Integer(16 * 2**20, help=(
        "largest answer (bytes) a kernel may send the grader for one call of a student's function")).tag(config=True)
    grader_memory_bytes = Integer(4 * 2**30, allow_none=True, help=(
        "data-segment limit of each grading process (pool worker), never below memory_bytes")).tag(config=True)

    LIMITS = ("max_output_bytes", "memory_bytes", "max_processes", "cpu_seconds", "file_bytes",
              "notebook_timeout", "max_code_cells", "tmpfs_bytes", "max_answer_bytes", "grader_memory_bytes")

    def limits(self) -> dict:
        """The sandbox limits set here, as keyword arguments of ``Limits``."""
        return {name: getattr(self, name) for name in self.LIMITS}

    # The rule on ready-made libraries (grading.autograde.scan.rule); per exercise, the source notebook's
    # metadata["nbg"]["libraries"] adds its own "allow" and "forbid" lists.
    allowed_libraries = List(Unicode(), default_value=[
        "numpy", "scipy", "pandas", "math", "cmath", "statistics", "collections", "itertools", "functools",
        "operator", "re", "string", "unicodedata", "typing", "dataclasses", "fractions", "decimal", "heapq",
        "bisect", "numbers", "warnings", "copy", "nbkit", "sys.stdout", "sys.stderr", "sys.float_info",
        "sys.maxsize"], help=(
        "modules (and dotted attribute paths) graded functions may use; anything else in a graded function "
        "gets its tests 0 points (c.Nbg.allowed_libraries.append('sklearn.metrics') adds one)")).tag(config=True)
    forbidden_libraries = List(Unicode(), default_value=[], help=(
        "modules or dotted names no graded function may use, even under an allowed module "
        "(e.g. 'scipy.special.softmax')")).tag(config=True)
    time_factor = Float(10, help=(
        "a notebook's time budget is this many times the instructor's solutions' run time "
        "(measured once per source notebook), at least time_floor, at most notebook_timeout")).tag(config=True)
    time_floor = Float(60, help="seconds of the smallest time budget of a notebook").tag(config=True)
    review_factor = Float(3, help=(
        "a notebook that finishes but runs this many times longer than the instructor's solutions "
        "is flagged for review, with its slowest cells")).tag(config=True)
    collect_max_bytes = Integer(2_000_000_000, help=(
        "nbg collect: total uncompressed bytes of the notebooks read from one download (the zip's declared "
        "sizes, and the bytes actually decompressed); a download over it is refused whole")).tag(config=True)
    collect_max_file_bytes = Integer(50_000_000, help=(
        "nbg collect: largest notebook read from a download (uncompressed); a larger file is rejected by "
        "name")).tag(config=True)
    test_secret = Unicode(None, allow_none=True, help=(
        "the secret the hidden tests' per-student seeds are derived from (unset: <course>/.nbg/test_secret, "
        "created on first autograde)")).tag(config=True)


def read_settings(config) -> Nbg:
    """``c.Nbg`` of a traitlets config; a wrong type is an :class:`NbgError` naming the option."""
    try:
        return Nbg(config=config)
    except TraitError as error:
        raise NbgError(f"c.Nbg in nbgrader_config.py: {error}") from None


def settings_help() -> str:
    """The options of ``c.Nbg`` with their defaults, for ``--help``."""
    lines = ["settings in the course's nbgrader_config.py (c.Nbg.<name> = value):"]
    for name, trait in sorted(Nbg.class_traits(config=True).items()):
        lines.append(f"  {name} (default {trait.default_value!r}): {trait.help}")
    return "\n".join(lines)
