// constantScalarValue: the value of scalars that constants determine, in C++'s arithmetic.
#include "ir/constant_scalar.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

TEST(ConstantScalar, IntegerNodesDivideAsIntegersFloatingOnesInDouble) {
  Fusion f;
  ScalarId seven = f.addConstInt(7, DType::Int), two = f.addConstInt(2, DType::Int);
  ScalarId q = f.addDerived(ScalarOp::Div, seven, two, DType::Int);  // 3
  ScalarId x = f.addDerived(ScalarOp::Mul, f.addConstFloat(1.5, DType::Double), q, DType::Double);
  std::optional<ConstValue> v = constantScalarValue(f, x);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, ConstValue::Kind::Float);
  EXPECT_EQ(v->f, 4.5);
  std::optional<ConstValue> n = constantScalarValue(f, f.addDerived(ScalarOp::Neg, q, kNone, DType::Int));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->kind, ConstValue::Kind::Int);
  EXPECT_EQ(n->i, -3);
}

TEST(ConstantScalar, NothingForSymbolsOverflowDivisionByZeroOrDepth) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  ScalarId one = f.addConstInt(1, DType::Int);
  EXPECT_FALSE(constantScalarValue(f, f.addDerived(ScalarOp::Add, i0, one, DType::Index)).has_value());
  ScalarId big = f.addConstInt(INT64_MAX, DType::Int);
  EXPECT_FALSE(constantScalarValue(f, f.addDerived(ScalarOp::Add, big, one, DType::Int)).has_value());
  ScalarId zero = f.addConstFloat(0.0, DType::Double);
  EXPECT_FALSE(constantScalarValue(f, f.addDerived(ScalarOp::Div, one, zero, DType::Double)).has_value());
  ScalarId deep = one;
  for (int k = 0; k < 100; ++k) deep = f.addDerived(ScalarOp::Add, deep, one, DType::Int);
  EXPECT_FALSE(constantScalarValue(f, deep).has_value());
  EXPECT_EQ(constantScalarValue(f, f.addDerived(ScalarOp::Max, one, zero, DType::Double))->f, 1.0);
}

}  // namespace
}  // namespace fc
