// nvFuser's type promotion and shape rules as ir/op_rules states them. Each
// dtype case cites the nvFuser source it follows (@ 81c4b22fd750 unless said).
#include "ir/op_rules.h"

#include <gtest/gtest.h>

#include "ir/constant_scalar.h"
#include "ir/fusion.h"

namespace fc {
namespace {

// A fusion with one expr over the given operands (tensors of rank 2, or
// rank 0 where `zero_dim`), to ask the rules about its output.
struct One {
  Fusion f;
  std::vector<ValueRef> in;
  TensorId tensor(DType dt, size_t rank = 2) {
    std::vector<AxisId> axes;
    for (size_t d = 0; d < rank; ++d)
      axes.push_back(f.addAxis(static_cast<uint32_t>(f.axes.size()), IterType::Iteration,
                               ParallelType::Serial, f.addSymbol("i" + std::to_string(f.scalars.size()))));
    TensorId t = f.addTensor("T" + std::to_string(f.tensors.size()), dt, MemoryType::Global, axes);
    in.push_back(ValueRef::tensor(t));
    return t;
  }
  void scalar(DType dt) {
    in.push_back(ValueRef::scalar(isComplex(dt)                               ? f.addConstComplex(0.5, 1, dt)
                                  : dt == DType::Double || dt == DType::Float ? f.addConstFloat(0.5, dt)
                                                                              : f.addConstInt(2, dt)));
  }
  std::optional<DType> dtype(OpKind op, Attrs a = {}) {
    Expr e{op, in, {}, std::move(a)};
    return outputDType(f, e, 0).dtype;
  }
};

// where computes its type from the two values only, without casting Half to
// Float: csrc/ops/arith.cpp:1872-1880 (computeTypes(..., false)).
TEST(OpRulesDType, WhereTypesFromItsValuesOnly) {
  One a;
  a.tensor(DType::Bool);
  a.scalar(DType::Double);
  a.scalar(DType::Double);
  EXPECT_EQ(a.dtype(OpKind::Where), DType::Double);
  One b;
  b.tensor(DType::Bool);
  b.tensor(DType::Half);
  b.tensor(DType::Half);
  EXPECT_EQ(b.dtype(OpKind::Where), DType::Half);
}

// Binary ops promote, then compute Half and BFloat16 in Float: csrc/type_promotion.h:41
// (cast_half_to_float = true) and csrc/type_promotion.cpp:201-210.
TEST(OpRulesDType, HalfArithmeticComputesInFloat) {
  One a;
  a.tensor(DType::Half);
  a.tensor(DType::Half);
  EXPECT_EQ(a.dtype(OpKind::Add), DType::Float);
  One b;
  b.tensor(DType::Half);
  b.scalar(DType::Double);  // a scalar cannot widen a floating tensor's category
  EXPECT_EQ(b.dtype(OpKind::Mul), DType::Float);
  One c;
  c.tensor(DType::BFloat16);
  c.tensor(DType::Half);
  EXPECT_EQ(c.dtype(OpKind::Sub), DType::Float);
}

// A Double scalar lifts an integer tensor to promoteType(Int, Double) = Double
// (csrc/type_promotion.cpp combineCategories; csrc/type.h:864 C++ common type).
TEST(OpRulesDType, IntegerTensorWithDoubleScalarIsDouble) {
  One a;
  a.tensor(DType::Int);
  a.scalar(DType::Double);
  EXPECT_EQ(a.dtype(OpKind::Add), DType::Double);
  One b;
  b.tensor(DType::Int32);
  b.tensor(DType::Int);
  EXPECT_EQ(b.dtype(OpKind::Add), DType::Int);
  One c;
  c.tensor(DType::Int);
  c.tensor(DType::Int);
  EXPECT_EQ(c.dtype(OpKind::Div), DType::Int);  // div of integers truncates: default_op_config
}

// Zero-dim tensors are promoted apart from dimensioned ones; Reduction axes count as
// dimensions (csrc/type_promotion.cpp updateResultTypeState, getValueType).
TEST(OpRulesDType, ZeroDimTensorsDoNotWidenDimensionedOnes) {
  One a;
  a.tensor(DType::Float);
  a.tensor(DType::Double, 0);
  EXPECT_EQ(a.dtype(OpKind::Add), DType::Float);
  One b;
  b.tensor(DType::Int);
  b.tensor(DType::Double, 0);
  EXPECT_EQ(b.dtype(OpKind::Add), DType::Double);  // a higher category still lifts
}

// Unary ops: float_op_config (exp, ...: integers and Half to Float,
// csrc/ops/arith.cpp:686); default_op_config (neg: Half to Float, integers kept,
// :524-530); no config (relu, silu, abs: dtype kept, :507, :509, :584-597); logical_not: Bool.
TEST(OpRulesDType, UnaryOpsFollowTheirPromotionConfig) {
  One h;
  h.tensor(DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Exp), DType::Float);
  EXPECT_EQ(h.dtype(OpKind::Neg), DType::Float);
  EXPECT_EQ(h.dtype(OpKind::Relu), DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Silu), DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Abs), DType::Half);
  EXPECT_EQ(h.dtype(OpKind::LogicalNot), DType::Bool);
  One i;
  i.tensor(DType::Int32);
  EXPECT_EQ(i.dtype(OpKind::Exp), DType::Float);
  EXPECT_EQ(i.dtype(OpKind::Neg), DType::Int32);
  One d;
  d.tensor(DType::Double);
  EXPECT_EQ(d.dtype(OpKind::Sigmoid), DType::Double);
}

