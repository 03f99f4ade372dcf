"""Shared pytest setup: deterministic hypothesis (the plotting backend is set in the root conftest)."""

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a dev dependency; the rest runs without it
    pass
else:
    # Same examples on every run and every machine; modest size keeps the
    # property tests (tests/nbcore/test_properties.py) under ~20 s in total.
    settings.register_profile(
        "nbcore",
        derandomize=True,
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile("nbcore")
