// GPU benchmark (not a test): fusecheck's CUDA execution of the seed graph
// (nvFuser #2481, repaired with --fix) at M = N = K = 8192 in half with two
// simulated ranks, plus the kernel families against the device's own
// ceilings: elementwise kernels, reductions and the ring against a
// device-to-device copy, and the local GEMM through cuBLAS. PyTorch's side
// is tools/bench/torch_eager.py, run in the same call on the same GPU.
//
// Usage: gpu_bench SEED.json [M]   (M = N = K, default 8192)
// Prints one "name value unit" line per figure: the seed's total, its
// per-segment times (differences of runs stopped after each segment), the
// kernels the seed runs timed alone on its shapes, and each memory-bound
// kernel with the specialized kernels (kernels.h) and, as "..._general",
// with the general ones. Timings: CUDA events, median of 20 runs after 3
// warm-ups.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/gemm.h"
#include "exec/cuda/kernels.h"
#include "exec/exec_error.h"
#include "exec/inputs.h"
#include "io/reader.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"

using namespace fc;
using namespace fc::exec;

namespace {

double medianMs(const std::function<void()>& fn, int reps = 20) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) fn();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    fn();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

// The same figure with the specialized kernels and, as NAME_general, with
// the general ones: "NAME ms TB/s = % of copy" (`bytes` read + written).
struct MemoryBound {
  double copy_bw = 0;  // TB/s
  void run(const char* name, double bytes, const std::function<void()>& fn) const {
    for (bool specialized : {true, false}) {
      cuda::setSpecializedKernels(specialized);
      double ms = medianMs(fn);
      double bw = bytes / ms / 1e9;
      std::printf("%s%s %.4f ms %.3f TB/s = %.1f%% of copy\n", name, specialized ? "" : "_general", ms, bw,
                  100 * bw / copy_bw);
    }
    cuda::setSpecializedKernels(true);
  }
};

cuda::PwRef leafRef(uint8_t i) { return {cuda::PwRef::Leaf, i, 0}; }
cuda::PwRef regRef(uint8_t i) { return {cuda::PwRef::Reg, i, 0}; }

