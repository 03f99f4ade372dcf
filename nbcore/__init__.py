"""nbcore: a small reference library of naive Bayes, checked against scikit-learn.

The functional core (``nbcore.estimation`` and the ``*_feature_log_prob`` /
``*_jll`` functions of each event model) is what the course notebooks teach;
the estimator classes are built on it.
"""

from nbcore.models.bernoulli import BernoulliNB, bernoulli_feature_log_prob, bernoulli_jll
from nbcore.models.categorical import (
    CategoricalNB,
    categorical_feature_log_prob,
    categorical_jll,
)
from nbcore.estimation import (
    bernoulli_mle,
    beta_credible_interval,
    beta_map,
    beta_posterior,
    beta_posterior_mean,
    categorical_mle,
    class_log_prior,
    dirichlet_map,
    dirichlet_posterior_mean,
    log_normalize,
    m_estimate,
    map_hypothesis,
    ml_hypothesis,
    posterior,
    unnormalized_posterior,
)
from nbcore.models.gaussian import GaussianNB, gaussian_jll, gaussian_mean_var
from nbcore.linear import SharedVarianceGaussianNB, linear_form
from nbcore.logistic import LogisticRegression
from nbcore.models.mixed import MixedNB
from nbcore.models.multinomial import MultinomialNB, multinomial_feature_log_prob, multinomial_jll
from nbcore.selection import mutual_information

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "GaussianNB",
    "LogisticRegression",
    "MixedNB",
    "SharedVarianceGaussianNB",
    "MultinomialNB",
    "bernoulli_feature_log_prob",
    "bernoulli_jll",
    "bernoulli_mle",
    "beta_credible_interval",
    "beta_map",
    "beta_posterior",
    "beta_posterior_mean",
    "categorical_feature_log_prob",
    "categorical_jll",
    "categorical_mle",
    "class_log_prior",
    "dirichlet_map",
    "dirichlet_posterior_mean",
    "gaussian_jll",
    "gaussian_mean_var",
    "linear_form",
    "log_normalize",
    "m_estimate",
    "map_hypothesis",
    "ml_hypothesis",
    "multinomial_feature_log_prob",
    "multinomial_jll",
    "mutual_information",
    "posterior",
    "unnormalized_posterior",
]
