"""A diagnosis only on evidence that discriminates (issue 33): mistakes outside the catalogue
that coincide with a catalogued one on the calls a cell makes before its first failed check
get no diagnosis, and the catalogued mistakes they coincide with are still named.

The judge's diagnosis runs here in the test process on the course's real catalogue
(``course/mistakes/``, as ``judge_catalogue`` gives it to the judge) and the real test cells
of the source notebooks (hidden tests included): each test cell of the function runs with the
"student" function behind a recording proxy (as the judge's bridge records calls; the other
graded functions are the references), and a failed cell is diagnosed with the student's
function as the bridge's caller (the probes call it). No kernel, no sandbox: the judge's
process boundary has its own tests (test_judge.py, test_diagnosis.py).

The coincidences are those the issue's held-out run found (each was named as the catalogued
mistake before the probes): an argmax returned 1-based (two hypotheses: the argmin gives 1
too), alpha added once per *observed* category (two observed: the same as 2 * alpha), a
credible interval with a default level of 0.9 (at 0.95 the "1 - level and level" quantiles
give the 90 % interval), mutual information divided by H(C) (two equal classes: H(C) = log 2,
as bits), temperature applied to the probability instead of the log-odds.

Runtime: ~5 s (the test cells of five functions, each a few times).
"""

from __future__ import annotations

import time

import copy
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from grading.core.mistakes import catalogue_path, judge_catalogue, load_cases
from grading.execution.diagnosis_runtime import CATALOGUE_FILE, Diagnoser, Recorder

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "course"

_TEMPERATURE_ON_PROBABILITY = '''import numpy as np
from scipy.optimize import minimize_scalar


def fit_temperature(log_odds, y):
    z = np.asarray(log_odds, dtype=float)
    y = np.asarray(y, dtype=float)

    def loss(log_t):
        with np.errstate(over="ignore"):
            p = np.clip((1 / (1 + np.exp(-z))) ** (1 / np.exp(log_t)), 1e-12, 1 - 1e-12)
        return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))

    result = minimize_scalar(loss, bounds=(np.log(1e-3), np.log(1e3)), method="bounded", options={"xatol": 1e-10})
    return float(np.exp(result.x))
'''

# (assignment, function, the coincidence mutant's source, the catalogued mistake it coincides with)
COINCIDENCES = {
    "argmax_one_based": ("01_bayes_mle_map", "ml_hypothesis", '''import numpy as np


def ml_hypothesis(likelihood):
    return int(np.argmax(likelihood)) + 1
''', "argmin"),
    "alpha_per_observed_category": ("01_bayes_mle_map", "dirichlet_posterior_mean", '''import numpy as np


def dirichlet_posterior_mean(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    observed = (counts > 0).sum(axis=-1, keepdims=True)
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + alpha * observed)
''', "denominator_2_alpha"),
    "credible_interval_default_level_0_9": ("01_bayes_mle_map", "beta_credible_interval", '''import numpy as np
from scipy import stats


def beta_credible_interval(k, n, a, b, level=0.9):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - level) / 2
    return stats.beta.ppf(tail, a + k, b + n - k), stats.beta.ppf(1 - tail, a + k, b + n - k)
''', "quantiles_one_minus_level_and_level"),
    "mutual_information_over_class_entropy": ("03_multinomial_nb", "mutual_information", None, "log2_bits"),
    "temperature_on_the_probability": ("07_nb_in_practice", "fit_temperature", _TEMPERATURE_ON_PROBABILITY,
                                       "log_of_sigmoid_overflows"),
}


def _mutual_information_over_class_entropy(cases):
    """The reference, its result divided by the classes' entropy H(C) (a normalised MI)."""
    source = next(iter(cases["mutual_information"]["correct"].values()))
    head, _, _ = source.rpartition("    return total")
    return head + ("    _, sizes = np.unique(np.asarray(y), return_counts=True)\n"
                   "    share = sizes / sizes.sum()\n"
                   "    return total / -(share * np.log(share)).sum()\n")


def _given_setup(catalogue) -> dict:
    """The namespace of the notebook's given set-up, as the judge builds it (a statement that fails is skipped)."""
    base = {"__builtins__": __builtins__}
    for statement in catalogue["setup"]:
        try:
            exec(statement, base)
        except Exception:
            pass
    return base


