"""The small worked examples of the course, as data.

Every function returns a :class:`sklearn.utils.Bunch` with the same field
names, so a notebook can switch examples without relearning the layout:

``frame``
    The table as printed in the source (a pandas DataFrame, names not codes).
``X``, ``y``
    The training data ready for nbcore: integer category codes for the
    categorical tables, a sparse count matrix for the text examples, floats
    for the Gaussian example; ``y`` holds class codes ``0 .. n_classes-1``.
``classes``, ``target_names``
    ``classes`` is ``arange(n_classes)``; ``target_names[c]`` is the name of
    class ``c``.
``feature_names``
    Column names of ``X`` (the vocabulary for text).
``query``, ``X_query``
    The example the source classifies, as written and encoded like ``X``
    (shape ``(1, n_features)``).
``description``
    Where the example comes from and what it is used for.

Categorical tables add ``categories`` (``categories[j][k]`` is the name of
code ``k`` of feature ``j``), ``encoder`` (``feature -> {name: code}``) and
``n_categories``. Text examples add ``documents``, ``vocabulary``,
``X_binary`` and ``X_query_binary``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from sklearn.feature_extraction.text import CountVectorizer

from nbkit.text import build_vocabulary, tokenize

__all__ = [
    "medical_test",
    "car_theft",
    "play_tennis",
    "iir_china_documents",
    "seven_emails",
    "five_customers",
]


def _categorical_bunch(rows, feature_names, target_name, categories, target_names,
                       query, description):
    """Encode a table of category names into integer codes, keeping the mapping."""
    frame = pd.DataFrame(rows, columns=[*feature_names, target_name])
    encoder = {
        name: {value: code for code, value in enumerate(values)}
        for name, values in zip(feature_names, categories)
    }
    X = np.column_stack(
        [frame[name].map(encoder[name]).to_numpy(dtype=np.int64) for name in feature_names]
    )
    class_codes = {name: code for code, name in enumerate(target_names)}
    y = frame[target_name].map(class_codes).to_numpy(dtype=np.int64)
    X_query = np.array([[encoder[name][query[name]] for name in feature_names]], dtype=np.int64)
    return Bunch(
        frame=frame,
        X=X,
        y=y,
        classes=np.arange(len(target_names)),
        target_names=np.array(target_names),
        feature_names=np.array(feature_names),
        target_name=target_name,
        categories=[np.array(values) for values in categories],
        encoder=encoder,
        n_categories=[len(values) for values in categories],
        query=dict(query),
        X_query=X_query,
        description=description,
    )


def _vectorizer(vocabulary, binary):
    # scikit-learn's vectoriser with the course's tokenizer: the student kit must
    # not contain the count_vectors / binary_vectors the notebooks ask for.
    return CountVectorizer(analyzer=tokenize, vocabulary=vocabulary, binary=binary, dtype=np.int64)


def _text_bunch(documents, labels, target_names, query, description):
    """Tokenize a tiny corpus and attach count and presence matrices."""
    class_codes = {name: code for code, name in enumerate(target_names)}
    vocabulary = build_vocabulary(documents)
    counts, presence = _vectorizer(vocabulary, False), _vectorizer(vocabulary, True)
    return Bunch(
        frame=pd.DataFrame({"text": documents, "label": labels}),
        documents=list(documents),
        X=counts.transform(documents).tocsr(),
        X_binary=presence.transform(documents).tocsr(),
        y=np.array([class_codes[label] for label in labels], dtype=np.int64),
        classes=np.arange(len(target_names)),
        target_names=np.array(target_names),
        vocabulary=vocabulary,
        feature_names=np.array(list(vocabulary)),
        query=query,
        X_query=counts.transform([query]).tocsr(),
        X_query_binary=presence.transform([query]).tocsr(),
        description=description,
    )


def medical_test() -> Bunch:
    """The cancer screening test: Bayes' rule with two hypotheses.

    A patient tests positive. Prior P(cancer) = 0.008; the test detects
    98% of cancers (P(+ | cancer) = 0.98) and wrongly reports 3% of healthy
    patients as positive (P(+ | no cancer) = 0.03). Source: Mitchell,
    *Machine Learning* (1997), ch. 6, as used in the course's lecture notes.

    Returns
    -------
    data : Bunch
        ``prior`` (P(h), shape (2,)), ``likelihood`` (P(+ | h), the observed
        result, shape (2,)), ``target_names`` (``["cancer", "no cancer"]``),
        ``classes``, ``frame`` (P(h), P(+ | h), P(- | h) per hypothesis),
        ``query`` (``"+"``) and ``description``.

    Examples
    --------
    >>> data = medical_test()
    >>> data.prior * data.likelihood
    array([0.00784, 0.02976])
    """
    prior = np.array([0.008, 0.992])
    likelihood_positive = np.array([0.98, 0.03])
    target_names = np.array(["cancer", "no cancer"])
    frame = pd.DataFrame(
        {
            "P(h)": prior,
            "P(+ | h)": likelihood_positive,
            "P(- | h)": 1.0 - likelihood_positive,
        },
        index=pd.Index(target_names, name="hypothesis"),
    )
    return Bunch(
        prior=prior,
        likelihood=likelihood_positive,
        target_names=target_names,
        classes=np.arange(2),
        frame=frame,
        query="+",
        description=(
            "Medical diagnosis (Mitchell 1997, ch. 6; Rezvanian's lecture 4 in "
            "the course seeds): "
            "P(cancer)=0.008, P(+|cancer)=0.98, P(+|no cancer)=0.03; a new "
            "patient tests positive. Scores 0.00784 vs 0.02976, P(cancer|+) "
            "is about 0.21, so the MAP hypothesis is 'no cancer'."
        ),
    )


def car_theft() -> Bunch:
    """Ten cars described by colour, type and origin, and whether each was stolen.

    The query is a red domestic SUV. With maximum-likelihood estimates the
    unnormalised scores are 0.024 (stolen) and 0.072 (not stolen).

    Returns
    -------
    data : Bunch
        Categorical fields (see the module docstring); ``target_names`` is
        ``["No", "Yes"]`` (``y == 1`` means stolen).

    Examples
    --------
    >>> data = car_theft()
    >>> data.X.shape, data.n_categories
    ((10, 3), [2, 2, 2])
    >>> data.X_query, data.query
    (array([[0, 1, 0]]), {'Color': 'Red', 'Type': 'SUV', 'Origin': 'Domestic'})
    """
    rows = [
        ("Red", "Sports", "Domestic", "Yes"),
        ("Red", "Sports", "Domestic", "No"),
        ("Red", "Sports", "Domestic", "Yes"),
        ("Yellow", "Sports", "Domestic", "No"),
        ("Yellow", "Sports", "Imported", "Yes"),
        ("Yellow", "SUV", "Imported", "No"),
        ("Yellow", "SUV", "Imported", "Yes"),
        ("Yellow", "SUV", "Domestic", "No"),
        ("Red", "SUV", "Imported", "No"),
        ("Red", "Sports", "Imported", "Yes"),
    ]
    return _categorical_bunch(
        rows,
        feature_names=["Color", "Type", "Origin"],
        target_name="Stolen",
        categories=[["Red", "Yellow"], ["Sports", "SUV"], ["Domestic", "Imported"]],
        target_names=["No", "Yes"],
        query={"Color": "Red", "Type": "SUV", "Origin": "Domestic"},
        description=(
            "Car theft (Rezvanian, Machine Learning lecture 4, in the course "
            "seeds): 10 cars, 5 stolen. Query: a red domestic SUV. MLE "
            "scores 3/5*1/5*2/5*1/2 = 0.024 (stolen) vs 2/5*3/5*3/5*1/2 = 0.072 "
            "(not stolen), so P(stolen | x) = 0.25."
        ),
    )


def play_tennis() -> Bunch:
    """Mitchell's fourteen days of weather, and whether tennis was played.

    The query is a sunny, cool, highly humid day with strong wind. With
    maximum-likelihood estimates the scores are 0.0052910 (yes) and
    0.0205714 (no).

    Returns
    -------
    data : Bunch
        Categorical fields (see the module docstring); ``target_names`` is
        ``["No", "Yes"]``.

    Examples
    --------
    >>> data = play_tennis()
    >>> data.X.shape, data.n_categories
    ((14, 4), [3, 3, 2, 2])
    >>> int((data.y == 1).sum()), int((data.y == 0).sum())
    (9, 5)
    """
    rows = [
        ("Sunny", "Hot", "High", "Weak", "No"),
        ("Sunny", "Hot", "High", "Strong", "No"),
        ("Overcast", "Hot", "High", "Weak", "Yes"),
        ("Rain", "Mild", "High", "Weak", "Yes"),
        ("Rain", "Cool", "Normal", "Weak", "Yes"),
        ("Rain", "Cool", "Normal", "Strong", "No"),
        ("Overcast", "Cool", "Normal", "Strong", "Yes"),
        ("Sunny", "Mild", "High", "Weak", "No"),
        ("Sunny", "Cool", "Normal", "Weak", "Yes"),
        ("Rain", "Mild", "Normal", "Weak", "Yes"),
        ("Sunny", "Mild", "Normal", "Strong", "Yes"),
        ("Overcast", "Mild", "High", "Strong", "Yes"),
        ("Overcast", "Hot", "Normal", "Weak", "Yes"),
        ("Rain", "Mild", "High", "Strong", "No"),
    ]
    frame_index = [f"D{day}" for day in range(1, 15)]
    data = _categorical_bunch(
        rows,
        feature_names=["Outlook", "Temperature", "Humidity", "Wind"],
        target_name="PlayTennis",
        categories=[
            ["Sunny", "Overcast", "Rain"],
            ["Hot", "Mild", "Cool"],
            ["High", "Normal"],
            ["Weak", "Strong"],
        ],
        target_names=["No", "Yes"],
        query={"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"},
        description=(
            "PlayTennis (Mitchell, Machine Learning, 1997, Table 3.2, used in "
            "ch. 6.9): 14 days, 9 played. Query: sunny, cool, high humidity, "
            "strong wind. MLE scores 0.0052910 (yes) vs 0.0205714 (no)."
        ),
    )
    data.frame.index = pd.Index(frame_index, name="Day")
    return data


def iir_china_documents() -> Bunch:
    """The four training documents and one test document of IIR chapter 13.

    Class "china" holds d1-d3, class "not china" holds d4 (the seed calls
    them c and j). The test document d5 is "Chinese Chinese Chinese Tokyo
    Japan". The multinomial model picks china, the Bernoulli model picks
    not china.

    Returns
    -------
    data : Bunch
        Text fields (see the module docstring); ``target_names`` is
        ``["china", "not china"]``; the vocabulary has 6 words.

    Examples
    --------
    >>> data = iir_china_documents()
    >>> data.feature_names.tolist()
    ['beijing', 'chinese', 'japan', 'macao', 'shanghai', 'tokyo']
    >>> data.X_query.toarray()
    array([[0, 3, 1, 0, 0, 1]])
    """
    documents = [
        "Chinese Beijing Chinese",
        "Chinese Chinese Shanghai",
        "Chinese Macao",
        "Tokyo Japan Chinese",
    ]
    data = _text_bunch(
        documents,
        labels=["china", "china", "china", "not china"],
        target_names=["china", "not china"],
        query="Chinese Chinese Chinese Tokyo Japan",
        description=(
            "Manning, Raghavan & Schuetze, Introduction to Information "
            "Retrieval (2008), Table 13.1 (also in the course lecture notes, "
            "classes c and j): d1-d4 for training, d5 to classify. Multinomial "
            "NB with add-one smoothing: 3.0121e-4 (china) vs 1.3548e-4; "
            "Bernoulli NB (IIR 13.3): 0.005184 vs 0.0219479, the decision flips."
        ),
    )
    data.frame.index = pd.Index(["d1", "d2", "d3", "d4"], name="doc")
    return data


def seven_emails() -> Bunch:
    """Seven short e-mails labelled spam or not spam, and a new one to classify.

    Tokenized with :func:`nbkit.text.tokenize`, which reproduces the
    lecture's counts exactly: 11 words in spam, 16 in not spam, 14 distinct
    words. The new e-mail is "You! Lottery! Lottery! Lottery!!".

    Returns
    -------
    data : Bunch
        Text fields (see the module docstring); ``target_names`` is
        ``["not spam", "spam"]``.

    Examples
    --------
    >>> data = seven_emails()
    >>> len(data.vocabulary), int(data.X[data.y == 1].sum()), int(data.X[data.y == 0].sum())
    (14, 11, 16)
    """
    emails = [
        ("Hi see you at dinner.", "not spam"),
        ("Buy lottery!", "spam"),
        ("Hi, wanna have dinner?", "not spam"),
        ("Hi you, nice dinner today!", "not spam"),
        ("Wanna get rich today?", "spam"),
        ("Lottery dinner?", "not spam"),
        ("Win lottery; get rich today!", "spam"),
    ]
    data = _text_bunch(
        [text for text, _ in emails],
        labels=[label for _, label in emails],
        target_names=["not spam", "spam"],
        query="You! Lottery! Lottery! Lottery!!",
        description=(
            "Spam filter example (Yu, Statistical Methods for Data Science, "
            "lecture 5, in the course seeds): 7 e-mails, 3 spam. Spam has 11 "
            "words, not spam 16, |V| = 14. With alpha = 1 the new e-mail scores "
            "2.96e-5 (spam) vs 1.69e-5 (not spam); without smoothing the spam "
            "score is 0 because 'you' never occurs in spam."
        ),
    )
    data.frame.index = pd.Index(range(1, 8), name="email")
    return data


def five_customers() -> Bunch:
    """Five shop customers: will a browsing customer buy the computer or drop out?

    Features (continuous): hours on Facebook per day, dollars spent on
    games, active hours per day. The new customer is x = [2.51, 4.38, 2.51].

    The lecture writes the standard deviation with 1/(N_c - 1) but its
    printed drop-out score 0.016 is computed with 1/N_c (the MLE, 0.01578);
    with 1/(N_c - 1) the score is 0.01928.

    Returns
    -------
    data : Bunch
        ``frame``, ``X`` (float, shape (5, 3)), ``y``, ``classes``,
        ``target_names`` (``["complete", "drop out"]``, the lecture's codes 0
        and 1), ``feature_names``, ``query`` (shape (3,)), ``X_query``
        (shape (1, 3)) and ``description``.

    Examples
    --------
    >>> data = five_customers()
    >>> data.X.shape, data.y.tolist()
    ((5, 3), [1, 0, 1, 1, 0])
    """
    X = np.array(
        [
            [2.44, 2.48, 2.64],
            [9.77, 6.82, 0.55],
            [2.15, 8.05, 3.11],
            [1.96, 3.78, 3.75],
            [8.31, 7.93, 0.16],
        ]
    )
    y = np.array([1, 0, 1, 1, 0])
    target_names = np.array(["complete", "drop out"])
    feature_names = ["facebook_hours", "games_dollars", "active_hours"]
    frame = pd.DataFrame(X, columns=feature_names, index=pd.Index(range(1, 6), name="customer"))
    frame["outcome"] = target_names[y]
    query = np.array([2.51, 4.38, 2.51])
    return Bunch(
        frame=frame,
        X=X,
        y=y,
        classes=np.arange(2),
        target_names=target_names,
        feature_names=np.array(feature_names),
        query=query,
        X_query=query[np.newaxis, :],
        description=(
            "Real-time customer insight (Yu, Statistical Methods for Data "
            "Science, lecture 5, in the course seeds): 5 customers, 3 dropped "
            "out. New customer x = [2.51, 4.38, 2.51]. With the MLE variance "
            "(divide by N_c) the drop-out score is 0.01578 (printed 0.016) and "
            "the complete score about 1.9e-51; dividing by N_c - 1 gives 0.01928."
        ),
    )
