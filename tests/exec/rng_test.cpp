// The specified generator and input generation (strides, shards, bindings).
#include "exec/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/inputs.h"
#include "exec_test_util.h"
#include "io/place_pointer.h"

namespace fc::exec {
namespace {

TEST(Rng, SplitMix64ReferenceValues) {
  // The reference implementation seeded with 0 starts with these outputs.
  SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(r.next(), 0x06C45D188009454Full);
}

TEST(Rng, ValuesPerDType) {
  SplitMix64 r = SplitMix64::forInput(7, 0, 0);
  for (int i = 0; i < 1000; ++i) {
    double h = r.value(DType::Half);
    EXPECT_GE(h, -1.0);
    EXPECT_LE(h, 1.0);
    EXPECT_EQ(roundTo(DType::Half, h), h);
    double k = r.value(DType::Int);
    EXPECT_TRUE(k >= 0 && k < 10 && k == std::floor(k));
    double b = r.value(DType::Bool);
    EXPECT_TRUE(b == 0 || b == 1);
  }
}

TEST(Rng, InputsAreDeterministicAndSeeded) {
  Fusion f;
  TensorId a = addTensor(f, "T0", DType::Float, {3, 4});
  f.inputs.push_back(ValueRef::tensor(a));
  f.outputs.push_back(a);
  World w(f);
  ScalarValues s1(f), s2(f), s3(f);
  RunInputs x = generateInputs(f, w, s1, 5, 8, nullptr);
  RunInputs y = generateInputs(f, w, s2, 5, 8, nullptr);
  RunInputs z = generateInputs(f, w, s3, 6, 8, nullptr);
  ASSERT_EQ(x.values[0].global.shape(), (Shape{3, 4}));
  bool differs = false;
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(x.values[0].global[i], y.values[0].global[i]);
    differs |= x.values[0].global[i] != z.values[0].global[i];
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, StridesViewTheStorage) {
  // A [2, 3] input with strides [0, 1]: both rows are the same three values.
  Fusion f;
  TensorId a = addTensor(f, "T0", DType::Float, {-1, -1});
  f.inputs.push_back(ValueRef::tensor(a));
  f.outputs.push_back(a);
  f.concrete_inputs.push_back({ValueRef::tensor(a), {2, 3}, {0, 1}, std::nullopt});
  World w(f);
  ScalarValues sv(f);
  RunInputs in = generateInputs(f, w, sv, 1, 8, nullptr);
  const HostTensor& g = in.values[0].global;
  ASSERT_EQ(g.shape(), (Shape{2, 3}));
  for (int j = 0; j < 3; ++j) EXPECT_EQ(g[j], g[3 + j]);
  EXPECT_NE(g[0], g[1]);
  // The symbols of the axes are bound to the concrete sizes.
  EXPECT_EQ(sv.evalInt(f.axes[f.tensors[a].logical[0]].extent), 2);
  EXPECT_EQ(sv.evalInt(f.axes[f.tensors[a].logical[1]].extent), 3);
}

TEST(Rng, DidShardsAreDistinctAndBindMeshSize) {
  Fusion f;
  MeshId m = f.addMesh({2}, {0, 1});
  TensorId a = addTensor(f, "T0", DType::Half, {-1, 4}, m, /*did_dim=*/0);
  f.inputs.push_back(ValueRef::tensor(a));
  f.outputs.push_back(a);
  f.concrete_inputs.push_back({ValueRef::tensor(a), {1, 4}, {}, std::nullopt});
  World w(f);
  ScalarValues sv(f);
  RunInputs in = generateInputs(f, w, sv, 3, 8, nullptr);
  EXPECT_EQ(sv.evalInt(f.axes[f.tensors[a].logical[0]].extent), 2);  // local 1 x mesh 2
  ASSERT_TRUE(in.values[0].local[0] && in.values[0].local[1]);
  EXPECT_EQ(in.values[0].local[0]->shape(), (Shape{1, 4}));
  EXPECT_EQ(in.values[0].global.shape(), (Shape{2, 4}));
  EXPECT_NE((*in.values[0].local[0])[0], (*in.values[0].local[1])[0]);
  EXPECT_EQ(in.values[0].global[4], (*in.values[0].local[1])[0]);
}

// Inputs held as shards only make, through assembleGlobal, the global tensor
// generateInputs assembles otherwise: two dims sharded over a 2 x 2 mesh, and
// a replicated input.
TEST(Rng, ShardsOnlyInputsAssembleToTheGlobalTensor) {
  Fusion f;
  MeshId m = f.addMesh({2, 2}, {0, 1, 2, 3});
  TensorId a = addTensor(f, "T0", DType::Float, {-1, -1, 3}, m, /*did_dim=*/0);
  f.axes[f.tensors[a].logical[1]].parallel = ParallelType::DIDy;
  TensorId b = addTensor(f, "T1", DType::Half, {2, 5}, m);
  f.inputs = {ValueRef::tensor(a), ValueRef::tensor(b)};
  f.outputs = {a, b};
  f.concrete_inputs.push_back({ValueRef::tensor(a), {2, 3, 3}, {}, std::nullopt});
  World w(f);
  ScalarValues s1(f), s2(f);
  RunInputs whole = generateInputs(f, w, s1, 11, 8, nullptr);
  RunInputs shards = generateInputs(f, w, s2, 11, 8, nullptr, HeldInputs::ShardsOnly);
  for (size_t p = 0; p < 2; ++p) {
    SCOPED_TRACE(p);
    const InputValue& x = whole.values[p];
    const InputValue& y = shards.values[p];
    EXPECT_FALSE(x.shards_only);
    EXPECT_TRUE(y.shards_only);
    EXPECT_EQ(y.global.numel(), 0);
    EXPECT_EQ(globalShape(y), x.global.shape());
    ASSERT_EQ(y.local.size(), x.local.size());
    for (size_t r = 0; r < x.local.size(); ++r) {
      ASSERT_TRUE(x.local[r] && y.local[r]);
      EXPECT_TRUE(
          std::equal(x.local[r]->data(), x.local[r]->data() + x.local[r]->numel(), y.local[r]->data()));
    }
    HostTensor g = assembleGlobal(y, nullptr);
    ASSERT_EQ(g.shape(), x.global.shape());
    EXPECT_TRUE(std::equal(g.data(), g.data() + g.numel(), x.global.data()));
  }
  EXPECT_EQ(globalShape(shards.values[0]), (Shape{4, 6, 3}));
  // The shard of device 3 (mesh position 3: DIDy 1, DIDx 1) starts at [2, 3, 0].
  HostTensor g = assembleGlobal(shards.values[0], nullptr);
  EXPECT_EQ(g[(2 * 6 + 3) * 3], (*shards.values[0].local[3])[0]);
  // Shapes bind the same either way.
  EXPECT_EQ(s2.evalInt(f.axes[f.tensors[a].logical[1]].extent), 6);
}

// Held nowhere: each distinct shard goes to the sink once, with the ranks
// that hold it, and is the shard the host-held inputs give those ranks.
TEST(Rng, ShardsGoToTheSinkOnceWithTheirRanks) {
  Fusion f;
  MeshId m = f.addMesh({2, 2}, {0, 1, 2, 3});
  TensorId a = addTensor(f, "T0", DType::Float, {-1, 5}, m, /*did_dim=*/0);  // DIDx: replicated on DIDy
  TensorId b = addTensor(f, "T1", DType::Half, {3}, m);                      // replicated everywhere
  f.inputs = {ValueRef::tensor(a), ValueRef::tensor(b)};
  f.outputs = {a, b};
  World w(f);
  ScalarValues s1(f), s2(f);
  RunInputs whole = generateInputs(f, w, s1, 4, 8, nullptr);
  std::vector<std::pair<size_t, std::vector<int64_t>>> calls;
  std::vector<HostTensor> got;
  ShardSink sink = [&](size_t p, const std::vector<int64_t>& ranks, HostTensor&& shard) {
    calls.emplace_back(p, ranks);
    got.push_back(std::move(shard));
  };
  RunInputs none = generateInputs(f, w, s2, 4, 8, nullptr, HeldInputs::None, &sink);
  // T0: shard 0 on devices 0 and 2 (DIDx coordinate 0), shard 1 on 1 and 3; T1: one shard, all four.
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], (std::pair<size_t, std::vector<int64_t>>{0, {0, 2}}));
  EXPECT_EQ(calls[1], (std::pair<size_t, std::vector<int64_t>>{0, {1, 3}}));
  EXPECT_EQ(calls[2], (std::pair<size_t, std::vector<int64_t>>{1, {0, 1, 2, 3}}));
  for (size_t k = 0; k < calls.size(); ++k) {
    const HostTensor& want = *whole.values[calls[k].first].local[calls[k].second[0]];
    ASSERT_EQ(got[k].shape(), want.shape());
    EXPECT_TRUE(std::equal(want.data(), want.data() + want.numel(), got[k].data())) << "call " << k;
  }
  for (const InputValue& v : none.values) {
    EXPECT_TRUE(v.shards_in_sink);
    for (const auto& l : v.local) EXPECT_FALSE(l.has_value());
  }
  EXPECT_EQ(globalShape(none.values[0]), (Shape{2, 5}));
  // A fusion run on those inputs binds through their layout.
  ScalarValues s3(f);
  EXPECT_NO_THROW(bindInputs(f, w, none, s3));
}

TEST(Rng, ConcreteShapeThatContradictsAConstantExtentIsAnError) {
  Fusion f;
  TensorId a = addTensor(f, "T0", DType::Float, {5});
  f.inputs.push_back(ValueRef::tensor(a));
  f.outputs.push_back(a);
  f.concrete_inputs.push_back({ValueRef::tensor(a), {4}, {}, std::nullopt});
  World w(f);
  ScalarValues sv(f);
  try {
    generateInputs(f, w, sv, 0, 8, nullptr);
    FAIL() << "expected an ExecError";
  } catch (const ExecError& e) {
    EXPECT_EQ(e.code, DiagCode::BadConcreteInput);
    EXPECT_EQ(jsonPointer(e.where), "/concrete_inputs/0");
  }
}

}  // namespace
}  // namespace fc::exec
