// Verifier tests: the seed fusion (nvFuser issue #2481) built with the
// Fusion builders is clean; each test breaks it in ONE way and expects
// exactly one diagnostic with the check's code and JSON pointer, so that
// removing the check (or letting it cascade) fails the test.
#include "ir/verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostic.h"
#include "io/place_pointer.h"
#include "ir/fusion.h"

namespace fc {
namespace {

using IT = IterType;
using PT = ParallelType;

struct Seed {
  Fusion f;
  ScalarId i0, i2, i3, i4, i5, i6, i7, one;
  TensorId T[10];
  AxisId ax[25];
};

// The seed repro (fixtures/seed/matmul_allreduce_bias.json) with builders.
Seed makeSeed() {
  Seed s;
  Fusion& f = s.f;
  MeshId m = f.addMesh({2}, {0, 1});
  uint32_t decl = 0;
  auto sym = [&](const char* n) {
    ScalarId id = f.addSymbol(n);
    f.scalars[id].decl = decl++;
    return id;
  };
  s.i0 = sym("i0");
  s.i2 = sym("i2");
  s.i3 = sym("i3");
  s.i4 = sym("i4");
  s.i5 = sym("i5");
  s.i6 = sym("i6");
  s.i7 = sym("i7");
  s.one = f.addConstInt(1);
  auto ax = [&](uint32_t n, ScalarId ext, IT it = IT::Iteration, PT pt = PT::Serial) {
    s.ax[n] = f.addAxis(n, it, pt, ext);
    return s.ax[n];
  };
  auto& T = s.T;
  T[0] = f.addTensor("T0", DType::Half, MemoryType::Global,
                     {ax(0, s.i0, IT::Iteration, PT::DIDx), ax(1, s.i2), ax(2, s.i3)}, m);
  T[1] = f.addTensor("T1", DType::Half, MemoryType::Global,
                     {ax(3, s.i4, IT::Iteration, PT::DIDx), ax(4, s.i5), ax(5, s.i6)}, m);
  T[2] = f.addTensor("T2", DType::Half, MemoryType::Global, {ax(6, s.i7)}, m);
  AxisId a7 = ax(7, s.i0, IT::Iteration, PT::DIDx), a8 = ax(8, s.i2), a9 = ax(9, s.i3);
  T[3] = f.addTensor("T3", DType::Half, MemoryType::Local, {a7, a9, a8}, m);
  f.tensors[T[3]].root = {a7, a8, a9};
  T[4] = f.addTensor(
      "T4", DType::Half, MemoryType::Global,
      {ax(10, s.i0, IT::Iteration, PT::DIDx), ax(11, s.i3), ax(12, s.i6), ax(13, s.i2, IT::Reduction)}, m);
  T[5] = f.addTensor("T5", DType::Half, MemoryType::Global,
                     {ax(14, s.i0, IT::Reduction), ax(15, s.i3), ax(16, s.i6)}, m);
  T[6] = f.addTensor("T6", DType::Half, MemoryType::Local, {ax(17, s.one, IT::Broadcast), ax(18, s.i7)}, m);
  T[7] = f.addTensor("T7", DType::Float, MemoryType::Local, {ax(19, s.i3), ax(20, s.i6)}, m);
  T[8] = f.addTensor("T8", DType::Float, MemoryType::Local, {ax(21, s.one, IT::Broadcast), ax(22, s.i7)}, m);
  T[9] = f.addTensor("T9", DType::Float, MemoryType::Global, {ax(23, s.i3), ax(24, s.i6)}, m);
  auto t = [](TensorId id) { return ValueRef::tensor(id); };
  Attrs perm;
  perm.dims = {0, 2, 1};
  f.addExpr(OpKind::Permute, {t(T[0])}, {T[3]}, perm);    // 0
  f.addExpr(OpKind::Matmul, {t(T[3]), t(T[1])}, {T[4]});  // 1
  Attrs red;
  red.dims = {0};
  f.addExpr(OpKind::Sum, {t(T[4])}, {T[5]}, red);  // 2
  Attrs bc;
  bc.flags = {true, false};
  f.addExpr(OpKind::Broadcast, {t(T[2])}, {T[6]}, bc);  // 3
  Attrs cast;
  cast.dtype = DType::Float;
  f.addExpr(OpKind::Cast, {t(T[5])}, {T[7]}, cast);    // 4
  f.addExpr(OpKind::Cast, {t(T[6])}, {T[8]}, cast);    // 5
  f.addExpr(OpKind::Add, {t(T[7]), t(T[8])}, {T[9]});  // 6
  f.inputs = {t(T[0]), t(T[1]), t(T[2])};
  f.outputs = {T[9]};
  f.concrete_inputs.push_back(ConcreteInput{t(T[0]), {1, 64, 128}, {}, std::nullopt});
  f.concrete_inputs.push_back(ConcreteInput{t(T[1]), {1, 64, 64}, {}, std::nullopt});
  f.concrete_inputs.push_back(ConcreteInput{t(T[2]), {64}, {}, std::nullopt});
  return s;
}

using Found = std::vector<std::pair<std::string, std::string>>;  // (code, pointer)

Found verify(const Fusion& f, bool* ok = nullptr) {
  DiagnosticSink sink;
  bool clean = verifyFusion(f, sink, "seed.json");
  if (ok) *ok = clean;
  Found out;
  for (const Diagnostic& d : sink.all()) {
    EXPECT_EQ(d.loc.file, "seed.json");
    out.emplace_back(std::string(diagCodeInfo(d.code).id), jsonPointer(d.loc.place));
  }
  return out;
}

std::string show(const Found& v) {
  std::string s;
  for (auto& [c, p] : v) s += c + " " + p + "\n";
  return s;
}

// Exactly one diagnostic: `code` at `pointer`.
void expectOne(const Fusion& f, const std::string& code, const std::string& pointer) {
  bool ok = true;
  Found got = verify(f, &ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(got.size(), 1u) << show(got);
  EXPECT_EQ(got[0].first, code) << show(got);
  EXPECT_EQ(got[0].second, pointer) << show(got);
}

TEST(Verifier, SeedIsClean) {
  Seed s = makeSeed();
  bool ok = false;
  Found got = verify(s.f, &ok);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(got.empty()) << show(got);
}

TEST(Verifier, EmptyFusionIsClean) {
  Fusion f;
  bool ok = false;
  EXPECT_TRUE(verify(f, &ok).empty());
  EXPECT_TRUE(ok);
}

// ---- names and ids

TEST(Verifier, DuplicateTensorName) {
  Seed s = makeSeed();
  s.f.tensors[s.T[8]].name = s.f.names.intern("T7");
  expectOne(s.f, "FC0103", "/tensors/8/name");
}

TEST(Verifier, DuplicateScalarName) {
  Seed s = makeSeed();
  ScalarId dup = s.f.addSymbol("i3");
  s.f.scalars[dup].decl = 7;
  expectOne(s.f, "FC0103", "/scalars/7/name");
}

TEST(Verifier, TensorAndScalarShareAName) {
  Seed s = makeSeed();
  s.f.tensors[s.T[2]].name = s.f.names.intern("i7");
  expectOne(s.f, "FC0103", "/scalars/6/name");
}

TEST(Verifier, DuplicateAxisNumber) {
  Seed s = makeSeed();
  s.f.axes[s.ax[22]].number = 21;
  expectOne(s.f, "FC0104", "/tensors/8/logical/1/id");
}

TEST(Verifier, DanglingMesh) {
  Seed s = makeSeed();
  s.f.tensors[s.T[2]].mesh = 3;
  expectOne(s.f, "FC0110", "/tensors/2/mesh");
}

TEST(Verifier, AxisOfAnotherTensor) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].logical[1] = s.ax[20];  // T7's axis
  expectOne(s.f, "FC0111", "/tensors/9/logical/1");
}

TEST(Verifier, AxisOutOfRange) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].logical[1] = 999;
  expectOne(s.f, "FC0111", "/tensors/9/logical/1");
}

