// GPU benchmark (not a test): fusecheck's CUDA execution of the seed graph
// (nvFuser #2481, repaired with --fix) at M = N = K in half with two
// simulated ranks, and every kernel family of docs/gpu-performance.md's
// table against the device's own ceilings: memory-bound kernels against a
// device-to-device copy, the GEMMs as TFLOP/s. PyTorch's side is
// tools/bench/torch_eager.py; tools/bench/gpu_figures.py runs both in one
// call and prints the table.
//
// Usage: gpu_bench SEED.json [M] [REPS] [seed|reduce|gemm]   (M = N = K,
// default 8192; REPS default 30; "seed": the seed's total alone, for
// alternating runs; "reduce": the copy and the three reductions alone,
// three rounds; "gemm": the two GEMM figures alone, for alternating runs)
// Output: one line per figure, "FIG name value unit [note]" (value: ms, or
// TFLOP/s for gemm_*_tflops), plus "SEG" lines (the seed's per-segment
// times, fused segments as one group) and "CHECK" lines. Every time is the
// median of REPS runs, each timed with its own pair of CUDA events, after 5
// warm-ups. Memory-bound figures move 8192^2 elements (hundreds of MB),
// several times the L2.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
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

int g_reps = 30;

// Median of g_reps event-timed runs of fn after 5 warm-ups.
double medianMs(const std::function<void()>& fn) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) fn();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int i = 0; i < g_reps; ++i) {
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
  FC_CUDA(cudaGetLastError());
  return t[t.size() / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void fig(const std::string& name, double v, const char* unit, const std::string& note = "") {
  std::printf("FIG %s %.4f %s%s%s\n", name.c_str(), v, unit, note.empty() ? "" : " ", note.c_str());
  std::fflush(stdout);
}

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
void instr(cuda::PwProgram& p, OpKind op, DType round, std::vector<cuda::PwRef> args, bool approx = false) {
  cuda::PwInstr& in = p.instrs[p.n_instrs++];
  in.op = op;
  in.round_to = round;
  in.approx_tanh = approx;
  in.nargs = static_cast<uint8_t>(args.size());
  for (size_t j = 0; j < args.size(); ++j) in.args[j] = args[j];
}

std::string replaceFirst(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

// The seed at M = N = K, two ranks (K/2 each), repaired as --fix repairs it.
struct Seed {
  std::optional<Fusion> f;
  Fusion fixed;
  PipelineResult pr;
};
bool loadSeed(const char* path, int64_t M, Seed& s) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(), kl = std::to_string(M / 2), m = std::to_string(M);
  text = replaceFirst(text, "\"shape\": [1, 64, 128]", "\"shape\": [1, " + kl + ", " + m + "]");
  text = replaceFirst(text, "\"shape\": [1, 64, 64]", "\"shape\": [1, " + kl + ", " + m + "]");
  text = replaceFirst(text, "\"shape\": [64]", "\"shape\": [" + m + "]");
  DiagnosticSink sink;
  SourceText src("seed.json", text);
  s.f = readFusion(src, sink);
  if (!s.f) return false;
  PipelineOptions po;
  {
    // The seed's path: the C++ test's MultiDeviceExecutor with a FusionExecutorCache per segment.
    auto prof = resolveProfile(ProfileRequest{"", "cpp", "mde-fec"}, *s.f);
    po.profile = std::get<Profile>(std::move(prof));
  }
  PipelineResult pr = runPipeline(*s.f, po);
  FixResult fr = applyFixes(*s.f, pr, FixKind::Auto, "seed.json");
  s.fixed = fr.changed ? std::move(fr.fixed) : *s.f;
  s.pr = runPipeline(s.fixed, po);
  return !s.pr.failed();
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpu_bench SEED.json [M] [REPS] [seed|reduce|gemm]\n");
    return 2;
  }
  const int64_t M = argc > 2 ? std::atoll(argv[2]) : 8192;
  if (argc > 3) g_reps = std::max(20, std::atoi(argv[3]));
  const bool seed_only = argc > 4 && std::string(argv[4]) == "seed";
  const bool reduce_only = argc > 4 && std::string(argv[4]) == "reduce";
  const bool gemm_only = argc > 4 && std::string(argv[4]) == "gemm";
  std::printf("device %s\n", cuda::deviceDescription(0).c_str());
  std::printf("reps %d (median of each), M = N = K = %lld\n", g_reps, static_cast<long long>(M));

  // ---- device-to-device copy: the bandwidth ceiling (bytes read + written).
  const int64_t n = M * M;
  cuda::DeviceTensor big_src(DType::Float, {M, M}), big_dst(DType::Float, {M, M});
  cuda::launchRandom(big_src.data(), DType::Float, n, 9);
  double copy_ms = medianMs(
      [&] { cudaMemcpyAsync(big_dst.data(), big_src.data(), big_src.bytes(), cudaMemcpyDeviceToDevice); });
  const double copy_bw = 2.0 * big_src.bytes() / copy_ms / 1e9;  // TB/s
  fig("copy_d2d", copy_ms, "ms",
      std::to_string(copy_bw) + " TB/s over " + std::to_string(2 * big_src.bytes()) + " bytes");
  // A memory-bound figure: its time and "% of copy" for `bytes` moved.
  auto mem = [&](const std::string& name, double bytes, const std::function<void()>& fn) {
    double ms = medianMs(fn);
    double bw = bytes / ms / 1e9;
    char note[96];
    std::snprintf(note, sizeof note, "%.3f TB/s = %.1f%% of copy", bw, 100 * bw / copy_bw);
    fig(name, ms, "ms", note);
    return ms;
  };

  cuda::DeviceTensor a(DType::Half, {M, M}), b(DType::Half, {M, M}), c(DType::Half, {M, M});
  cuda::launchRandom(a.data(), DType::Half, n, 1);
  cuda::launchRandom(b.data(), DType::Half, n, 2);
  cuda::DeviceTensor bias(DType::Half, {M}), outf(DType::Float, {M, M});
  cuda::launchRandom(bias.data(), DType::Half, M, 3);

  // The GEMMs: the seed's local product (T4 = permute(T0) @ T1, A read
  // transposed in place as the executor calls it) and the full M^3, half
  // with fp32 accumulation. Each returns its median ms.
  cuda::Blas blas;
  const int64_t K = M / 2;
  cuda::DeviceTensor A(DType::Half, {K, M}), B(DType::Half, {K, M}), C(DType::Half, {M, M});
  cuda::launchRandom(A.data(), DType::Half, M * K, 4);
  cuda::launchRandom(B.data(), DType::Half, M * K, 5);
  auto gemmLocal = [&] {
    double ms = medianMs([&] {
      blas.gemm(A.data(), B.data(), C.data(), DType::Half, DType::Half, M, M, K, 1, 0, 0, 0, false, nullptr,
                true);
    });
    std::printf("gemm tuning: %s", blas.tuningReport().c_str());
    fig("gemm_local_tflops", 2.0 * M * M * K / ms / 1e9, "TFLOP/s",
        "[" + std::to_string(M) + ", " + std::to_string(K) + "]^T-read x [" + std::to_string(K) + ", " +
            std::to_string(M) + "], " + std::to_string(ms) + " ms");
    return ms;
  };
  auto gemmFull = [&] {
    double ms = medianMs([&] {
      blas.gemm(a.data(), b.data(), c.data(), DType::Half, DType::Half, M, M, M, 1, 0, 0, 0, false);
    });
    fig("gemm_full_tflops", 2.0 * M * M * M / ms / 1e9, "TFLOP/s", std::to_string(ms) + " ms");
    std::printf("gemm tuning:\n%s", blas.tuningReport().c_str());
    return ms;
  };
  if (gemm_only) {
    gemmLocal();
    gemmFull();
    return 0;
  }

  // The memory-bound families first, on a GPU not yet heated by GEMMs
  // (its clocks drop under sustained matrix work; torch_eager.py keeps
  // the same order).
  if (!seed_only && !reduce_only) {
    // ---- memory-bound kernel families (half [M, M] unless said)
    {
      cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {M, 1}}, {b.data(), DType::Half, {M, 1}}},
                                  c.data(), DType::Half);
      instr(p, OpKind::Add, DType::Half, {leafRef(0), leafRef(1)});
      mem("add_half", 3.0 * n * 2, [&] { cuda::launchPointwise(p); });
    }
    {
      cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                                  outf.data(), DType::Float);
      instr(p, OpKind::Add, DType::Float, {leafRef(0), leafRef(1)});
      mem("bias_add_half_to_float", 2.0 * n + 4.0 * n, [&] { cuda::launchPointwise(p); });
    }
    {
      cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                                  c.data(), DType::Half);
      instr(p, OpKind::Add, DType::Half, {leafRef(0), leafRef(1)});
      instr(p, OpKind::Relu, DType::Half, {regRef(0)});
      mem("relu_bias_add_half", 2.0 * n * 2, [&] { cuda::launchPointwise(p); });
    }
    for (bool tanh_approx : {false, true}) {
      cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {M, 1}}}, c.data(), DType::Half);
      instr(p, OpKind::Gelu, DType::Half, {leafRef(0)}, tanh_approx);
      mem(tanh_approx ? "gelu_tanh_half" : "gelu_half", 2.0 * n * 2, [&] { cuda::launchPointwise(p); });
    }
    {
      cuda::PwProgram p = program(M, M, {{outf.data(), DType::Float, {M, 1}}}, c.data(), DType::Half);
      instr(p, OpKind::Cast, DType::Half, {leafRef(0)});
      mem("cast_float_to_half", 6.0 * n, [&] { cuda::launchPointwise(p); });
    }
    {
      cuda::PwProgram p = program(M, M, {{a.data(), DType::Half, {1, M}}}, c.data(), DType::Half);
      instr(p, OpKind::Set, DType::Half, {leafRef(0)});
      mem("transpose_copy_half", 2.0 * n * 2, [&] { cuda::launchPointwise(p); });
    }
    {
      cuda::DeviceTensor r0(DType::Half, {M, M});
      const void* src[2] = {a.data(), b.data()};
      void* dst[2] = {r0.data(), r0.data()};
      mem("ring_allreduce_half_2ranks_one_output", 3.0 * n * 2,
          [&] { cuda::launchRingReduce(src, dst, 2, n, DType::Half, OpKind::Sum, true, 0); });
    }
  }
  if (!seed_only) {
    // reductions of [M, M] half into float (bytes: the input read)
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
    cuda::ReduceArgs rc = ra;  // column sums: the kept dim is the contiguous one
    rc.strides[0] = 1;
    rc.strides[1] = M;
    cuda::ReduceArgs rf = ra;  // everything into one value
    rf.n_red = 2;
    for (int round = 0; round < (reduce_only ? 3 : 1); ++round) {
      mem("row_sum_half", 2.0 * n, [&] { cuda::launchReduce(ra); });
      mem("column_sum_half", 2.0 * n, [&] { cuda::launchReduce(rc); });
      mem("full_sum_half", 2.0 * n, [&] { cuda::launchReduce(rf); });
    }
    if (reduce_only) {
      // Each result against the general kernels', bit for bit (sums of
      // halves in [-1, 1]: exact in fp64 in any order).
      cuda::DeviceTensor general(DType::Float, {M});
      const char* names[3] = {"row_sum", "column_sum", "full_sum"};
      for (int k = 0; k < 3; ++k) {
        const cuda::ReduceArgs* r = k == 0 ? &ra : k == 1 ? &rc : &rf;
        const int64_t outs = k == 2 ? 1 : M;
        cuda::ReduceArgs g = *r;
        g.out = general.data();
        cuda::launchReduce(*r);
        cuda::setSpecializedKernels(false);
        cuda::launchReduce(g);
        cuda::setSpecializedKernels(true);
        std::vector<float> x(outs), y(outs);
        FC_CUDA(cudaMemcpy(x.data(), rows.data(), outs * 4, cudaMemcpyDeviceToHost));
        FC_CUDA(cudaMemcpy(y.data(), general.data(), outs * 4, cudaMemcpyDeviceToHost));
        int64_t bad = 0;
        for (int64_t i = 0; i < outs; ++i) bad += std::memcmp(&x[i], &y[i], 4) != 0;
        std::printf("CHECK %s %s (%lld of %lld outputs differ from the general kernel's)\n", names[k],
                    bad ? "FAILED" : "ok", static_cast<long long>(bad), static_cast<long long>(outs));
      }
      return 0;
    }
  }

  // ---- the seed
  Seed seed;
  if (!loadSeed(argv[1], M, seed)) {
    std::fprintf(stderr, "cannot read or repair the seed\n");
    return 2;
  }
  World world(seed.fixed);
  ScalarValues sv(seed.fixed);
  cuda::CudaProgram prog(seed.pr.segmented, world, sv, nullptr);
  {
    RunInputs inputs = generateInputs(seed.fixed, world, sv, 0, 8, nullptr);
    prog.uploadInputs(inputs);
  }  // host copies freed
  cuda::CudaProgram::Options base = prog.options();
  base.sync_each_segment = false;  // enqueued as eager enqueues; timed by events
  std::vector<SegmentRun> recs;
  auto seedWith = [&](const std::string& name, cuda::CudaProgram::Options o, const std::string& note) {
    prog.setOptions(o);
    double ms = medianMs([&] { prog.run(std::nullopt, &recs); });
    fig(name, ms, "ms", note);
    return ms;
  };
  cuda::resetKernelCounts();
  prog.setOptions(base);
  prog.run(std::nullopt, &recs);
  cudaDeviceSynchronize();
  cuda::KernelCounts kc = cuda::kernelCounts();
  std::printf(
      "seed kernels: pointwise vector %lld scalar %lld tiled %lld fused-ring %lld interpreter %lld; ring "
      "vector "
      "%lld scalar %lld general %lld\n",
      static_cast<long long>(kc.pointwise_vector), static_cast<long long>(kc.pointwise_scalar),
      static_cast<long long>(kc.pointwise_tiled), static_cast<long long>(kc.pointwise_fused_ring),
      static_cast<long long>(kc.pointwise_interpreter), static_cast<long long>(kc.ring_vector),
      static_cast<long long>(kc.ring_scalar), static_cast<long long>(kc.ring_general));
  for (const auto& r : recs) std::printf("segment %u %s: %s\n", r.id, r.status.c_str(), r.summary.c_str());
  double seed_ms = seedWith("seed_total", base, "fused allreduce epilogue, replicas shared");
  if (seed_only) return 0;
  {
    cuda::CudaProgram::Options o = base;
    o.fuse_collectives = false;
    seedWith("seed_total_unfused", o, "replicas shared, the allreduce materialized");
    o.share_replicas = false;
    seedWith("seed_total_per_rank", o, "every rank computed and stored (the previous executor)");
    cuda::setSpecializedKernels(false);
    seedWith("seed_total_general_kernels", o, "and the general kernels");
    cuda::setSpecializedKernels(true);
  }
  // Per segment: each segment (group) timed by its own events in each run.
  {
    cuda::CudaProgram::Options o = base;
    o.timing = true;
    prog.setOptions(o);
    for (int i = 0; i < 5; ++i) prog.run(std::nullopt, &recs);
    std::map<std::string, std::vector<double>> per;
    std::vector<std::string> order;
    std::vector<double> totals, sums;
    int bad = 0;
    std::string first_bad;
    for (int i = 0; i < g_reps; ++i) {
      prog.run(std::nullopt, &recs);
      cuda::SegmentTimes t = prog.segmentTimes();
      std::string why = cuda::checkSegmentTimes(t);
      if (!why.empty() && bad++ == 0) first_bad = why;
      totals.push_back(t.total_ms);
      sums.push_back(t.sumMs());
      for (const auto& g : t.groups) {
        std::string key;
        for (uint32_t id : g.ids) key += (key.empty() ? "" : "+") + std::to_string(id);
        if (!per.count(key)) order.push_back(key);
        per[key].push_back(g.ms);
      }
    }
    for (const auto& key : order) std::printf("SEG %s %.4f ms\n", key.c_str(), median(per[key]));
    std::printf("SEG sum %.4f ms, total %.4f ms (medians over %d runs)\n", median(sums), median(totals),
                g_reps);
    std::printf("CHECK segment_times %s (%d of %d runs break: >= 0 each, sum within 5%% of the total)%s%s\n",
                bad == 0 ? "ok" : "FAILED", bad, g_reps, bad ? "; first: " : "", first_bad.c_str());
    prog.setOptions(base);
  }

  // ---- the seed's kernels alone on its shapes
  double mm_ms = gemmLocal();
  {
    // the fused allreduce + cast + bias add epilogue: T9 = float(ring(a, b)) + float(bias)
    cuda::PwProgram p = program(M, M, {{nullptr, DType::Half, {M, 1}}, {bias.data(), DType::Half, {0, 1}}},
                                outf.data(), DType::Float);
    p.ring_leaf = 0;
    p.ring.R = 2;
    p.ring.src[0] = a.data();
    p.ring.src[1] = b.data();
    p.ring.count = n;
    instr(p, OpKind::Cast, DType::Float, {leafRef(0)});
    instr(p, OpKind::Cast, DType::Float, {leafRef(1)});
    instr(p, OpKind::Add, DType::Float, {regRef(0), regRef(1)});
    double ms = mem("seed_fused_allreduce_epilogue", 2.0 * n * 2 + 4.0 * n, [&] {
      if (!cuda::launchPointwiseFused(p)) std::abort();
    });
    std::printf("seed kernels: 2 x GEMM %.4f + fused epilogue %.4f = %.4f ms of the seed's %.4f\n", mm_ms, ms,
                2 * mm_ms + ms, seed_ms);
  }

  gemmFull();
  return 0;
} catch (const ExecError& e) {
  std::fprintf(stderr, "error: %s\n", e.message.c_str());
  return 3;
}
