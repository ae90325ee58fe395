// The specified generator and input generation (strides, shards, bindings).
#include "exec/rng.h"

#include <gtest/gtest.h>

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
