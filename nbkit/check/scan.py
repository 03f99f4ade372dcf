"""The grader's rule on ready-made libraries, applied to your notebook before you submit it.

The rule, in the notebooks' words, is :data:`nbkit.librule.RULE_TEXT`. This check is
the grader's own code (:mod:`nbkit.librule`, which the grader imports): it reads the
cells you write (answers and cells you added) statically, nothing is run, with the
allow-list and each exercise's allow and forbid lists that the release notebook carries
(``metadata["nbg"]``). A graded function with a finding here gets 0 points at grading,
unless the instructor overrules it.
"""

from __future__ import annotations

from nbkit.librule import LibraryRule, exercise_libraries, library_verdicts, split_cells
from nbkit.librule.rule import DEFAULT_ALLOWED

from .cells import cell_checksum, cell_role, nbgrader_meta
from .findings import OK, PROBLEM, WARNING, Finding

MAX_FINDINGS = 3  # findings listed per graded function (the first is usually the cause)


def _names(value) -> list | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def rule_of(notebook) -> tuple[LibraryRule, dict | None, list, str]:
    """(rule, names each test cell looks up or None, graded functions, why the lists are incomplete or "")
    from what the release notebook carries."""
    nbg = notebook.metadata.get("nbg", {})
    nbg = nbg if isinstance(nbg, dict) else {}
    stamp = nbg.get("rule") if isinstance(nbg.get("rule"), dict) else {}
    allowed, forbidden, answers = (_names(stamp.get(key)) for key in ("allowed", "forbidden", "answers"))
    tests = stamp.get("tests")
    if isinstance(tests, dict) and all(_names(v) is not None for v in tests.values()):
        looked_up = {str(k): v for k, v in tests.items()}
    else:
        looked_up = None
    missing = "" if None not in (allowed, forbidden, answers, looked_up) else (
        "this notebook does not carry the course's lists (it is not the release notebook, or its metadata was "
        "edited): checked with the default allow-list and the visible tests only")
    try:
        exercises = exercise_libraries(notebook, "the notebook")
    except ValueError as error:
        exercises, missing = {}, f"{error}: checked without the exercises' own lists"
    rule = LibraryRule(tuple(allowed) if allowed is not None else DEFAULT_ALLOWED,
                       tuple(forbidden or ()), exercises)
    return rule, looked_up, answers or [], missing


def _checksum_matches(cell) -> bool:
    try:
        return cell_checksum(cell) == nbgrader_meta(cell).get("checksum")
    except (KeyError, TypeError, ValueError):
        return False


def library_verdicts_of(notebook) -> tuple[list, str]:
    """(the rule's verdicts as the grader computes them, why the lists are incomplete or "")."""
    rule, looked_up, answers, missing = rule_of(notebook)
    instructor, tests = {}, {}
    for cell in notebook.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if cell.cell_type != "code" or not isinstance(grade_id, str):
            continue
        role = cell_role(cell)
        if role == "test":  # the grader puts the released test back, edited or not
            instructor[grade_id] = tests[grade_id] = cell.source
        elif role == "given" and _checksum_matches(cell):
            instructor[grade_id] = cell.source
    cells = split_cells(notebook, instructor, tests, looked_up)
    return library_verdicts(cells, answers, rule), missing


def check_library_rule(notebook) -> Finding:
    """PROBLEM for each graded function the grader would give 0 points under the library rule."""
    verdicts, missing = library_verdicts_of(notebook)
    details = []
    for entry in verdicts:
        found = entry["findings"]
        more = f" (and {len(found) - MAX_FINDINGS} more)" if len(found) > MAX_FINDINGS else ""
        what = "; ".join(f"{f['what']} in {f['cell']}" for f in found[:MAX_FINDINGS])
        details.append(f"{entry['function']} gets 0 points on {', '.join(entry['tests'])}: it {what}{more}")
    if details:
        return Finding(PROBLEM, "library rule", f"{len(details)} graded function(s) break the notebook's rule on "
                       "libraries and would get 0 points for their tests (the rule is in the notebook's "
                       "introduction, under Libraries).", details,
                       advice="Compute the result yourself with NumPy, SciPy, pandas or the standard library, "
                       "without the library the exercise forbids; move comparisons with scikit-learn into a cell "
                       "after the function's tests, and remove eval, exec, globals() and the like.")
    if missing:
        return Finding(WARNING, "library rule", f"no graded function breaks the rule, but {missing}.")
    return Finding(OK, "library rule", "every graded function follows the notebook's rule on libraries.")
