"""Data for the course, all of it offline except the optional SMS corpus.

- :mod:`~nbkit.datasets.worked`: the worked examples of the lectures
  (medical test, car theft, PlayTennis, IIR documents, seven e-mails,
  five customers) with the numbers the course reproduces.
- :mod:`~nbkit.datasets.bundled`: iris, wine, breast cancer and digits from
  scikit-learn, plus categorical and binary views of the digits.
- :mod:`~nbkit.datasets.synthetic`: seeded generators that also return the
  true parameters (text corpora, Gaussian classes).
- :mod:`~nbkit.datasets.spambase`: Spambase, 4,601 real e-mails as 57
  word, character and capital-letter statistics (UCI, CC BY 4.0), shipped
  in the kit with its licence and checked against its SHA-256.
- :mod:`~nbkit.datasets.spamassassin`: 5,793 real e-mails as raw text
  (subject and the start of the body; SpamAssassin public corpus, public
  domain), shipped in the kit with its licence, its build script and a SHA-256.
- :mod:`~nbkit.datasets.corpus`: a downloading, checksum-verifying loader
  for the SMS Spam Collection.

The loaders return a :class:`sklearn.utils.Bunch` with the same field
names (``frame``, ``X``, ``y``, ``classes``, ``target_names``,
``feature_names``, ``description`` and, for the worked examples,
``query``/``X_query``), except :func:`load_spambase`, which returns the
tuple ``(X, y, feature_names)``, and :func:`load_spamassassin`, whose messages
are raw text (``documents``: no ``X`` until you count the words).
"""

from nbkit.datasets.bundled import (
    load_breast_cancer,
    load_digits,
    load_digits_binary,
    load_digits_categorical,
    load_iris,
    load_wine,
)
from nbkit.datasets.corpus import (
    ChecksumMismatchError,
    DatasetUnavailableError,
    get_data_home,
    load_sms_spam,
)
from nbkit.datasets.spambase import load_spambase
from nbkit.datasets.spamassassin import load_spamassassin
from nbkit.datasets.synthetic import (
    make_gaussian_classes,
    make_spam_corpus,
    make_text_corpus,
)
from nbkit.datasets.worked import (
    car_theft,
    five_customers,
    iir_china_documents,
    medical_test,
    play_tennis,
    seven_emails,
)

__all__ = [
    "medical_test",
    "car_theft",
    "play_tennis",
    "iir_china_documents",
    "seven_emails",
    "five_customers",
    "load_iris",
    "load_wine",
    "load_breast_cancer",
    "load_digits",
    "load_digits_categorical",
    "load_digits_binary",
    "make_text_corpus",
    "make_spam_corpus",
    "make_gaussian_classes",
    "load_spambase",
    "load_spamassassin",
    "load_sms_spam",
    "get_data_home",
    "DatasetUnavailableError",
    "ChecksumMismatchError",
]
