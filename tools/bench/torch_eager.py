"""PyTorch eager side of tools/bench/gpu_bench: the seed graph's math
(nvFuser #2481) at M = N = K on the same GPU, per simulated rank like
fusecheck's run: T3 = permute(T0), T4 = T3 @ T1 per rank (half), T5 = the
sum over ranks (half), T9 = float(T5) + float(bias); and the same kernel
families as gpu_bench (copy, add, bias add to float, relu(bias add), gelu,
cast, transposed copy, row / column / full sums, the local and full GEMMs).
Each figure: the median of REPS runs timed with CUDA events after 5
warm-ups. Output lines "FIG torch_<name> <value> <unit> [note]", as
gpu_bench prints its own.

Usage: python3 torch_eager.py [M] [REPS] [seed|gemm]   ("seed": the seed
alone; "gemm": the two GEMMs alone)"""
import sys

import torch

REPS = 30


def median_ms(fn):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def fig(name, value, unit, note=""):
    print(f"FIG torch_{name} {value:.4f} {unit}{' ' + note if note else ''}", flush=True)


def main():
    global REPS
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    if len(sys.argv) > 2:
        REPS = max(20, int(sys.argv[2]))
    ranks = 2
    k = m // ranks
    dev = "cuda"
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}, reps {REPS}")
    src = torch.empty(m * m, device=dev, dtype=torch.float).uniform_(-1, 1)
    dst = torch.empty_like(src)
    copy_ms = median_ms(lambda: dst.copy_(src))
    copy_bw = 2 * src.numel() * 4 / copy_ms / 1e9

    def mem(name, nbytes, fn):
        ms = median_ms(fn)
        bw = nbytes / ms / 1e9
        fig(name, ms, "ms", f"{bw:.3f} TB/s = {100 * bw / copy_bw:.1f}% of copy")

    fig("copy_d2d", copy_ms, "ms", f"{copy_bw:.3f} TB/s")
    del src, dst

    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    seed_only = mode == "seed"
    if mode == "gemm":
        gemms(m, k, dev)
        return
    if not seed_only:  # the memory-bound families first, as gpu_bench orders them
        x = torch.empty(m, m, device=dev, dtype=torch.half).uniform_(-1, 1)
        y = torch.empty(m, m, device=dev, dtype=torch.half).uniform_(-1, 1)
        bias = torch.empty(m, device=dev, dtype=torch.half).uniform_(-1, 1)
        n = m * m
        outf = torch.empty(m, m, device=dev, dtype=torch.float)
        mem("add_half", 3 * n * 2, lambda: x + y)
        mem("bias_add_half_to_float", 2 * n + 4 * n, lambda: torch.add(x, bias, out=outf))
        mem("relu_bias_add_half", 2 * n * 2, lambda: torch.relu(x + bias))
        mem("gelu_half", 2 * n * 2, lambda: torch.nn.functional.gelu(x))
        mem("gelu_tanh_half", 2 * n * 2, lambda: torch.nn.functional.gelu(x, approximate="tanh"))
        mem("cast_float_to_half", 6 * n, lambda: outf.half())
        mem("transpose_copy_half", 2 * n * 2, lambda: x.t().contiguous())
        mem("row_sum_half", 2 * n, lambda: x.sum(dim=1, dtype=torch.float))
        mem("column_sum_half", 2 * n, lambda: x.sum(dim=0, dtype=torch.float))
        mem("full_sum_half", 2 * n, lambda: x.sum(dtype=torch.float))
        del x, y, outf

    t0 = [torch.randn(1, k, m, device=dev, dtype=torch.half) for _ in range(ranks)]
    t1 = [torch.randn(1, k, m, device=dev, dtype=torch.half) for _ in range(ranks)]
    t2 = torch.randn(m, device=dev, dtype=torch.half)

    def seed():
        t4 = [torch.matmul(t0[r].permute(0, 2, 1), t1[r]) for r in range(ranks)]
        t5 = t4[0]
        for r in range(1, ranks):
            t5 = t5 + t4[r]
        return t5[0].float() + t2.unsqueeze(0).float()

    fig("seed_total", median_ms(seed), "ms", f"eager, M=N=K={m}, half, {ranks} ranks")
    if seed_only:
        return
    del t0, t1
    gemms(m, k, dev)


def gemms(m, k, dev):
    """The seed's local product (A read transposed) and the full m^3."""
    a = torch.randn(k, m, device=dev, dtype=torch.half)
    b = torch.randn(k, m, device=dev, dtype=torch.half)
    ms = median_ms(lambda: torch.matmul(a.t(), b))
    fig("gemm_local_tflops", 2 * m * m * k / ms / 1e9, "TFLOP/s", f"{ms:.4f} ms")
    del a, b

    x = torch.empty(m, m, device=dev, dtype=torch.half).uniform_(-1, 1)
    y = torch.empty(m, m, device=dev, dtype=torch.half).uniform_(-1, 1)
    ms = median_ms(lambda: torch.matmul(x, y))
    fig("gemm_full_tflops", 2 * m * m * m / ms / 1e9, "TFLOP/s", f"{ms:.4f} ms")


if __name__ == "__main__":
    main()