TEST(Verifier, AxisListedTwiceInADomain) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].logical[1] = s.ax[23];
  expectOne(s.f, "FC0111", "/tensors/9/logical/1");
}

TEST(Verifier, DanglingTensorOperand) {
  Seed s = makeSeed();
  s.f.exprs[6].inputs[1] = ValueRef::tensor(99);
  expectOne(s.f, "FC0101", "/exprs/6/inputs/1");
}

TEST(Verifier, DanglingScalarOperand) {
  Seed s = makeSeed();
  s.f.exprs[6].inputs[1] = ValueRef::scalar(999);
  expectOne(s.f, "FC0102", "/exprs/6/inputs/1");
}

// ---- definitions and uses

TEST(Verifier, TwoDefinitions) {
  Seed s = makeSeed();
  s.f.addExpr(OpKind::Set, {ValueRef::tensor(s.T[7])}, {s.T[9]});
  expectOne(s.f, "FC0106", "/exprs/7/outputs/0");
}

TEST(Verifier, InputProduced) {
  Seed s = makeSeed();
  TensorId t10 = s.f.addTensor("T10", DType::Half, MemoryType::Global,
                               {s.f.addAxis(30, IT::Iteration, PT::Serial, s.i7)}, 0);
  s.f.addExpr(OpKind::Set, {ValueRef::tensor(s.T[2])}, {t10});
  s.f.inputs.push_back(ValueRef::tensor(t10));
  expectOne(s.f, "FC0109", "/exprs/7/outputs/0");
}

TEST(Verifier, UsedTensorNeverDefined) {
  Seed s = makeSeed();
  s.f.inputs.pop_back();  // T2 is no longer an input; its concrete input must not cascade
  expectOne(s.f, "FC0108", "/exprs/3/inputs/0");
}

TEST(Verifier, OutputNotProduced) {
  Seed s = makeSeed();
  TensorId t10 = s.f.addTensor("T10", DType::Float, MemoryType::Global,
                               {s.f.addAxis(30, IT::Iteration, PT::Serial, s.i7)}, 0);
  s.f.outputs.push_back(t10);
  expectOne(s.f, "FC0107", "/outputs/1");
}

TEST(Verifier, OutputThatIsAnInputIsFine) {
  Seed s = makeSeed();
  s.f.outputs.push_back(s.T[2]);
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, DuplicateInput) {
  Seed s = makeSeed();
  s.f.inputs.push_back(ValueRef::tensor(s.T[1]));
  expectOne(s.f, "FC0115", "/inputs/3");
}

TEST(Verifier, CycleOfTwoExprs) {
  Seed s = makeSeed();
  s.f.exprs[4].inputs[0] = ValueRef::tensor(s.T[9]);  // T7 = cast(T9), T9 = T7 + T8
  expectOne(s.f, "FC0105", "/exprs/4/inputs/0");
}

