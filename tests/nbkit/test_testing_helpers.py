"""nbkit.testing: the helpers the notebooks' hidden tests use (under 1 s)."""

import builtins
import functools
import sys
import warnings

import numpy as np
import pytest

import nbcore
from nbkit import testing
from nbkit.testing import assert_own_implementation, check_array, quiet

# ------------------------------------------------------------ check_array


def test_check_array_accepts_equal_values_lists_and_infinities():
    check_array([0.25, 0.75], np.array([0.25, 0.75]), name="posterior")
    check_array([[-np.inf, -1.0]], [[-np.inf, -1.0 + 1e-12]], name="log_prob")
    check_array(3, 3.0, name="count")


def test_check_array_reports_shape():
    with pytest.raises(AssertionError, match=r"theta: expected shape \(2, 3\), got shape \(3, 2\)"):
        check_array(np.zeros((3, 2)), np.zeros((2, 3)), name="theta")


def test_check_array_reports_first_mismatch_with_both_values():
    with pytest.raises(
        AssertionError,
        match=r"jll, entry \[1, 0\]: expected 2\.0, got 2\.5 \(2 of 4 entries differ; rtol=1e-07",
    ):
        check_array([[1, 1], [2.5, 9]], [[1, 1], [2, 3]], name="jll")


def test_check_array_reports_infinity_pattern():
    with pytest.raises(AssertionError, match=r"log_prob, entry \[1\]: expected -inf .*got -23\.0"):
        check_array([0.0, -23.0], [0.0, -np.inf], name="log_prob")
    with pytest.raises(AssertionError, match=r"expected -inf \(-inf\), got inf \(inf\)"):
        check_array([np.inf], [-np.inf], name="x")
    with pytest.raises(AssertionError, match=r"p, entry \[0\]: expected 0\.5 .*got nan"):
        check_array([np.nan], [0.5], name="p")


def test_check_array_explains_unconvertible_results():
    with pytest.raises(AssertionError, match="could not turn your result into an array"):
        check_array(["a", "b"], [1.0, 2.0], name="posterior")
    with pytest.raises(AssertionError, match="returned None; did you forget the return"):
        check_array(None, [1.0], name="posterior")


def test_check_array_tolerances():
    check_array([1.0 + 1e-8], [1.0], name="x")  # within rtol 1e-7
    with pytest.raises(AssertionError):
        check_array([1.0 + 1e-8], [1.0], name="x", rtol=1e-10, atol=0)


@pytest.mark.parametrize(
    "owner, attribute, label",
    [
        (np, "allclose", "numpy.allclose"),
        (np, "isclose", "numpy.isclose"),
        (np, "asarray", "numpy.asarray"),
        (np.testing, "assert_allclose", "numpy.testing.assert_allclose"),
        (builtins, "abs", "builtins.abs"),
        (builtins, "len", "builtins.len"),
        (builtins, "isinstance", "builtins.isinstance"),
        (builtins, "float", "builtins.float"),
    ],
)
def test_tampering_is_detected(monkeypatch, owner, attribute, label):
    original = getattr(owner, attribute)
    monkeypatch.setattr(owner, attribute, lambda *args, **kwargs: original(*args, **kwargs))
    with pytest.raises(AssertionError, match=f"{label} was replaced; do not monkeypatch"):
        check_array([1.0], [1.0], name="x")
    with pytest.raises(AssertionError, match="was replaced"):
        assert_own_implementation(lambda: 0)


