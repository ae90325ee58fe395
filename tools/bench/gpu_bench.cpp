// GPU benchmark (not a test): fusecheck's CUDA execution of the seed graph
// (nvFuser #2481, repaired with --fix) at M = N = K = 8192 in half with two
// simulated ranks, plus the kernel families against the device's own
// ceilings: a fused elementwise kernel and a row reduction against a
// device-to-device copy, and the local GEMM through cuBLAS. PyTorch's side
// is tools/bench/torch_eager.py, run in the same call on the same GPU.
//
// Usage: gpu_bench SEED.json [M]   (M = N = K, default 8192)
// Prints one "name value unit" line per figure. Timings: CUDA events,
// median of 20 runs after 3 warm-ups.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/gemm.h"
#include "exec/cuda/kernels.h"
#include "exec/exec_error.h"
#include "exec/inputs.h"
#include "io/reader.h"
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
  double seed_ms = medianMs([&] { prog.run(std::nullopt, &recs); });
  for (const auto& r : recs) std::printf("segment %u %s: %s\n", r.id, r.status.c_str(), r.summary.c_str());
  double flops = 2.0 * M * M * M;  // both ranks' local GEMMs together
  std::printf("seed_total_ms %.4f ms (M=N=K=%lld, half, %lld ranks on one GPU; %.1f TFLOP/s of GEMM work)\n",
              seed_ms, static_cast<long long>(M), static_cast<long long>(R), flops / seed_ms / 1e9);

  // ---- device-to-device copy: the bandwidth ceiling.
  const int64_t n = M * M;  // elements
  cuda::DeviceTensor a(DType::Half, {M, M}), b(DType::Half, {M, M}), c(DType::Half, {M, M});
  cuda::launchRandom(a.data(), DType::Half, n, 1);
  cuda::launchRandom(b.data(), DType::Half, n, 2);
  cuda::DeviceTensor big_src(DType::Float, {M, M}), big_dst(DType::Float, {M, M});
  double copy_ms = medianMs(
      [&] { cudaMemcpyAsync(big_dst.data(), big_src.data(), big_src.bytes(), cudaMemcpyDeviceToDevice); });
  double copy_bw = 2.0 * big_src.bytes() / copy_ms / 1e9;  // read + write, TB/s
  std::printf("copy_d2d %.4f ms %.3f TB/s (%llu bytes read + written)\n", copy_ms, copy_bw,
              static_cast<unsigned long long>(2 * big_src.bytes()));

  // ---- elementwise: c = a + b (half) and float out = cast(a) * 2 + cast(b)
  cuda::PwProgram p;
  p.rank = 2;
  p.shape[0] = M;
  p.shape[1] = M;
  p.n_leaves = 2;
  p.leaves[0] = {a.data(), DType::Half, {M, 1}};
  p.leaves[1] = {b.data(), DType::Half, {M, 1}};
  p.n_instrs = 1;
  p.instrs[0].op = OpKind::Add;
  p.instrs[0].round_to = DType::Half;
  p.instrs[0].nargs = 2;
  p.instrs[0].args[0] = {cuda::PwRef::Leaf, 0, 0};
  p.instrs[0].args[1] = {cuda::PwRef::Leaf, 1, 0};
  p.out = c.data();
  p.out_dtype = DType::Half;
  double add_ms = medianMs([&] { cuda::launchPointwise(p); });
  double add_bw = 3.0 * n * 2 / add_ms / 1e9;
  std::printf("elementwise_add_half %.4f ms %.3f TB/s = %.1f%% of copy\n", add_ms, add_bw,
              100 * add_bw / copy_bw);
  // broadcast bias add into float (the seed's epilogue shape)
  cuda::DeviceTensor bias(DType::Half, {M}), outf(DType::Float, {M, M});
  cuda::launchRandom(bias.data(), DType::Half, M, 3);
  cuda::PwProgram q = p;
  q.leaves[1] = {bias.data(), DType::Half, {0, 1}};
  q.instrs[0].round_to = DType::Float;
  q.out = outf.data();
  q.out_dtype = DType::Float;
  double bias_ms = medianMs([&] { cuda::launchPointwise(q); });
  double bias_bw = (2.0 * n + 4.0 * n) / bias_ms / 1e9;
  std::printf("elementwise_bias_add_half_to_float %.4f ms %.3f TB/s = %.1f%% of copy\n", bias_ms, bias_bw,
              100 * bias_bw / copy_bw);

  // ---- reduction: row sums of a [M, M] half into float
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
  double red_ms = medianMs([&] { cuda::launchReduce(ra); });
  double red_bw = 2.0 * n / red_ms / 1e9;
  std::printf("reduction_rowsum_half %.4f ms %.3f TB/s = %.1f%% of copy\n", red_ms, red_bw,
              100 * red_bw / copy_bw);
  // column sums (strided reduction)
  cuda::ReduceArgs rc = ra;
  rc.strides[0] = 1;
  rc.strides[1] = M;
  double col_ms = medianMs([&] { cuda::launchReduce(rc); });
  std::printf("reduction_colsum_half %.4f ms %.3f TB/s = %.1f%% of copy\n", col_ms, 2.0 * n / col_ms / 1e9,
              100 * (2.0 * n / col_ms / 1e9) / copy_bw);

  // ---- matmul: the local GEMM [M, K/2] x [K/2, N] and the full M^3, half, fp32 accumulation
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
  double full_ms = medianMs(
      [&] { blas.gemm(a.data(), b.data(), c.data(), DType::Half, DType::Half, M, M, M, 1, 0, 0, 0, false); });
  std::printf("matmul_full_half %.4f ms %.1f TFLOP/s\n", full_ms, 2.0 * M * M * M / full_ms / 1e9);
  return 0;
} catch (const ExecError& e) {
  std::fprintf(stderr, "error: %s\n", e.message.c_str());
  return 3;
}