TEST(Verifier, SelfLoop) {
  Seed s = makeSeed();
  s.f.exprs[6].inputs[0] = ValueRef::tensor(s.T[9]);  // T9 = T9 + T8
  expectOne(s.f, "FC0105", "/exprs/6/inputs/0");
}

TEST(Verifier, TwoIndependentCyclesGiveTwoDiagnostics) {
  Seed s = makeSeed();
  s.f.exprs[4].inputs[0] = ValueRef::tensor(s.T[9]);
  s.f.exprs[5].inputs[0] = ValueRef::tensor(s.T[8]);  // T8 = cast(T8)
  Found got = verify(s.f);
  ASSERT_EQ(got.size(), 2u) << show(got);
  EXPECT_EQ(got[0].first, "FC0105");
  EXPECT_EQ(got[1].first, "FC0105");
}

TEST(Verifier, ScalarDefinitionCycle) {
  Seed s = makeSeed();
  Fusion& f = s.f;
  ScalarId a = f.addDerived(ScalarOp::Add, s.one, s.one);
  ScalarId b = f.addDerived(ScalarOp::Add, a, s.one);
  f.scalars[a].lhs = b;  // a = b + 1, b = a + 1
  f.scalars[a].name = f.names.intern("n");
  f.scalars[a].decl = 7;
  f.axes[s.ax[6]].extent = a;
  Found got = verify(f);
  ASSERT_EQ(got.size(), 1u) << show(got);
  EXPECT_EQ(got[0].first, "FC0105");
  EXPECT_EQ(got[0].second.rfind("/scalars/7", 0), 0u) << got[0].second;
}

// ---- arity

TEST(Verifier, TooManyInputs) {
  Seed s = makeSeed();
  s.f.exprs[6].inputs.push_back(ValueRef::tensor(s.T[7]));
  expectOne(s.f, "FC0201", "/exprs/6/inputs/2");
}

TEST(Verifier, TooFewInputs) {
  Seed s = makeSeed();
  s.f.exprs[1].inputs.pop_back();
  expectOne(s.f, "FC0201", "/exprs/1/inputs");
}

TEST(Verifier, ScalarWhereTensorNeeded) {
  Seed s = makeSeed();
  s.f.exprs[0].inputs[0] = ValueRef::scalar(s.i0);
  expectOne(s.f, "FC0201", "/exprs/0/inputs/0");
}

// ---- ranks

TEST(Verifier, ElementwiseRankMismatch) {
  Seed s = makeSeed();
  s.f.exprs[6].inputs[1] = ValueRef::tensor(s.T[2]);  // T9 = T7 + T2: rank 2 vs 1
  expectOne(s.f, "FC0202", "/exprs/6/inputs/1");
}

TEST(Verifier, ElementwiseOutputRankMismatch) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].logical.push_back(s.f.addAxis(30, IT::Iteration, PT::Serial, s.i7));
  expectOne(s.f, "FC0202", "/exprs/6/outputs/0");
}

TEST(Verifier, ElementwiseScalarOperandIsFine) {
  Seed s = makeSeed();
  ScalarId c = s.f.addConstFloat(2.0, DType::Double);
  s.f.exprs[6].inputs[1] = ValueRef::scalar(c);  // T9 = T7 + 2.0 (Float stays Float)
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
}

TEST(Verifier, ReductionDimOutOfRange) {
  Seed s = makeSeed();
  s.f.exprs[2].attrs.dims = {3};
  expectOne(s.f, "FC0202", "/exprs/2/dims/0");
}

TEST(Verifier, ReductionNegativeDimIsNormalized) {
  Seed s = makeSeed();
  s.f.exprs[2].attrs.dims = {-3};
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, ReductionOutputRank) {
  Seed s = makeSeed();
  s.f.tensors[s.T[5]].logical.erase(s.f.tensors[s.T[5]].logical.begin());  // drops rS14
  expectOne(s.f, "FC0202", "/exprs/2/outputs/0");
}

TEST(Verifier, ReducedAxisMustBeReduction) {
  Seed s = makeSeed();
  s.f.axes[s.ax[14]].iter = IT::Iteration;
  // The cast T7 = cast(T5) now sees a rank-3 operand: same root cause, not reported.
  expectOne(s.f, "FC0210", "/tensors/5/logical/0");
}

TEST(Verifier, KeptAxisMustNotBeReduction) {
  Seed s = makeSeed();
  s.f.axes[s.ax[15]].iter = IT::Reduction;
  expectOne(s.f, "FC0210", "/tensors/5/logical/1");
}

TEST(Verifier, ReductionWithoutDims) {
  Seed s = makeSeed();
  s.f.exprs[2].attrs.dims.clear();
  expectOne(s.f, "FC0208", "/exprs/2");
}

TEST(Verifier, ReductionDuplicateDim) {
  Seed s = makeSeed();
  s.f.exprs[2].attrs.dims = {0, 0};
  expectOne(s.f, "FC0208", "/exprs/2/dims/1");
}

TEST(Verifier, PermuteNotAPermutation) {
  Seed s = makeSeed();
  s.f.exprs[0].attrs.dims = {0, 2, 2};
  expectOne(s.f, "FC0202", "/exprs/0/dims/2");
}

TEST(Verifier, PermuteWrongLength) {
  Seed s = makeSeed();
  s.f.exprs[0].attrs.dims = {0, 1};
  expectOne(s.f, "FC0202", "/exprs/0/dims");
}

TEST(Verifier, PermuteLogicalDisagreesWithRoot) {
  Seed s = makeSeed();
  s.f.exprs[0].attrs.dims = {0, 1, 2};  // a valid permutation, but T3's logical is [7, 9, 8]
  expectOne(s.f, "FC0202", "/tensors/3/logical/1");
}