// gelu multiplies by Double constants (csrc/ops/composite.cpp:281-291): Half gives Float.
TEST(OpRulesDType, GeluPromotesWithItsDoubleConstants) {
  One h;
  h.tensor(DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Gelu), DType::Float);
  One i;
  i.tensor(DType::Int);
  EXPECT_EQ(i.dtype(OpKind::Gelu), DType::Double);
}

// sum / prod of integers or Bool accumulate in Int; floating dtypes are kept
// (csrc/ops/arith.cpp:1470-1489); mean divides by the Index count and var
// multiplies by a Float reciprocal (csrc/ops/normalization.cpp:36-90).
TEST(OpRulesDType, Reductions) {
  Attrs dims;
  dims.dims = {0};
  One i;
  i.tensor(DType::Int32);
  EXPECT_EQ(i.dtype(OpKind::Sum, dims), DType::Int);
  EXPECT_EQ(i.dtype(OpKind::Mean, dims), DType::Int);
  EXPECT_EQ(i.dtype(OpKind::Var, dims), DType::Float);
  One b;
  b.tensor(DType::Bool);
  EXPECT_EQ(b.dtype(OpKind::Sum, dims), DType::Int);
  One h;
  h.tensor(DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Sum, dims), DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Max, dims), DType::Half);
  EXPECT_EQ(h.dtype(OpKind::Mean, dims), DType::Float);
}

// Complex dtypes: promoteType's C++ common type (complex<float> < complex<double>), with Double and
// ComplexFloat giving ComplexDouble as ATen does (csrc/type.h:864-925); a complex scalar does not widen
// a complex tensor, and a floating tensor with a complex scalar takes the complex type of its own
// precision (csrc/type_promotion.cpp:75-97 combineCategories); exp keeps a complex operand
// (promote_integer_inputs_to_float touches integers and Bool only, :141-145).
TEST(OpRulesDType, ComplexPromotion) {
  One a;
  a.tensor(DType::Double);
  a.tensor(DType::ComplexFloat);
  EXPECT_EQ(a.dtype(OpKind::Add), DType::ComplexDouble);
  One b;
  b.tensor(DType::ComplexFloat);
  b.scalar(DType::ComplexDouble);
  EXPECT_EQ(b.dtype(OpKind::Mul), DType::ComplexFloat);
  One c;
  c.tensor(DType::Float);
  c.scalar(DType::ComplexDouble);
  EXPECT_EQ(c.dtype(OpKind::Add), DType::ComplexFloat);
  One d;
  d.tensor(DType::Int);
  d.scalar(DType::ComplexFloat);
  EXPECT_EQ(d.dtype(OpKind::Sub), DType::ComplexFloat);
  One e;
  e.tensor(DType::Half);
  e.tensor(DType::ComplexFloat);
  EXPECT_EQ(e.dtype(OpKind::Add), DType::ComplexFloat);  // complex absorbs a floating type
  One h;
  h.tensor(DType::Half);
  h.scalar(DType::ComplexDouble);
  EXPECT_EQ(h.dtype(OpKind::Add), std::nullopt);  // getComplexTypeFromType(Half) raises
  One x;
  x.tensor(DType::ComplexDouble);
  EXPECT_EQ(x.dtype(OpKind::Exp), DType::ComplexDouble);
  EXPECT_EQ(x.dtype(OpKind::Rsqrt), DType::ComplexDouble);
}