def test_comparison_uses_pristine_functions(monkeypatch):
    # Even if the check of tampering were bypassed, the comparison does not
    # go through numpy's module attributes.
    monkeypatch.setattr(testing, "_check_untampered", lambda: None)
    monkeypatch.setattr(np, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(np, "isclose", lambda a, b, **k: np.ones_like(a, dtype=bool))
    with pytest.raises(AssertionError, match="expected 1.0, got 2.0"):
        check_array([2.0], [1.0], name="x")


# ------------------------------------------------------------ assert_own_implementation


def own_posterior(prior, likelihood):
    scores = np.asarray(prior) * np.asarray(likelihood)
    return scores / scores.sum()


def delegating_posterior(prior, likelihood):
    return nbcore.posterior(prior, likelihood)


def importing_posterior(prior, likelihood):
    from nbcore.estimation import posterior

    return posterior(prior, likelihood)


def sklearn_fit(X, y):
    from sklearn.naive_bayes import MultinomialNB

    return MultinomialNB().fit(X, y)


def helper_calls_nbcore(X, y, classes):
    return nbcore.multinomial_feature_log_prob(X, y, classes)


def uses_helper(X, y, classes):
    return helper_calls_nbcore(X, y, classes)


def by_string(X):
    import importlib

    return importlib.import_module("nbcore").posterior(X, X)


def test_own_implementation_passes():
    assert_own_implementation(own_posterior)
    assert_own_implementation(functools.partial(own_posterior, [0.5, 0.5]))


@pytest.mark.parametrize(
    "func, what",
    [
        (delegating_posterior, "the module nbcore"),
        (importing_posterior, "an import of nbcore.estimation"),
        (sklearn_fit, "an import of sklearn.naive_bayes"),
        (uses_helper, "through helper_calls_nbcore"),
        (by_string, "the string 'nbcore'"),
        (nbcore.posterior, "nbcore.estimation.posterior"),
        (functools.partial(nbcore.posterior, [0.5, 0.5]), "nbcore.estimation.posterior"),
    ],
)
def test_delegation_is_detected(func, what):
    with pytest.raises(AssertionError, match="compute it yourself") as error:
        assert_own_implementation(func)
    assert what in str(error.value)


def test_alias_of_an_nbcore_function_is_detected():
    namespace = {"post": nbcore.posterior, "np": np}
    exec("def mine(p, l):\n    return post(p, l)\n", namespace)
    with pytest.raises(AssertionError, match=r"nbcore.estimation.posterior \(as post\)"):
        assert_own_implementation(namespace["mine"])


def test_not_a_function():
    with pytest.raises(AssertionError, match="Expected a function"):
        assert_own_implementation(42)


# ------------------------------------------------------------ quiet


def test_quiet_silences_warnings_and_floating_point_errors(capsys):
    with quiet():
        value = np.log(np.array([0.0]))
        warnings.warn("noise", RuntimeWarning)
        np.array([1.0]) / 0.0
    assert value[0] == -np.inf
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_quiet_restores_the_settings():
    before = np.geterr()
    with quiet():
        pass
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning):
        np.log(np.array([0.0]))
    assert "nbkit.testing" in sys.modules


def test_check_type_names_what_the_task_prescribes():
    import scipy.sparse

    from nbkit.testing import check_type

    check_type(np.zeros(3), name="x", kind="float")
    check_type(np.arange(3), name="x", kind="int")
    check_type([1, 2], name="x", container="list")
    check_type(scipy.sparse.csr_matrix(np.eye(2)), name="x", container="sparse", sparse_format="csr")
    with pytest.raises(AssertionError, match="return a NumPy array"):
        check_type([0.0, 1.0], name="x")
    with pytest.raises(AssertionError, match="expected int values, got dtype float64"):
        check_type(np.zeros(3), name="counts", kind="int")
    with pytest.raises(AssertionError, match="CSR format"):
        check_type(scipy.sparse.coo_matrix(np.eye(2)), name="X", container="sparse", sparse_format="csr")
    with pytest.raises(AssertionError, match="returned None"):
        check_type(None, name="x")


def test_hidden_rng_is_the_plain_seed_outside_grading_and_mixed_inside():
    from nbkit import testing

    plain = np.random.default_rng(7).random(3)
    assert np.array_equal(testing.hidden_rng(7).random(3), plain)
    try:
        testing.set_grading_seed(123456789)
        graded = testing.hidden_rng(7).random(3)
        assert not np.array_equal(graded, plain)
        assert np.array_equal(testing.hidden_rng(7).random(3), graded)  # reproducible for one seed
        testing.set_grading_seed(987654321)
        assert not np.array_equal(testing.hidden_rng(7).random(3), graded)
    finally:
        testing.set_grading_seed(None)