TEST(Verifier, BroadcastFlagsLength) {
  Seed s = makeSeed();
  s.f.exprs[3].attrs.flags = {true};
  expectOne(s.f, "FC0202", "/exprs/3/flags");
}

TEST(Verifier, BroadcastFlagAxisMustBeBroadcast) {
  Seed s = makeSeed();
  s.f.axes[s.ax[17]].iter = IT::Iteration;
  expectOne(s.f, "FC0210", "/tensors/6/logical/0");
}

TEST(Verifier, ElementwiseBroadcastOutputOverIteration) {
  Seed s = makeSeed();
  s.f.axes[s.ax[23]].iter = IT::Broadcast;  // T9 axis 0 Broadcast, but T7 has iS19 there
  expectOne(s.f, "FC0210", "/tensors/9/logical/0");
}

TEST(Verifier, ElementwiseCannotProduceReduction) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].logical.push_back(s.f.addAxis(30, IT::Reduction, PT::Serial, s.i7));
  expectOne(s.f, "FC0210", "/tensors/9/logical/2");
}

TEST(Verifier, MatmulOutputRankAndNoCascade) {
  Seed s = makeSeed();
  // T4 loses iS12: matmul of two rank-3 operands gives rank 3, T4 has 2.
  auto& lg = s.f.tensors[s.T[4]].logical;
  lg.erase(lg.begin() + 2);
  expectOne(s.f, "FC0202", "/exprs/1/outputs/0");  // and nothing from sum(T4)
}

TEST(Verifier, MatmulReductionMustBeLast) {
  Seed s = makeSeed();
  auto& lg = s.f.tensors[s.T[4]].logical;
  std::swap(lg[2], lg[3]);
  expectOne(s.f, "FC0210", "/tensors/4/logical/2");
}

TEST(Verifier, MatmulOperandDTypes) {
  Seed s = makeSeed();
  s.f.tensors[s.T[1]].dtype = DType::Float;
  expectOne(s.f, "FC0203", "/exprs/1/inputs/1");
}

TEST(Verifier, LinearRanks) {
  Seed s = makeSeed();
  // linear(rank 3, rank-3 weight {wb, N, K}, rank-3 bias): a bias is {N} or {wb, N}
  // (csrc/ops/utils.cpp mapLinearOpIterDomains).
  s.f.exprs[1].op = OpKind::Linear;
  s.f.exprs[1].inputs.push_back(s.f.exprs[1].inputs[1]);
  Found got = verify(s.f);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0], (std::pair<std::string, std::string>{"FC0202", "/exprs/1/inputs/2"})) << show(got);
}

TEST(Verifier, LinearStackedWeightBuildsWeightBatchAxesFirst) {
  Seed s = makeSeed();
  // The seed's matmul output is {M, N, rK}; linear with the 3-D weight would build {wb, M?, ...}.
  s.f.exprs[1].op = OpKind::Linear;
  Found got = verify(s.f);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].second.rfind("/exprs/1/outputs/0", 0), 0u) << show(got);
}

// ---- dtypes

TEST(Verifier, CastDTypeMismatch) {
  Seed s = makeSeed();
  s.f.exprs[4].attrs.dtype = DType::Double;
  expectOne(s.f, "FC0203", "/tensors/7/dtype");
}

TEST(Verifier, CastWithoutDType) {
  Seed s = makeSeed();
  s.f.exprs[4].attrs.dtype.reset();
  expectOne(s.f, "FC0208", "/exprs/4");
}

TEST(Verifier, BinaryPromotion) {
  Seed s = makeSeed();
  s.f.tensors[s.T[9]].dtype = DType::Half;  // Float + Float is Float
  expectOne(s.f, "FC0203", "/tensors/9/dtype");
}

TEST(Verifier, BinaryPromotionMixed) {
  Seed s = makeSeed();
  s.f.tensors[s.T[8]].dtype = DType::Half;
  s.f.exprs[5].attrs.dtype = DType::Half;   // T8 = cast<Half>(T6)
  s.f.tensors[s.T[9]].dtype = DType::Half;  // Float + Half promotes to Float
  expectOne(s.f, "FC0203", "/tensors/9/dtype");
}

TEST(Verifier, ComparisonProducesBool) {
  Seed s = makeSeed();
  s.f.exprs[6].op = OpKind::Lt;
  expectOne(s.f, "FC0203", "/tensors/9/dtype");
  s.f.tensors[s.T[9]].dtype = DType::Bool;
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, DTypeErrorDoesNotCascade) {
  Seed s = makeSeed();
  s.f.tensors[s.T[7]].dtype = DType::Double;  // cast says Float; add(T7, T8) would promote to Double
  expectOne(s.f, "FC0203", "/tensors/7/dtype");
}

TEST(Verifier, ReductionKeepsDType) {
  Seed s = makeSeed();
  s.f.tensors[s.T[5]].dtype = DType::Float;
  s.f.exprs[4].attrs.dtype = DType::Float;
  expectOne(s.f, "FC0203", "/tensors/5/dtype");
  s.f.exprs[2].attrs.dtype = DType::Float;  // sum(T4, dtype=Float) is fine
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
}

TEST(Verifier, WhereNeedsBoolCondition) {
  Seed s = makeSeed();
  s.f.exprs[6].op = OpKind::Where;
  s.f.exprs[6].inputs.insert(s.f.exprs[6].inputs.begin(), ValueRef::tensor(s.T[7]));
  expectOne(s.f, "FC0203", "/exprs/6/inputs/0");
}

