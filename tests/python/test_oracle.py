"""The torch oracle: its own rounding and scalar expressions, op semantics on hand-computed cases,
and the differential runner on every fixture fusion and a few hundred fuzz fusions (CI runs more:
the CTest test python/differential)."""
import json
import os

import pytest

from conftest import SOURCE, needs_torch

pytestmark = needs_torch


def test_every_op_of_ops_def_is_interpreted():
    import re

    from fusecheck import oracle

    # Ops fusecheck imports and checks but does not execute (NotExecuted: `run` refuses them, FC0909)
    # have nothing to compare.
    with open(os.path.join(SOURCE, "src", "ir", "ops.def")) as f:
        ops = [m.group(1) for m in re.finditer(r'FC_OP\(\w+,\s*"(\w+)".*', f.read()) if "NotExecuted" not in m.group(0)]
    assert ops and sorted(ops) == sorted(oracle.INTERPRETED_OPS)


def test_rounding_is_nvfusers():
    import torch

    from fusecheck.oracle import round_to

    x = torch.tensor([1 + 2**-11 + 2**-40, 65520.0, 1 / 3, 1e6, -1e6, float("nan"), 2.7, -2.7, 1e300],
                     dtype=torch.float64)
    h = round_to(x, "Half", torch.float64)
    assert h[0].item() == 1 + 2**-10  # one rounding from fp64 (through float32 it would tie to 1.0)
    assert h[1].item() == float("inf")
    assert h[2].item() == 0.333251953125
    i = round_to(x, "Int32", torch.int64)
    assert i.tolist()[5:] == [0, 2, -2, 2**31 - 1]
    if hasattr(torch, "float8_e4m3fn"):
        e = round_to(x, "Float8_e4m3fn", torch.float64)
        assert e[3].item() == 448 and e[4].item() == -448  # saturates


def test_scalar_expressions():
    from fusecheck import oracle

    f = oracle.Fusion({"format": "fusecheck.fusion/1", "scalars": [{"name": "a", "value": 7}, {"name": "b", "value": -2}],
                       "tensors": [], "exprs": [], "inputs": [], "outputs": []})
    it = oracle.Interpreter(f)
    assert it.scalar("a / b") == -3 and it.scalar("a % b") == 1  # C++ truncation
    assert it.scalar("ceilDiv(a, 2) * max(a, b) - min(1, 2)") == 27
    assert it.scalar("-5 + 2.5") == -2.5 and it.scalar("a / 2.0") == 3.5


def tensor(name, dtype, extents, reduction=()):
    return {"name": name, "dtype": dtype, "logical": [
        {"id": hash((name, k)) % 100000, "extent": e, **({"iter": "Reduction"} if k in reduction else {})}
        for k, e in enumerate(extents)]}


def test_op_semantics_by_hand():
    import torch

    from fusecheck import oracle

    doc = {
        "format": "fusecheck.fusion/1",
        "tensors": [tensor("T0", "Float", [2, 3]), tensor("T1", "Float", [3, 2]), tensor("T2", "Float", [2], reduction=()),
                    tensor("T3", "Float", [2, 3, 1], reduction=()), tensor("T4", "Float", [2, 5]),
                    tensor("T5", "Int", [2, 3]), tensor("T6", "Float", [2, 1])],
        "exprs": [
            {"op": "permute", "inputs": ["T0"], "outputs": ["T1"], "dims": [1, 0]},
            {"op": "var", "inputs": ["T0"], "outputs": ["T2"], "dims": [1], "correction": 0},
            {"op": "broadcast", "inputs": ["T0"], "outputs": ["T3"], "flags": [False, False, True]},
            {"op": "pad", "inputs": ["T0"], "outputs": ["T4"], "pad": [1, 1], "value": -1},
            {"op": "cast", "inputs": ["T0"], "outputs": ["T5"], "dtype": "Int"},
            {"op": "slice", "inputs": ["T0"], "outputs": ["T6"], "ranges": [{"start": 0, "stop": 2}, {"start": -1, "stop": 9}]},
        ],
        "inputs": ["T0"], "outputs": ["T1", "T2", "T3", "T4", "T5", "T6"],
    }
    for t in doc["tensors"]:
        for k, a in enumerate(t["logical"]):
            a["id"] = len(t["name"]) * 0 + doc["tensors"].index(t) * 10 + k
    x = torch.tensor([[1.0, 2.0, 3.0], [-4.5, 5.0, 6.0]])
    r = oracle.evaluate(doc, {"T0": x})
    assert r.outputs["T1"].tolist() == [[1.0, -4.5], [2.0, 5.0], [3.0, 6.0]]
    assert r.outputs["T2"].tolist()[0] == pytest.approx(2 / 3)
    assert list(r.outputs["T3"].shape) == [2, 3, 1]
    assert r.outputs["T4"].tolist()[0] == [-1.0, 1.0, 2.0, 3.0, -1.0]
    assert r.outputs["T5"].tolist() == [[1, 2, 3], [-4, 5, 6]]
    assert r.outputs["T6"].tolist() == [[3.0], [6.0]]


