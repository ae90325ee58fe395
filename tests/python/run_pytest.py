#!/usr/bin/env python3
"""CTest's entry to the Python tests: runs pytest on tests/python with skip reasons shown (-rs).

Exit 77 (CTest: skipped) with the reason when pytest itself is missing; pytest's exit 5 (no test
ran) is a failure. Everything else is pytest's exit status.
"""
import os
import sys

try:
    import pytest
except ImportError as e:
    print(f"SKIPPED: pytest is not installed for {sys.executable} (Debian: python3-pytest): {e}")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", here] + sys.argv[1:])
sys.exit(1 if rc == 5 else int(rc))