// ---- extents, meshes, layouts

TEST(Verifier, NegativeConstantExtent) {
  Seed s = makeSeed();
  s.f.axes[s.ax[6]].extent = s.f.addConstInt(-3);
  expectOne(s.f, "FC0204", "/tensors/2/logical/0/extent");
}

TEST(Verifier, NegativeFoldedExtent) {
  Seed s = makeSeed();
  ScalarId two = s.f.addConstInt(2);
  s.f.axes[s.ax[6]].extent = s.f.addDerived(ScalarOp::Sub, s.one, two);  // 1 - 2
  expectOne(s.f, "FC0204", "/tensors/2/logical/0/extent");
}

TEST(Verifier, SymbolicExtentIsNotNegative) {
  Seed s = makeSeed();
  s.f.axes[s.ax[6]].extent = s.f.addDerived(ScalarOp::Sub, s.i7, s.one);
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, FloatExtent) {
  Seed s = makeSeed();
  s.f.axes[s.ax[6]].extent = s.f.addConstFloat(2.5);
  expectOne(s.f, "FC0209", "/tensors/2/logical/0/extent");
}

TEST(Verifier, FloatSymbolAsExtentReportedOnce) {
  Seed s = makeSeed();
  s.f.scalars[s.i3].dtype = DType::Float;  // i3 sizes six axes
  expectOne(s.f, "FC0209", "/tensors/0/logical/2/extent");
}

TEST(Verifier, ExtentOfRootAxisPointsAtRoot) {
  Seed s = makeSeed();
  s.f.axes[s.ax[9]].extent = s.f.addConstInt(-1);
  expectOne(s.f, "FC0204", "/tensors/3/root/2/extent");
}

// A DIDx axis on a tensor without a mesh is well formed: nvFuser's sharding passes may give it
// one, and the pipeline decides the rest.
TEST(Verifier, DidAxisWithoutMeshIsWellFormed) {
  Seed s = makeSeed();
  s.f.tensors[s.T[0]].mesh = kNone;
  bool ok = false;
  Found got = verify(s.f, &ok);
  EXPECT_TRUE(ok) << show(got);
  EXPECT_TRUE(got.empty()) << show(got);
}

TEST(Verifier, DidYOnOneDimensionalMesh) {
  Seed s = makeSeed();
  s.f.axes[s.ax[3]].parallel = PT::DIDy;
  expectOne(s.f, "FC0205", "/tensors/1/logical/0");
}

TEST(Verifier, EmptyMesh) {
  Seed s = makeSeed();
  s.f.addMesh({}, {});
  expectOne(s.f, "FC0206", "/meshes/1/devices");
}

TEST(Verifier, MeshRepeatsDevice) {
  Seed s = makeSeed();
  s.f.meshes[0].devices = {1, 1};
  expectOne(s.f, "FC0207", "/meshes/0/devices/1");
}

TEST(Verifier, MeshShapeDisagreesWithDevices) {
  Seed s = makeSeed();
  s.f.meshes[0].shape = {3};
  expectOne(s.f, "FC0207", "/meshes/0/devices");
}

TEST(Verifier, TwoDimensionalMeshIsFine) {
  Seed s = makeSeed();
  s.f.addMesh({2, 2}, {0, 1, 2, 3});
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, ContiguityLength) {
  Seed s = makeSeed();
  s.f.tensors[s.T[0]].contiguity = {true, true};
  expectOne(s.f, "FC0211", "/tensors/0/contiguity");
}

TEST(Verifier, ContiguityOfBroadcastMustBeNull) {
  Seed s = makeSeed();
  s.f.tensors[s.T[6]].contiguity = {true, true};
  expectOne(s.f, "FC0211", "/tensors/6/contiguity/0");
  s.f.tensors[s.T[6]].contiguity = {std::nullopt, std::nullopt};
  expectOne(s.f, "FC0211", "/tensors/6/contiguity/1");
  s.f.tensors[s.T[6]].contiguity = {std::nullopt, true};
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, ContiguityFollowsAllocation) {
  Seed s = makeSeed();
  Tensor& t6 = s.f.tensors[s.T[6]];
  t6.allocation = {s.ax[18], s.ax[17]};
  t6.contiguity = {std::nullopt, true};  // aligned with logical, not allocation
  Found got = verify(s.f);
  ASSERT_EQ(got.size(), 2u) << show(got);
  EXPECT_EQ(got[0].second, "/tensors/6/contiguity/0");
  t6.contiguity = {true, std::nullopt};
  EXPECT_TRUE(verify(s.f).empty());
}

// T0 gets a DID loop split as at head: loop = [outer(DIDx), inner, i2, i3].
Seed withLoopSplit(ScalarId factor) {
  Seed s = makeSeed();
  Fusion& f = s.f;
  Tensor& t0 = f.tensors[s.T[0]];
  f.axes[s.ax[0]].parallel = PT::Serial;
  AxisId outer = f.addAxis(30, IT::Iteration, PT::DIDx, f.addConstInt(2));
  AxisId inner =
      f.addAxis(31, IT::Iteration, PT::Serial, f.addDerived(ScalarOp::CeilDiv, s.i0, f.addConstInt(2)));
  AxisTransform split;
  split.kind = AxisTransform::Kind::Split;
  split.in = s.ax[0];
  split.out = outer;
  split.out2 = inner;
  split.factor = factor == kNone ? f.addConstInt(2) : factor;
  split.inner_split = false;
  t0.transforms.push_back(split);
  t0.loop = {outer, inner, s.ax[1], s.ax[2]};
  return s;
}

