"""Root pytest configuration: shared by tests/ and the nbcore doctests."""

import matplotlib

# Figures are drawn off screen in the test process (CI has no display). Set
# in-process, not through MPLBACKEND: kernels that nbval and the grader start
# would inherit the variable and store different outputs for plot cells.
matplotlib.use("Agg")

# A test run fails when it leaves a process behind (judge servers, kernels, Dask, PostgreSQL).
pytest_plugins = ["tests.process_guard"]
