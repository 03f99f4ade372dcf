"""The course's datasets, from the student kit (:mod:`nbkit.datasets`).

Kept as ``nbcore.datasets`` so instructor code and hidden tests read the same
data as the notebooks.
"""

from nbkit.datasets import *  # noqa: F403
from nbkit.datasets import __all__  # noqa: F401