TEST(Verifier, LoopSplitIsFine) {
  Seed s = withLoopSplit(kNone);
  Found got = verify(s.f);
  EXPECT_TRUE(got.empty()) << show(got);
}

TEST(Verifier, SplitFactorZero) {
  Seed s = withLoopSplit(kNone);
  s.f.tensors[s.T[0]].transforms[0].factor = s.f.addConstInt(0);
  expectOne(s.f, "FC0212", "/tensors/0/transforms/0/factor");
}

TEST(Verifier, AxisSplitTwice) {
  Seed s = withLoopSplit(kNone);
  Fusion& f = s.f;
  AxisTransform again = f.tensors[s.T[0]].transforms[0];
  again.out = f.addAxis(32, IT::Iteration, PT::Serial, s.i0);
  again.out2 = f.addAxis(33, IT::Iteration, PT::Serial, s.i0);
  f.tensors[s.T[0]].transforms.push_back(again);
  expectOne(f, "FC0212", "/tensors/0/transforms/1/in");
}

TEST(Verifier, MergeWithItself) {
  Seed s = makeSeed();
  Fusion& f = s.f;
  AxisTransform m;
  m.kind = AxisTransform::Kind::Merge;
  m.in = s.ax[1];
  m.in2 = s.ax[1];
  m.out = f.addAxis(30, IT::Iteration, PT::Serial, s.i2);
  f.tensors[s.T[0]].transforms.push_back(m);
  f.tensors[s.T[0]].loop = {s.ax[0], m.out, s.ax[2]};
  expectOne(f, "FC0212", "/tensors/0/transforms/0/inner");
}

// ---- segmentation and concrete inputs

Segmentation seedSegments() {
  Segmentation sg;
  sg.segments = {{{0, 1}, "expr_eval"}, {{2}, "communication"}, {{3, 4, 5, 6}, "pointwise"}};
  return sg;
}

TEST(Verifier, SegmentationIsFine) {
  Seed s = makeSeed();
  s.f.segmentation = seedSegments();
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(Verifier, SegmentationNamesMissingExpr) {
  Seed s = makeSeed();
  s.f.segmentation = seedSegments();
  s.f.segmentation->segments[2].exprs.push_back(9);
  expectOne(s.f, "FC0112", "/segmentation/segments/2/exprs/4");
}

TEST(Verifier, SegmentationNotAPartition) {
  Seed s = makeSeed();
  s.f.segmentation = seedSegments();
  s.f.segmentation->segments[2].exprs = {3, 4, 5};  // expr 6 is in no segment
  expectOne(s.f, "FC0113", "/segmentation/segments");
  s.f.segmentation->segments[2].exprs = {3, 4, 5, 6, 2};  // expr 2 twice
  expectOne(s.f, "FC0113", "/segmentation/segments/2/exprs/4");
}

TEST(Verifier, SegmentationRunOrder) {
  Seed s = makeSeed();
  s.f.segmentation = seedSegments();
  std::swap(s.f.segmentation->segments[0], s.f.segmentation->segments[1]);  // sum before matmul
  expectOne(s.f, "FC0113", "/segmentation/segments/0/exprs/0");
}

TEST(Verifier, ConcreteInputRank) {
  Seed s = makeSeed();
  s.f.concrete_inputs[0].shape = {1, 64};
  expectOne(s.f, "FC0114", "/concrete_inputs/0/shape");
}

TEST(Verifier, ConcreteInputNotAnInput) {
  Seed s = makeSeed();
  s.f.concrete_inputs[2].value = ValueRef::tensor(s.T[3]);
  expectOne(s.f, "FC0114", "/concrete_inputs/2/input");
}

TEST(Verifier, ConcreteInputOfReductionTensorCountsNonReductionAxes) {
  Seed s = makeSeed();
  // T5 [rS14, iS15, iS16] as an input has non-Reduction rank 2.
  s.f.exprs.erase(s.f.exprs.begin(), s.f.exprs.begin() + 3);  // drop permute, matmul, sum
  for (TensorId t = 0; t < s.f.tensors.size(); ++t) s.f.tensors[t].definition = kNone;
  s.f.inputs = {ValueRef::tensor(s.T[5]), ValueRef::tensor(s.T[2])};
  s.f.concrete_inputs = {ConcreteInput{ValueRef::tensor(s.T[5]), {64, 64}, {}, std::nullopt}};
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.concrete_inputs[0].shape = {1, 64, 64};
  expectOne(s.f, "FC0114", "/concrete_inputs/0/shape");
}

// ---- shape ops on a small fusion: T0 [i0, i1] (input) -> op -> T1

struct Small {
  Fusion f;
  ScalarId i0, i1;
  TensorId in;
  uint32_t next_axis = 0;
  AxisId axis(ScalarId ext, IT it = IT::Iteration) { return f.addAxis(next_axis++, it, PT::Serial, ext); }
  TensorId tensor(const char* name, std::vector<AxisId> axes, DType dt = DType::Float) {
    return f.addTensor(name, dt, MemoryType::Local, std::move(axes));
  }
  // Adds `out = op(in, extra...)` and makes `out` the fusion output.
  void op(OpKind k, TensorId out, Attrs attrs, std::vector<ValueRef> extra = {}) {
    std::vector<ValueRef> ins = {ValueRef::tensor(in)};
    ins.insert(ins.end(), extra.begin(), extra.end());
    f.addExpr(k, ins, {out}, std::move(attrs));
    f.outputs = {out};
  }
};

Small makeSmall(DType dt = DType::Float) {
  Small s;
  s.i0 = s.f.addSymbol("i0");
  s.f.scalars[s.i0].decl = 0;
  s.i1 = s.f.addSymbol("i1");
  s.f.scalars[s.i1].decl = 1;
  s.in = s.tensor("T0", {s.axis(s.i0), s.axis(s.i1)}, dt);
  s.f.inputs = {ValueRef::tensor(s.in)};
  return s;
}

TEST(VerifierShapeOps, SliceRanges) {
  Small s = makeSmall();
  Attrs a;
  ScalarId zero = s.f.addConstInt(0), two = s.f.addConstInt(2), one = s.f.addConstInt(1);
  a.ranges = {SliceRange{zero, two, one}};  // leading axis only: fine
  TensorId out = s.tensor("T1", {s.axis(two), s.axis(s.i1)});
  s.op(OpKind::Slice, out, a);
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.exprs[0].attrs.ranges.assign(3, SliceRange{zero, two, one});
  expectOne(s.f, "FC0202", "/exprs/0/ranges/2");
}

TEST(VerifierShapeOps, PadWidths) {
  Small s = makeSmall();
  Attrs a;
  ScalarId one = s.f.addConstInt(1);
  a.pad = {one, one};
  TensorId out =
      s.tensor("T1", {s.axis(s.i0), s.axis(s.f.addDerived(ScalarOp::Add, s.i1, s.f.addConstInt(2)))});
  s.op(OpKind::Pad, out, a);
  EXPECT_TRUE(verify(s.f).empty());
  s.f.exprs[0].attrs.pad = {one, one, one};
  expectOne(s.f, "FC0202", "/exprs/0/pad");
  s.f.exprs[0].attrs.pad.assign(6, one);
  expectOne(s.f, "FC0202", "/exprs/0/pad");
}

TEST(VerifierShapeOps, CatRanks) {
  Small s = makeSmall();
  TensorId other = s.tensor("T2", {s.axis(s.i0)});
  s.f.inputs.push_back(ValueRef::tensor(other));
  Attrs a;
  a.dim = 0;
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(s.i1)});
  s.op(OpKind::Cat, out, a, {ValueRef::tensor(other)});
  expectOne(s.f, "FC0202", "/exprs/0/inputs/1");
  s.f.exprs[0].inputs[1] = ValueRef::tensor(s.in);
  EXPECT_TRUE(verify(s.f).empty());
  s.f.exprs[0].attrs.dim = 2;
  expectOne(s.f, "FC0202", "/exprs/0/dim");
}

