"""The Python API: load, check (diagnostics as objects), fix, run (numpy and torch)."""
import os

import numpy as np
import pytest

from conftest import SOURCE, needs_core, needs_torch

pytestmark = needs_core


def test_load_check_diagnostics_are_objects(seed_path):
    import fusecheck

    r = fusecheck.load(seed_path)
    assert r.inputs == ["T0", "T1", "T2"] and r.outputs == ["T9"]
    v = r.check(nvfuser="2024-06")
    assert not v and v.exit_code == 1 and v.era == "2024-06"
    d = v.errors[0]
    assert d.code == "FC0301" and d.severity == "error"
    assert "cannot evaluate extent i0" in d.message
    assert d.location.line == 56 and d.location.col == 9 and d.location.pointer == "/tensors/5/logical/0"
    assert any("keeps Reduction axes" in n.message for n in d.notes)
    assert "FC0301" in str(v)
    assert r.check(nvfuser="2024-07").ok
    assert r.check(nvfuser="head")


def test_load_text_and_nvfuser_python(seed_path):
    import fusecheck

    with open(seed_path) as f:
        text = f.read()
    assert fusecheck.load(text).outputs == ["T9"]
    py = os.path.join(SOURCE, "fixtures", "import", "seed_matmul_allreduce_bias.py")
    r = fusecheck.load(py)
    assert not r.check(nvfuser="2024-06")


def test_load_error_carries_diagnostics():
    import fusecheck

    with pytest.raises(fusecheck.LoadError) as e:
        fusecheck.load('{"format": "fusecheck.fusion/1"}')
    assert e.value.diagnostics and e.value.diagnostics[0].code == "FC0013"


def test_fix_then_run_numpy(seed_path):
    import fusecheck

    fixed = fusecheck.load(seed_path).fix(nvfuser="2024-06")
    assert fixed.fix_actions and fixed.fix_actions[0].startswith("strip-reduction-axes")
    assert fixed.check(nvfuser="2024-06")
    out = fixed.run(nvfuser="2024-06")
    assert out.passed and out.exit_code == 0
    assert out.names == ["T9"] and out.dtypes == ["Float"]
    assert isinstance(out[0], np.ndarray) and out[0].dtype == np.float32 and out[0].shape == (128, 64)


def test_run_with_numpy_inputs_and_by_name(seed_path):
    import fusecheck

    r = fusecheck.load(seed_path)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 64, 128)).astype(np.float16)
    w = rng.uniform(-1, 1, (2, 64, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64,)).astype(np.float16)
    a = r.run(inputs=[x, w, b], nvfuser="head")
    c = r.run(inputs={"T0": x, "T1": w, "T2": b}, nvfuser="head")
    assert a.passed and np.array_equal(a[0], c[0])
    ref = np.einsum("dmk,dkn->mn", x.astype(np.float64).transpose(0, 2, 1), w.astype(np.float64))
    assert np.abs(a[0] - (ref + b.astype(np.float64))).max() < 0.05
    bad = r.run(inputs=[x.astype(np.float32), w, b], nvfuser="head")
    assert bad.exit_code == 2 and bad.diagnostics[0].code == "FC0506"
    assert bad.diagnostics[0].location.pointer == "/inputs/0"


@needs_torch
def test_run_with_torch_tensors_returns_torch(seed_path):
    import torch

    import fusecheck

    r = fusecheck.load(seed_path)
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(2, 64, 128, generator=g) * 2 - 1).half()
    w = (torch.rand(2, 64, 64, generator=g) * 2 - 1).half()
    b = (torch.rand(64, generator=g) * 2 - 1).half()
    out = r.run(inputs=[x, w, b], nvfuser="head")
    assert out.passed and isinstance(out[0], torch.Tensor) and out[0].dtype == torch.float32
    npout = r.run(inputs=[x.numpy(), w.numpy(), b.numpy()], nvfuser="head")
    assert np.array_equal(out[0].numpy(), npout[0])


def test_run_refuses_an_op_it_does_not_compute_unless_no_output_needs_it():
    import fusecheck

    # FC0909, located, as `fusecheck run` gives it; never an internal error.
    r = fusecheck.load(os.path.join(SOURCE, "fixtures", "not-executed", "not_executed_math.py"))
    out = r.run()
    assert not out.passed and out.exit_code == 3
    d = out.diagnostics[0]
    assert d.code == "FC0909" and "expr 0 is nvFuser's `acos`" in d.message
    assert d.location.pointer == "/exprs/0" and d.location.line == 10
    # The same ops where no output depends on them: nvFuser never runs them.
    dead = fusecheck.load(os.path.join(SOURCE, "fixtures", "analysis", "python_dead_unexecuted_ops.py"))
    ran = dead.run()
    assert ran.passed and ran.names == ["T3"]
    # check and run place diagnostics on the imported script's lines.
    note = dead.check().diagnostics[0]
    assert note.code == "FC0317" and (note.location.line, note.location.col) == (9, 10)
