#!/usr/bin/env python3
"""CTest's entry to the differential runner (python -m fusecheck.differential ARGS): exit 77 with
the reason when torch or numpy is missing, else the runner's exit status (1: a disagreement)."""
import sys

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print(f"SKIPPED: the torch oracle needs numpy and torch for {sys.executable} "
          f"(Debian: python3-numpy, python3-torch): {e}")
    sys.exit(77)

from fusecheck import differential

sys.exit(differential.main(sys.argv[1:]))
