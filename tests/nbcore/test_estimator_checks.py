"""scikit-learn's estimator checks on the four estimators (about 20 s)."""

import pytest

from tests.nbcore.sklearn_checks import estimator_checks

from nbcore import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

ESTIMATORS = [BernoulliNB(), CategoricalNB(), GaussianNB(), MultinomialNB()]

# Deliberate differences from scikit-learn, each with its reason.
_NON_INTEGER_CODES = (
    "CategoricalNB rejects non-integer category codes with a ValueError; "
    "scikit-learn silently truncates them (1.7 becomes category 1)."
)
DELIBERATE_DIFFERENCES = {
    "CategoricalNB": {
        "check_sample_weight_equivalence_on_dense_data": _NON_INTEGER_CODES,
        "check_classifiers_one_label_sample_weights": _NON_INTEGER_CODES,
    },
}


def expected_failed_checks(estimator):
    return DELIBERATE_DIFFERENCES.get(type(estimator).__name__, {})


@pytest.mark.parametrize("estimator, check", list(estimator_checks(ESTIMATORS, expected_failed_checks)))
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
