"""The naive Bayes estimators, one module per event model, on nbcore's functional core.

- ``categorical``, ``multinomial``, ``bernoulli``, ``gaussian``: each event model's
  ``*_feature_log_prob`` (or ``gaussian_mean_var``) and ``*_jll`` functions and its estimator;
- ``mixed``: ``MixedNB``, one of those per kind of column;
- ``_base``: what the estimators share (scikit-learn's API, sample weights, missing values).

They import the functional core below them (:mod:`nbcore.estimation`, :mod:`nbcore._validation`),
never the modules built on them (:mod:`nbcore.linear`, :mod:`nbcore.logistic`, :mod:`nbcore.practice`).
The package :mod:`nbcore` re-exports the estimators and functions.
"""