def test_differential_on_every_fixture_fusion(cli, capsys):
    from fusecheck import differential

    rc = differential.main(["--cli", cli, "--fixtures", os.path.join(SOURCE, "fixtures"), "--jobs", "2"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert " 0 disagree" in out
    assert "never: none" in out  # every op kind is compared in some fixture fusion


def test_differential_on_fuzz_fusions(cli, capsys, tmp_path):
    from fusecheck import differential

    rc = differential.main(["--cli", cli, "--fuzz", "150", "--fuzz-seed", "7000", "--jobs", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "150 agree, 0 disagree" in out


def test_a_wrong_executor_is_caught(cli, tmp_path, capsys):
    """A planted op bug (a fusion whose saved outputs are edited) must show as a disagreement with a
    repro folder: the runner compares values, not verdicts."""
    from fusecheck import differential, oracle, tensors

    seed = os.path.join(SOURCE, "fixtures", "seed", "matmul_allreduce_bias.json")
    outcome = differential.check_one(cli, seed, str(tmp_path), ["f64"], "cpu", "cpu", keep=False)
    assert outcome.status == "agree"
    # The same comparison with fusecheck's output perturbed by 1% of its scale.
    import torch

    a = torch.linspace(-1, 1, 12, dtype=torch.float64)
    d = oracle.compare("T9", "Float", a * 1.01, a, "Half", 64, 1, "f64")
    assert d is not None and d.count > 0 and "beyond tolerance" in d.reason


def test_a_declared_dtype_torch_would_not_promote_to_is_listed():
    """where(c, 1.0, 2.0) on two Double scalars declared Float: the oracle computes the declared
    dtype but lists the difference, the way a wrong type-promotion rule shows."""
    import torch

    from fusecheck import oracle

    doc = {
        "format": "fusecheck.fusion/1",
        "scalars": [{"name": "a", "dtype": "Double"}, {"name": "b", "dtype": "Double"}],
        "tensors": [{"name": "T0", "dtype": "Bool", "logical": [{"id": 0, "extent": 3}]},
                    {"name": "T1", "dtype": "Float", "logical": [{"id": 1, "extent": 3}]}],
        "exprs": [{"op": "where", "inputs": ["T0", "a", "b"], "outputs": ["T1"]}],
        "inputs": ["T0", "a", "b"], "outputs": ["T1"],
    }
    r = oracle.evaluate(doc, {"T0": torch.tensor([True, False, True]), "a": torch.tensor(0.1, dtype=torch.float64),
                              "b": torch.tensor(2.0, dtype=torch.float64)})
    assert r.outputs["T1"].tolist() == [torch.tensor(0.1, dtype=torch.float32).item(), 2.0, torch.tensor(0.1, dtype=torch.float32).item()]
    assert r.promotions == ["where -> T1: declared Float, torch promotes the operands to Double"]
