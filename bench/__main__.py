"""``python -m bench``: run the benchmarks and write ``BENCHMARKS.md``.

Examples
--------
``python -m bench``                          everything (~25 min on 2 idle cores)
``python -m bench --only nbcore``            one section; the report keeps the others
``python -m bench --only cluster --submissions 10``  the local pool against a local Dask cluster
``python -m bench --only nbcore --models GaussianNB``
``python -m bench --smoke --out /tmp/b.md``  a tiny run of everything (checks the code, not speed)
``python -m bench --report-only``            rewrite BENCHMARKS.md from bench/figures/results.json
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bench import report
from bench.timing import machine_info

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "BENCHMARKS.md"
DEFAULT_FIGURES = REPO_ROOT / "bench" / "figures"
RESULTS_FILENAME = "results.json"

# Tiny sizes for --smoke: every code path, a few seconds of work.
SMOKE = {"size_factor": 0.002, "repeats": 1, "warmup": 0, "n_submissions": 2}


def build_parser() -> argparse.ArgumentParser:
    from bench.nbcore_vs_sklearn import MODELS

    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=report.SECTIONS, metavar="SECTION",
                        help=f"run only this section (repeatable): {', '.join(report.SECTIONS)}")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes, one repeat, 2 submissions: checks that everything runs")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the Markdown report to write (default: BENCHMARKS.md at the repository root)")
    parser.add_argument("--figures", type=Path, default=None,
                        help="folder for the PNG figures and results.json (default: bench/figures for "
                             "the default --out, else a 'figures' folder next to --out)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS, metavar="MODEL",
                        help="nbcore section: which models (default: all four)")
    parser.add_argument("--size-factor", type=float, default=1.0,
                        help="nbcore section: multiply every data size (default 1: the issue's sizes at 8x)")
    parser.add_argument("--repeats", type=int, default=5, help="nbcore section: timed runs per figure (median)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="nbcore section: BLAS threads during the comparison (default 1; 0: the "
                             "libraries' default). See BENCHMARKS.md for why")
    parser.add_argument("--submissions", type=int, default=None,
                        help="grading and cluster sections: number of submissions (default 40)")
    parser.add_argument("--assignment", default=None, help="grading and cluster sections: which assignment (default 01_bayes_mle_map)")
    parser.add_argument("--workers", type=int, default=None,
                        help="grading and cluster sections: parallel workers of nbg autograde, and the "
                             "Dask cluster's size (default: the number of cores)")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: rewrite the report from the stored results.json")
    parser.add_argument("--keep", action="store_true",
                        help="grading section: keep the scratch course copies (their path is printed)")
    return parser


def _figures_folder(args) -> Path:
    if args.figures is not None:
        return args.figures
    if args.out.resolve() == DEFAULT_OUT:
        return DEFAULT_FIGURES
    return args.out.resolve().parent / "figures"


def run_section(name, args, echo=print) -> dict:
    """Run one section with the command-line options; returns its JSON-able results."""
    smoke = args.smoke
    if name == "nbcore":
        from bench import nbcore_vs_sklearn

        return nbcore_vs_sklearn.run(
            models=args.models,
            size_factor=SMOKE["size_factor"] if smoke else args.size_factor,
            repeats=SMOKE["repeats"] if smoke else args.repeats,
            warmup=SMOKE["warmup"] if smoke else 1,
            blas_threads=args.blas_threads or None,
            echo=echo,
        )
    if name == "course":
        from bench import course_run

        if smoke:  # one tiny notebook stands in for the course: kernel start and nbclient only
            return course_run.run_smoke(echo=echo)
        return course_run.run(echo=echo)
    if name == "startup":
        from bench import cli_startup

        return cli_startup.run(repeats=2 if smoke else 10, echo=echo)
    if name == "diagnosis":
        from bench import diagnosis_run

        return diagnosis_run.run(smoke=smoke, echo=echo)
    if name == "practice":
        from bench import practice_run

        return practice_run.run(smoke=smoke, echo=echo)
    from bench import grading_run

    if name == "cluster":
        from bench import cluster_run

        return cluster_run.run(assignment=args.assignment or grading_run.ASSIGNMENT,
                               n_submissions=args.submissions or (SMOKE["n_submissions"] if smoke
                                                                  else grading_run.N_SUBMISSIONS),
                               workers=args.workers, smoke=smoke, echo=echo)
    n_submissions = args.submissions or (SMOKE["n_submissions"] if smoke else grading_run.N_SUBMISSIONS)
    return grading_run.run(assignment=args.assignment or grading_run.ASSIGNMENT,
                           n_submissions=n_submissions, workers=args.workers, smoke=smoke,
                           keep=args.keep, echo=echo)


def main(argv=None, echo=print) -> int:
    args = build_parser().parse_args(argv)
    if args.repeats < 1 or (args.submissions is not None and args.submissions < 1):
        print("python -m bench: --repeats and --submissions must be at least 1", file=sys.stderr)
        return 2
    if args.smoke and args.out.resolve() == DEFAULT_OUT:
        print("python -m bench: a --smoke run needs --out (its figures are meaningless; "
              "it must not replace BENCHMARKS.md)", file=sys.stderr)
        return 2
    os.environ.setdefault("MPLBACKEND", "Agg")
    figures = _figures_folder(args)
    results_path = figures / RESULTS_FILENAME
    results = report.load_results(results_path)
    if args.report_only and not results:
        print(f"python -m bench: --report-only needs stored results, and {results_path} does not exist: "
              "run the benchmarks first", file=sys.stderr)
        return 2
    for name in [] if args.report_only else args.only or report.SECTIONS:
        machine = machine_info()  # the load average before the section ran
        data = run_section(name, args, echo=echo)
        results[name] = {"data": data, "machine": machine, "smoke": args.smoke}
        report.save_results(results_path, results)
    # From the stored file, so that --report-only later writes the same report.
    out = report.write_report(report.load_results(results_path), args.out, figures)
    echo(f"wrote {out} and figures in {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
