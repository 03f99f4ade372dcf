"""Root pytest configuration: shared by tests/ and the nbcore doctests."""

import os

# Figures are drawn off screen everywhere tests run (CI has no display).
os.environ.setdefault("MPLBACKEND", "Agg")