def _source_notebook(assignment):
    return nbformat.read(COURSE / "source" / assignment / f"{assignment}.ipynb", as_version=4)


def _test_cells(notebook, grade_ids):
    sources = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in notebook.cells
               if c.cell_type == "code"}
    return [(grade_id, sources[grade_id]) for grade_id in grade_ids]


def _build(source, name, base):
    namespace = dict(base)
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name]


def failed_cells(folder, assignment, function, student_source, with_probes=True):
    """Run each of ``function``'s test cells with the student's function behind the judge's recorder
    (as the judge does); yield ``(grade_id, source, diagnoser)`` for each cell that failed."""
    cases = load_cases(catalogue_path(COURSE, assignment))
    notebook = _source_notebook(assignment)
    catalogue = judge_catalogue(cases, notebook)
    if not with_probes:
        for entry in catalogue["functions"].values():
            entry["probes"] = []
    folder.mkdir(exist_ok=True)
    (folder / CATALOGUE_FILE).write_text(json.dumps(catalogue))
    base = _given_setup(catalogue)
    references = {name: _build(entry["reference"], name, base) for name, entry in catalogue["functions"].items()}
    student = _build(student_source, function, base)

    def call(name, args, kwargs):  # the bridge: the student's process gets copies
        return student(*copy.deepcopy(args), **copy.deepcopy(kwargs))

    recorder = Recorder(str(folder))
    diagnoser = Diagnoser(recorder, caller=call if with_probes else None)

    def proxy(*args, **kwargs):
        snapshot = recorder.before(function, args, kwargs)
        try:
            value = call(function, args, kwargs)
        except Exception as error:
            recorder.failed(function, snapshot, error)
            raise
        recorder.after(function, snapshot, value, args, kwargs)
        return value

    proxy.__name__ = function
    for grade_id, source in _test_cells(notebook, cases[function]["tests"]):
        recorder.reset()
        try:
            exec(compile(source, f"<{grade_id}>", "exec"), {**base, **references, function: proxy})
        except Exception:
            yield grade_id, source, diagnoser


def diagnose(tmp_path, assignment, function, student_source, with_probes=True) -> dict:
    """grade_id -> the mistake ids named, for each of the function's test cells that failed."""
    return {grade_id: sorted(m["id"] for item in diagnoser.diagnose(grade_id) for m in item["mistakes"])
            for grade_id, _source, diagnoser in failed_cells(tmp_path / f"{function}-{with_probes}", assignment,
                                                             function, student_source, with_probes)}


def _case(kind):
    assignment, function, source, coincides_with = COINCIDENCES[kind]
    if source is None:
        source = _mutual_information_over_class_entropy(load_cases(catalogue_path(COURSE, assignment)))
    return assignment, function, source, coincides_with


@pytest.mark.parametrize("kind", sorted(COINCIDENCES))
def test_a_coincidence_outside_the_catalogue_gets_no_diagnosis(kind, tmp_path):
    assignment, function, source, _ = _case(kind)
    failed = diagnose(tmp_path, assignment, function, source)
    assert failed, f"{kind}: no test cell of {function} failed: the mutant is not a mistake the tests see"
    assert not any(failed.values()), f"{kind} was diagnosed as a known mistake it is not: {failed}"


@pytest.mark.parametrize("kind", sorted(COINCIDENCES))
def test_the_catalogued_mistake_it_resembles_is_still_named(kind, tmp_path):
    assignment, function, _, mistake = _case(kind)
    cases = load_cases(catalogue_path(COURSE, assignment))
    failed = diagnose(tmp_path, assignment, function, cases[function]["mutants"][mistake])
    assert failed and all(mistake in named for named in failed.values() if named), failed
    assert any(named == [mistake] for named in failed.values()), failed


def test_without_the_probes_the_coincidences_were_misnamed(tmp_path):
    """The evidence the probes add is what prevents the wrong words: on the recorded calls alone
    (the judge before issue 33), these coincidences are named as the catalogued mistake."""
    misnamed = []
    for kind in sorted(COINCIDENCES):
        assignment, function, source, mistake = _case(kind)
        failed = diagnose(tmp_path, assignment, function, source, with_probes=False)
        if any(mistake in named for named in failed.values()):
            misnamed.append(kind)
    print(f"misnamed without probes: {misnamed}")
    assert len(misnamed) >= 3, misnamed


