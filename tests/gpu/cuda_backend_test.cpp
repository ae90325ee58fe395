// The CUDA backend (label `gpu`): device tensors, every kernel family
// against the CPU references through runFusion(--device cuda), the seed
// with and without --fix, planted wrong rewrites caught on the GPU, the
// device ring against the CPU simulation bit for bit, and GPU
// out-of-memory as FC0904. Without a device (or without CUDA in the build)
// every test skips with a message saying so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "driver/run.h"
#include "exec/communicator.h"
#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "gpu_test_util.h"
#include "io/reader.h"
#include "support/progress.h"
#if FC_HAVE_CUDA
#include "exec/compare.h"
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/device_source.h"
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/kernels.h"
#if FC_HAVE_NCCL
#include "exec/cuda/nccl_communicator.h"
#endif
#endif

namespace fc {
namespace {

using namespace gputest;  // NOLINT(google-build-using-namespace)

constexpr const char* kSeed = "seed/matmul_allreduce_bias.json";

// The fixtures these tests read, found without a GPU: a tree copied to
// another path must still provide them, and a missing one fails here with
// MISSING (CPU CI runs this; the GPU tests below would only skip).
TEST(GpuFixtures, TheFixturesTheGpuTestsReadAreFound) {
  for (const char* rel :
       {kSeed, "analysis/reduce_scatter_symbolic_ko.json", "analysis/control_allgather_edge.json"}) {
    std::optional<Fusion> f = loadFixture(rel);
    EXPECT_TRUE(f.has_value()) << rel;
  }
}

TEST(GpuBackend, UnaryOpsMatchTheReference) {
  REQUIRE_GPU();
  for (std::string op : {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
                         "silu", "reciprocal", "sin", "cos", "erf", "floor", "ceil"}) {
    for (std::string dt : {"Float", "Half", "BFloat16", "Double"})
      expectGpuPasses(
          repro({{"T0", dt, {6, 40}, true}, {"T1", dt, {6, 40}, true}},
                {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"]}"}, {"T0"}, {"T1"}),
          op + " " + dt);
  }
}

TEST(GpuBackend, BinaryAndCompareOpsBroadcast) {
  REQUIRE_GPU();
  for (std::string op : {"add", "sub", "mul", "div", "maximum", "minimum"})
    expectGpuPasses(
        repro({{"T0", "Half", {6, 1}, true}, {"T1", "Half", {1, 40}, true}, {"T2", "Half", {6, 40}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\", \"T1\"], \"outputs\": [\"T2\"]}"}, {"T0", "T1"},
              {"T2"}),
        op);
  for (std::string op : {"eq", "ne", "lt", "le", "gt", "ge"})
    expectGpuPasses(
        repro({{"T0", "Float", {6, 40}, true}, {"T1", "Float", {1, 40}, true}, {"T2", "Bool", {6, 40}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\", \"T1\"], \"outputs\": [\"T2\"]}"}, {"T0", "T1"},
              {"T2"}),
        op);
}

TEST(GpuBackend, FusedChainWithWhereCastsAndViews) {
  REQUIRE_GPU();
  // T2 = permute(T0); T3 = broadcast(T1) ; T4 = T2 * T3 ; T5 = gt(T4, T2) ; T6 = where(T5, T4, T2); T7 = cast
  expectGpuPasses(
      repro({{"T0", "BFloat16", {5, 12}, true},
             {"T1", "BFloat16", {5}, true},
             {"T2", "BFloat16", {12, 5}},
             {"T3", "BFloat16", {1, 5}},
             {"T4", "BFloat16", {12, 5}},
             {"T5", "Bool", {12, 5}},
             {"T6", "BFloat16", {12, 5}},
             {"T7", "Half", {12, 5}, true}},
            {"{\"op\": \"permute\", \"inputs\": [\"T0\"], \"outputs\": [\"T2\"], \"dims\": [1, 0]}",
             "{\"op\": \"broadcast\", \"inputs\": [\"T1\"], \"outputs\": [\"T3\"], \"flags\": [true, false]}",
             "{\"op\": \"mul\", \"inputs\": [\"T2\", \"T3\"], \"outputs\": [\"T4\"]}",
             "{\"op\": \"gt\", \"inputs\": [\"T4\", \"T2\"], \"outputs\": [\"T5\"]}",
             "{\"op\": \"where\", \"inputs\": [\"T5\", \"T4\", \"T2\"], \"outputs\": [\"T6\"]}",
             "{\"op\": \"cast\", \"inputs\": [\"T6\"], \"outputs\": [\"T7\"], \"dtype\": \"Half\"}"},
            {"T0", "T1"}, {"T7"}),
      "fused chain");
}

TEST(GpuBackend, CastsToEveryFloatingDType) {
  REQUIRE_GPU();
  for (std::string dt : {"Half", "BFloat16", "Float8_e4m3fn", "Float8_e5m2", "Double", "Float"})
    expectGpuPasses(
        repro({{"T0", "Float", {7, 33}, true}, {"T1", dt, {7, 33}, true}},
              {"{\"op\": \"cast\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dtype\": \"" + dt + "\"}"},
              {"T0"}, {"T1"}),
        "cast to " + dt);
}

TEST(GpuBackend, ReductionsShortAndLong) {
  REQUIRE_GPU();
  for (std::string op : {"sum", "max", "min", "mean", "prod"}) {
    // long rows (block kernel), short columns (thread kernel), keepdim
    expectGpuPasses(
        repro({{"T0", "Float", {4, 1000}, true}, {"T1", "Float", {4, -1000}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dims\": [1]}"},
              {"T0"}, {"T1"}),
        op + " long");
    expectGpuPasses(
        repro({{"T0", "Half", {9, 6, 5}, true}, {"T1", "Half", {-9, 6, -5}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dims\": [0, 2]}"},
              {"T0"}, {"T1"}),
        op + " short");
  }
}

TEST(GpuBackend, MatmulAndLinearThroughCublas) {
  REQUIRE_GPU();
  expectGpuPasses(repro({{"T0", "Half", {3, 64, 32}, true},
                         {"T1", "Half", {32, 48}, true},
                         {"T2", "Half", {3, 64, 48, -32}, true}},
                        {"{\"op\": \"matmul\", \"inputs\": [\"T0\", \"T1\"], \"outputs\": [\"T2\"]}"},
                        {"T0", "T1"}, {"T2"}),
                  "half batched matmul, broadcast weight");
  expectGpuPasses(repro({{"T0", "BFloat16", {2, 16, 24}, true},
                         {"T1", "BFloat16", {2, 24, 8}, true},
                         {"T2", "BFloat16", {2, 16, 8, -24}, true}},
                        {"{\"op\": \"matmul\", \"inputs\": [\"T0\", \"T1\"], \"outputs\": [\"T2\"]}"},
                        {"T0", "T1"}, {"T2"}),
                  "bf16 batched matmul");
  expectGpuPasses(repro({{"T0", "Double", {17, 9}, true},
                         {"T1", "Double", {9, 13}, true},
                         {"T2", "Double", {17, 13, -9}, true}},
                        {"{\"op\": \"matmul\", \"inputs\": [\"T0\", \"T1\"], \"outputs\": [\"T2\"]}"},
                        {"T0", "T1"}, {"T2"}),
                  "fp64 matmul (DGEMM)");
  expectGpuPasses(repro({{"T0", "Half", {4, 10, 32}, true},
                         {"T1", "Half", {24, 32}, true},
                         {"T2", "Half", {24}, true},
                         {"T3", "Half", {4, 10, 24, -32}, true}},
                        {"{\"op\": \"linear\", \"inputs\": [\"T0\", \"T1\", \"T2\"], \"outputs\": [\"T3\"]}"},
                        {"T0", "T1", "T2"}, {"T3"}),
                  "linear with bias");
}

TEST(GpuBackend, OpsWithoutKernelsRunOnTheHostAndSaySo) {
  REQUIRE_GPU();
  Fusion f =
      parse(repro({{"T0", "Float", {4, 6}, true}, {"T1", "Float", {4, -6}}, {"T2", "Float", {4, -6}, true}},
                  {R"({"op": "var", "inputs": ["T0"], "outputs": ["T1"], "dims": [1], "correction": 1})",
                   R"({"op": "exp", "inputs": ["T1"], "outputs": ["T2"]})"},
                  {"T0"}, {"T2"}));
  RunResult r = runOn(f, RunDevice::Cuda);
  EXPECT_TRUE(r.passed) << explain(r);
  bool named = false;
  for (const auto& s : r.segments) named |= s.summary.find("host: var") != std::string::npos;
  EXPECT_TRUE(named) << explain(r);
}

// reshape (of a contiguous tensor and of a permuted one), expand,
// broadcast_in_dim, slice (negative indices, steps), pad (growing and
// cropping), cat and the factories run on the device: the results match
// the reference and no segment names a host op.
TEST(GpuBackend, DataMovementOpsRunOnTheDevice) {
  REQUIRE_GPU();
  struct Case {
    std::string what;
    std::vector<T> ts;
    std::vector<std::string> exprs;
    std::vector<std::string> in, out;
  };
  std::vector<Case> cases = {
      {"reshape, then exp",
       {{"T0", "Half", {4, 6}, true}, {"T1", "Half", {6, 4}}, {"T2", "Half", {6, 4}, true}},
       {R"({"op": "reshape", "inputs": ["T0"], "outputs": ["T1"], "shape": [6, -1]})",
        R"({"op": "exp", "inputs": ["T1"], "outputs": ["T2"]})"},
       {"T0"},
       {"T2"}},
      {"reshape of a permute",
       {{"T0", "Float", {4, 6}, true}, {"T1", "Float", {6, 4}}, {"T2", "Float", {3, 8}, true}},
       {R"({"op": "permute", "inputs": ["T0"], "outputs": ["T1"], "dims": [1, 0]})",
        R"({"op": "reshape", "inputs": ["T1"], "outputs": ["T2"], "shape": [3, 8]})"},
       {"T0"},
       {"T2"}},
      {"expand and broadcast_in_dim",
       {{"T0", "BFloat16", {1, 5, 1}, true},
        {"T1", "BFloat16", {3, 5, 7}},
        {"T2", "BFloat16", {7}, true},
        {"T3", "BFloat16", {3, 5, 7}},
        {"T4", "BFloat16", {3, 5, 7}, true}},
       {R"({"op": "expand", "inputs": ["T0"], "outputs": ["T1"], "shape": [3, -1, 7]})",
        R"({"op": "broadcast_in_dim", "inputs": ["T2"], "outputs": ["T3"], "shape": [3, 5, 7], "dims": [2]})",
        R"({"op": "mul", "inputs": ["T1", "T3"], "outputs": ["T4"]})"},
       {"T0", "T2"},
       {"T4"}},
      {"slice with negative start and a step, then add",
       {{"T0", "Float", {10, 12}, true}, {"T1", "Float", {4, 3}}, {"T2", "Float", {4, 3}, true}},
       {R"({"op": "slice", "inputs": ["T0"], "outputs": ["T1"], "ranges": [{"start": -8, "stop": 8, "step": 1}, {"start": 1, "stop": 12, "step": 4}]})",
        R"({"op": "add", "inputs": ["T1", 1.5], "outputs": ["T2"]})"},
       {"T0"},
       {"T2"}},
      {"pad (grow and crop) and cat",
       {{"T0", "Half", {4, 6}, true},
        {"T1", "Half", {6, 5}},
        {"T2", "Half", {6, 3}, true},
        {"T3", "Half", {6, 8}, true}},
       {R"({"op": "pad", "inputs": ["T0"], "outputs": ["T1"], "pad": [1, -2, 2, 0], "value": 2.5})",
        R"({"op": "cat", "inputs": ["T1", "T2"], "outputs": ["T3"], "dim": 1})"},
       {"T0", "T2"},
       {"T3"}},
      {"factories",
       {{"T0", "Float", {3, 4}, true},
        {"T1", "Float", {3, 4}},
        {"T2", "Float", {3, 4}},
        {"T3", "Float", {4}},
        {"T4", "Float", {3, 4}},
        {"T5", "Float", {3, 4}, true}},
       {R"({"op": "full", "outputs": ["T1"], "dtype": "Float", "shape": [3, 4], "value": -0.75})",
        R"({"op": "ones", "outputs": ["T2"], "dtype": "Float", "shape": [3, 4]})",
        R"({"op": "iota", "outputs": ["T3"], "dtype": "Float", "shape": [4], "start": 0.5, "step": 0.25})",
        R"({"op": "where", "inputs": ["T0", "T1", "T2"], "outputs": ["T4"]})",
        R"({"op": "add", "inputs": ["T4", "T3"], "outputs": ["T5"]})"},
       {"T0"},
       {"T5"}},
  };
  for (const Case& c : cases) {
    Fusion f = parse(repro(c.ts, c.exprs, c.in, c.out));
    RunResult r = runOn(f, RunDevice::Cuda);
    EXPECT_TRUE(r.passed) << c.what << ": " << explain(r);
    for (const auto& s : r.segments)
      EXPECT_EQ(s.summary.find("host:"), std::string::npos) << c.what << ": " << explain(r);
  }
}

// Every repro of fixtures/valid on the GPU against the exact reference.
TEST(GpuBackend, ValidFixturesPassOnTheGpu) {
  REQUIRE_GPU();
  std::filesystem::path valid = test::fixturesDir().path + "/valid";
  std::error_code ec;
  ASSERT_TRUE(std::filesystem::is_directory(valid, ec)) << "MISSING: fixture folder " << valid.string();
  for (const auto& e : std::filesystem::directory_iterator(valid)) {
    if (e.path().extension() != ".json") continue;
    std::optional<Fusion> f = loadFixture("valid/" + e.path().filename().string());
    ASSERT_TRUE(f.has_value());
    RunResult cpu = runOn(*f, RunDevice::Cpu), gpu = runOn(*f, RunDevice::Cuda);
    EXPECT_EQ(gpu.exit_code, cpu.exit_code) << e.path().filename() << ": " << explain(gpu);
  }
}

TEST(GpuBackend, SeedFailsLikeCheckWithoutFixAndPassesWithFix) {
  REQUIRE_GPU();
  std::optional<Fusion> seed = loadFixture(kSeed);
  ASSERT_TRUE(seed.has_value());
  const Fusion& f = *seed;
  RunResult cpu = runOn(f, RunDevice::Cpu), gpu = runOn(f, RunDevice::Cuda);
  EXPECT_EQ(gpu.exit_code, 1) << explain(gpu);
  EXPECT_EQ(gpu.exit_code, cpu.exit_code);
  ASSERT_EQ(gpu.diagnostics.size(), cpu.diagnostics.size()) << explain(gpu);
  for (size_t i = 0; i < gpu.diagnostics.size(); ++i)
    EXPECT_EQ(gpu.diagnostics[i].code, cpu.diagnostics[i].code);
  ASSERT_EQ(gpu.segments.size(), cpu.segments.size());
  for (size_t i = 0; i < gpu.segments.size(); ++i) EXPECT_EQ(gpu.segments[i].status, cpu.segments[i].status);
  RunResult fixed = runOn(f, RunDevice::Cuda, true);
  EXPECT_TRUE(fixed.passed) << explain(fixed);
  EXPECT_EQ(fixed.communicator, "simulated-ring-on-gpu");
  ASSERT_EQ(fixed.outputs.size(), 1u);
  EXPECT_GT(fixed.outputs[0].numel, 0);
}

// The progress line of a GPU run: the reference on the device, each segment
// as it starts (the executor waits for each one by default), then the copy
// of the outputs back to the host.
TEST(GpuBackend, ARunReportsEachSegmentToTheProgressLine) {
  REQUIRE_GPU();
  std::optional<Fusion> seed = loadFixture(kSeed);
  ASSERT_TRUE(seed.has_value());
  std::vector<std::string> steps;
  RunResult r;
  {
    StepListener listen([&](uint64_t done, uint64_t total, std::string_view detail) {
      steps.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + std::string(detail));
    });
    r = runOn(*seed, RunDevice::Cuda, true);
  }
  ASSERT_TRUE(r.passed) << explain(r);
  ASSERT_EQ(r.segments.size(), 3u);
  ASSERT_EQ(steps.size(), 7u) << ::testing::PrintToString(steps);
  EXPECT_EQ(steps[0], "0/0 generating the inputs");
  EXPECT_EQ(steps[1], "0/0 the exact reference on cuda");
  EXPECT_EQ(steps[2], "0/0 segmentation and concretization");
  EXPECT_EQ(steps[3].rfind("0/3 segment 0: compute: ", 0), 0u) << steps[3];
  EXPECT_EQ(steps[4], "1/3 segment 1: Allreduce");
  EXPECT_EQ(steps[5].rfind("2/3 segment 2: compute: ", 0), 0u) << steps[5];
  // The outputs stay on the device: the comparison reads them there.
  EXPECT_EQ(steps[6], "0/0 comparing the outputs with the reference");
}

// The first expr of kind `op`, or null (the caller fails its test).
Expr* exprOf(Fusion& f, OpKind op) {
  for (Expr& e : f.exprs)
    if (e.op == op) return &e;
  return nullptr;
}
Tensor* tensorOf(Fusion& f, const char* name) {
  std::optional<TensorId> t = f.findTensor(name);
  return t ? &f.tensors[*t] : nullptr;
}

TEST(GpuBackend, PlantedWrongRewritesAreCaughtOnTheGpu) {
  REQUIRE_GPU();
  std::optional<Fusion> seed = loadFixture(kSeed);
  ASSERT_TRUE(seed.has_value());
  const Fusion& original = *seed;
  RunResult ok = runOn(original, RunDevice::Cuda, true, &original);
  EXPECT_TRUE(ok.passed) << "ORIGINAL --fix --against ORIGINAL: " << explain(ok);
  // Each mutation returns false when the seed lacks what it changes.
  std::vector<std::pair<std::string, std::function<bool(Fusion&)>>> mutants = {
      {"swap add for sub",
       [](Fusion& f) {
         Expr* e = exprOf(f, OpKind::Add);
         if (e) e->op = OpKind::Sub;
         return e != nullptr;
       }},
      {"round the matmul boundary to bfloat16",
       [](Fusion& f) {
         Tensor* t = tensorOf(f, "T4");
         if (t) t->dtype = DType::BFloat16;
         return t != nullptr;
       }},
      {"round the allreduce result to fp8",
       [](Fusion& f) {
         Tensor* t = tensorOf(f, "T5");
         if (t) t->dtype = DType::Float8_e4m3fn;
         return t != nullptr;
       }},
      {"reduce the wrong axis",
       [](Fusion& f) {
         Expr* e = exprOf(f, OpKind::Sum);
         if (e) e->attrs.dims = {1};
         return e != nullptr;
       }},
      {"drop the permute",
       [](Fusion& f) {
         Expr* e = exprOf(f, OpKind::Permute);
         if (e) e->attrs.dims = {0, 1, 2};
         return e != nullptr;
       }},
      {"broadcast on the wrong side",
       [](Fusion& f) {
         Expr* e = exprOf(f, OpKind::Broadcast);
         if (e) e->attrs.flags = {false, true};
         return e != nullptr;
       }},
  };
  for (auto& [name, plant] : mutants) {
    Fusion mf = original;
    if (!plant(mf)) {
      ADD_FAILURE() << name << ": the seed has no expr or tensor to mutate";
      continue;
    }
    RunResult r = runOn(mf, RunDevice::Cuda, true, &original);
    EXPECT_NE(r.exit_code, 0) << name << " was not caught on the GPU: " << explain(r);
  }
}

#if FC_HAVE_CUDA
// ReduceScatter and Allgather have no device simulation: the executor
// downloads the input's shards, runs the host's simulated ring (the same
// model) and uploads the result, and says so in the segment's summary.
TEST(GpuBackend, CollectivesWithoutADeviceSimulationRunOnTheHost) {
  REQUIRE_GPU();
  for (std::string name :
       {"analysis/reduce_scatter_symbolic_ko.json", "analysis/control_allgather_edge.json"}) {
    std::optional<Fusion> loaded = loadFixture(name);
    ASSERT_TRUE(loaded.has_value()) << name;
    const Fusion& f = *loaded;
    RunResult cpu = runOn(f, RunDevice::Cpu, true), gpu = runOn(f, RunDevice::Cuda, true);
    EXPECT_TRUE(cpu.passed) << name << ": " << explain(cpu);
    EXPECT_TRUE(gpu.passed) << name << ": " << explain(gpu);
    bool on_host = false;
    for (const auto& sr : gpu.segments)
      on_host |= sr.summary.find("simulated on the host") != std::string::npos;
    EXPECT_TRUE(on_host) << name << ": " << explain(gpu);
  }
}

// Each segment timed by its own events: every group's time is >= 0, each
// segment is in exactly one group, and the groups add up to the run's
// total within 5%, with the per-segment synchronization on and off.
TEST(GpuBackend, SegmentTimesAreNonNegativeAndAddUpToTheTotal) {
  REQUIRE_GPU();
  // 4096: a run of about 0.3 ms, so that the few microseconds between one
  // segment's end event and the next one's begin stay well inside 5%.
  std::unique_ptr<SeedOnGpu> seed = seedOnGpu(4096);
  ASSERT_TRUE(seed);
  exec::cuda::CudaProgram& prog = *seed->prog;
  exec::cuda::CudaProgram::Options o;
  o.timing = true;
  std::vector<uint32_t> ids;
  for (const Segment& s : seed->pr.segmented.segments) ids.push_back(s.id);
  for (bool sync : {true, false}) {
    o.sync_each_segment = sync;
    prog.setOptions(o);
    for (int rep = 0; rep < 5; ++rep) {
      prog.run(std::nullopt, nullptr);
      exec::cuda::SegmentTimes t = prog.segmentTimes();
      EXPECT_EQ(exec::cuda::checkSegmentTimes(t), "") << "sync " << sync << " run " << rep;
      EXPECT_GT(t.total_ms, 0);
      std::vector<uint32_t> seen;
      for (const auto& g : t.groups) {
        EXPECT_GE(g.ms, 0.0);
        seen.insert(seen.end(), g.ids.begin(), g.ids.end());
      }
      EXPECT_EQ(seen, ids);
    }
  }
}

// The Allreduce fused into the cast + bias add after it (the ring's
// result never stored, the replicated epilogue computed once) gives T9
// bit for bit what the unfused run gives (T5 materialized in Half, then
// the epilogue) and what the previous executor gave (every rank's T5 and
// T9 computed and stored on its own): the boundary's Half rounding is kept.
TEST(GpuBackend, FusedAllreduceEpilogueIsBitIdenticalToUnfused) {
  REQUIRE_GPU();
  for (int64_t m : {int64_t{256}, int64_t{1000}}) {
    std::unique_ptr<SeedOnGpu> seed = seedOnGpu(m);
    ASSERT_TRUE(seed);
    exec::cuda::CudaProgram& prog = *seed->prog;
    std::optional<TensorId> t9 = seed->fixed.findTensor("T9");
    ASSERT_TRUE(t9.has_value());
    auto outputs = [&](exec::cuda::CudaProgram::Options o, exec::cuda::KernelCounts* kc) {
      o.timing = true;
      prog.setOptions(o);
      exec::cuda::resetKernelCounts();
      prog.run(std::nullopt, nullptr);
      if (kc) *kc = exec::cuda::kernelCounts();
      std::vector<exec::HostTensor> v;
      for (int64_t r = 0; r < 2; ++r) {
        const exec::cuda::DeviceTensor* d = prog.tensor(*t9, r);
        EXPECT_NE(d, nullptr) << "T9 of rank " << r;
        if (d) v.push_back(d->download(nullptr));
      }
      return v;
    };
    exec::cuda::CudaProgram::Options fused, unfused, per_rank;
    unfused.fuse_collectives = false;
    per_rank.fuse_collectives = false;
    per_rank.share_replicas = false;
    exec::cuda::KernelCounts kf, ku;
    std::vector<exec::HostTensor> a = outputs(fused, &kf);
    EXPECT_EQ(prog.tensor(*t9, 0), prog.tensor(*t9, 1)) << "the replicas share one buffer";
    exec::cuda::SegmentTimes times = prog.segmentTimes();
    std::vector<exec::HostTensor> b = outputs(unfused, &ku);
    std::vector<exec::HostTensor> c = outputs(per_rank, nullptr);
    EXPECT_NE(prog.tensor(*t9, 0), prog.tensor(*t9, 1));
    EXPECT_EQ(kf.pointwise_fused_ring, 1) << "m " << m;
    EXPECT_EQ(kf.ring_vector + kf.ring_scalar + kf.ring_general, 0) << "m " << m;
    EXPECT_EQ(kf.pointwise_vector, 0) << "m " << m;      // the epilogue ran once, fused
    EXPECT_EQ(ku.pointwise_fused_ring, 1) << "m " << m;  // the ring materialized alone
    EXPECT_EQ(ku.pointwise_vector, 1) << "m " << m;      // the epilogue ran once
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    ASSERT_EQ(c.size(), 2u);
    for (int r = 0; r < 2; ++r) {
      ASSERT_EQ(a[r].numel(), c[r].numel());
      int64_t diff_b = 0, diff_c = 0;
      for (int64_t i = 0; i < a[r].numel(); ++i) {
        diff_b += std::memcmp(&a[r][i], &b[r][i], sizeof(double)) != 0;
        diff_c += std::memcmp(&a[r][i], &c[r][i], sizeof(double)) != 0;
      }
      EXPECT_EQ(diff_b, 0) << "m " << m << " rank " << r << ": fused vs unfused";
      EXPECT_EQ(diff_c, 0) << "m " << m << " rank " << r << ": fused vs per-rank";
    }
    // The allreduce segment ran inside the epilogue's kernel: one group.
    bool grouped = false;
    for (const auto& g : times.groups) grouped |= g.ids.size() == 2;
    EXPECT_TRUE(grouped) << "m " << m;
  }
}

// Inputs generated straight to the device (HeldInputs::None, cuda::DeviceInputs)
// run as the host-held ones do, bit for bit; the replicated bias is one
// buffer for both ranks, or one per rank without share_replicas.
TEST(GpuBackend, InputsHeldOnTheDeviceRunAsUploadedOnes) {
  REQUIRE_GPU();
  std::unique_ptr<SeedOnGpu> seed = seedOnGpu(256);
  ASSERT_TRUE(seed);
  exec::cuda::CudaProgram& prog = *seed->prog;
  std::optional<TensorId> t9 = seed->fixed.findTensor("T9");
  std::optional<TensorId> t2 = seed->fixed.findTensor("T2");
  ASSERT_TRUE(t9.has_value() && t2.has_value());
  auto t9OfRanks = [&]() {
    prog.run(std::nullopt, nullptr);
    std::vector<exec::HostTensor> v;
    for (int64_t r = 0; r < 2; ++r) v.push_back(prog.tensor(*t9, r)->download(nullptr));
    return v;
  };
  std::vector<exec::HostTensor> host = t9OfRanks();  // seedOnGpu uploaded host-held inputs
  exec::ScalarValues sv(seed->fixed);
  exec::cuda::DeviceInputs dev(nullptr);
  exec::ShardSink sink = dev.sink();
  exec::RunInputs in =
      exec::generateInputs(seed->fixed, *seed->world, sv, 0, 8, nullptr, exec::HeldInputs::None, &sink);
  size_t bias = 0;
  for (size_t p = 0; p < seed->fixed.inputs.size(); ++p) {
    EXPECT_TRUE(in.values[p].shards_in_sink);
    for (const auto& l : in.values[p].local)
      EXPECT_FALSE(l.has_value()) << "input " << p << " kept on the host";
    if (seed->fixed.inputs[p].id == *t2) bias = p;
  }
  EXPECT_EQ(dev.shard(bias, 0), dev.shard(bias, 1)) << "one upload of the replicated bias";
  for (bool share : {true, false}) {
    exec::cuda::CudaProgram::Options o;
    o.share_replicas = share;
    prog.setOptions(o);
    prog.uploadInputs(in, &dev);
    EXPECT_EQ(prog.tensor(*t2, 0) == prog.tensor(*t2, 1), share);
    std::vector<exec::HostTensor> got = t9OfRanks();
    for (int r = 0; r < 2; ++r) {
      ASSERT_EQ(got[r].numel(), host[r].numel());
      int64_t diff = 0;
      for (int64_t i = 0; i < got[r].numel(); ++i)
        diff += std::memcmp(&got[r][i], &host[r][i], sizeof(double)) != 0;
      EXPECT_EQ(diff, 0) << "rank " << r << (share ? ", shared" : ", per rank");
    }
  }
}

TEST(GpuBackend, UploadDownloadIsExactForEveryDType) {
  REQUIRE_GPU();
  for (DType dt : {DType::Bool, DType::Int32, DType::Int, DType::Half, DType::BFloat16, DType::Float,
                   DType::Double, DType::Float8_e4m3fn, DType::Float8_e5m2}) {
    exec::HostTensor h(dt, {3, 5});
    for (int64_t i = 0; i < h.numel(); ++i) h[i] = exec::roundTo(dt, (i - 7) * 0.37);
    exec::HostTensor back = exec::cuda::DeviceTensor::upload(h, nullptr).download(nullptr);
    for (int64_t i = 0; i < h.numel(); ++i) EXPECT_EQ(back[i], h[i]) << dtypeName(dt) << " at " << i;
  }
}

// The comparison reads outputs and the reference where they were computed,
// a chunk at a time (exec/cuda/device_source.h): ranges of a device tensor
// read as its download does, and a comparison of device tensors gives the
// report the host tensors give.
TEST(GpuBackend, ComparisonReadsDeviceTensorsInChunks) {
  REQUIRE_GPU();
  exec::HostTensor ref(DType::Double, {9, 7}), got(DType::Half, {9, 7});
  for (int64_t i = 0; i < ref.numel(); ++i) {
    ref[i] = std::sin(static_cast<double>(i)) * 30.0;
    got[i] = exec::roundTo(DType::Half, ref[i] * (i % 11 == 0 ? 1.01 : 1.0));
  }
  exec::cuda::DeviceTensor dref = exec::cuda::DeviceTensor::upload(ref, nullptr);
  exec::cuda::DeviceTensor dgot = exec::cuda::DeviceTensor::upload(got, nullptr);
  exec::cuda::DeviceTensorSource sref(dref), sgot(dgot);
  std::vector<double> part(10);
  sgot.read(50, 10, part.data());
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(part[i], got[50 + i]) << i;
  EXPECT_THROW(sgot.read(60, 4, part.data()), exec::ExecError);
  exec::TolerancePolicy p{DType::Half, DType::Half, 1, 0, {}, {}};
  exec::Comparison host = exec::compareTensors("T", got, ref, p);
  ASSERT_GT(host.mismatches, 0);
  for (int64_t chunk : {1, 5, 63, 0}) {
    exec::Comparison dev = exec::compareTensors("T", sgot, sref, p, 5, chunk);
    EXPECT_EQ(dev.mismatches, host.mismatches) << chunk;
    EXPECT_EQ(dev.max_abs, host.max_abs) << chunk;
    EXPECT_EQ(dev.max_ulp, host.max_ulp) << chunk;
    ASSERT_EQ(dev.worst.size(), host.worst.size()) << chunk;
    for (size_t k = 0; k < dev.worst.size(); ++k) EXPECT_EQ(dev.worst[k].index, host.worst[k].index) << chunk;
  }
  // Replicas: one buffer is not read; two buffers are compared bit for bit.
  EXPECT_EQ(exec::firstBitDifference(sgot, exec::cuda::DeviceTensorSource(dgot)), std::nullopt);
  exec::HostTensor other = got;
  other[40] = -other[40] + 1;
  exec::cuda::DeviceTensor dother = exec::cuda::DeviceTensor::upload(other, nullptr);
  EXPECT_EQ(exec::firstBitDifference(sgot, exec::cuda::DeviceTensorSource(dother), 16),
            std::optional<int64_t>(40));
}

TEST(GpuBackend, DeviceRingMatchesTheCpuSimulationBitForBit) {
  REQUIRE_GPU();
  const int R = 3;
  const int64_t n = 1001;
  std::vector<exec::HostTensor> host;
  std::vector<exec::cuda::DeviceTensor> dev;
  for (int r = 0; r < R; ++r) {
    exec::HostTensor h(DType::Half, {n});
    for (int64_t i = 0; i < n; ++i)
      h[i] = exec::roundTo(DType::Half, 1000.0 / (1 + i + r * 7) + (r - 1) * 3.1);
    dev.push_back(exec::cuda::DeviceTensor::upload(h, nullptr));
    host.push_back(std::move(h));
  }
  std::vector<exec::CommBuffer> bufs;
  for (auto& h : host) bufs.push_back({h.data(), n, DType::Half});
  exec::SimulatedCommunicator(R).allreduce(bufs, exec::ReduceOp::Sum);
  std::vector<void*> ptrs;
  std::vector<const void*> srcs;
  for (auto& d : dev) {
    ptrs.push_back(d.data());
    srcs.push_back(d.data());
  }
  exec::cuda::launchRingReduce(srcs.data(), ptrs.data(), R, n, DType::Half, OpKind::Sum, true, 0);
  for (int r = 0; r < R; ++r) {
    exec::HostTensor got = dev[r].download(nullptr);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], host[r][i]) << "rank " << r << " element " << i;
  }
}

TEST(GpuBackend, HugeAllocationIsOutOfMemoryNotACrash) {
  REQUIRE_GPU();
  try {
    exec::cuda::DeviceTensor t(DType::Float, {int64_t{1} << 20, int64_t{1} << 20}, nullptr);  // 4 TiB
    FAIL() << "a 4 TiB cudaMalloc succeeded";
  } catch (const exec::ExecError& e) {
    EXPECT_EQ(e.code, DiagCode::OutOfMemory) << e.message;
    EXPECT_NE(e.message.find("cudaMalloc"), std::string::npos) << e.message;
  }
  // The device is still usable afterwards.
  exec::HostTensor h(DType::Float, {4});
  h[2] = 3.5;
  EXPECT_EQ(exec::cuda::DeviceTensor::upload(h, nullptr).download(nullptr)[2], 3.5);
}

TEST(GpuBackend, MaxBytesBoundsDeviceAllocations) {
  REQUIRE_GPU();
  exec::MemoryBudget b(1000);
  EXPECT_THROW(exec::cuda::DeviceTensor(DType::Float, {100, 100}, &b), exec::BudgetExceeded);
  EXPECT_EQ(b.used(), 0u);
}

TEST(GpuBackend, NcclAllreduceOneRankPerGpu) {
  REQUIRE_GPU();
#if !FC_HAVE_NCCL
  GTEST_SKIP() << "SKIPPED: built without NCCL";
#else
  int n = exec::cuda::deviceCount();
  if (n < 2) GTEST_SKIP() << "SKIPPED: NCCL needs one GPU per rank; this machine has " << n;
  std::vector<int> devs;
  for (int d = 0; d < n; ++d) devs.push_back(d);
  exec::cuda::NcclCommunicator comm(devs);
  std::vector<exec::cuda::DeviceTensor> t;
  for (int d = 0; d < n; ++d) {
    exec::HostTensor h(DType::Float, {1000});
    for (int64_t i = 0; i < 1000; ++i) h[i] = d + i * 0.5;
    exec::cuda::setDevice(d);
    t.push_back(exec::cuda::DeviceTensor::upload(h, nullptr));
  }
  std::vector<exec::CommBuffer> bufs;
  for (auto& x : t) bufs.push_back({x.data(), 1000, DType::Float});
  comm.allreduce(bufs, exec::ReduceOp::Sum);
  for (int d = 0; d < n; ++d) {
    exec::cuda::setDevice(d);
    exec::HostTensor got = t[d].download(nullptr);
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(got[i], n * (n - 1) / 2.0 + n * i * 0.5) << "device " << d;
  }
  exec::cuda::setDevice(0);
#endif
}
#endif

}  // namespace
}  // namespace fc