// out[M, N] (contiguous) over leaves given as (data, dtype, strides[2]).
cuda::PwProgram program(int64_t M, int64_t N, std::vector<cuda::LeafView> leaves, void* out,
                        DType out_dtype) {
  cuda::PwProgram p;
  p.rank = 2;
  p.shape[0] = M;
  p.shape[1] = N;
  for (const auto& l : leaves) p.leaves[p.n_leaves++] = l;
  p.out = out;
  p.out_dtype = out_dtype;
  return p;
}
void instr(cuda::PwProgram& p, OpKind op, DType round, std::vector<cuda::PwRef> args) {
  cuda::PwInstr& in = p.instrs[p.n_instrs++];
  in.op = op;
  in.round_to = round;
  in.nargs = static_cast<uint8_t>(args.size());
  for (size_t j = 0; j < args.size(); ++j) in.args[j] = args[j];
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpu_bench SEED.json [M]\n");
    return 2;
  }
  int64_t M = argc > 2 ? std::atoll(argv[2]) : 8192;
  const int64_t R = 2;
  std::printf("device %s\n", cuda::deviceDescription(0).c_str());

  // ---- the seed at M = N = K, two ranks (K/2 each), repaired.
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::string kl = std::to_string(M / R), m = std::to_string(M);
  text = replaceAll(text, "\"shape\": [1, 64, 128]", "\"shape\": [1, " + kl + ", " + m + "]");
  text = replaceAll(text, "\"shape\": [1, 64, 64]", "\"shape\": [1, " + kl + ", " + m + "]");
  text = replaceAll(text, "\"shape\": [64]", "\"shape\": [" + m + "]");
  DiagnosticSink sink;
  SourceText src("seed.json", text);
  auto f = readFusion(src, sink);
  if (!f) {
    std::fprintf(stderr, "cannot read the seed\n");
    return 2;
  }
  PipelineOptions po;
  po.era = f->era.value_or(Era::E2024_06);
  PipelineResult pr = runPipeline(*f, po);
  FixResult fr = applyFixes(*f, pr, FixKind::Auto, "seed.json");
  const Fusion& g = fr.changed ? fr.fixed : *f;
  PipelineResult pr2 = runPipeline(g, po);
  if (pr2.failed()) {
    std::fprintf(stderr, "the repaired seed still fails its era\n");
    return 1;
  }
  World world(g);
  ScalarValues sv(g);
  RunInputs inputs = generateInputs(g, world, sv, 0, 8, nullptr);
  cuda::CudaProgram prog(pr2.segmented, world, sv, nullptr);
  prog.uploadInputs(inputs);
  inputs = RunInputs{};  // free the host copies
  std::vector<SegmentRun> recs;
  cuda::resetKernelCounts();
  prog.run(std::nullopt, &recs);
  cuda::KernelCounts kc = cuda::kernelCounts();
  std::printf(
      "seed_kernels pointwise vector %lld scalar %lld interpreter %lld; reduce row %lld column %lld general "
      "%lld; ring vector %lld scalar %lld general %lld\n",
      static_cast<long long>(kc.pointwise_vector), static_cast<long long>(kc.pointwise_scalar),
      static_cast<long long>(kc.pointwise_interpreter), static_cast<long long>(kc.reduce_row),
      static_cast<long long>(kc.reduce_column), static_cast<long long>(kc.reduce_general),
      static_cast<long long>(kc.ring_vector), static_cast<long long>(kc.ring_scalar),
      static_cast<long long>(kc.ring_general));
  double seed_ms = medianMs([&] { prog.run(std::nullopt, &recs); });
  for (const auto& r : recs) std::printf("segment %u %s: %s\n", r.id, r.status.c_str(), r.summary.c_str());
  double flops = 2.0 * M * M * M;  // both ranks' local GEMMs together
  std::printf("seed_total_ms %.4f ms (M=N=K=%lld, half, %lld ranks on one GPU; %.1f TFLOP/s of GEMM work)\n",
              seed_ms, static_cast<long long>(M), static_cast<long long>(R), flops / seed_ms / 1e9);
  // Per segment: runs stopped before segment k+1 minus runs stopped before k
  // (each run starts from the inputs; one device synchronization per segment).
  double before = 0;
  for (size_t k = 0; k < pr2.segmented.segments.size(); ++k) {
    uint32_t id = pr2.segmented.segments[k].id;
    bool last = k + 1 == pr2.segmented.segments.size();
    double upto = last ? seed_ms : medianMs([&] { prog.run(pr2.segmented.segments[k + 1].id, &recs); });
    std::printf("seed_segment %u %.4f ms (%s)\n", id, upto - before, recs[k].summary.c_str());
    before = upto;
  }
  {
    cuda::setSpecializedKernels(false);
    double general_ms = medianMs([&] { prog.run(std::nullopt, &recs); });
    cuda::setSpecializedKernels(true);
    std::printf("seed_total_ms_general %.4f ms (the general kernels)\n", general_ms);
  }

  // ---- device-to-device copy: the bandwidth ceiling.
  const int64_t n = M * M;  // elements
  cuda::DeviceTensor a(DType::Half, {M, M}), b(DType::Half, {M, M}), c(DType::Half, {M, M});
  cuda::launchRandom(a.data(), DType::Half, n, 1);
  cuda::launchRandom(b.data(), DType::Half, n, 2);
  cuda::DeviceTensor big_src(DType::Float, {M, M}), big_dst(DType::Float, {M, M});
  double copy_ms = medianMs(
      [&] { cudaMemcpyAsync(big_dst.data(), big_src.data(), big_src.bytes(), cudaMemcpyDeviceToDevice); });
  const MemoryBound mb{2.0 * big_src.bytes() / copy_ms / 1e9};  // read + write, TB/s
  std::printf("copy_d2d %.4f ms %.3f TB/s (%llu bytes read + written)\n", copy_ms, mb.copy_bw,
              static_cast<unsigned long long>(2 * big_src.bytes()));
  double copy_half_ms =
      medianMs([&] { cudaMemcpyAsync(c.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice); });
  std::printf("copy_d2d_half_tensor %.4f ms %.3f TB/s\n", copy_half_ms, 2.0 * a.bytes() / copy_half_ms / 1e9);

  // ---- the seed's kernels alone, on its shapes (per rank: 2 GEMMs, 1 ring, 2 epilogues in all)
  cuda::Blas blas;
  int64_t K = M / R;
  cuda::DeviceTensor A(DType::Half, {M, K}), B(DType::Half, {K, M}), C(DType::Half, {M, M});
  cuda::launchRandom(A.data(), DType::Half, M * K, 4);
  cuda::launchRandom(B.data(), DType::Half, M * K, 5);
  double mm_ms = medianMs(
      [&] { blas.gemm(A.data(), B.data(), C.data(), DType::Half, DType::Half, M, M, K, 1, 0, 0, 0, false); });
  std::printf("matmul_local_half %.4f ms %.1f TFLOP/s ([%lld, %lld] x [%lld, %lld])\n", mm_ms,
              2.0 * M * M * K / mm_ms / 1e9, static_cast<long long>(M), static_cast<long long>(K),
              static_cast<long long>(K), static_cast<long long>(M));
  cuda::DeviceTensor r0(DType::Half, {M, M}), r1(DType::Half, {M, M});
  const void* ring_src[2] = {a.data(), b.data()};
  void* ring_dst[2] = {r0.data(), r1.data()};
  auto ring = [&] { cuda::launchRingReduce(ring_src, ring_dst, 2, n, DType::Half, OpKind::Sum, true, 0); };
  mb.run("seed_ring_allreduce_half_2ranks", 4.0 * n * 2, ring);  // 2 reads + 2 writes
  cuda::DeviceTensor bias(DType::Half, {M}), outf(DType::Float, {M, M});
  cuda::launchRandom(bias.data(), DType::Half, M, 3);
  // T9 = float(T5) + float(broadcast(T2)), as the executor builds it
  cuda::PwProgram epi = program(M, M, {{a.data(), DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                                outf.data(), DType::Float);
  instr(epi, OpKind::Cast, DType::Float, {leafRef(0)});
  instr(epi, OpKind::Cast, DType::Float, {leafRef(1)});
  instr(epi, OpKind::Add, DType::Float, {regRef(0), regRef(1)});
  mb.run("seed_epilogue_cast_bias_add_half_to_float", 6.0 * n, [&] { cuda::launchPointwise(epi); });
  {
    double ring_ms = medianMs(ring), epi_ms = medianMs([&] { cuda::launchPointwise(epi); });
    double sum = 2 * mm_ms + ring_ms + 2 * epi_ms;
    std::printf(
        "seed_kernels_sum %.4f ms (2 x GEMM %.4f + ring %.4f + 2 x epilogue %.4f); seed total %.4f, "
        "other %.4f ms\n",
        sum, mm_ms, ring_ms, epi_ms, seed_ms, seed_ms - sum);
  }

  // ---- elementwise
  cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {M, 1}}, {b.data(), DType::Half, {M, 1}}},
                              c.data(), DType::Half);
  instr(p, OpKind::Add, DType::Half, {leafRef(0), leafRef(1)});
  mb.run("elementwise_add_half", 3.0 * n * 2, [&] { cuda::launchPointwise(p); });
  cuda::PwProgram q = program(M, M, {{a.data(), DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                              outf.data(), DType::Float);
  instr(q, OpKind::Add, DType::Float, {leafRef(0), leafRef(1)});
  mb.run("elementwise_bias_add_half_to_float", 2.0 * n + 4.0 * n, [&] { cuda::launchPointwise(q); });
  cuda::PwProgram gl = program(M, M, {{a.data(), DType::Half, {M, 1}}}, c.data(), DType::Half);
  instr(gl, OpKind::Gelu, DType::Half, {leafRef(0)});
  mb.run("elementwise_gelu_half", 2.0 * n * 2, [&] { cuda::launchPointwise(gl); });
  cuda::PwProgram ba = program(M, M, {{a.data(), DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                               c.data(), DType::Half);
  instr(ba, OpKind::Add, DType::Half, {leafRef(0), leafRef(1)});
  instr(ba, OpKind::Relu, DType::Half, {regRef(0)});
  mb.run("elementwise_relu_of_bias_add_half", 2.0 * n * 2, [&] { cuda::launchPointwise(ba); });
  cuda::PwProgram cp = program(M, M, {{outf.data(), DType::Float, {M, 1}}}, c.data(), DType::Half);
  instr(cp, OpKind::Cast, DType::Half, {leafRef(0)});
  mb.run("elementwise_cast_float_to_half", 6.0 * n, [&] { cuda::launchPointwise(cp); });
  cuda::PwProgram tr = program(M, M, {{a.data(), DType::Half, {1, M}}}, c.data(), DType::Half);
  instr(tr, OpKind::Set, DType::Half, {leafRef(0)});
  mb.run("elementwise_transpose_copy_half", 2.0 * n * 2, [&] { cuda::launchPointwise(tr); });

  // ---- reductions of a [M, M] half into float (bytes: the input read)
  cuda::DeviceTensor rows(DType::Float, {M});
  cuda::ReduceArgs ra;
  ra.in = a.data();
  ra.in_dtype = DType::Half;
  ra.rank = 2;
  ra.n_red = 1;
  ra.shape[0] = M;
  ra.shape[1] = M;
  ra.strides[0] = M;
  ra.strides[1] = 1;
  ra.out = rows.data();
  ra.out_dtype = DType::Float;
  mb.run("reduction_rowsum_half", 2.0 * n, [&] { cuda::launchReduce(ra); });
  cuda::ReduceArgs rc = ra;  // column sums: the kept dim is the contiguous one
  rc.strides[0] = 1;
  rc.strides[1] = M;
  mb.run("reduction_colsum_half", 2.0 * n, [&] { cuda::launchReduce(rc); });
  cuda::ReduceArgs rf = ra;  // everything into one value
  rf.n_red = 2;
  mb.run("reduction_fullsum_half", 2.0 * n, [&] { cuda::launchReduce(rf); });
  cuda::DeviceTensor rows16(DType::Float, {M * 16});
  cuda::ReduceArgs rw = ra;  // many short rows: [M * 16, M / 16]
  rw.out = rows16.data();
  rw.shape[0] = M * 16;
  rw.shape[1] = M / 16;
  rw.strides[0] = M / 16;
  mb.run("reduction_rowsum_short_rows_half", 2.0 * n, [&] { cuda::launchReduce(rw); });

  // ---- matmul: the full M^3, half, fp32 accumulation
  double full_ms = medianMs(
      [&] { blas.gemm(a.data(), b.data(), c.data(), DType::Half, DType::Half, M, M, M, 1, 0, 0, 0, false); });
  std::printf("matmul_full_half %.4f ms %.1f TFLOP/s\n", full_ms, 2.0 * M * M * M / full_ms / 1e9);
  return 0;
} catch (const ExecError& e) {
  std::fprintf(stderr, "error: %s\n", e.message.c_str());
  return 3;
}
