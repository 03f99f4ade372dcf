"""Tests for nbcore.models.mixed.MixedNB.

The oracle is scikit-learn: its GaussianNB, CategoricalNB and BernoulliNB
fitted separately on the column groups, their joint log-likelihoods added by
hand with the class log prior counted once. Runtime: about 3 s of CPU plus
imports.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn import naive_bayes as sk
from sklearn.datasets import load_iris
from sklearn.preprocessing import OrdinalEncoder

from nbcore.models.gaussian import GaussianNB
from nbcore.models.mixed import MixedNB, infer_event_model


def shop_table(n_samples=90, seed=0):
    """Age (float), colour (string), owns_car (bool), rooms (few ints); 3 classes."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(["budget", "family", "luxury"]), n_samples // 3)
    shift = np.repeat([0.0, 1.0, 2.0], n_samples // 3)
    X = pd.DataFrame(
        {
            "age": rng.normal(30 + 10 * shift, 5.0),
            "income": rng.normal(2 + shift, 1.0),
            "colour": rng.choice(["red", "green", "blue", "black"], size=n_samples),
            "owns_car": rng.random(n_samples) < 0.2 + 0.3 * shift,
            "rooms": rng.integers(1, 4, size=n_samples) + (shift > 1),
        }
    )
    return X, y


def sklearn_combined_jll(X_train, y, X_test, gaussian, categorical, bernoulli):
    """Sum of scikit-learn's per-group jlls, with the class log prior once."""
    codes_train, codes_test = _ordinal(X_train[categorical], X_test[categorical])
    parts = [
        (sk.GaussianNB().fit(X_train[gaussian], y), X_test[gaussian]),
        (sk.CategoricalNB().fit(codes_train, y), codes_test),
        (sk.BernoulliNB(binarize=None).fit(X_train[bernoulli].astype(float), y),
         X_test[bernoulli].astype(float)),
    ]
    jlls = [part.predict_joint_log_proba(x) for part, x in parts]
    return sum(jlls) - 2 * parts[1][0].class_log_prior_


def _ordinal(train, test):
    encoder = OrdinalEncoder().fit(train.astype(str))
    return encoder.transform(train.astype(str)), encoder.transform(test.astype(str))


# ------------------------------------------------------------------ oracles


def test_all_gaussian_columns_equal_gaussian_nb():
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    mixed = MixedNB().fit(frame, y)
    assert set(mixed.models_.values()) == {"gaussian"}
    expected = sk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(frame), expected.predict_joint_log_proba(X), rtol=1e-10
    )
    np.testing.assert_allclose(mixed.predict_proba(frame), expected.predict_proba(X), atol=1e-12)
    as_array = MixedNB(models=["gaussian"] * 4).fit(X, y)
    np.testing.assert_allclose(
        as_array.predict_joint_log_proba(X),
        GaussianNB().fit(X, y).predict_joint_log_proba(X),
        rtol=1e-10,
    )


def test_mixed_table_equals_hand_combined_sklearn_models():
    X, y = shop_table()
    mixed = MixedNB().fit(X, y)
    assert mixed.models_ == {
        "age": "gaussian",
        "income": "gaussian",
        "colour": "categorical",
        "owns_car": "bernoulli",
        "rooms": "categorical",
    }
    X_test, _ = shop_table(30, seed=1)
    expected = sklearn_combined_jll(
        X, y, X_test, ["age", "income"], ["colour", "rooms"], ["owns_car"]
    )
    np.testing.assert_allclose(mixed.predict_joint_log_proba(X_test), expected, rtol=1e-10)
    np.testing.assert_array_equal(mixed.predict(X_test), np.array(mixed.classes_)[
        expected.argmax(axis=1)])


def test_missing_entries_are_left_out_of_estimates_and_product():
    X, y = shop_table()
    X = X.astype({"owns_car": "boolean"})
    rng = np.random.default_rng(2)
    for column in X.columns:
        X.loc[rng.random(len(X)) < 0.15, column] = None
    assert X.isna().any().all()
    mixed = MixedNB(missing="skip", var_smoothing=0.0).fit(X, y)
    classes = np.unique(y)
    uniform = np.full(3, 1 / 3)
    # naive Bayes estimates every feature separately: fit one scikit-learn
    # model per column on the rows where that column is observed
    expected = np.tile(np.log(np.bincount(np.searchsorted(classes, y)) / len(y)), (len(X), 1))
    for column, model in mixed.models_.items():
        seen = X[column].notna().to_numpy()
        values = X.loc[seen, [column]]
        if model == "gaussian":
            part = sk.GaussianNB(priors=uniform, var_smoothing=0.0).fit(values, y[seen])
            jll = part.predict_joint_log_proba(values)
        elif model == "categorical":
            codes = OrdinalEncoder().fit_transform(values.astype(str))
            part = sk.CategoricalNB(fit_prior=False).fit(codes, y[seen])
            jll = part.predict_joint_log_proba(codes)
        else:
            part = sk.BernoulliNB(fit_prior=False, binarize=None).fit(values.astype(float), y[seen])
            jll = part.predict_joint_log_proba(values.astype(float))
        expected[seen] += jll - np.log(1 / 3)
    np.testing.assert_allclose(mixed.predict_joint_log_proba(X), expected, rtol=1e-10)


def test_missing_raises_unless_skip():
    X, y = shop_table()
    X.loc[3, "colour"] = None
    with pytest.raises(ValueError, match="Column 'colour' has missing values; set missing='skip'"):
        MixedNB().fit(X, y)


# ---------------------------------------------------------- categories, online


