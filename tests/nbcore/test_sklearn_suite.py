"""scikit-learn's own naive Bayes test file passes against nbcore (25-50 s).

The file is copied from the installed scikit-learn, its imports rewritten to
nbcore by ``tests.nbcore.sklearn_suite.SUBSTITUTIONS``, and run by pytest in
a subprocess with scikit-learn's own fixtures (``-p sklearn.conftest``: the
global random seed, and ``global_dtype`` with float32 switched on by
SKLEARN_RUN_FLOAT32_TESTS=1, so that no test is skipped).
"""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import sklearn

from tests.nbcore import sklearn_suite

REPO = Path(__file__).resolve().parents[2]
SKLEARN_DIR = Path(sklearn.__file__).parent


def run_rewritten_suite(tmp_path):
    """Run the rewritten file; return the plugin's record and pytest's output."""
    test_file = sklearn_suite.write_rewritten_suite(SKLEARN_DIR, tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    outcomes_file = tmp_path / "outcomes.json"
    env = dict(os.environ, SKLEARN_RUN_FLOAT32_TESTS="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [
        sys.executable, "-m", "pytest", str(test_file), "-q", "-rfEX",
        "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
        "-p", "no:cacheprovider", "-p", "sklearn.conftest",
        "-p", "tests.nbcore.sklearn_suite", "--nbcore-outcomes", str(outcomes_file),
    ]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=600)
    output = result.stdout + result.stderr
    assert outcomes_file.exists(), f"the rewritten suite did not run:\n{output}"
    return json.loads(outcomes_file.read_text(encoding="utf-8")), output


def test_rewrite_fails_loudly_when_a_substitution_does_not_apply():
    with pytest.raises(ValueError, match="update SUBSTITUTIONS"):
        sklearn_suite.rewrite("import numpy as np\n")


def test_rewrite_imports_nbcore_only():
    source = (SKLEARN_DIR / sklearn_suite.SKLEARN_TEST_FILE).read_text(encoding="utf-8")
    rewritten = sklearn_suite.rewrite(source)
    assert "from nbcore import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB" in rewritten
    assert "sklearn.naive_bayes" not in rewritten


def test_sklearn_naive_bayes_suite_passes_on_nbcore(tmp_path):
    record, output = run_rewritten_suite(tmp_path)
    outcomes = record["tests"]
    counts = Counter(outcomes.values())
    print(f"rewritten scikit-learn suite: {dict(counts)}, "
          f"{len(record['deselected'])} deselected")
    not_passed = {
        test: outcome for test, outcome in outcomes.items()
        if outcome not in ("passed", "xfailed")
    }
    assert not not_passed, f"{not_passed}\n{output}"
    xfailed = {test.split("::")[-1] for test, outcome in outcomes.items()
               if outcome == "xfailed"}
    expected = set(sklearn_suite.EXPECTED_FAILURES)
    # Each entry names a test, or one of its parametrizations.
    assert {name if name in expected else name.split("[")[0] for name in xfailed} == expected
    # Every deselected test exists in this scikit-learn release (no stale entry).
    assert set(sklearn_suite.NOT_APPLICABLE) <= set(record["collected"])
    # The float32 parametrizations ran (none is skipped).
    assert any("float32" in test for test in outcomes), output
    assert counts["passed"] >= 60, output