TEST(VerifierShapeOps, SqueezeNonUnitAxis) {
  Small s = makeSmall();
  s.f.axes[0].extent = s.f.addConstInt(3);  // T0 [3, i1]
  Attrs a;
  a.dims = {0};
  TensorId out = s.tensor("T1", {s.axis(s.i1)});
  s.op(OpKind::Squeeze, out, a);
  expectOne(s.f, "FC0213", "/exprs/0/dims/0");
  s.f.axes[0].extent = s.f.addConstInt(1);
  EXPECT_TRUE(verify(s.f).empty());
  s.f.tensors[out].logical.push_back(s.axis(s.i1));
  expectOne(s.f, "FC0202", "/exprs/0/outputs/0");
}

TEST(VerifierShapeOps, ExpandShapeLength) {
  Small s = makeSmall();
  Attrs a;
  a.shape = {s.i0};
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(s.i1)});
  s.op(OpKind::Expand, out, a);
  expectOne(s.f, "FC0202", "/exprs/0/shape");
  s.f.exprs[0].attrs.shape = {s.i0, s.i1};
  EXPECT_TRUE(verify(s.f).empty());
}

TEST(VerifierShapeOps, BroadcastInDim) {
  Small s = makeSmall();
  ScalarId one = s.f.addConstInt(1);
  Attrs a;
  a.shape = {s.i0, one, s.i1};
  a.dims = {0, 2};
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(one, IT::Broadcast), s.axis(s.i1)});
  s.op(OpKind::BroadcastInDim, out, a);
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.exprs[0].attrs.dims = {2, 0};
  expectOne(s.f, "FC0202", "/exprs/0/dims/1");
  s.f.exprs[0].attrs.dims = {0, 1};  // output axis 2 is then not mapped and not Broadcast
  expectOne(s.f, "FC0210", "/tensors/1/logical/2");
}

TEST(VerifierShapeOps, ReshapeShapeAndRoot) {
  Small s = makeSmall();
  Attrs a;
  ScalarId n = s.f.addDerived(ScalarOp::Mul, s.i0, s.i1);
  a.shape = {n};
  TensorId out = s.tensor("T1", {s.axis(n)});
  s.f.tensors[out].root = {s.axis(s.i0), s.axis(s.i1)};
  s.op(OpKind::Reshape, out, a);
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.exprs[0].attrs.shape = {n, n};
  expectOne(s.f, "FC0202", "/exprs/0/shape");
  s.f.exprs[0].attrs.shape = {n};
  s.f.tensors[out].root.pop_back();
  expectOne(s.f, "FC0202", "/tensors/1/root");
}

