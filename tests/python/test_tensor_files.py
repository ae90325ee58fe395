"""Tensor files through the CLI: an independent reader (struct + json) reads what fusecheck writes,
fusecheck reads what Python writes, --save-inputs then --inputs reproduces outputs bit for bit,
per-rank files give what the global file gives, and the Python API equals `run --inputs x.npz`."""
import json
import os
import struct

import numpy as np
import pytest

from conftest import SEED, needs_core, run_cli

DTYPES = ["Bool", "Int32", "Int", "Half", "BFloat16", "Float", "Double", "Float8_e4m3fn", "Float8_e5m2"]
ST = {"Bool": "BOOL", "Int32": "I32", "Int": "I64", "Half": "F16", "BFloat16": "BF16", "Float": "F32",
      "Double": "F64", "Float8_e4m3fn": "F8_E4M3", "Float8_e5m2": "F8_E5M2"}
WIDTH = {"BOOL": 1, "I32": 4, "I64": 8, "F16": 2, "BF16": 2, "F32": 4, "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1}


def every_dtype_fusion(path):
    """Inputs of every dtype, each copied to an output (`set`)."""
    tensors, exprs, ins, outs = [], [], [], []
    for k, dt in enumerate(DTYPES):
        tensors.append({"name": f"T{k}", "dtype": dt, "memory": "global",
                        "logical": [{"id": 2 * k, "extent": 2}, {"id": 2 * k + 1, "extent": 3}]})
        tensors.append({"name": f"U{k}", "dtype": dt, "memory": "global",
                        "logical": [{"id": 100 + 2 * k, "extent": 2}, {"id": 101 + 2 * k, "extent": 3}]})
        exprs.append({"op": "set", "inputs": [f"T{k}"], "outputs": [f"U{k}"]})
        ins.append(f"T{k}")
        outs.append(f"U{k}")
    doc = {"format": "fusecheck.fusion/1", "name": "every_dtype", "tensors": tensors, "exprs": exprs,
           "inputs": ins, "outputs": outs}
    with open(path, "w") as f:
        json.dump(doc, f)


def independent_read(path):
    """A safetensors reader of its own: struct for the length, json for the header."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", None)
    data = blob[8 + n:]
    out = {}
    for name, d in header.items():
        b, e = d["data_offsets"]
        count = 1
        for s in d["shape"]:
            count *= s
        assert e - b == count * WIDTH[d["dtype"]], name
        out[name] = (d["dtype"], d["shape"], data[b:e])
    return out, meta


def test_fusecheck_safetensors_read_back_independently(cli, tmp_path):
    f = tmp_path / "every_dtype.json"
    every_dtype_fusion(f)
    ins, outs = tmp_path / "in.safetensors", tmp_path / "out.safetensors"
    run_cli(cli, "run", str(f), "--save-inputs", str(ins), "--save-outputs", str(outs))
    got_in, meta = independent_read(ins)
    assert meta["producer"] == "fusecheck" and meta["fusecheck.role"] == "inputs"
    got_out, _ = independent_read(outs)
    for k, dt in enumerate(DTYPES):
        assert got_in[f"T{k}"][:2] == (ST[dt], [2, 3])
        assert got_out[f"U{k}"][:2] == (ST[dt], [2, 3])
        assert got_out[f"U{k}"][2] == got_in[f"T{k}"][2]  # set copies the bytes
    # Half values decode as numpy float16; generated floats lie in [-1, 1).
    h = np.frombuffer(got_in["T3"][2], dtype="<f2")
    assert np.all((h >= -1) & (h < 1))
    i = np.frombuffer(got_in["T2"][2], dtype="<i8")
    assert np.all((i >= 0) & (i < 10))


def test_python_written_files_read_by_fusecheck(cli, tmp_path):
    from fusecheck import tensors

    f = tmp_path / "every_dtype.json"
    every_dtype_fusion(f)
    vals = {
        "Bool": np.array([[True, False, True], [False, False, True]]),
        "Int32": np.array([[-5, 0, 7], [2147483647, -2147483648, 1]], dtype=np.int32),
        "Int": np.array([[-(2**53), 0, 2**53], [3, 4, 5]], dtype=np.int64),
        "Half": np.array([[1 / 3, -0.0, 65504], [np.inf, -np.inf, 2**-24]], dtype=np.float16),
        "BFloat16": np.array([[1.0, -2.5, 3.140625], [2.0**-126, 0.0, -0.0]], dtype=np.float32),
        "Float": np.array([[0.1, -0.2, 3e38], [1e-45, 5.0, 6.0]], dtype=np.float32),
        "Double": np.array([[0.1, -0.2, 1e308], [5e-324, 5.0, 6.0]]),
        "Float8_e4m3fn": np.array([[448, -448, 0.015625], [1.125, -0.0, 2**-9]], dtype=np.float32),
        "Float8_e5m2": np.array([[57344, -57344, 1.5], [2**-16, 0.0, 0.25]], dtype=np.float32),
    }
    items = [(f"T{k}", ST[dt], vals[dt]) for k, dt in enumerate(DTYPES)]
    for suffix in (".safetensors",):
        ins = tmp_path / ("in" + suffix)
        outs = tmp_path / "out.safetensors"
        tensors.write_safetensors(str(ins), items, {"producer": "tests/python"})
        run_cli(cli, "run", str(f), "--inputs", str(ins), "--save-outputs", str(outs))
        back = {n: (dt, v) for n, dt, v in tensors.read_safetensors(str(outs))[0]}
        for k, dt in enumerate(DTYPES):
            bdt, v = back[f"U{k}"]
            assert bdt == ST[dt]
            want = vals[dt]
            assert np.array_equal(np.asarray(v, dtype=np.float64), np.asarray(want, dtype=np.float64), equal_nan=True), dt
            if want.dtype.kind == "f":  # the sign of zero survives
                assert np.array_equal(np.signbit(np.asarray(v, dtype=np.float64)), np.signbit(want.astype(np.float64))), dt


@pytest.mark.parametrize("era", ["head", "2024-07"])
def test_save_inputs_then_inputs_is_bit_for_bit(cli, tmp_path, era):
    fusions = [SEED]
    d = tmp_path / "fz"
    run_cli(cli, "fuzz", "--emit", str(d), "--seed", "40", "--count", "12")
    fusions += sorted(str(p) for p in d.iterdir())
    for f in fusions:
        a_in, a_out, b_out = tmp_path / "a_in.safetensors", tmp_path / "a_out.safetensors", tmp_path / "b_out.safetensors"
        for p in (a_in, a_out, b_out):
            if p.exists():
                p.unlink()
        first = run_cli(cli, "run", f, "--nvfuser", era, "--save-inputs", str(a_in), "--save-outputs", str(a_out), check=False)
        if not a_out.exists():
            # it fails at that point, or the model does not decide it there: no outputs
            assert first.returncode in (1, 5), first.stdout + first.stderr
            continue
        run_cli(cli, "run", f, "--nvfuser", era, "--inputs", str(a_in), "--save-outputs", str(b_out), check=False)
        assert a_out.read_bytes() == b_out.read_bytes(), f


def test_inputs_per_rank_equal_the_global_file(cli, tmp_path):
    from fusecheck import tensors

    g_in, g_out, r_out = tmp_path / "g.safetensors", tmp_path / "g_out.safetensors", tmp_path / "r_out.safetensors"
    run_cli(cli, "run", SEED, "--nvfuser", "head", "--save-inputs", str(g_in), "--save-outputs", str(g_out))
    glob_in = tensors.read_safetensors(str(g_in))[0]
    # The seed's T0 and T1 are DIDx-sharded on axis 0 over 2 devices; T2 is replicated.
    rank_files = []
    for r in range(2):
        items = [(n, dt, v[r:r + 1] if n in ("T0", "T1") else v) for n, dt, v in glob_in]
        p = tmp_path / f"rank{r}.npz"
        tensors.write_npz(str(p), items)
        rank_files.append(str(p))
    run_cli(cli, "run", SEED, "--nvfuser", "head", "--inputs-per-rank", ",".join(rank_files), "--save-outputs", str(r_out))
    assert g_out.read_bytes() == r_out.read_bytes()
    # A replica that differs between the rank files is refused at the input.
    items = [(n, dt, v + np.float16(1) if n == "T2" else v[1:2] if n != "T2" else v) for n, dt, v in glob_in]
    tensors.write_npz(rank_files[1], items)
    p = run_cli(cli, "run", SEED, "--nvfuser", "head", "--inputs-per-rank", ",".join(rank_files), check=False)
    assert p.returncode == 2 and "FC0506" in p.stdout + p.stderr and "replica" in p.stdout + p.stderr


@needs_core
def test_python_api_equals_run_inputs_npz(cli, tmp_path):
    import fusecheck
    from fusecheck import tensors

    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (2, 64, 128)).astype(np.float16)
    w = rng.uniform(-1, 1, (2, 64, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64,)).astype(np.float16)
    api = fusecheck.load(SEED).run(inputs=[x, w, b], nvfuser="head")
    np.savez(tmp_path / "x.npz", T0=x, T1=w, T2=b)
    out = tmp_path / "out.safetensors"
    run_cli(cli, "run", SEED, "--nvfuser", "head", "--inputs", str(tmp_path / "x.npz"), "--save-outputs", str(out))
    (name, dt, v), = tensors.read_safetensors(str(out))[0]
    assert name == "T9" and dt == "F32"
    assert api[0].dtype == v.dtype and np.array_equal(api[0], v)
    assert api[0].tobytes() == v.tobytes()


def test_imported_inputs_list_is_honoured(cli, tmp_path):
    """make_tensor's low/high, randint's bounds, ones/full fills and expand's stride 0 shape the
    generated values (fusecheck's own values: torch's generator cannot be matched)."""
    from fusecheck import tensors

    src = os.path.join(os.path.dirname(SEED), "..", "tensors", "inputs_ranges.py")
    f = tmp_path / "ranges.json"
    run_cli(cli, "import", src, "-o", str(f))
    ins = tmp_path / "in.safetensors"
    run_cli(cli, "run", str(f), "--save-inputs", str(ins))
    t = {n: (dt, v) for n, dt, v in tensors.read_safetensors(str(ins))[0]}
    assert t["T0"][0] == "F16" and t["T0"][1].shape == (4, 6)
    x = t["T0"][1].astype(np.float64)
    assert x.min() >= -2 and x.max() < 3 and x.max() - x.min() > 2  # spread over the range
    i = t["T1"][1]
    assert t["T1"][0] == "I64" and i.min() >= 5 and i.max() <= 8 and len(set(i.ravel().tolist())) > 1
    assert np.all(t["T2"][1] == 1) and np.all(t["T3"][1] == 0.25)
    e = t["T4"][1]
    assert np.all(e == e[0:1, :]) and e.min() >= 0 and e.max() < 1  # expanded rows repeat
