"""The differential runner: fusecheck's executor against the torch oracle (fusecheck.oracle).

For every fusion: `fusecheck run F --save-inputs IN --save-outputs OUT` (the CLI, so that this also
runs where the Python module is not built, e.g. the GPU machine), then the oracle evaluates F on
the same inputs (read back from IN with fusecheck.tensors, an independent reader) and every output
is compared at a dtype-aware tolerance (fusecheck.oracle.tolerance). Each disagreement is written
out as a repro folder: the fusion, its inputs, both outputs and a summary.

    python3 -m fusecheck.differential --cli build/tools/fusecheck --fixtures fixtures
    python3 -m fusecheck.differential --cli build/tools/fusecheck --fuzz 10000 --out /tmp/diff
    python3 -m fusecheck.differential --cli build/tools/fusecheck --fuzz 1000 --device cuda --torch-device cuda

Outcomes per fusion: agree; disagree (an unexplained disagreement: exit 1); skipped, with the reason
printed (fusecheck refuses the fusion or stops where the era fails, the oracle's torch cannot
evaluate it: fp8 before torch 2.1); both-refuse (fusecheck and torch both fail to evaluate it).
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch

from . import oracle, tensors


@dataclass
class Outcome:
    name: str
    status: str  # agree | disagree | skipped | both-refuse
    reason: str = ""
    disagreements: List[str] = field(default_factory=list)
    promotions: List[str] = field(default_factory=list)
    outputs: int = 0
    attempt: str = ""
    ops: List[str] = field(default_factory=list)  # op kinds of an agreeing fusion


def _run_cli(cli: str, fusion: str, workdir: str, extra: List[str], device: str) -> Tuple[int, Dict, str]:
    ins = os.path.join(workdir, "inputs.safetensors")
    outs = os.path.join(workdir, "outputs.safetensors")
    for p in (ins, outs):
        if os.path.exists(p):
            os.remove(p)
    cmd = [cli, "run", fusion, "--device", device, "--reference", "faithful", "--format", "json",
           "--save-inputs", ins, "--save-outputs", outs] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    try:
        j = json.loads(p.stdout) if p.stdout.strip() else {}
    except json.JSONDecodeError:
        j = {}
    return p.returncode, j, p.stderr


def _first_error(j: Dict, stderr: str) -> str:
    diags = j.get("diagnostics") or j.get("run", {}).get("diagnostics") or []
    for d in diags:
        if d.get("severity") == "error":
            return f"{d.get('code')} {d.get('message')}"
    return stderr.strip().splitlines()[0] if stderr.strip() else "no output"


def _to_torch(values: np.ndarray, dtype: str, device: str) -> torch.Tensor:
    t = torch.from_numpy(np.array(values, copy=True, order="C"))
    if t.dtype == torch.bool:
        return t.to(device)
    if t.dtype in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
        return t.to(torch.int64).to(device)
    return t.to(torch.float64).to(device)


def check_one(cli: str, fusion_path: str, out_dir: Optional[str], modes: List[str], device: str,
              torch_device: str, keep: bool = False) -> Outcome:
    name = os.path.basename(fusion_path)
    work = tempfile.mkdtemp(prefix="fc-diff-")
    try:
        with open(fusion_path) as f:
            doc = json.load(f)
        fusion = oracle.Fusion(doc)
        # fusecheck: the repro's era; when it stops where the era fails, with its fixes; then at head.
        attempts = [("as written", []), ("--fix", ["--fix"]), ("--nvfuser head", ["--nvfuser", "head"])]
        rc, j, err, used = 0, {}, "", ""
        for label, extra in attempts:
            rc, j, err = _run_cli(cli, fusion_path, work, extra, device)
            used = label
            if os.path.exists(os.path.join(work, "outputs.safetensors")):
                break
        outs_path = os.path.join(work, "outputs.safetensors")
        ins_path = os.path.join(work, "inputs.safetensors")
        if not os.path.exists(ins_path):
            return Outcome(name, "skipped", f"fusecheck made no inputs (exit {rc}: {_first_error(j, err)})")
        in_list, _ = tensors.read_safetensors(ins_path)
        inputs = {n: _to_torch(v, dt, torch_device) for n, dt, v in in_list}
        try:
            results = {m: oracle.Interpreter(fusion, m).run(inputs) for m in modes}
        except oracle.OracleSkip as e:
            return Outcome(name, "skipped", f"torch: {e}")
        except oracle.OracleError as e:
            if not os.path.exists(outs_path):
                return Outcome(name, "both-refuse", f"fusecheck: {_first_error(j, err)}; torch: {e}")
            out = Outcome(name, "disagree", f"torch cannot evaluate what fusecheck ran: {e}", attempt=used)
            _write_repro(out_dir, fusion_path, work, out, {})
            return out
        if not os.path.exists(outs_path):
            return Outcome(name, "skipped", f"fusecheck produced no outputs (exit {rc}: {_first_error(j, err)})")
        fc_out = {n: (dt, v) for n, dt, v in tensors.read_safetensors(outs_path)[0]}
        out = Outcome(name, "agree", attempt=used, outputs=len(fc_out))
        first = results[modes[0]]
        out.promotions = sorted(set(first.promotions))
        for mode, res in results.items():
            for o in fusion.outputs:
                if o not in fc_out:
                    out.disagreements.append(f"[{mode}] {o}: missing from fusecheck's outputs")
                    continue
                fdt, fv = fc_out[o]
                if tensors.FUSION_DTYPE.get(fdt) != res.dtypes[o] and not (
                    res.dtypes[o] == "Index" and fdt == "I64"
                ):
                    out.disagreements.append(f"[{mode}] {o}: dtype {fdt} from fusecheck, {res.dtypes[o]} declared")
                    continue
                d = oracle.compare(o, res.dtypes[o], _to_torch(fv, fdt, "cpu"), res.outputs[o].cpu(), res.path_dtype[o],
                                   res.path_reduction[o], res.path_hops[o], mode, res.path_scale[o])
                if d is not None:
                    out.disagreements.append(f"[{mode}] {d}")
        if out.disagreements:
            out.status = "disagree"
            _write_repro(out_dir, fusion_path, work, out, results)
        else:
            out.ops = sorted({e["op"] for e in fusion.exprs})
        return out
    except subprocess.TimeoutExpired:
        return Outcome(name, "disagree", "fusecheck run timed out")
    except Exception as e:  # a fault of the runner or the oracle: counted, never hidden
        import traceback

        return Outcome(name, "disagree", f"runner error: {type(e).__name__}: {e}\n{traceback.format_exc()}")
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _write_repro(out_dir: Optional[str], fusion_path: str, work: str, out: Outcome, results: Dict) -> None:
    if not out_dir:
        return
    base = os.path.splitext(os.path.basename(fusion_path))[0]
    d = os.path.join(out_dir, base)
    os.makedirs(d, exist_ok=True)
    shutil.copy(fusion_path, os.path.join(d, "fusion.json"))
    for f in ("inputs.safetensors", "outputs.safetensors"):
        if os.path.exists(os.path.join(work, f)):
            shutil.copy(os.path.join(work, f), os.path.join(d, "fusecheck-" + f if f.startswith("out") else f))
    for mode, res in results.items():
        items = []
        for o, v in res.outputs.items():
            dt = res.dtypes[o]
            fdt = tensors.FILE_DTYPE.get(dt, "F64")
            arr = v.cpu()
            arr = arr.numpy() if arr.dtype in (torch.bool, torch.int64) else arr.to(torch.float64).numpy()
            items.append((o, fdt, arr.astype(np.float32) if fdt in ("BF16", "F8_E4M3", "F8_E5M2") else arr))
        try:
            tensors.write_safetensors(os.path.join(d, f"torch-outputs-{mode}.safetensors"), items)
        except ValueError:
            pass
    summary = {
        "fusion": os.path.basename(fusion_path),
        "status": out.status,
        "reason": out.reason,
        "fusecheck_attempt": out.attempt,
        "disagreements": out.disagreements,
        "torch": torch.__version__,
        "replay": f"fusecheck run fusion.json --inputs inputs.safetensors --save-outputs again.safetensors"
        + ("" if out.attempt in ("", "as written") else " " + out.attempt),
    }
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


def _fixture_fusions(cli: str, root: str, scratch: str) -> Tuple[List[str], List[str]]:
    """Every fixture repro that loads as a fusion (importer fixtures converted to JSON first)."""
    paths, skipped = [], []
    for p in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True)):
        if p.endswith(".expect.json") or os.path.isdir(p):
            continue
        rel = os.path.relpath(p, root)
        if rel.split(os.sep)[0] in ("invalid", "invalid-import"):
            continue
        if p.endswith(".json"):
            try:
                with open(p) as f:
                    if json.load(f).get("format") not in ("fusecheck.fusion/1", "fusecheck.fusion/2"):
                        continue
            except (ValueError, UnicodeDecodeError):
                skipped.append(f"{rel}: not JSON")
                continue
            paths.append(p)
        elif p.endswith((".py", ".txt")) and rel.startswith("import"):
            out = os.path.join(scratch, rel.replace(os.sep, "__") + ".json")
            r = subprocess.run([cli, "import", p, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0 or not os.path.exists(out):
                skipped.append(f"{rel}: fusecheck import refuses it (exit {r.returncode})")
                continue
            paths.append(out)
    return paths, skipped


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m fusecheck.differential", description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="the fusecheck executable")
    ap.add_argument("--fixtures", help="check every fusion under this folder (fixtures/)")
    ap.add_argument("--fuzz", type=int, default=0, help="check this many `fusecheck fuzz --emit` fusions")
    ap.add_argument("--fuzz-seed", type=int, default=0, help="first fuzz seed")
    ap.add_argument("--fusion", action="append", default=[], help="check this fusion (repeatable)")
    ap.add_argument("--out", help="write each disagreement as a repro folder here")
    ap.add_argument("--mode", action="append", choices=["f64", "native"],
                    help="oracle arithmetic (repeatable; default: both on CPU, native with --device cuda)")
    ap.add_argument("--device", default="cpu", help="fusecheck run --device (cpu or cuda)")
    ap.add_argument("--torch-device", default="cpu", help="where torch evaluates (cpu or cuda)")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--quiet", action="store_true", help="no line per skipped fusion")
    a = ap.parse_args(argv)
    # fusecheck's CUDA executor computes in float32 like nvFuser: only the native mode's tolerance fits.
    modes = a.mode or (["native"] if a.device == "cuda" else ["f64", "native"])
    scratch = tempfile.mkdtemp(prefix="fc-diff-set-")
    start = time.time()
    fusions: List[str] = list(a.fusion)
    pre_skipped: List[str] = []
    if a.fixtures:
        fx, sk = _fixture_fusions(a.cli, a.fixtures, scratch)
        fusions += fx
        pre_skipped += sk
    if a.fuzz:
        d = os.path.join(scratch, "fuzz")
        subprocess.run([a.cli, "fuzz", "--emit", d, "--seed", str(a.fuzz_seed), "--count", str(a.fuzz)], check=True,
                       stdout=subprocess.DEVNULL)
        fusions += [os.path.join(d, f"fuzz-{a.fuzz_seed + i}.json") for i in range(a.fuzz)]
    print(f"differential: {len(fusions)} fusions, oracle torch {torch.__version__} on {a.torch_device}, "
          f"fusecheck on {a.device}, modes {', '.join(modes)}", flush=True)
    counts: Dict[str, int] = collections.Counter()
    promotions: Dict[str, int] = collections.Counter()
    ops_compared: Dict[str, int] = collections.Counter()
    skipped: Dict[str, int] = collections.Counter()
    bad: List[Outcome] = []
    torch.set_num_threads(1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = [pool.submit(check_one, a.cli, p, a.out, modes, a.device, a.torch_device) for p in fusions]
        for n, fut in enumerate(futs, 1):
            o = fut.result()
            counts[o.status] += 1
            for op in o.ops:
                ops_compared[op] += 1
            for p in o.promotions:
                promotions[p.split(":")[0].split(" -> ")[0] + ":" + p.split(":", 1)[1]] += 1
            if o.status == "skipped":
                skipped[o.reason.split(" (")[0] if o.reason.startswith("fusecheck produced") else o.reason] += 1
                if not a.quiet:
                    print(f"skipped {o.name}: {o.reason}")
            elif o.status == "both-refuse" and not a.quiet:
                print(f"both refuse {o.name}: {o.reason}")
            elif o.status == "disagree":
                bad.append(o)
                print(f"DISAGREE {o.name} ({o.attempt or 'no run'}): {o.reason}")
                for d in o.disagreements:
                    print(f"  {d}")
            if n % 1000 == 0:
                print(f"differential: {n} / {len(fusions)} ({time.time() - start:.0f} s)", flush=True)
    for s in pre_skipped:
        print(f"skipped {s}")
    shutil.rmtree(scratch, ignore_errors=True)
    if promotions:
        print("dtype promotion (the fusion's declared dtype differs from torch's promotion; informational):")
        for k, v in sorted(promotions.items(), key=lambda kv: -kv[1]):
            print(f"  {v} x {k.strip()}")
    if skipped:
        print("skipped, by reason:")
        for k, v in sorted(skipped.items(), key=lambda kv: -kv[1]):
            print(f"  {v} x {k}")
    never = [op for op in oracle.INTERPRETED_OPS if op not in ops_compared]
    print(f"ops compared (in agreeing fusions): {len(ops_compared)} of {len(oracle.INTERPRETED_OPS)} kinds; "
          f"never: {', '.join(never) if never else 'none'}")
    print(
        f"differential: {counts['agree']} agree, {counts['disagree']} disagree, {counts['skipped'] + len(pre_skipped)} "
        f"skipped, {counts['both-refuse']} both refuse; {time.time() - start:.1f} s"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
