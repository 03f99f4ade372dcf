"""``python -m grading`` runs the ``nbg`` command line."""

import sys

from grading.cli import main

if __name__ == "__main__":
    sys.exit(main())
