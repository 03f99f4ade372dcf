"""``nbg demo``: the whole pipeline on a generated demo class, then a summary."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from grading.core.records import Status
from grading.core.text import format_points
from grading.demo import DEFAULT_OUT
from grading.demo.students import DEMO_STUDENTS

if TYPE_CHECKING:
    from grading.demo import DemoResult


def format_score_table(result: DemoResult) -> str:
    """The class's scores as a text table: one row per student, totals last."""
    assignments = sorted(result.max_scores)
    notes = {}
    for record in getattr(result.summary, "records", []):
        if record.status != Status.OK:
            notes.setdefault(record.student, []).append(f"{record.notebook}: {record.status}")
    descriptions = {s.student_id: s.description for s in DEMO_STUDENTS}
    header = ["student", *assignments, "total", "what the student did"]
    rows = []
    for student in sorted(result.scores, key=lambda s: -result.total(s)):
        cells = [format_points(result.scores[student].get(a)) or "-" for a in assignments]
        what = descriptions.get(student, "")
        if notes.get(student):
            what += f" [{'; '.join(notes[student])}]"
        rows.append([student, *cells, format_points(result.total(student)), what])
    rows.append(["(max)", *(format_points(result.max_scores[a]) for a in assignments),
                 format_points(sum(result.max_scores.values())), ""])
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        padded = [str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(padded) + "  " + row[-1])
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def print_summary(result: DemoResult, echo=print) -> None:
    """Print the score table and where every output went."""
    echo("")
    echo(format_score_table(result))
    echo("")
    echo("Max includes the written answers (graded by hand in nbgrader's formgrader),")
    echo("so no student reaches it automatically; late work loses 10% of the points per")
    echo("started day (at most down to 50%); the report explains each penalty and lists")
    echo("similar answers (copier-a and copier-b) for review.")
    echo("")
    echo(f"course root:        {result.course_root}")
    echo(f"student releases:   {', '.join(str(p) for p in result.release_zips)}")
    echo(f"feedback ({len(result.feedback)} files): {result.course_root / 'feedback'}")
    echo(f"grades for the LMS: {result.grades_csv}")
    echo(f"per test cell:      {result.cells_csv}")
    mistakes_csv = result.course_root / "exports" / "mistakes.csv"  # nbg report's, beside the two above
    if mistakes_csv.is_file():
        echo(f"the class's mistakes: {mistakes_csv}")
    echo(f"class report:       {result.report}")
    echo(f"grading log:        {result.course_root / 'grading_log.jsonl'}")
    echo(f"student kernels:    {'sandboxed' if result.sandboxed else 'NOT sandboxed (see the report)'}")
    echo(f"done in {result.seconds:.0f} s")
    echo("")
    for line in what_next(result):
        echo(line)


def what_next(result: DemoResult) -> list:
    """What to look at in the demo, then how to start a course of one's own (docs/instructor.md, "Running a term")."""
    root = result.course_root
    return [
        "What next:",
        f"  look:   open {result.report}; read a feedback page under {root / 'feedback'};",
        f"          nbg --course {root} status   (who needs attention, and why)",
        "  a term of your own (docs/instructor.md, \"Running a term\"), with this checkout's tools on PATH",
        "  (export PATH=\"$PWD/.venv/bin:$PATH\"), in a folder outside the repository:",
        "          mkdir -p ~/teaching/ml101 && cp -r course/source course/mistakes course/nbgrader_config.py ~/teaching/ml101/",
        "          cd ~/teaching/ml101 && nbgrader db assignment add 01_bayes_mle_map --duedate \"2026-10-01 23:59 UTC\"",
        "          nbg release       then put release_zips/*.zip on the LMS",
        "          nbg collect 01_bayes_mle_map ~/Downloads/submissions.zip && nbg autograde && nbg feedback",
        "          nbg export --format canvas --roster <Canvas gradebook export>.csv --roster-id ID",
    ]


def add_arguments(parser) -> None:
    """Options of ``nbg demo``."""
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"folder for the demo course and outputs (default: {DEFAULT_OUT}/)")
    parser.add_argument("--workers", type=int, default=None,
                        help="parallel kernels (default: the number of cores)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade without the sandbox even if the machine has it")


def run(args) -> int:
    """Entry point of ``nbg demo``; returns the exit code (0: the demo ran)."""
    from grading.commands._progress import ProgressBar  # tqdm: only when the demo runs
    from grading.demo import run_demo

    # On a terminal a bar; in a log (make demo > log) a line every 5 notebooks, on stdout with the steps.
    bar = ProgressBar(stream=sys.stdout, log_every=5)
    result = run_demo(args.out, workers=args.workers,
                      sandboxed=False if args.unsafe_no_sandbox else None, echo=print,
                      on_progress=bar)
    bar.close()
    print_summary(result)
    return 0
