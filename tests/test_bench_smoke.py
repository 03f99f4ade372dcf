"""The benchmark suite's smoke run and its small helpers (not timing assertions).

``python -m bench --smoke`` runs every section on tiny inputs; here the
nbcore and course sections run (a few seconds: imports and one kernel start),
and the grading section, which starts nbgrader several times, runs in the
slow test. Expected values in the helper tests are derived by hand.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # bench/ is not installed: it runs from the checkout
    sys.path.insert(0, str(REPO_ROOT))

from bench import datasets, targets, timing  # noqa: E402
from bench.__main__ import main  # noqa: E402

SECTION_TITLES = ("## Machine", "## Targets", "## Method", "## 1. nbcore vs scikit-learn",
                  "## 2. Autograding throughput", "## 3. Course execution")


def _silent(*args):
    pass


def _run_smoke(tmp_path, *only):
    out = tmp_path / "BENCHMARKS.md"
    argv = ["--smoke", "--out", str(out)]
    for section in only:
        argv += ["--only", section]
    assert main(argv, echo=_silent) == 0
    results = json.loads((tmp_path / "figures" / "results.json").read_text())
    return out.read_text(), results


def _assert_png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"


def test_smoke_run_of_nbcore_and_course_writes_every_section(tmp_path):
    text, results = _run_smoke(tmp_path, "nbcore", "course")
    for title in SECTION_TITLES:
        assert title in text, f"the report has no {title!r} section"
    assert "Not run yet: `.venv/bin/python -m bench --only grading`" in text
    assert "**Smoke run**" in text

    nbcore_section = results["nbcore"]["data"]
    rows = [row for model in nbcore_section["models"] for row in model["timings"]]
    assert len(rows) == 4 * 4 * 2  # models x scales x operations
    for row in rows:
        for key in ("ratio", "nbcore_over_pass", "sklearn_over_pass"):
            assert math.isfinite(row[key]) and row[key] > 0, f"{key} = {row[key]} in {row}"
    for model in nbcore_section["models"]:
        assert model["max_proba_difference"] < 1e-6, f"{model['model']}: the two libraries disagree"
        assert {m["operation"] for m in model["memory"]} == {"fit", "predict_proba"}

    course = results["course"]["data"]
    assert [row["status"] for row in course["notebooks"]] == ["ok"]
    assert course["total_wall_s"] >= course["total_cells_s"] > 0

    for name in ("nbcore_scaling.png", "nbcore_ratios.png", "course_execution.png"):
        _assert_png(tmp_path / "figures" / name)
        assert f"figures/{name}" in text


@pytest.mark.slow
@pytest.mark.timeout(900)  # four graders, each on a fresh course
def test_smoke_run_of_everything_grades_with_every_grader(tmp_path):
    text, results = _run_smoke(tmp_path)
    for title in SECTION_TITLES:
        assert title in text
    assert "Not run yet" not in text
    grading = results["grading"]["data"]
    assert [run["graded"] for run in grading["runs"]] == [grading["n_submissions"]] * len(grading["runs"])
    assert grading["score_mismatches"] == []
    for key in ("speedup_parallel_vs_stock", "speedup_serial_vs_stock", "kernel_start_s"):
        assert math.isfinite(grading[key]) and grading[key] > 0, key
    _assert_png(tmp_path / "figures" / "grading_throughput.png")


def test_report_only_rewrites_the_same_report_from_stored_results(tmp_path, capsys):
    out = tmp_path / "BENCHMARKS.md"
    assert main(["--report-only", "--out", str(out)], echo=_silent) == 2
    assert "does not exist" in capsys.readouterr().err
    measured, _ = _run_smoke(tmp_path, "course")
    out.unlink()
    assert main(["--report-only", "--out", str(out)], echo=_silent) == 0
    assert out.read_text() == measured


def test_a_smoke_run_must_not_replace_the_real_report(capsys):
    assert main(["--smoke"], echo=_silent) == 2
    assert "needs --out" in capsys.readouterr().err


# ------------------------------------------------------------------ helpers


def test_tokens_for_distinct_words_solves_the_expected_count():
    # Two equally likely words: t tokens show 2 (1 - 2**-t) distinct words on
    # average, i.e. 1 for t=1 and 1.5 for t=2, so 1.5 distinct words need 2 tokens.
    assert datasets.tokens_for_distinct_words(np.array([0.5, 0.5]), 1.5) == 2
    # Four equally likely words: 4 (1 - (3/4)**t) is 2.734 at t=4 and 3.051 at t=5.
    assert datasets.tokens_for_distinct_words(np.full(4, 0.25), 3.0) == 5
    with pytest.raises(ValueError, match="below the vocabulary size"):
        datasets.tokens_for_distinct_words(np.full(4, 0.25), 4)


def test_zipf_documents_have_the_asked_shape_and_words_per_document():
    X, y = datasets.zipf_documents(400, 5_000, distinct_words=50, n_classes=3)
    assert X.shape == (400, 5_000) and y.shape == (400,)
    assert set(np.unique(y)) == {0, 1, 2}
    words_per_document = np.diff(X.indptr)
    assert 45 <= words_per_document.mean() <= 55
    assert X.has_canonical_format and (X.data >= 1).all()
    # Zipf: the most frequent word of class 0 is rank 1, word 0.
    assert np.asarray(X[y == 0].sum(axis=0)).ravel().argmax() == 0


def test_categorical_data_codes_are_in_range():
    X, y = datasets.categorical_data(1_000, 4, n_categories=3)
    assert X.dtype == np.int64 and X.min() == 0 and X.max() == 2
    assert y.shape == (1_000,)


def test_peak_memory_counts_a_new_array_and_not_the_existing_ones():
    existing = np.ones(2_000_000)  # 16 MB that must not be counted
    peak = timing.peak_memory_bytes(lambda: np.ones(1_000_000))  # 8 MB
    assert 8_000_000 <= peak < 9_000_000
    assert existing.sum() == 2_000_000


def test_time_interleaved_times_every_function_each_round():
    calls = []
    result = timing.time_interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                                     repeats=3, warmup=1)
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then rotating order
    assert [len(result[name].runs) for name in "ab"] == [3, 3]
    with pytest.raises(ValueError, match="repeats"):
        timing.time_interleaved({"a": lambda: None}, repeats=0)


def test_targets_read_the_ratios_at_the_largest_size():
    def row(scale, operation, ratio, over_pass):
        return {"scale": scale, "operation": operation, "ratio": ratio, "nbcore_over_pass": over_pass}

    section = {"scales": [1, 8], "models": [
        {"model": "GaussianNB", "timings": [row(1, "fit", 9.0, 9.0), row(8, "fit", 0.4, 2.5)]},
        {"model": "MultinomialNB", "timings": [row(8, "predict_proba", 1.2, 3.5)]},
    ]}
    assert targets.nbcore_checks(section) == [
        ("GaussianNB.fit: nbcore at least 2x faster than scikit-learn", "2.50x faster", True),
        ("GaussianNB.fit: nbcore <= 3x one pass over the input", "2.5x", True),
        ("MultinomialNB.predict_proba: nbcore/scikit-learn <= 1.05", "1.20", False),
        ("MultinomialNB.predict_proba: nbcore <= 3x one pass over the input", "3.5x", False),
    ]


def test_startup_target_is_the_slowest_nbg_median_and_the_references_do_not_count():
    from bench import cli_startup

    rows = [{"command": "nbg --help", "what": "help", "reference": False, "median_s": 0.2, "min_s": 0.1, "max_s": 0.3},
            {"command": "nbg demo --help", "what": "help", "reference": False, "median_s": 0.4, "min_s": 0.3,
             "max_s": 1.5},
            {"command": "python -c 'import grading.autograde'", "what": "the autograde step's libraries",
             "reference": True, "median_s": 3.0, "min_s": 2.0, "max_s": 4.0}]
    section = {"repeats": 3, "target_s": 1.0, "rows": rows, "load_before": "1.0, 1.0, 1.0",
               "load_after": "1.0, 1.0, 1.0"}
    assert cli_startup.checks(section) == [
        ("nbg --help and a usage error answer in under 1 s (median)", "0.40 s (nbg demo --help)", True)]
    rows[1]["median_s"] = 1.2
    assert cli_startup.checks(section)[0][1:] == ("1.20 s (nbg demo --help)", False)
    lines = cli_startup.report_lines(section, "## 6. title", "python -m bench")
    assert "| `nbg demo --help` | help | 1.20 s | 0.30 s | 1.50 s |" in lines
    assert "| `python -c 'import grading.autograde'` | reference: the autograde step's libraries | 3.00 s | 2.00 s | 4.00 s |" in lines
