// What nvFuser's op builders copy from an input a C++ test sharded before building ops on it,
// per op and per point: the profile's rules from the change points, then opBuildSharding on
// imported tests.
#include "passes/op_build_sharding.h"

#include <gtest/gtest.h>

#include <string>

#include "diag/source.h"
#include "io/import_detect.h"
#include "pipeline/profile.h"

namespace fc {
namespace {

// A C++ test body: `a` and `b` are 2-D inputs on a 2-device mesh, `a` sharded on axis
// `a_did`, `b` on axis `b_did` (-1: not sharded), both before `ops` are built.
Fusion test(const std::string& ops, int a_did = 0, int b_did = -1,
            const std::string& a_make = "makeContigTensor(2)") {
  std::string t =
      "TEST_F(MultiDeviceTest, Built) {\n  auto fusion = std::make_unique<Fusion>();\n"
      "  FusionGuard fg(fusion.get());\n  DeviceMesh mesh({0, 1});\n"
      "  TensorView* a = " +
      a_make +
      ";\n  TensorView* b = makeContigTensor(2);\n"
      "  fusion->addInput(a);\n  fusion->addInput(b);\n"
      "  a->setDeviceMesh(mesh);\n  b->setDeviceMesh(mesh);\n";
  if (a_did >= 0) t += "  a->axis(" + std::to_string(a_did) + ")->parallelize(ParallelType::DIDx);\n";
  if (b_did >= 0) t += "  b->axis(" + std::to_string(b_did) + ")->parallelize(ParallelType::DIDx);\n";
  t += ops + "\n}\n";
  DiagnosticSink sink;
  auto f = importFusion(SourceText("built.cpp", t), sink);
  EXPECT_TRUE(f.has_value()) << t;
  return f ? std::move(*f) : Fusion{};
}

OpBuildRules at(const Fusion& f, const std::string& point) {
  auto r = resolveProfile(ProfileRequest{point, "cpp", "fec"}, f);
  const Profile* p = std::get_if<Profile>(&r);
  EXPECT_NE(p, nullptr) << point;
  return p ? p->op_build : OpBuildRules{};
}

// The DID type each logical axis of `name` ends with, as "DS" (D: a DID type, S: not).
std::string dids(const Fusion& f, const BuiltSharding& b, const std::string& name) {
  const Tensor& t = f.tensors[*f.findTensor(name)];
  std::string s;
  for (AxisId a : t.logical) {
    bool d = isDeviceDim(f.axes[a].parallel);
    for (auto [x, pt] : b.axes) d |= x == a;
    s += d ? 'D' : 'S';
  }
  return s;
}

bool meshed(const Fusion& f, const BuiltSharding& b, const std::string& name) {
  const TensorId t = *f.findTensor(name);
  if (f.tensors[t].mesh != kNone) return true;
  for (auto [x, m] : b.meshes)
    if (x == t) return true;
  return false;
}

TEST(OpBuildSharding, ThePointsSwitchEachBuilder) {
  const Fusion f = test("  TensorView* c = add(a, b);\n  fusion->addOutput(c);");
  const OpBuildRules before = at(f, "2024-08-01");
  EXPECT_FALSE(before.new_output_mesh || before.reduction || before.permute_mesh);
  const OpBuildRules aug = at(f, "2024-08-06");
  EXPECT_TRUE(aug.new_output_mesh && aug.new_output_dids && aug.reduction);
  EXPECT_FALSE(aug.broadcast_axis_dids || aug.permute_mesh);
  const OpBuildRules oct = at(f, "2024-10-20");
  EXPECT_TRUE(oct.broadcast_axis_dids && oct.permute_mesh && oct.broadcast_squeeze_mesh);
  EXPECT_FALSE(oct.static_reshape_mesh || oct.linear_mesh);
  const OpBuildRules head = at(f, "head");
  EXPECT_TRUE(head.new_output_mesh && head.reduction && head.linear_mesh && head.broadcast_dids);
  EXPECT_FALSE(head.new_output_dids);
}

TEST(OpBuildSharding, MatmulTakesDidTypesOnItsReductionAxisButNeverAMesh) {
  // a [M, K(DIDx)] x b [K(DIDx), N]: while newOutputIterDomain promotes DID types, rK is DIDx.
  const Fusion f = test("  TensorView* c = matmul(a, b);\n  fusion->addOutput(c);", 1, 0);
  const BuiltSharding aug = opBuildSharding(f, at(f, "2024-08-06"));
  EXPECT_EQ(dids(f, aug, "T2"), "SSD");
  EXPECT_FALSE(meshed(f, aug, "T2"));
  const BuiltSharding head = opBuildSharding(f, at(f, "head"));
  EXPECT_EQ(dids(f, head, "T2"), "SSS");
  EXPECT_FALSE(meshed(f, head, "T2"));
}

TEST(OpBuildSharding, LinearTakesItsInputsMeshFrom4362) {
  const Fusion f = test("  TensorView* c = linear(a, b);\n  fusion->addOutput(c);", -1, -1);
  EXPECT_FALSE(meshed(f, opBuildSharding(f, at(f, "2025-06-01")), "T2"));
  EXPECT_TRUE(meshed(f, opBuildSharding(f, at(f, "2025-06-05")), "T2"));
}

TEST(OpBuildSharding, ResizedAxesAreSerialAndPadSetsNoMesh) {
  // Padding the unsharded axis: the sharded one keeps DIDx at every point, and no mesh comes.
  const Fusion f = test(
      "  TensorView* c = pad(a, {IrBuilder::create<Val>(1L), IrBuilder::create<Val>(1L)});\n"
      "  fusion->addOutput(c);");
  for (const char* p : {"2024-07-01", "head"}) {
    const BuiltSharding b = opBuildSharding(f, at(f, p));
    EXPECT_EQ(dids(f, b, "T2"), "DS") << p;
    EXPECT_FALSE(meshed(f, b, "T2")) << p;
  }
  // Padding the sharded axis: the padded axis is a new one, Serial.
  const Fusion g = test(
      "  TensorView* c = pad(a, {IrBuilder::create<Val>(1L), IrBuilder::create<Val>(1L)});\n"
      "  fusion->addOutput(c);",
      1);
  EXPECT_EQ(dids(g, opBuildSharding(g, at(g, "head")), "T2"), "SS");
}

TEST(OpBuildSharding, AStaticReshapeOfAShardedTensorIsLeftOpen) {
  const Fusion f = test("  TensorView* c = reshape(a, {2, 8}, {16});\n  fusion->addOutput(c);", 0, -1,
                        "makeContigConcreteTensor({2, 8})");
  const BuiltSharding b = opBuildSharding(f, at(f, "head"));
  ASSERT_EQ(b.open.size(), 1u);
  EXPECT_NE(b.open[0].second.find("static reshape of a tensor with a DID axis"), std::string::npos);
  EXPECT_TRUE(meshed(f, b, "T2"));
  EXPECT_FALSE(meshed(f, opBuildSharding(f, at(f, "2025-03-01")), "T2"));
}

TEST(OpBuildSharding, NothingIsBuiltFromTensorsShardedAfterTheDefinition) {
  DiagnosticSink sink;
  auto f = importFusion(
      SourceText("late.cpp",
                 "TEST_F(MultiDeviceTest, Late) {\n  auto fusion = std::make_unique<Fusion>();\n"
                 "  FusionGuard fg(fusion.get());\n  DeviceMesh mesh({0, 1});\n"
                 "  TensorView* a = makeContigTensor(2);\n  fusion->addInput(a);\n"
                 "  TensorView* c = relu(a);\n  fusion->addOutput(c);\n"
                 "  a->setDeviceMesh(mesh);\n  a->axis(0)->parallelize(ParallelType::DIDx);\n}\n"),
      sink);
  ASSERT_TRUE(f.has_value());
  const BuiltSharding b = opBuildSharding(*f, at(*f, "2024-08-06"));
  EXPECT_EQ(b.built, 0u);
  EXPECT_TRUE(b.meshes.empty() && b.axes.empty());
}

}  // namespace
}  // namespace fc
