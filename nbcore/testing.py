"""The comparison helpers of the notebooks' tests, from the student kit (:mod:`nbkit.testing`)."""

from nbkit.testing import assert_own_implementation, check_array, quiet

__all__ = ["check_array", "assert_own_implementation", "quiet"]