TEST(VerifierShapeOps, FactoryRankAndDType) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  f.scalars[i0].decl = 0;
  f.inputs = {ValueRef::scalar(i0)};
  f.scalars[i0].kind = ScalarKind::Input;
  TensorId out =
      f.addTensor("T0", DType::Float, MemoryType::Local, {f.addAxis(0, IT::Iteration, PT::Serial, i0)});
  Attrs a;
  a.shape = {i0, i0};
  a.dtype = DType::Float;
  f.addExpr(OpKind::Zeros, {}, {out}, a);
  f.outputs = {out};
  expectOne(f, "FC0202", "/exprs/0/shape");
  f.exprs[0].attrs.shape = {i0};
  EXPECT_TRUE(verify(f).empty());
  f.exprs[0].attrs.dtype = DType::Int;
  expectOne(f, "FC0203", "/tensors/0/dtype");
}

// nvFuser's mean is div(sum(x), count) (csrc/ops/normalization.cpp:36 @ 81c4b22fd750): the sum of
// integers is Int and dividing it by the Index count stays Int; the variance multiplies by a Float
// reciprocal, so it is Float.
TEST(VerifierShapeOps, MeanOfIntegersIsIntVarianceIsFloat) {
  Small s = makeSmall(DType::Int);
  Attrs a;
  a.dims = {1};
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(s.i1, IT::Reduction)}, DType::Int);
  s.op(OpKind::Mean, out, a);
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.tensors[out].dtype = DType::Float;
  expectOne(s.f, "FC0203", "/tensors/1/dtype");
  s.f.exprs[0].op = OpKind::Var;
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.exprs[0].op = OpKind::Sum;  // sum of Int stays Int
  expectOne(s.f, "FC0203", "/tensors/1/dtype");
}

TEST(VerifierShapeOps, KeepdimMakesBroadcast) {
  Small s = makeSmall();
  Attrs a;
  a.dims = {1};
  a.keepdim = true;
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(s.f.addConstInt(1), IT::Broadcast)});
  s.op(OpKind::Max, out, a);
  EXPECT_TRUE(verify(s.f).empty()) << show(verify(s.f));
  s.f.axes[s.f.tensors[out].logical[1]].iter = IT::Reduction;
  expectOne(s.f, "FC0210", "/tensors/1/logical/1");
}

TEST(VerifierShapeOps, UnaryFloatMathPromotesIntegers) {
  Small s = makeSmall(DType::Int32);
  TensorId out = s.tensor("T1", {s.axis(s.i0), s.axis(s.i1)}, DType::Float);
  s.op(OpKind::Exp, out, {});
  EXPECT_TRUE(verify(s.f).empty());
  s.f.tensors[out].dtype = DType::Int32;
  expectOne(s.f, "FC0203", "/tensors/1/dtype");
  s.f.exprs[0].op = OpKind::Neg;  // neg keeps Int32
  EXPECT_TRUE(verify(s.f).empty());
  s.f.exprs[0].op = OpKind::LogicalNot;
  expectOne(s.f, "FC0203", "/tensors/1/dtype");
}

// ---- reporting

TEST(Verifier, IndependentProblemsAreAllReported) {
  Seed s = makeSeed();
  s.f.exprs[0].attrs.dims = {0, 2, 2};
  s.f.axes[s.ax[6]].extent = s.f.addConstInt(-3);
  s.f.meshes[0].devices = {1, 1};
  Found got = verify(s.f);
  ASSERT_EQ(got.size(), 3u) << show(got);
  std::vector<std::string> codes;
  for (auto& g : got) codes.push_back(g.first);
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes, (std::vector<std::string>{"FC0202", "FC0204", "FC0207"}));
}

TEST(Verifier, NotesPointAtRelatedPlaces) {
  Seed s = makeSeed();
  s.f.addExpr(OpKind::Set, {ValueRef::tensor(s.T[7])}, {s.T[9]});
  DiagnosticSink sink;
  EXPECT_FALSE(verifyFusion(s.f, sink, "x.json"));
  ASSERT_EQ(sink.all().size(), 1u);
  ASSERT_EQ(sink.all()[0].notes.size(), 1u);
  EXPECT_EQ(sink.all()[0].notes[0].loc.place, Place::expr(6).at(PlaceField::Outputs, 0));
  EXPECT_EQ(sink.all()[0].notes[0].loc.file, "x.json");
}

TEST(Verifier, DeepChainDoesNotRecurse) {
  // 200000 chained negations and a 200000-deep scalar expression: every
  // traversal is iterative, so this must not overflow the stack.
  Fusion f;
  ScalarId ext = f.addSymbol("i0");
  f.scalars[ext].decl = 0;
  for (int k = 0; k < 200000; ++k) ext = f.addDerived(ScalarOp::Add, ext, f.addConstInt(1));
  TensorId prev =
      f.addTensor("T0", DType::Float, MemoryType::Global, {f.addAxis(0, IT::Iteration, PT::Serial, ext)});
  f.inputs = {ValueRef::tensor(prev)};
  for (uint32_t k = 1; k <= 200000; ++k) {
    TensorId t = f.addTensor("T" + std::to_string(k), DType::Float, MemoryType::Local,
                             {f.addAxis(k, IT::Iteration, PT::Serial, ext)});
    f.addExpr(OpKind::Neg, {ValueRef::tensor(prev)}, {t});
    prev = t;
  }
  f.outputs = {prev};
  bool ok = false;
  EXPECT_TRUE(verify(f, &ok).empty());
  EXPECT_TRUE(ok);
  f.exprs[0].inputs[0] = ValueRef::tensor(prev);  // one cycle through all exprs
  Found got = verify(f);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, "FC0105");
}

}  // namespace
}  // namespace fc
