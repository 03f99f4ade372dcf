"""scikit-learn's own naive Bayes tests, rewritten to test nbcore.

``rewrite`` copies ``sklearn/tests/test_naive_bayes.py`` of the installed
scikit-learn and applies ``SUBSTITUTIONS``, a short list of textual
replacements to review: the test bodies are not touched, only the imports
(nbcore's four estimators instead of scikit-learn's; nbcore has no
ComplementNB).

This module is also the pytest plugin of the rewritten suite's run
(``-p tests.nbcore.sklearn_suite``): it deselects the tests of
``NOT_APPLICABLE`` and marks those of ``EXPECTED_FAILURES`` as strict xfails,
each with its reason, and writes every test's outcome to the JSON file named
by ``--nbcore-outcomes``.
"""

import json
from pathlib import Path

import pytest

SKLEARN_TEST_FILE = Path("tests", "test_naive_bayes.py")

# (old, new, how many times old must occur): a scikit-learn release that
# changes these lines makes the rewrite fail loudly instead of testing
# scikit-learn's own estimators.
SUBSTITUTIONS = [
    (
        "from sklearn.naive_bayes import (\n"
        "    BernoulliNB,\n"
        "    CategoricalNB,\n"
        "    ComplementNB,\n"
        "    GaussianNB,\n"
        "    MultinomialNB,\n"
        ")\n",
        "from nbcore import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB\n",
        1,
    ),
    (
        "DISCRETE_NAIVE_BAYES_CLASSES = [BernoulliNB, CategoricalNB, ComplementNB, MultinomialNB]",
        "DISCRETE_NAIVE_BAYES_CLASSES = [BernoulliNB, CategoricalNB, MultinomialNB]",
        1,
    ),
]

# Test function name -> why it does not apply to nbcore (deselected).
NOT_APPLICABLE = {
    "test_cnb": "ComplementNB: nbcore has no ComplementNB.",
    "test_gnb_array_api_compliance": (
        "array API inputs (array_api_strict, torch, ...): nbcore computes with "
        "NumPy only and does not claim array-API support."
    ),
}

# Test (function name, or name[parameters] for one parametrization) -> (the
# exception it must raise, why); marked
# xfail(strict=True, raises=...): it must fail, and with that exception only.
EXPECTED_FAILURES = {
    "test_gnb_check_update_with_no_data": (
        AttributeError,
        "calls scikit-learn's private GaussianNB._update_mean_variance; nbcore "
        "keeps exact sufficient statistics instead (nbcore.models.gaussian._merge).",
    ),
    "test_alpha_vector": (
        AttributeError,
        "calls scikit-learn's private MultinomialNB._check_alpha() (after its "
        "public checks, which pass); nbcore's is nbcore._validation.check_alpha.",
    ),
    "test_check_alpha": (
        AttributeError,
        "calls scikit-learn's private BernoulliNB._check_alpha(); nbcore's is "
        "nbcore._validation.check_alpha.",
    ),
    "test_discretenb_provide_prior_with_partial_fit[CategoricalNB]": (
        ValueError,
        "fits CategoricalNB to the iris measurements (5.1, 3.5, ...): nbcore "
        "refuses non-integer category codes with a ValueError where "
        "scikit-learn truncates them (documented in CategoricalNB's Notes).",
    ),
}


def rewrite(source):
    """``source`` (scikit-learn's test file) with ``SUBSTITUTIONS`` applied."""
    for old, new, count in SUBSTITUTIONS:
        found = source.count(old)
        if found != count:
            raise ValueError(
                f"expected {count} occurrence(s) of {old!r} in scikit-learn's "
                f"test file, found {found}: update SUBSTITUTIONS for this release."
            )
        source = source.replace(old, new)
    return source


def write_rewritten_suite(sklearn_dir, out_dir):
    """Write the rewritten test file into ``out_dir``; return its path."""
    source = (Path(sklearn_dir) / SKLEARN_TEST_FILE).read_text(encoding="utf-8")
    path = Path(out_dir) / "test_naive_bayes_nbcore.py"
    path.write_text(rewrite(source), encoding="utf-8")
    return path


# ------------------------------------------------------------ pytest plugin
def pytest_addoption(parser):
    parser.addoption("--nbcore-outcomes", help="JSON file for each test's outcome")


def _function_name(item):
    return getattr(item, "originalname", None) or item.name.split("[")[0]


# The run's record, written at the end of the session (one run per process).
_RECORD = {"collected": [], "deselected": [], "tests": {}}


def pytest_collection_modifyitems(config, items):
    kept, deselected = [], []
    for item in items:
        name = _function_name(item)
        if name in NOT_APPLICABLE:
            deselected.append(item)
            continue
        key = item.name if item.name in EXPECTED_FAILURES else name
        if key in EXPECTED_FAILURES:
            exception, reason = EXPECTED_FAILURES[key]
            item.add_marker(pytest.mark.xfail(strict=True, raises=exception, reason=reason))
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept
    _RECORD["collected"] = sorted({_function_name(item) for item in kept + deselected})
    _RECORD["deselected"] = [item.nodeid for item in deselected]


def pytest_runtest_logreport(report):
    # A test's outcome is its call's, unless its setup or teardown failed.
    if report.when == "call" or report.outcome != "passed":
        if hasattr(report, "wasxfail") and report.skipped:
            outcome = "xfailed"
        elif report.when != "call" and report.outcome == "failed":
            outcome = f"error in {report.when}"
        else:
            outcome = report.outcome
        _RECORD["tests"].setdefault(report.nodeid, outcome)


def pytest_sessionfinish(session):
    path = session.config.getoption("--nbcore-outcomes")
    if path:
        Path(path).write_text(json.dumps(_RECORD, indent=1), encoding="utf-8")
