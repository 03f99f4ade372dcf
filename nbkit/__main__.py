"""The student kit's command line: ``python -m nbkit check NOTEBOOK``.

Exit codes: 0 the notebook will grade, 1 something needs attention, 2 the
command was used wrongly (unknown command, no such file, a bad option).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


def parser() -> argparse.ArgumentParser:
    from nbkit.check import CELL_TIMEOUT, NOTEBOOK_TIMEOUT

    main = argparse.ArgumentParser(prog="python -m nbkit", description="The naive Bayes course's student kit.")
    commands = main.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    check = commands.add_parser(
        "check", help="check that a notebook will grade, before you submit it",
        description="Check that a notebook will grade before you submit it: readable, the grader's cells "
                    "present and unedited, runs from the top in a fresh kernel within the grader's time "
                    "limits, visible tests pass, every graded function follows the notebook's rule on "
                    "libraries (the grader's own check). This RUNS THE NOTEBOOK'S CODE on your computer, "
                    "as Jupyter would (a copy, in a fresh kernel; your file is not changed): check only "
                    "notebooks you would run yourself, not one someone sent you; --no-run checks without "
                    "running it. Nothing the notebook prints can control your terminal (control "
                    "characters are removed). Exit code 0: it will grade; 1: something needs attention; "
                    "2: wrong usage.")
    check.add_argument("notebook", help="the .ipynb file you will submit")
    check.add_argument("--timeout", type=_seconds, default=CELL_TIMEOUT, metavar="SECONDS",
                       help=f"seconds one cell may run (default: the grader's, {CELL_TIMEOUT})")
    check.add_argument("--total-timeout", type=_seconds, default=NOTEBOOK_TIMEOUT, metavar="SECONDS",
                       help=f"seconds the whole notebook may run (default: the grader's, {NOTEBOOK_TIMEOUT})")
    check.add_argument("--no-run", action="store_true",
                       help="only check the file, do not run it (quick, but not a full check)")
    check.add_argument("--server", metavar="URL", help="your course's practice service: runs the hidden tests and "
                       "names known mistakes (not counted; nbkit.practice)")
    check.add_argument("--token", metavar="TOKEN", help="your token for --server (from your instructor)")
    check.add_argument("--assignment", metavar="ID", help="with --server: the assignment (default: the file's name)")
    check.add_argument("--function", action="append", default=[], metavar="NAME",
                       help="with --server: check only this graded function (repeatable)")
    return main


def main(argv=None) -> int:
    from nbkit.check.findings import printable

    arguments = parser().parse_args(argv)
    path = Path(arguments.notebook)
    if not path.exists():
        print(f"python -m nbkit check: {printable(path)} does not exist: give the path of your notebook "
              "(e.g. 03_multinomial_nb.ipynb in the assignment's folder)", file=sys.stderr)
        return 2
    if not path.is_file():
        print(f"python -m nbkit check: {printable(path)} is not a file: give the path of the .ipynb file itself",
              file=sys.stderr)
        return 2
    if path.suffix != ".ipynb":
        print(f"python -m nbkit check: {printable(path.name)} is not a notebook (.ipynb): give the notebook you will "
              "submit", file=sys.stderr)
        return 2
    if arguments.server or arguments.token:
        from nbkit.practice import main as practice

        return practice(path, arguments.server, arguments.token, arguments.assignment, arguments.function)
    from nbkit.check import check_notebook

    report = check_notebook(path, cell_timeout=arguments.timeout, notebook_timeout=arguments.total_timeout,
                            run=not arguments.no_run, progress=lambda line: print(printable(line), flush=True))
    print(report.format(), end="")
    from nbkit.practice import NOT_RUN

    print(NOT_RUN)
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