def test_unseen_category_gets_a_smoothed_zero_count():
    X = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "blue"], "size": [1.0, 2, 3, 4, 5]})
    y = np.array([0, 0, 0, 1, 1])
    model = MixedNB(alpha=1.0, missing="skip").fit(X, y)
    new = pd.DataFrame({"colour": ["purple", None], "size": [2.5, 2.5]})
    jll = model.predict_joint_log_proba(new)
    # colour term of an unseen value: 1 / (N_c + alpha K), K = 2 known colours
    np.testing.assert_allclose(jll[0] - jll[1], np.log([1 / (3 + 2), 1 / (2 + 2)]))


def test_partial_fit_equals_fit_with_new_categories_in_later_batches():
    X, y = shop_table()
    order = np.argsort(X["colour"].to_numpy() == "black", kind="stable")  # black comes last
    X, y = X.iloc[order].reset_index(drop=True), y[order]
    whole = MixedNB().fit(X, y)
    online = MixedNB()
    for batch in np.array_split(np.arange(len(y)), 3):
        online.partial_fit(X.iloc[batch], y[batch], classes=np.unique(y))
    X_test, _ = shop_table(30, seed=4)
    np.testing.assert_allclose(
        online.predict_joint_log_proba(X_test), whole.predict_joint_log_proba(X_test),
        rtol=1e-10,
    )


def test_declared_pandas_categories_count_even_if_unobserved():
    colour = pd.Categorical(["red", "red", "blue"], categories=["red", "blue", "green"])
    model = MixedNB(alpha=1.0).fit(pd.DataFrame({"colour": colour}), [0, 0, 1])
    log_prob = model.estimators_["categorical"].feature_log_prob_[0]
    # class 0: red 2 of 2 -> (2+1)/(2+3); K = 3 declared colours
    np.testing.assert_allclose(np.exp(log_prob[0]), [3 / 5, 1 / 5, 1 / 5])


def test_integer_weights_equal_duplicated_rows_and_column_order():
    X, y = shop_table()
    weights = np.random.default_rng(5).integers(1, 4, size=len(y))
    # var_smoothing=0: GaussianNB's epsilon_ uses the unweighted variance
    weighted = MixedNB(var_smoothing=0.0).fit(X, y, sample_weight=weights)
    duplicated = MixedNB(var_smoothing=0.0).fit(
        X.loc[X.index.repeat(weights)], np.repeat(y, weights)
    )
    X_test, _ = shop_table(30, seed=6)
    shuffled = X_test[X_test.columns[::-1]]
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(shuffled),
        duplicated.predict_joint_log_proba(X_test),
        rtol=1e-9,
    )


def test_explicit_models_by_name_and_index_and_fixed_priors():
    X, y = shop_table()
    model = MixedNB(models={"rooms": "gaussian", 1: "categorical"}, priors=[0.5, 0.25, 0.25])
    model.fit(X, y)
    assert model.models_["rooms"] == "gaussian" and model.models_["income"] == "categorical"
    np.testing.assert_allclose(model.class_log_prior_, np.log([0.5, 0.25, 0.25]))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    array_model = MixedNB(models={0: "gaussian", 1: "bernoulli"}).fit(
        np.array([[1.0, 0], [2.0, 1], [3.0, 1], [4.0, 0]]), ["a", "a", "b", "b"]
    )
    assert array_model.models_ == {0: "gaussian", 1: "bernoulli"}


# ----------------------------------------------------------- inference, errors


def test_inference_rule():
    assert infer_event_model(pd.Series([1.0, 2.0])) == "gaussian"
    assert infer_event_model(pd.Series([True, False])) == "bernoulli"
    assert infer_event_model(pd.Series([True, None], dtype="boolean")) == "bernoulli"
    assert infer_event_model(pd.Series(["a", "b"])) == "categorical"
    assert infer_event_model(pd.Series(["a", 1], dtype=object)) == "categorical"
    assert infer_event_model(pd.Series([1, 2, 3])) == "categorical"
    assert infer_event_model(pd.Series([1.0, 2.0]).astype("category")) == "categorical"
    with pytest.raises(ValueError, match=r"ambiguous; pass models=\{'count': 'gaussian'\}"):
        infer_event_model(pd.Series(np.arange(11), name="count"))
    with pytest.raises(ValueError, match="does not model"):
        infer_event_model(pd.Series(pd.to_datetime(["2020-01-01"]), name="day"))


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ({"weight": "gaussian"}, "models names column 'weight'"),
        ({"age": "poisson"}, "Unknown event model 'poisson'"),
        ({"colour": "gaussian"}, "Column 'colour' holds non-numeric values"),
        ({"rooms": "bernoulli"}, "holds values other than 0/1"),
        (["gaussian"], "models lists 1 event models but X has 5 columns"),
    ],
)
def test_bad_models_raise(models, message):
    X, y = shop_table()
    with pytest.raises(ValueError, match=message):
        MixedNB(models=models).fit(X, y)


def test_array_without_models_and_layout_errors():
    with pytest.raises(ValueError, match="for an array pass models="):
        MixedNB().fit(np.ones((4, 2)), [0, 1, 0, 1])
    X, y = shop_table()
    model = MixedNB().fit(X, y)
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['owns_car'\]"):
        model.predict(X.drop(columns="owns_car"))
    with pytest.raises(ValueError, match="missing must be 'error' or 'skip'"):
        MixedNB(missing="drop").fit(X, y)
    with pytest.raises(ValueError, match="classes must be passed"):
        MixedNB().partial_fit(X, y)
    with pytest.raises(ValueError, match="not in classes"):
        MixedNB().partial_fit(X, y, classes=["budget", "family"])