def _all_probes():
    for path in sorted((COURSE / "mistakes").glob("[0-9]*.py")):
        for function, case in load_cases(path).items():
            if case.get("probes"):
                yield path.stem, function


@pytest.mark.parametrize("assignment, function", list(_all_probes()))
def test_every_probe_builds_and_tells_its_mistakes_apart_from_the_reference(assignment, function):
    """A probe that does not build silently disables its function's diagnosis: each builds with the
    notebook's given imports, the reference runs on it, and at least one mistake differs there."""
    from grading.execution.diagnosis_runtime import _outcomes_agree, _probe_calls, _replay

    catalogue = judge_catalogue(load_cases(catalogue_path(COURSE, assignment)), _source_notebook(assignment))
    base = _given_setup(catalogue)
    entry = catalogue["functions"][function]
    calls = _probe_calls(entry["probes"], base)
    assert calls, f"{function}'s probes do not build: {entry['probes']}"
    reference = _build(entry["reference"], function, base)
    mistakes = {m: _build(item["source"], function, base) for m, item in entry["mistakes"].items()}
    deadline = time.monotonic() + 60  # the judge's replay takes a deadline; here nothing runs long
    expected = [_replay(reference, call, deadline) for call in calls]
    assert not any(e[0][0] == "raised" for e in expected if isinstance(e[0], tuple) and len(e[0]) == 2
                   and isinstance(e[0][0], str)), expected
    assert any(not _outcomes_agree(_replay(fn, call, deadline), right) for fn in mistakes.values()
               for call, right in zip(calls, expected))


SMALL = {
    "setup": ["import numpy as np"],
    "functions": {"double": {
        "tests": ["test_double"],
        "reference": "def double(x):\n    return 2 * np.asarray(x, dtype=float)\n",
        "mistakes": {"squares": {"source": "def double(x):\n    return np.asarray(x, dtype=float) ** 2\n",
                                 "explanation": "Squares."}},
        "probes": ["np.array([3.0, -1.0])"],  # squares: [9, 1]; a third of the cube: [9, -1/3]
    }},
}


def _small(tmp_path, catalogue, caller):
    (tmp_path / CATALOGUE_FILE).write_text(json.dumps(catalogue))
    recorder = Recorder(str(tmp_path))
    x = [3.0]  # 3 ** 2 == 3 ** 3 / 3: one call cannot tell squaring from a third of the cube
    snapshot = recorder.before("double", (x,), {})
    recorder.after("double", snapshot, caller("double", [x], {}), (x,), {})
    return Diagnoser(recorder, caller=caller)


def test_a_probe_the_student_disagrees_on_drops_the_mistake(tmp_path):
    def cubes(name, args, kwargs):  # agrees with squaring on [3], not on the probe [3, -1]
        return np.asarray(args[0], dtype=float) ** 3 / 3

    def squares(name, args, kwargs):
        return np.asarray(args[0], dtype=float) ** 2

    assert _small(tmp_path, SMALL, squares).diagnose("test_double")[0]["mistakes"][0]["id"] == "squares"
    assert _small(tmp_path, SMALL, cubes).diagnose("test_double") == []
    unprobed = copy.deepcopy(SMALL)
    unprobed["functions"]["double"]["probes"] = []
    # Without probes, the counterexample search's inputs ([1.0]: a third, not one) tell them apart too ...
    assert _small(tmp_path, unprobed, cubes).diagnose("test_double") == []
    blind = _small(tmp_path, unprobed, cubes)
    blind.caller = None  # ... and on the recorded call alone: the wrong words
    assert blind.diagnose("test_double")[0]["mistakes"][0]["id"] == "squares"


def test_no_caller_or_a_probe_that_does_not_build_says_nothing(tmp_path):
    def squares(name, args, kwargs):
        return np.asarray(args[0], dtype=float) ** 2

    diagnoser = _small(tmp_path, SMALL, squares)
    diagnoser.caller = None
    assert diagnoser.diagnose("test_double") == []
    broken = copy.deepcopy(SMALL)
    broken["functions"]["double"]["probes"] = ["np.array([1.0,"]
    assert _small(tmp_path, broken, squares).diagnose("test_double") == []
    unprobed = copy.deepcopy(SMALL)
    unprobed["functions"]["double"]["probes"] = []
    assert _small(tmp_path, unprobed, squares).diagnose("test_double")[0]["mistakes"][0]["id"] == "squares"
