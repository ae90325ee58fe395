#!/usr/bin/env python3
"""Benchmark: `fusecheck.load(seed).check()` in a warm process (the Python API's budget: 1 ms).

    PYTHONPATH=build/python /usr/bin/python3 tools/bench/python_check.py [--repeat N] [REPRO]

Prints the median and the 90th percentile of N calls (after 50 warm-up calls) of load + check, and
of check alone on a loaded repro; exit 1 when the median of load + check exceeds 1 ms.
"""
import argparse
import os
import statistics
import sys
import time

import fusecheck

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("repro", nargs="?", default=os.path.join(here, "..", "..", "fixtures", "seed", "matmul_allreduce_bias.json"))
ap.add_argument("--repeat", type=int, default=2000)
a = ap.parse_args()


def timed(fn, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    out.sort()
    return statistics.median(out) * 1e6, out[int(0.9 * len(out))] * 1e6


loaded = fusecheck.load(a.repro)
for _ in range(50):
    fusecheck.load(a.repro).check()
lc = timed(lambda: fusecheck.load(a.repro).check(), a.repeat)
c = timed(lambda: loaded.check(), a.repeat)
print(f"load + check: median {lc[0]:.0f} us, p90 {lc[1]:.0f} us ({a.repeat} calls)")
print(f"check:        median {c[0]:.0f} us, p90 {c[1]:.0f} us")
sys.exit(0 if lc[0] <= 1000 else 1)