// real, imag and abs of a complex operand give its parts' dtype; abs of a real operand keeps it;
// complex() joins two operands of one dtype (csrc/ops/arith.cpp:583-663); sum keeps a complex
// dtype, var_mean's var is real and its mean complex (csrc/ops/normalization.cpp:112-122).
TEST(OpRulesDType, ComplexParts) {
  One c;
  c.tensor(DType::ComplexFloat);
  EXPECT_EQ(c.dtype(OpKind::Real), DType::Float);
  EXPECT_EQ(c.dtype(OpKind::Imag), DType::Float);
  EXPECT_EQ(c.dtype(OpKind::Abs), DType::Float);
  Attrs dims;
  dims.dims = {0};
  EXPECT_EQ(c.dtype(OpKind::Sum, dims), DType::ComplexFloat);
  EXPECT_EQ(c.dtype(OpKind::Var, dims), DType::ComplexFloat);
  Expr vm{OpKind::VarMean, c.in, {}, dims};
  EXPECT_EQ(outputDType(c.f, vm, 0).dtype, DType::Float);
  EXPECT_EQ(outputDType(c.f, vm, 1).dtype, DType::ComplexFloat);
  One r;
  r.tensor(DType::Double);
  EXPECT_EQ(r.dtype(OpKind::Abs), DType::Double);
  r.tensor(DType::Double);
  EXPECT_EQ(r.dtype(OpKind::Complex), DType::ComplexDouble);
  One m;
  m.tensor(DType::Float);
  m.tensor(DType::Double);
  EXPECT_EQ(m.dtype(OpKind::Complex), std::nullopt);  // "real and imag data type should be same"
}

// Shape rules: one rule per output axis, with the operand axes it maps.
TEST(OpRulesShape, BroadcastAndReduction) {
  One a;
  a.tensor(DType::Float);
  Attrs flags;
  flags.flags = {true, false, false};
  Expr e{OpKind::Broadcast, a.in, {}, flags};
  struct None final : KnownValues {
    std::optional<int64_t> intValue(ScalarId) const override { return std::nullopt; }
  } none;
  ShapeRule r;
  outputShape(a.f, e, none, RuleMode::Check, r);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.axes.size(), 3u);
  EXPECT_EQ(r.axes[0].extent, AxisRule::Extent::One);
  EXPECT_EQ(r.mapsOf(r.axes[2]).size(), 1u);
  EXPECT_EQ(r.mapsOf(r.axes[2])[0].pos, 1);
  flags.flags = {true, false};
  outputShape(a.f, Expr{OpKind::Broadcast, a.in, {}, flags}, none, RuleMode::Check, r);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.issues[0].kind, ShapeIssue::Kind::FlagsKept);

  Attrs red;
  red.dims = {-1};
  outputShape(a.f, Expr{OpKind::Sum, a.in, {}, red}, none, RuleMode::Check, r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.axes[1].make, IterType::Reduction);
  red.dims = {};
  outputShape(a.f, Expr{OpKind::Sum, a.in, {}, red}, none, RuleMode::Check, r);
  EXPECT_EQ(r.issues.at(0).kind, ShapeIssue::Kind::NoDims);
  outputShape(a.f, Expr{OpKind::Sum, a.in, {}, red}, none, RuleMode::Build, r);
  EXPECT_TRUE(r.ok());  // a frontend reduces every axis when no dims are given
}

