"""The GPU figures of docs/gpu-performance.md in one command: runs
tools/bench/gpu_bench (fusecheck) and tools/bench/torch_eager.py (PyTorch
eager) one after the other on the same GPU and prints each figure beside
PyTorch's, with the target and whether it holds. Every time is a median of
REPS runs timed with CUDA events (see the two programs); the seed's and the
GEMMs' figures are the medians over three alternating runs of each program
(fusecheck, eager, fusecheck, ...; that part alone) after the full runs, so
that both see the GPU in the same state (its clocks drop under sustained
matrix work).

Usage: python3 tools/bench/gpu_figures.py GPU_BENCH [M=8192] [REPS=30] [--log=FILE]
Exit status: 0 when every target holds, 1 otherwise, 2 when a program fails."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ALTERNATIONS = 3
# The figures taken from alternating runs: (mode of both programs, figures).
ALTERNATED = [("seed", ["seed_total"]), ("gemm", ["gemm_local_tflops", "gemm_full_tflops"])]
ROOT = os.path.dirname(os.path.dirname(HERE))

# (figure, gpu_bench name, torch name, kind, target)
#   kind "ratio": fusecheck ms / torch ms, target: at most
#   kind "copy": % of fusecheck's own device copy, target: at least
#   kind "gemm": % of torch's TFLOP/s, target: at least
ROWS = [
    ("seed graph, M=N=K=8192 half, 2 ranks", "seed_total", "torch_seed_total", "ratio", 0.85),
    ("add half", "add_half", "torch_add_half", "copy", 80),
    ("bias add half -> float", "bias_add_half_to_float", "torch_bias_add_half_to_float", "copy", 80),
    ("relu(bias add) half", "relu_bias_add_half", "torch_relu_bias_add_half", "copy", 80),
    ("gelu half", "gelu_half", "torch_gelu_half", "copy", 80),
    ("gelu (tanh) half", "gelu_tanh_half", "torch_gelu_tanh_half", "copy", 80),
    ("cast float -> half", "cast_float_to_half", "torch_cast_float_to_half", "copy", 80),
    ("transposed copy half", "transpose_copy_half", "torch_transpose_copy_half", "copy", 80),
    ("row sum half", "row_sum_half", "torch_row_sum_half", "copy", 80),
    ("column sum half", "column_sum_half", "torch_column_sum_half", "copy", 80),
    ("full sum half", "full_sum_half", "torch_full_sum_half", "copy", 80),
    ("GEMM local [8192,4096]x[4096,8192]", "gemm_local_tflops", "torch_gemm_local_tflops", "gemm", 95),
    ("GEMM full 8192^3", "gemm_full_tflops", "torch_gemm_full_tflops", "gemm", 95),
]


def run(cmd, log):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    log.write("$ " + " ".join(cmd) + "\n" + p.stdout)
    for line in p.stdout.splitlines():
        if not line.startswith("FIG "):
            print("  " + line)
    if p.returncode != 0:
        print(f"{cmd[0]} exited {p.returncode}")
    return p.returncode, p.stdout


def figures(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"FIG (\S+) (\S+) (\S+)\s*(.*)", line)
        if m:
            out[m.group(1)] = (float(m.group(2)), m.group(3), m.group(4))
    return out


def copy_pct(fig):
    """The "N% of copy" a program printed in the figure's note (bytes moved
    over time, against its own device copy's bandwidth)."""
    m = re.search(r"= ([0-9.]+)% of copy", fig[2])
    return float(m.group(1)) if m else float("nan")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--log")]
    log_path = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--log=")), os.devnull)
    if not args:
        print(__doc__)
        return 2
    bench = args[0]
    m = args[1] if len(args) > 1 else "8192"
    reps = args[2] if len(args) > 2 else "30"
    with open(log_path, "w", encoding="utf-8") as log:
        rc1, t1 = run([bench, os.path.join(ROOT, "fixtures/seed/matmul_allreduce_bias.json"), m, reps], log)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        cmd = [sys.executable, os.path.join(HERE, "torch_eager.py"), m, reps]
        print("$ " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, check=False)
        log.write("$ " + " ".join(cmd) + "\n" + p.stdout)
        rc2, t2 = p.returncode, p.stdout
        # The seed's and the GEMMs' figures from alternating runs of the two
        # programs (that part alone, the GPU in the same state for both):
        # the median of each side's runs.
        alt = {}
        seed = os.path.join(ROOT, "fixtures/seed/matmul_allreduce_bias.json")
        for mode, keys in ALTERNATED:
            for _ in range(ALTERNATIONS):
                _, t = run([bench, seed, m, reps, mode], log)
                for k, v in figures(t).items():
                    if k in keys:
                        alt.setdefault(k, []).append(v[0])
                p = subprocess.run(cmd + [mode], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   env=env, check=False)
                log.write(p.stdout)
                for k, v in figures(p.stdout).items():
                    if k.startswith("torch_") and k[len("torch_"):] in keys:
                        alt.setdefault(k, []).append(v[0])
    f = figures(t1)
    f.update(figures(t2))
    for _, keys in ALTERNATED:
        for k in keys:
            ours, theirs = alt.get(k, []), alt.get("torch_" + k, [])
            if not ours or not theirs:
                continue
            unit = f.get(k, (0, "ms"))[1]
            print(f"{k}, alternating runs: fusecheck {', '.join(f'{x:.3f}' for x in ours)} {unit}; "
                  f"PyTorch {', '.join(f'{x:.3f}' for x in theirs)} {unit}")
            f[k] = (sorted(ours)[len(ours) // 2], unit, "median of the alternating runs")
            f["torch_" + k] = (sorted(theirs)[len(theirs) // 2], unit, "median of the alternating runs")
    copy = f.get("copy_d2d", (0,))[0]
    tcopy = f.get("torch_copy_d2d", (0,))[0]
    print()
    print("| figure | fusecheck | PyTorch | fusecheck vs reference | target | met |")
    print("|---|---|---|---|---|---|")
    ok = rc1 == 0 and rc2 == 0
    for name, ours, theirs, kind, target in ROWS:
        a, b = f.get(ours), f.get(theirs)
        if not a:
            print(f"| {name} | missing | | | | no |")
            ok = False
            continue
        if kind == "ratio":
            ratio = a[0] / b[0] if b else float("nan")
            met = b is not None and ratio <= target
            cells = (f"{a[0]:.3f} ms", f"{b[0]:.3f} ms (eager)" if b else "-", f"{ratio:.3f}x eager",
                     f"<= {target}x")
        elif kind == "copy":
            pct, tpct = copy_pct(a), copy_pct(b) if b else float("nan")
            met = pct >= target
            cells = (f"{a[0]:.4f} ms", f"{b[0]:.4f} ms ({tpct:.1f}% of its copy)" if b else "-",
                     f"{pct:.1f}% of copy", f">= {target}%")
        else:
            pct = 100 * a[0] / b[0] if b else float("nan")
            met = b is not None and pct >= target
            cells = (f"{a[0]:.1f} TFLOP/s", f"{b[0]:.1f} TFLOP/s" if b else "-", f"{pct:.1f}% of torch",
                     f">= {target}%")
        ok = ok and met
        print(f"| {name} | {' | '.join(cells)} | {'yes' if met else 'no'} |")
    print(f"\ncopy: fusecheck {copy:.4f} ms, torch {tcopy:.4f} ms (the % of copy of each side is against its own)")
    for line in t1.splitlines():
        if line.startswith("SEG") or line.startswith("CHECK"):
            print(line)
        if line.startswith("CHECK") and line.split()[2] != "ok":
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
