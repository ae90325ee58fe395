#!/usr/bin/env python3
"""Writes a synthetic repro: a chain of N elementwise exprs (neg / abs / relu)
over a 2-D Float input, T(k+1) = op(Tk). The large-graph case of the
visualization acceptance criteria (docs/visualization.md):

    synth_chain.py 5000 > chain5000.json
    fusecheck dot chain5000.json -o chain.dot && time dot -Tsvg chain.dot -o chain.svg
    fusecheck dot chain5000.json --focus T2500 --depth 4 -o focus.dot

tests/viz/viz_test_util.h (elementwiseChain) generates the same document.
"""
import json
import sys


def chain(n):
    ops = ["neg", "abs", "relu"]
    tensors = []
    for t in range(n + 1):
        d = {"name": "T%d" % t, "dtype": "Float"}
        if t in (0, n):
            d["memory"] = "global"
        d["logical"] = [{"id": 2 * t, "extent": "i0"}, {"id": 2 * t + 1, "extent": "i1"}]
        tensors.append(d)
    exprs = [{"op": ops[e % 3], "inputs": ["T%d" % e], "outputs": ["T%d" % (e + 1)]} for e in range(n)]
    return {
        "format": "fusecheck.fusion/1",
        "name": "chain%d" % n,
        "scalars": [{"name": "i0"}, {"name": "i1"}],
        "tensors": tensors,
        "exprs": exprs,
        "inputs": ["T0"],
        "outputs": ["T%d" % n],
        "concrete_inputs": [{"input": "T0", "shape": [4, 8]}],
    }


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    if n < 1:
        sys.exit("N must be at least 1")
    json.dump(chain(n), sys.stdout, indent=1)
    sys.stdout.write("\n")