// reshape(x, new_sizes) is static only when every input extent and every size is a constant
// (tryStaticReshape, csrc/ops/alias.cpp:103-128 @ 81c4b22fd750); reshape(x, original_sizes,
// new_sizes) is analysed from the sizes it is given (alias.cpp:61).
TEST(OpRulesShape, ReshapeIsStaticOnlyOverConstantExtents) {
  // Constants only: a scalar is known when it is a constant of the fusion.
  struct Constants final : KnownValues {
    const Fusion& f;
    explicit Constants(const Fusion& fu) : f(fu) {}
    std::optional<int64_t> intValue(ScalarId s) const override { return constIntOf(f, s); }
  };
  One a;
  a.tensor(DType::Float);  // extents i0, i1: symbolic
  Attrs sizes;
  sizes.shape = {a.f.addConstInt(6, DType::Index), a.f.addConstInt(1, DType::Index)};
  Constants known(a.f);
  ShapeRule r;
  outputShape(a.f, Expr{OpKind::Reshape, a.in, {}, sizes}, known, RuleMode::Build, r);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.axes.size(), 2u);
  EXPECT_EQ(r.axes[0].make, IterType::Symbolic);
  EXPECT_EQ(r.axes[1].make, IterType::Symbolic);

  Attrs given = sizes;
  given.original_shape = {2, 3};
  outputShape(a.f, Expr{OpKind::Reshape, a.in, {}, given}, known, RuleMode::Build, r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.axes[0].make, IterType::Iteration);
  EXPECT_EQ(r.axes[1].make, IterType::Broadcast);
  EXPECT_TRUE(isStaticReshape(a.f, Expr{OpKind::Reshape, a.in, {}, given}, known));
  EXPECT_FALSE(isStaticReshape(a.f, Expr{OpKind::Reshape, a.in, {}, sizes}, known));

  // Given original sizes, a -1 is numel of those sizes over the others: constant.
  Attrs inferred;
  inferred.shape = {a.f.addConstInt(-1, DType::Index), a.f.addConstInt(2, DType::Index)};
  inferred.original_shape = {4, 6};
  outputShape(a.f, Expr{OpKind::Reshape, a.in, {}, inferred}, known, RuleMode::Build, r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.axes[0].make, IterType::Iteration);
  EXPECT_EQ(r.axes[1].make, IterType::Iteration);

  // A size that constants alone determine (2 * 3) counts as constant where the
  // known values fold it (ir/constant_scalar.h ConstantValues); a symbol never does.
  Attrs folded = given;
  folded.shape[0] =
      a.f.addDerived(ScalarOp::Mul, a.f.addConstInt(2, DType::Index), a.f.addConstInt(3, DType::Index));
  EXPECT_TRUE(isStaticReshape(a.f, Expr{OpKind::Reshape, a.in, {}, folded}, ConstantValues(a.f)));
  EXPECT_FALSE(isStaticReshape(a.f, Expr{OpKind::Reshape, a.in, {}, folded}, known));
  folded.shape[0] = a.f.addSymbol("n");
  EXPECT_FALSE(isStaticReshape(a.f, Expr{OpKind::Reshape, a.in, {}, folded}, ConstantValues(a.f)));

  One c;  // constant extents 2 and 3
  std::vector<AxisId> axes = {
      c.f.addAxis(0, IterType::Iteration, ParallelType::Serial, c.f.addConstInt(2, DType::Index)),
      c.f.addAxis(1, IterType::Iteration, ParallelType::Serial, c.f.addConstInt(3, DType::Index))};
  c.in.push_back(ValueRef::tensor(c.f.addTensor("T0", DType::Float, MemoryType::Global, axes)));
  Attrs csizes;
  csizes.shape = {c.f.addConstInt(6, DType::Index), c.f.addConstInt(1, DType::Index)};
  Constants cknown(c.f);
  outputShape(c.f, Expr{OpKind::Reshape, c.in, {}, csizes}, cknown, RuleMode::Build, r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.axes[0].make, IterType::Iteration);
  EXPECT_EQ(r.axes[1].make, IterType::Broadcast);
}

}  // namespace
}  // namespace fc
