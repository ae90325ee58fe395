// The exact reference on the GPU (exec/cuda/cuda_reference.h) against the
// host's exact reference (exec/reference.h) on the same inputs: the seed,
// every repro of fixtures/valid, and small repros covering each device
// path (pointwise, reductions over every axis, matmul / linear, views,
// host-fallback ops). Outputs must agree to fp64 roundoff (the only
// difference is summation order) and the tolerance's path metadata must be
// identical. Label gpu; skips loudly without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "exec/exec_error.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "exec/sharding.h"
#include "gpu_test_util.h"
#include "support/internal_error.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_reference.h"
#endif

namespace fc {
namespace {

using namespace gputest;  // NOLINT(google-build-using-namespace)

#if FC_HAVE_CUDA
// Compares the two references of `f`; returns false (with a message) when
// the host reference itself cannot run (not what this test is about).
void expectSameReference(const Fusion& f, const std::string& what) {
  using namespace exec;  // NOLINT(google-build-using-namespace)
  World world(f);
  MemoryBudget budget;
  ScalarValues sv(f);
  RunInputs in;
  ReferenceResult host;
  try {
    in = generateInputs(f, world, sv, 7, 8, &budget);
    host = runReference(f, in, sv, Flavour::Exact, &budget);
  } catch (const ExecError& e) {
    GTEST_LOG_(INFO) << what << ": the host reference does not run (" << e.message << "); not compared";
    return;
  }
  ReferenceResult gpu = cuda::runExactReferenceCuda(f, in, &budget);
  for (TensorId t : f.outputs) {
    std::string name(f.tensorName(t));
    ASSERT_TRUE(host.values[t].has_value()) << what << " " << name;
    ASSERT_TRUE(gpu.values[t].has_value()) << what << " " << name << ": no GPU value";
    const HostTensor& a = *gpu.values[t];
    const HostTensor& b = *host.values[t];
    ASSERT_EQ(a.shape(), b.shape()) << what << " " << name;
    double scale = 0;
    for (int64_t i = 0; i < b.numel(); ++i)
      if (std::isfinite(b[i])) scale = std::max(scale, std::fabs(b[i]));
    int64_t bad = 0;
    for (int64_t i = 0; i < b.numel(); ++i) {
      bool same_nonfinite = !std::isfinite(b[i]) && (std::isnan(b[i]) ? std::isnan(a[i]) : a[i] == b[i]);
      if (!same_nonfinite && !(std::fabs(a[i] - b[i]) <= 1e-12 * std::max(1.0, scale))) ++bad;
    }
    EXPECT_EQ(bad, 0) << what << " " << name << ": " << bad << " of " << b.numel()
                      << " elements differ beyond fp64 roundoff";
    EXPECT_EQ(gpu.path_dtype[t], host.path_dtype[t]) << what << " " << name;
    EXPECT_EQ(gpu.path_reduction[t], host.path_reduction[t]) << what << " " << name;
    EXPECT_EQ(gpu.path_hops[t], host.path_hops[t]) << what << " " << name;
  }
  // The same inputs held as shards on the host, or on the device alone (as
  // `run` holds them): the device assembles each global tensor, and the
  // outputs are the same bits.
  auto sameBits = [&](const ReferenceResult& r, const char* held) {
    for (TensorId t : f.outputs) {
      ASSERT_TRUE(r.values[t].has_value()) << what << " " << f.tensorName(t) << " " << held;
      const HostTensor& a = *r.values[t];
      const HostTensor& b = *gpu.values[t];
      ASSERT_EQ(a.shape(), b.shape()) << what << " " << f.tensorName(t);
      int64_t bad = 0;
      for (int64_t i = 0; i < b.numel(); ++i)
        bad += std::memcmp(&a.data()[i], &b.data()[i], sizeof(double)) != 0 ? 1 : 0;
      EXPECT_EQ(bad, 0) << what << " " << f.tensorName(t) << ": " << held << ", " << bad
                        << " elements differ";
    }
  };
  ScalarValues sv2(f);
  RunInputs shards = generateInputs(f, world, sv2, 7, 8, &budget, HeldInputs::ShardsOnly);
  sameBits(cuda::runExactReferenceCuda(f, shards, &budget), "shards on the host");
  ScalarValues sv3(f);
  cuda::DeviceInputs dev(&budget);
  ShardSink sink = dev.sink();
  RunInputs none = generateInputs(f, world, sv3, 7, 8, &budget, HeldInputs::None, &sink);
  cuda::DeviceReference dr(f, none, &budget, &dev);
  ReferenceResult on_device = dr.paths();
  for (TensorId t : f.outputs)
    if (const cuda::DeviceTensor* d = dr.value(t)) on_device.values[t] = d->download(&budget);
  sameBits(on_device, "shards on the device");
}
#endif

TEST(GpuReference, SeedAndValidFixtures) {
  REQUIRE_GPU();
#if FC_HAVE_CUDA
  std::optional<Fusion> seed = loadFixture("seed/matmul_allreduce_bias.json");
  ASSERT_TRUE(seed.has_value());
  expectSameReference(*seed, "seed");
  std::filesystem::path valid = test::fixturesDir().path + "/valid";
  std::error_code ec;
  ASSERT_TRUE(std::filesystem::is_directory(valid, ec)) << "MISSING: fixture folder " << valid.string();
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(valid))
    if (e.path().extension() == ".json") {
      std::optional<Fusion> f = loadFixture("valid/" + e.path().filename().string());
      ASSERT_TRUE(f.has_value()) << e.path();
      expectSameReference(*f, e.path().filename().string());
      ++n;
    }
  EXPECT_GT(n, 0) << "no repro in " << valid.string();
#endif
}

// A device block copy puts each shard where the host's assemble puts it:
// a [6, 4, 5] tensor sharded on dims 0 and 1 over a 3 x 2 mesh, a shard of
// dim 2 only, and a rank-1 tensor.
TEST(GpuReference, ShardsAssembleOnTheDeviceAsOnTheHost) {
  REQUIRE_GPU();
#if FC_HAVE_CUDA
  using namespace exec;  // NOLINT(google-build-using-namespace)
  Mesh mesh;
  mesh.shape = {3, 2};
  mesh.devices = {0, 1, 2, 3, 4, 5};
  struct Case {
    Shape global;
    std::vector<ShardDim> dims;
  };
  for (const Case& c :
       {Case{{6, 4, 5}, {{1, ParallelType::DIDx, 2}, {0, ParallelType::DIDy, 3}}},
        Case{{6, 4, 6}, {{2, ParallelType::DIDx, 2}}}, Case{{12}, {{0, ParallelType::DIDy, 3}}}}) {
    HostTensor global(DType::Float, c.global);
    for (int64_t i = 0; i < global.numel(); ++i) global[i] = static_cast<double>(i) * 0.5 - 7;
    cuda::DeviceTensor dev(DType::Float, c.global);
    cuda::DeviceTensor zero = cuda::DeviceTensor::upload(HostTensor(DType::Float, c.global), nullptr);
    dev.copyBlockFrom(zero, std::vector<int64_t>(c.global.size(), 0));
    for (int64_t pos = 0; pos < 6; ++pos) {
      HostTensor shard = shardOf(global, c.dims, &mesh, pos);
      dev.copyBlockFrom(cuda::DeviceTensor::upload(shard, nullptr),
                        shardOffsets(shard.shape(), c.dims, &mesh, pos));
    }
    HostTensor back = dev.download(nullptr);
    ASSERT_EQ(back.shape(), global.shape());
    for (int64_t i = 0; i < global.numel(); ++i) ASSERT_EQ(back[i], global[i]) << "element " << i;
  }
  // A block outside the tensor is an internal error, not a write out of bounds.
  cuda::DeviceTensor small(DType::Float, {4, 4});
  cuda::DeviceTensor block(DType::Float, {2, 4});
  EXPECT_THROW(small.copyBlockFrom(block, {3, 0}), InternalError);
#endif
}

TEST(GpuReference, DevicePathsInFp64) {
  REQUIRE_GPU();
#if FC_HAVE_CUDA
  // Pointwise chain over Half inputs with a broadcast, in fp64 on the device.
  expectSameReference(
      parse(repro({{"T0", "Half", {16, 40}, true},
                   {"T1", "Half", {1, 40}, true},
                   {"T2", "Half", {16, 40}},
                   {"T3", "Float", {16, 40}, true}},
                  {R"({"op": "mul", "inputs": ["T0", "T1"], "outputs": ["T2"]})",
                   R"({"op": "cast", "inputs": ["T2"], "outputs": ["T3"], "dtype": "Float"})"},
                  {"T0", "T1"}, {"T3"})),
      "pointwise");
  // Reductions over the inner and the outer axis.
  for (std::string dims : {"[1]", "[0]"})
    expectSameReference(
        parse(repro({{"T0", "BFloat16", {64, 300}, true},
                     {"T1", "BFloat16",
                      dims == "[1]" ? std::vector<int64_t>{64, -300} : std::vector<int64_t>{-64, 300}, true}},
                    {R"({"op": "sum", "inputs": ["T0"], "outputs": ["T1"], "dims": )" + dims + "}"}, {"T0"},
                    {"T1"})),
        "sum " + dims);
  // A matmul (DGEMM in the reference).
  expectSameReference(
      parse(repro({{"T0", "Half", {32, 48}, true},
                   {"T1", "Half", {48, 24}, true},
                   {"T2", "Half", {32, 24, -48}, true}},
                  {R"({"op": "matmul", "inputs": ["T0", "T1"], "outputs": ["T2"]})"}, {"T0", "T1"}, {"T2"})),
      "matmul");
#endif
}

}  // namespace
}  // namespace fc
