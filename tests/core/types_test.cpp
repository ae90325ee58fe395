#include "ir/types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "diag/diagnostic.h"
#include "io/import_text.h"
#include "ir/fusion.h"
#include "ir/op_kind.h"
#include "ir/op_rules.h"
#include "support/checked.h"

namespace fc {
namespace {

TEST(Types, DTypeRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    auto back = parseDType(dtypeName(t));
    ASSERT_TRUE(back.has_value()) << dtypeName(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(parseDType("half").has_value());  // spelling is case-sensitive
  EXPECT_EQ(dtypeCppName(DType::Half), "__half");
  EXPECT_EQ(dtypeBytes(DType::BFloat16), 2);
}

// The block-scale and FP4 dtypes as nvFuser has them (csrc/type.h:284 isFloatingPointType,
// csrc/type.cpp dtype printing and data_type_to_aten @ 81c4b22fd).
TEST(Types, BlockScaleAndFp4) {
  EXPECT_EQ(dtypeBits(DType::Float4_e2m1fn), 4);
  EXPECT_EQ(dtypeBytes(DType::Float4_e2m1fn), 1);
  EXPECT_EQ(dtypeBits(DType::Float4_e2m1fn_x2), 8);
  EXPECT_TRUE(isFloatingPoint(DType::Float8_e8m0fnu));
  EXPECT_FALSE(isFloatingPoint(DType::Float4_e2m1fn));
  EXPECT_FALSE(isFloatingPoint(DType::Float4_e2m1fn_x2));
  EXPECT_EQ(dtypeCppName(DType::Float4_e2m1fn), "__e2m1");
  EXPECT_EQ(dtypeCppName(DType::Float8_e8m0fnu), "__e8m0");
  // torch's packed dtype names the packed fusecheck dtype, not the unpacked one that maps to it.
  const lex::Spelling<DType> none[] = {{"", DType::Bool}};
  EXPECT_EQ(lex::dtypeSpelled("float4_e2m1fn_x2", dtypeTorchName, none), DType::Float4_e2m1fn_x2);
  EXPECT_EQ(lex::dtypeSpelled("float8_e8m0fnu", dtypeTorchName, none), DType::Float8_e8m0fnu);
}

// nvFuser's promoteType (csrc/type.h:864-929) and computeTypes' cast to Float
// (csrc/type_promotion.cpp:204-212): FP4 with another dtype is that dtype, FP4 with an integer is
// no promotion, and FP4 alone is computed in Float.
TEST(Types, Fp4Promotion) {
  const PromotionOperand with_float[] = {{DType::Float4_e2m1fn, true}, {DType::Half, true}};
  EXPECT_EQ(promoteTypes(with_float), DType::Float);  // Half, then computed in Float
  const PromotionOperand with_int[] = {{DType::Float4_e2m1fn, true}, {DType::Int, true}};
  EXPECT_EQ(promoteTypes(with_int), std::nullopt);
  const PromotionOperand alone[] = {{DType::Float4_e2m1fn, true}};
  EXPECT_EQ(promoteTypes(alone), DType::Float);
  const PromotionOperand scale[] = {{DType::Float8_e8m0fnu, true}, {DType::BFloat16, true}};
  EXPECT_EQ(promoteTypes(scale), DType::Float);
}

// PyTorch's result type (a repro's torch arithmetic on its inputs): reduced-precision floats stay,
// a Python number lifts only a lower category, to its default dtype; true division gives Float.
TEST(Types, TorchResultType) {
  const PromotionOperand bf16_times_float[] = {{DType::BFloat16, true}, {DType::Float, false}};
  EXPECT_EQ(torchResultType(bf16_times_float), DType::BFloat16);
  EXPECT_EQ(promoteTypes(bf16_times_float), DType::Float);  // nvFuser computes it in Float
  const PromotionOperand int_times_float[] = {{DType::Int, true}, {DType::Float, false}};
  EXPECT_EQ(torchResultType(int_times_float), DType::Float);
  const PromotionOperand int_over_int[] = {{DType::Int, true}, {DType::Int, false}};
  EXPECT_EQ(torchResultType(int_over_int), DType::Int);
  EXPECT_EQ(torchResultType(int_over_int, /*int_to_float=*/true), DType::Float);
  const PromotionOperand half_plus_bf16[] = {{DType::Half, true}, {DType::BFloat16, true}};
  EXPECT_EQ(torchResultType(half_plus_bf16), DType::Float);
  const PromotionOperand bool_plus_int[] = {{DType::Bool, true}, {DType::Int, false}};
  EXPECT_EQ(torchResultType(bool_plus_int), DType::Int);
  const PromotionOperand int32_plus_int[] = {{DType::Int32, true}, {DType::Int, false}};
  EXPECT_EQ(torchResultType(int32_plus_int), DType::Int32);
  const PromotionOperand double_times_complex[] = {{DType::Double, true}, {DType::ComplexFloat, false}};
  EXPECT_EQ(torchResultType(double_times_complex), DType::ComplexDouble);
}

TEST(Types, ParallelPrinted) {
  EXPECT_EQ(parallelTypePrinted(ParallelType::DIDx), "deviceIdx.x");
  EXPECT_EQ(parallelTypePrinted(ParallelType::Serial), "S");
  EXPECT_EQ(iterTypeLetter(IterType::Reduction), 'r');
  EXPECT_EQ(iterTypeLetter(IterType::Symbolic), '?');
  EXPECT_EQ(parseParallelType("DIDy"), ParallelType::DIDy);
  EXPECT_TRUE(isDeviceDim(ParallelType::DIDz));
  EXPECT_FALSE(isDeviceDim(ParallelType::Stream));
}

TEST(Types, Eras) {
  EXPECT_EQ(parseEra("2024-06"), Era::E2024_06);
  EXPECT_EQ(eraName(Era::Head), "head");
  EXPECT_FALSE(parseEra("2023").has_value());
}

TEST(Ops, TableIsConsistent) {
  for (int i = 0; i < numOpKinds(); ++i) {
    auto k = static_cast<OpKind>(i);
    EXPECT_EQ(opInfo(k).kind, k);
    EXPECT_EQ(parseOpKind(opName(k)), k);
  }
  EXPECT_TRUE(opAccepts(OpKind::Sum, Attr::Dims));
  EXPECT_FALSE(opAccepts(OpKind::Add, Attr::Dims));
  EXPECT_TRUE(isExprEvalOnly(OpKind::Matmul));
  EXPECT_FALSE(parseOpKind("frobnicate").has_value());
}

TEST(Mesh, PrintAndDidAxis) {
  Mesh m{{2}, {0, 1}};
  EXPECT_EQ(m.toString(false), "DeviceMesh{0 1}");
  EXPECT_EQ(m.sizeFor(ParallelType::DIDx), 2);
  EXPECT_EQ(m.sizeFor(ParallelType::DIDy), -1);
  Mesh m2{{2, 3}, {0, 1, 2, 3, 4, 5}};
  EXPECT_EQ(m2.toString(true), "DeviceMesh{{0 1 2}{3 4 5}}");
  EXPECT_EQ(m2.sizeFor(ParallelType::DIDx), 3);  // innermost mesh axis
  EXPECT_EQ(m2.sizeFor(ParallelType::DIDy), 2);
}

TEST(Checked, Overflow) {
  EXPECT_FALSE(checkedMul(INT64_MAX, 2).has_value());
  EXPECT_EQ(*checkedCeilDiv(7, 2), 4);
  EXPECT_EQ(*checkedCeilDiv(-7, 2), -3);
  EXPECT_FALSE(checkedDiv(1, 0).has_value());
}

// A double converts to int64 toward zero where C++ defines it, and only there: NaN, the
// infinities and values at or beyond 2^63 (in magnitude, past -2^63) give no value.
TEST(Checked, DoubleToInt64) {
  EXPECT_EQ(*checkedTruncToInt64(-2.9), -2);
  EXPECT_EQ(*checkedTruncToInt64(0x1p62), int64_t{1} << 62);
  EXPECT_EQ(*checkedTruncToInt64(-0x1p63), INT64_MIN);
  EXPECT_FALSE(checkedTruncToInt64(0x1p63).has_value());
  EXPECT_FALSE(checkedTruncToInt64(-0x1p64).has_value());
  EXPECT_FALSE(checkedTruncToInt64(std::nan("")).has_value());
  EXPECT_FALSE(checkedTruncToInt64(-HUGE_VAL).has_value());
  EXPECT_EQ(*exactInt64(4096.0), 4096);
  EXPECT_FALSE(exactInt64(2.5).has_value());
  EXPECT_FALSE(exactInt64(1e30).has_value());
  EXPECT_FALSE(exactInt64(HUGE_VAL).has_value());
}

TEST(Fusion, BuildAndLookup) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  AxisId a = f.addAxis(0, IterType::Iteration, ParallelType::Serial, i0);
  TensorId t0 = f.addTensor("T0", DType::Float, MemoryType::Global, {a});
  AxisId b = f.addAxis(1, IterType::Iteration, ParallelType::Serial, i0);
  TensorId t1 = f.addTensor("T1", DType::Float, MemoryType::Global, {b});
  ExprId e = f.addExpr(OpKind::Neg, {ValueRef::tensor(t0)}, {t1});
  f.inputs = {ValueRef::tensor(t0)};
  f.outputs = {t1};
  f.rebuildUses();
  EXPECT_EQ(f.findTensor("T1"), t1);
  EXPECT_EQ(f.findScalar("i0"), i0);
  EXPECT_FALSE(f.findTensor("T7").has_value());
  EXPECT_EQ(f.tensors[t1].definition, e);
  ASSERT_EQ(f.uses(t0).size(), 1u);
  EXPECT_EQ(f.tensorNumber(t1), 1);
  EXPECT_TRUE(f.isInput(t0));
  EXPECT_TRUE(f.isOutput(t1));
  EXPECT_EQ(f.axes[b].owner, t1);
}

TEST(Diag, PointerEscaping) {
  EXPECT_EQ(JsonPointer().key("tensors").index(5).key("logical").index(0).str(), "/tensors/5/logical/0");
  EXPECT_EQ(JsonPointer().key("a/b~c").str(), "/a~1b~0c");
  EXPECT_EQ(diagCodeInfo(DiagCode::UnboundExtent).id, "FC0301");
  // Codes are unique.
  std::set<std::string_view> ids;
  for (const auto& c : allDiagCodes()) EXPECT_TRUE(ids.insert(c.id).second) << c.id;
}

}  // namespace
}  // namespace fc
