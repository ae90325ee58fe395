"""PyTorch eager side of tools/bench/gpu_bench: the seed graph's math
(nvFuser #2481) at M = N = K on the same GPU, per simulated rank like
fusecheck's run: T3 = permute(T0), T4 = T3 @ T1 per rank (half), T5 = the
sum over ranks (half), T9 = float(T5) + float(bias); plus torch.matmul on
the local and full GEMM shapes and a device-to-device copy. CUDA events,
median of 20 runs after 3 warm-ups. Usage: python3 torch_eager.py [M]"""
import sys

import torch


def median_ms(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    ranks = 2
    k = m // ranks
    dev = "cuda"
    t0 = [torch.randn(1, k, m, device=dev, dtype=torch.half) for _ in range(ranks)]
    t1 = [torch.randn(1, k, m, device=dev, dtype=torch.half) for _ in range(ranks)]
    t2 = torch.randn(m, device=dev, dtype=torch.half)

    def seed():
        t4 = [torch.matmul(t0[r].permute(0, 2, 1), t1[r]) for r in range(ranks)]
        t5 = t4[0]
        for r in range(1, ranks):
            t5 = t5 + t4[r]
        return t5[0].float() + t2.unsqueeze(0).float()

    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"eager_seed_total_ms {median_ms(seed):.4f} ms (M=N=K={m}, half, {ranks} ranks)")
    a = torch.randn(m, k, device=dev, dtype=torch.half)
    b = torch.randn(k, m, device=dev, dtype=torch.half)
    ms = median_ms(lambda: torch.matmul(a, b))
    print(f"torch_matmul_local_half {ms:.4f} ms {2 * m * m * k / ms / 1e9:.1f} TFLOP/s")
    fa = torch.randn(m, m, device=dev, dtype=torch.half)
    fb = torch.randn(m, m, device=dev, dtype=torch.half)
    ms = median_ms(lambda: torch.matmul(fa, fb))
    print(f"torch_matmul_full_half {ms:.4f} ms {2 * m * m * m / ms / 1e9:.1f} TFLOP/s")
    src = torch.empty(m * m, device=dev, dtype=torch.float)
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    print(f"torch_copy_d2d {ms:.4f} ms {2 * src.numel() * 4 / ms / 1e9:.3f} TB/s")
    x = torch.randn(m, m, device=dev, dtype=torch.half)
    y = torch.randn(m, m, device=dev, dtype=torch.half)
    ms = median_ms(lambda: x + y)
    print(f"torch_add_half {ms:.4f} ms {3 * m * m * 2 / ms / 1e9:.3f} TB/s")
    ms = median_ms(lambda: x.sum(dim=1, dtype=torch.float))
    print(f"torch_rowsum_half {ms:.4f} ms {m * m * 2 / ms / 1e9:.3f} TB/s")


if __name__ == "__main__":
    main()
