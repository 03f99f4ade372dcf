"""scikit-learn's estimator checks as pytest parameters, shared by the test files."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator


def estimator_checks(estimators, expected_failed_checks=lambda estimator: {}):
    """Every applicable check of every estimator as a ``pytest.param``.

    The array-API checks are left out: nbcore computes with NumPy only and does
    not claim array-API support (scikit-learn skips them unless SCIPY_ARRAY_API
    is set, and a skipped check proves nothing). Expected failures, each with
    its reason, are marked xfail by scikit-learn.
    """
    for estimator in estimators:
        generator = estimator_checks_generator(
            estimator, legacy=True, mark="xfail",
            expected_failed_checks=expected_failed_checks(estimator),
        )
        for item in generator:
            # Expected failures come back as pytest.param(..., marks=xfail).
            (est, check), marks = (item.values, item.marks) if hasattr(item, "marks") else (item, ())
            name = getattr(check, "func", check).__name__
            if "array_api" not in name:
                yield pytest.param(est, check, marks=marks, id=f"{type(est).__name__}-{name}")
