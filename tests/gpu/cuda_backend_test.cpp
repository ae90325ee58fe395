// The CUDA backend (label `gpu`): device tensors, every kernel family
// against the CPU references through runFusion(--device cuda), the seed
// with and without --fix, planted wrong rewrites caught on the GPU, the
// device ring against the CPU simulation bit for bit, and GPU
// out-of-memory as FC0904. Without a device (or without CUDA in the build)
// every test skips with a message saying so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "driver/run.h"
#include "exec/communicator.h"
#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "gpu_test_util.h"
#include "io/reader.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/kernels.h"
#if FC_HAVE_NCCL
#include "exec/cuda/nccl_communicator.h"
#endif
#endif

namespace fc {
namespace {

using namespace gputest;  // NOLINT(google-build-using-namespace)

std::string seedText() {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/fixtures/seed/matmul_allreduce_bias.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
      parse(repro({{"T0", "Float", {4, 6}, true}, {"T1", "Float", {6, 4}}, {"T2", "Float", {6, 4}, true}},
                  {"{\"op\": \"reshape\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"shape\": [6, 4]}",
                   "{\"op\": \"exp\", \"inputs\": [\"T1\"], \"outputs\": [\"T2\"]}"},
                  {"T0"}, {"T2"}));
  RunResult r = runOn(f, RunDevice::Cuda);
  EXPECT_TRUE(r.passed) << explain(r);
  bool named = false;
  for (const auto& s : r.segments) named |= s.summary.find("host: reshape") != std::string::npos;
  EXPECT_TRUE(named) << explain(r);
}

TEST(GpuBackend, SeedFailsLikeCheckWithoutFixAndPassesWithFix) {
  REQUIRE_GPU();
  Fusion f = parse(seedText(), "seed.json");
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

int64_t exprOf(const Fusion& f, OpKind op) {
  for (ExprId e = 0; e < f.exprs.size(); ++e)
    if (f.exprs[e].op == op) return e;
  ADD_FAILURE() << "no " << opName(op) << " expr";
  return 0;
}

TEST(GpuBackend, PlantedWrongRewritesAreCaughtOnTheGpu) {
  REQUIRE_GPU();
  Fusion original = parse(seedText(), "seed.json");
  RunResult ok = runOn(original, RunDevice::Cuda, true, &original);
  EXPECT_TRUE(ok.passed) << "ORIGINAL --fix --against ORIGINAL: " << explain(ok);
  std::vector<std::pair<std::string, std::function<void(Fusion&)>>> mutants = {
      {"swap add for sub", [](Fusion& f) { f.exprs[exprOf(f, OpKind::Add)].op = OpKind::Sub; }},
      {"round the matmul boundary to bfloat16",
       [](Fusion& f) { f.tensors[*f.findTensor("T4")].dtype = DType::BFloat16; }},
      {"round the allreduce result to fp8",
       [](Fusion& f) { f.tensors[*f.findTensor("T5")].dtype = DType::Float8_e4m3fn; }},
      {"reduce the wrong axis", [](Fusion& f) { f.exprs[exprOf(f, OpKind::Sum)].attrs.dims = {1}; }},
      {"drop the permute",
       [](Fusion& f) {
         f.exprs[exprOf(f, OpKind::Permute)].attrs.dims = {0, 1, 2};
       }},
      {"broadcast on the wrong side",
       [](Fusion& f) {
         f.exprs[exprOf(f, OpKind::Broadcast)].attrs.flags = {false, true};
       }},
  };
  for (auto& [name, plant] : mutants) {
    Fusion mf = parse(seedText(), "mutant.json");
    plant(mf);
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
    std::ifstream in(std::string(FC_SOURCE_DIR) + "/fixtures/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    Fusion f = parse(ss.str(), name);
    RunResult cpu = runOn(f, RunDevice::Cpu, true), gpu = runOn(f, RunDevice::Cuda, true);
    EXPECT_TRUE(cpu.passed) << name << ": " << explain(cpu);
    EXPECT_TRUE(gpu.passed) << name << ": " << explain(gpu);
    bool on_host = false;
    for (const auto& sr : gpu.segments)
      on_host |= sr.summary.find("simulated on the host") != std::string::npos;
    EXPECT_TRUE(on_host) << name << ": " << explain(gpu);
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
