"""Fast local check of the mutation cases: substitute each variant in a live kernel.

Usage: ``python -m tests.mutation.check_in_kernel [assignment_id ...]`` (all case files
by default). For each notebook one kernel runs every cell of the source notebook once;
then, for each variant, the variant's source replaces the function, every test cell of
the notebook runs again (a test cell fails when it raises or writes to stderr, as
nbgrader scores it), and the original solution cell is restored. Exit status 1 when a
correct variant fails a test cell, a mutant fails none of its own test cells, a mutant
fails another function's test cell, or a mutant fails a cell its case ``keeps``.
"""

import argparse
import sys
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

from tests.mutation.cases import assignment_ids, load_cases

ROOT = Path(__file__).resolve().parents[2]


def _run(client, code, timeout=120):
    """Execute ``code``; return ``None`` on success, else a one-line reason."""
    stderr = []

    def hook(message):
        if message["msg_type"] == "stream" and message["content"]["name"] == "stderr":
            stderr.append(message["content"]["text"])

    reply = client.execute_interactive(code, output_hook=hook, timeout=timeout, store_history=False)
    content = reply["content"]
    if content["status"] != "ok":
        return f"{content.get('ename')}: {str(content.get('evalue'))[:200]}"
    if stderr:
        return "stderr: " + "".join(stderr).strip().splitlines()[-1][:200]
    return None


def _test_cells(nb):
    return [(cell.metadata["nbgrader"]["grade_id"], cell.source) for cell in nb.cells
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
            and not cell.metadata["nbgrader"].get("solution")]


def _defining_cell(nb, name):
    for cell in nb.cells:
        if (cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
                and f"def {name}(" in cell.source):
            return cell.source
    raise ValueError(f"no solution cell defines {name}()")


def check_assignment(assignment_id):
    """Check every case of one assignment; return (n_checked, problems)."""
    path = ROOT / "course" / "source" / assignment_id / f"{assignment_id}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    cases = load_cases(assignment_id)
    tests = _test_cells(nb)
    owner = {grade_id: name for name, case in cases.items() for grade_id in case["tests"]}
    problems, n_checked = [], 0
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(path.parent))
    try:
        for cell in nb.cells:
            if cell.cell_type == "code":
                failure = _run(client, cell.source)
                if failure:
                    problems.append(f"{assignment_id}: the source notebook fails in {cell.get('id')}: {failure}")
                    return n_checked, problems
        for name, case in cases.items():
            unknown = set(case["tests"]) - {grade_id for grade_id, _ in tests}
            if unknown:
                problems.append(f"{assignment_id}.{name}: unknown test cells {sorted(unknown)}")
            original = _defining_cell(nb, name)
            for kind, variants in [("correct", case["correct"]), ("mutant", case["mutants"])]:
                for label, source in variants.items():
                    n_checked += 1
                    failure = _run(client, source)
                    failed = {} if failure is None else {"<definition>": failure}
                    if failure is None:
                        for grade_id, test_source in tests:
                            reason = _run(client, test_source)
                            if reason:
                                failed[grade_id] = reason
                    restored = _run(client, original)
                    if restored:
                        problems.append(f"{assignment_id}.{name}: restoring the solution failed: {restored}")
                    own = {g for g in failed if owner.get(g) == name}
                    other = {g: r for g, r in failed.items() if g != "<definition>" and owner.get(g) != name}
                    tag = f"{assignment_id}.{name} {kind} {label!r}"
                    if kind == "correct" and failed:
                        problems.append(f"{tag} failed {failed}")
                    elif kind == "mutant" and not own:
                        problems.append(f"{tag} was not caught" + (f" (failed only {failed})" if failed else ""))
                    elif kind == "mutant" and other:
                        problems.append(f"{tag} also failed other functions' tests {other}")
                    elif kind == "mutant" and set(case.get("keeps", {}).get(label, ())) & own:
                        problems.append(f"{tag} failed cells it must keep {sorted(set(case['keeps'][label]) & own)}")
                    else:
                        print(f"ok  {tag}" + (f" -> {sorted(own)}" if kind == "mutant" else ""), flush=True)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return n_checked, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: every case file)")
    args = parser.parse_args(argv)
    known = assignment_ids()
    for assignment in args.assignments:
        if assignment not in known:
            print(f"check_in_kernel: no case file for {assignment!r}; known: {', '.join(known)}", file=sys.stderr)
            return 2
    total, problems = 0, []
    for assignment in args.assignments or known:
        checked, found = check_assignment(assignment)
        total += checked
        problems += found
    for problem in problems:
        print("FAIL", problem)
    print(f"{total} variants checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
