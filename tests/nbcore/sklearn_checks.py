"""scikit-learn's estimator checks as pytest parameters, shared by the test files."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator


def estimator_checks(estimators, expected_failed_checks=lambda estimator: {}):
    """Every applicable check of every estimator as a ``pytest.param``.

    The array-API checks are left out: nbcore computes with NumPy only and does
    not claim array-API support (scikit-learn skips them unless SCIPY_ARRAY_API
    is set, and a skipped check proves nothing). An expected failure, given
    with its reason by ``expected_failed_checks(estimator)`` (check name ->
    reason), is a strict xfail: the test fails if the check passes, so a
    fixed difference cannot hide behind a stale entry.
    """
    for estimator in estimators:
        expected = dict(expected_failed_checks(estimator))
        for est, check in estimator_checks_generator(estimator, legacy=True, mark=None):
            name = getattr(check, "func", check).__name__
            if "array_api" in name:
                continue
            marks = ()
            if name in expected:
                marks = pytest.mark.xfail(strict=True, reason=expected.pop(name))
            yield pytest.param(est, check, marks=marks, id=f"{type(est).__name__}-{name}")
        if expected:
            raise ValueError(
                f"expected failures of {type(estimator).__name__} that are not "
                f"among its checks: {sorted(expected)}"
            )
