// Scalar expression parser and printer: parse -> print is canonical, and
// print -> parse -> print is a fixed point; precedence, negatives, inf/nan,
// int64 limits, depth limit, error positions.
#include "io/scalar_expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fc {
namespace {

class ScalarExpr : public ::testing::Test {
 protected:
  void SetUp() override {
    f.addSymbol("i0");
    f.addSymbol("i2");
    f.addSymbol("n");
    f.addTensor("T0", DType::Float, MemoryType::Global, {});
  }
  std::string roundTrip(const std::string& text) {
    FusionNameResolver names(f);
    ScalarParseResult r = parseScalarExpr(text, f, names);
    EXPECT_TRUE(r.ok()) << text << ": " << r.error;
    if (!r.ok()) return "<error>";
    std::string printed = printScalarExpr(f, r.id);
    // The printed text parses back to a node that prints identically.
    ScalarParseResult r2 = parseScalarExpr(printed, f, names);
    EXPECT_TRUE(r2.ok()) << printed << ": " << r2.error;
    if (r2.ok()) {
      EXPECT_EQ(printScalarExpr(f, r2.id), printed);
    }
    return printed;
  }
  ScalarParseResult parse(const std::string& text) {
    FusionNameResolver names(f);
    return parseScalarExpr(text, f, names);
  }
  Fusion f;
};

TEST_F(ScalarExpr, CanonicalPrinting) {
  EXPECT_EQ(roundTrip("i0"), "i0");
  EXPECT_EQ(roundTrip("  i0+i2 "), "i0 + i2");
  EXPECT_EQ(roundTrip("(i0 + i2) * 4"), "(i0 + i2) * 4");
  EXPECT_EQ(roundTrip("i0 + (i2 * 4)"), "i0 + i2 * 4");
  EXPECT_EQ(roundTrip("i0 - (i2 - n)"), "i0 - (i2 - n)");
  EXPECT_EQ(roundTrip("(i0 - i2) - n"), "i0 - i2 - n");
  EXPECT_EQ(roundTrip("i0 / (i2 / n)"), "i0 / (i2 / n)");
  EXPECT_EQ(roundTrip("i0 % 3 * 2"), "i0 % 3 * 2");
  EXPECT_EQ(roundTrip("ceilDiv(i2,4)"), "ceilDiv(i2, 4)");
  EXPECT_EQ(roundTrip("max(i0, min(i2, n + 1))"), "max(i0, min(i2, n + 1))");
  EXPECT_EQ(roundTrip("size(T0, 2) * i0"), "size(T0, 2) * i0");
  EXPECT_EQ(roundTrip("-i0"), "-i0");
  EXPECT_EQ(roundTrip("-(i0 * i2)"), "-(i0 * i2)");
  EXPECT_EQ(roundTrip("--i0"), "--i0");
  EXPECT_EQ(roundTrip("i0 - -5"), "i0 - -5");
  EXPECT_EQ(roundTrip("-5 * i0"), "-5 * i0");
  EXPECT_EQ(roundTrip("-(5)"), "-5");
  EXPECT_EQ(roundTrip("true"), "true");
}

TEST_F(ScalarExpr, Constants) {
  EXPECT_EQ(roundTrip("inf"), "inf");
  EXPECT_EQ(roundTrip("-inf"), "-inf");
  EXPECT_EQ(roundTrip("nan"), "nan");
  EXPECT_EQ(roundTrip("0.5"), "0.5");
  EXPECT_EQ(roundTrip("2.0"), "2.0");
  EXPECT_EQ(roundTrip("-0.0"), "-0.0");
  EXPECT_EQ(roundTrip("1e20"), "1e+20");
  EXPECT_EQ(roundTrip("0.1"), "0.1");
  EXPECT_EQ(roundTrip("9007199254740993"), "9007199254740993");
  EXPECT_EQ(roundTrip("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(roundTrip("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(roundTrip("i0 * -9223372036854775808"), "i0 * -9223372036854775808");

  ScalarParseResult r = parse("1e20");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(f.scalars[r.id].value.kind, ConstValue::Kind::Float);
  EXPECT_EQ(f.scalars[r.id].value.f, 1e20);
  r = parse("0.1");
  EXPECT_EQ(f.scalars[r.id].value.f, 0.1);  // exact round trip of the shortest form
  r = parse("-9223372036854775808");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(f.scalars[r.id].value.i, std::numeric_limits<int64_t>::min());
  r = parse("2.0");
  EXPECT_EQ(f.scalars[r.id].value.kind, ConstValue::Kind::Float);
  r = parse("2");
  EXPECT_EQ(f.scalars[r.id].value.kind, ConstValue::Kind::Int);
  EXPECT_EQ(f.scalars[r.id].dtype, DType::Index);
}

TEST_F(ScalarExpr, StructureOfParsedTree) {
  ScalarParseResult r = parse("i0 - i2 * n");
  ASSERT_TRUE(r.ok());
  const Scalar& s = f.scalars[r.id];
  EXPECT_EQ(s.op, ScalarOp::Sub);
  EXPECT_EQ(f.scalarName(s.lhs), "i0");
  EXPECT_EQ(f.scalars[s.rhs].op, ScalarOp::Mul);
  r = parse("size(T0, 1)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(f.scalars[r.id].op, ScalarOp::Size);
  EXPECT_EQ(f.scalars[r.id].size_of, 0u);
  EXPECT_EQ(f.scalars[r.id].size_dim, 1);
}

TEST_F(ScalarExpr, Errors) {
  struct Case {
    const char* text;
    size_t pos;
    bool oor;
  };
  for (Case c :
       {Case{"", 0, false}, Case{"i0 +", 4, false}, Case{"i0 i2", 3, false}, Case{"(i0", 3, false},
        Case{"ceilDiv(i0)", 10, false}, Case{"unknown", 0, false}, Case{"size(X, 0)", 5, false},
        Case{"size(T0, -1)", 9, false}, Case{"2x", 1, false}, Case{"i0 $ 2", 3, false}, Case{"max", 3, false},
        Case{"9223372036854775808", 0, true}, Case{"--9223372036854775808", 0, true}}) {
    ScalarParseResult r = parse(c.text);
    EXPECT_FALSE(r.ok()) << c.text;
    EXPECT_FALSE(r.error.empty()) << c.text;
    if (!c.oor) {
      EXPECT_EQ(r.error_pos, c.pos) << c.text << ": " << r.error;
    }
    EXPECT_EQ(r.out_of_range, c.oor) << c.text << ": " << r.error;
  }
}

// A constant whose dtype its literal does not give is printed typed and reads back with that
// dtype; where the position's integers are Int, an Index constant is the typed one.
TEST_F(ScalarExpr, TypedConstants) {
  ScalarId fl = f.addConstFloat(2.5, DType::Float);
  ScalarId neg = f.addConstFloat(-1.5, DType::Half);
  ScalarId ix = f.addConstInt(1, DType::Index);
  ScalarId i32 = f.addConstInt(-3, DType::Int32);
  EXPECT_EQ(printScalarExpr(f, fl), "Float(2.5)");
  EXPECT_EQ(printScalarExpr(f, neg), "Half(-1.5)");
  EXPECT_EQ(printScalarExpr(f, ix), "1");
  EXPECT_EQ(printScalarExpr(f, ix, DType::Int), "Index(1)");
  EXPECT_TRUE(needsTypedConstant(f, ix, DType::Int));
  EXPECT_FALSE(needsTypedConstant(f, ix, DType::Index));
  EXPECT_EQ(printScalarExpr(f, i32), "Int32(-3)");
  // Inside an expression an Index literal is written bare, another dtype typed.
  ScalarId e = f.addDerived(ScalarOp::Mul, f.findScalar("i0").value(), ix, DType::Index);
  EXPECT_EQ(printScalarExpr(f, e, DType::Int), "i0 * 1");
  ScalarId g = f.addDerived(ScalarOp::Mul, f.findScalar("i0").value(), fl, DType::Float);
  EXPECT_EQ(printScalarExpr(f, g, DType::Int), "i0 * Float(2.5)");
  for (ScalarId s : {fl, neg, i32}) {
    ScalarParseResult r = parse(printScalarExpr(f, s));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(f.scalars[r.id].dtype, f.scalars[s].dtype);
    EXPECT_EQ(printScalarExpr(f, r.id), printScalarExpr(f, s));
  }
  ScalarParseResult r = parse("-Float(2.5)");  // the sign folds into the typed literal
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(f.scalars[r.id].kind, ScalarKind::Constant);
  EXPECT_EQ(f.scalars[r.id].dtype, DType::Float);
  EXPECT_EQ(f.scalars[r.id].value.f, -2.5);
  EXPECT_EQ(f.scalars[parse("Bool( true )").id].dtype, DType::Bool);
  EXPECT_EQ(f.scalars[parse("Float(2)").id].value.f, 2.0);
}

// A complex constant prints typed with both parts and reads back equal; a sign folds into both.
TEST_F(ScalarExpr, ComplexConstants) {
  ScalarId c = f.addConstComplex(3.0, 0.5, DType::ComplexDouble);
  EXPECT_EQ(printScalarExpr(f, c), "ComplexDouble(3.0, 0.5)");
  EXPECT_TRUE(needsTypedConstant(f, c, DType::Int));
  ScalarParseResult r = parse("ComplexFloat( 1 , -0.25 )");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(f.scalars[r.id].dtype, DType::ComplexFloat);
  EXPECT_EQ(f.scalars[r.id].value.f, 1.0);
  EXPECT_EQ(f.scalars[r.id].value.im, -0.25);
  EXPECT_EQ(printScalarExpr(f, r.id), "ComplexFloat(1.0, -0.25)");
  r = parse("-ComplexDouble(1, 2)");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(f.scalars[r.id].value.f, -1.0);
  EXPECT_EQ(f.scalars[r.id].value.im, -2.0);
  r = parse("i0 * ComplexDouble(0, 1)");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(f.scalars[r.id].dtype, DType::ComplexDouble);  // Index with ComplexDouble
  r = parse("ComplexDouble(2.5)");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("takes the real and the imaginary part"), std::string::npos) << r.error;
  r = parse("ComplexFloat(1, nan)");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(std::isnan(f.scalars[r.id].value.im));
}

// Derived expressions take nvFuser's promoted dtype of their operands.
TEST_F(ScalarExpr, DerivedDTypePromotes) {
  auto dtypeOf = [&](const char* text) {
    ScalarParseResult r = parse(text);
    EXPECT_TRUE(r.ok()) << text << ": " << r.error;
    return r.ok() ? f.scalars[r.id].dtype : DType::Bool;
  };
  EXPECT_EQ(dtypeOf("Float(2.5) * Float(2.5)"), DType::Float);
  EXPECT_EQ(dtypeOf("Float(2.5) + 0.5"), DType::Double);
  EXPECT_EQ(dtypeOf("i0 * Float(0.5)"), DType::Float);
  EXPECT_EQ(dtypeOf("i0 * 0.5"), DType::Double);
  EXPECT_EQ(dtypeOf("Half(1) * Half(1)"), DType::Float);  // computeTypes' Half to Float
  EXPECT_EQ(dtypeOf("i0 * 2"), DType::Index);
  EXPECT_EQ(dtypeOf("2 * i0"), DType::Index);  // Index absorbs the other integers
  EXPECT_EQ(dtypeOf("Int32(2) * Int32(3)"), DType::Int32);
  EXPECT_EQ(dtypeOf("Int32(2) * Int(3)"), DType::Int);
}

TEST_F(ScalarExpr, TypedConstantErrors) {
  struct Case {
    const char* text;
    const char* words;
  };
  for (Case c : {Case{"Float(x)", "Float(...) expects a constant, such as Float(0.5)"},
                 Case{"Int32(2.5)", "Int32(...) takes an integer, not 2.5"},
                 Case{"Int32(3000000000)", "3000000000 does not fit Int32"},
                 Case{"Bool(1)", "Bool(...) takes true or false, not 1"},
                 Case{"Double(true)", "Double(...) takes a number, not true"},
                 Case{"Float(2.5", "expected ')' before the end of the expression"}}) {
    ScalarParseResult r = parse(c.text);
    EXPECT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error, c.words) << c.text;
  }
}

TEST_F(ScalarExpr, DepthLimit) {
  std::string ok =
      std::string(kMaxScalarExprDepth - 1, '(') + "1" + std::string(kMaxScalarExprDepth - 1, ')');
  EXPECT_TRUE(parse(ok).ok());
  std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  ScalarParseResult r = parse(deep);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("deeper"), std::string::npos);
  EXPECT_FALSE(parse(std::string(100000, '-') + "i0").ok());
}

TEST_F(ScalarExpr, FreshRootRejectsBareName) {
  FusionNameResolver names(f);
  ScalarParseOptions o;
  o.fresh_root = true;
  EXPECT_FALSE(parseScalarExpr("i0", f, names, o).ok());
  EXPECT_FALSE(parseScalarExpr("(i0)", f, names, o).ok());
  EXPECT_TRUE(parseScalarExpr("i0 + 1", f, names, o).ok());
  EXPECT_TRUE(parseScalarExpr("7", f, names, o).ok());
}

TEST(ScalarLiteral, Parse) {
  auto v = parseScalarLiteral("-inf");
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(std::isinf(v->f) && v->f < 0);
  v = parseScalarLiteral("nan");
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(std::isnan(v->f));
  v = parseScalarLiteral("-12");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->i, -12);
  bool oor = false;
  EXPECT_FALSE(parseScalarLiteral("18446744073709551616", &oor).has_value());
  EXPECT_TRUE(oor);
  EXPECT_FALSE(parseScalarLiteral("i0").has_value());
  EXPECT_FALSE(parseScalarLiteral("1 + 2").has_value());
}

TEST(ScalarName, Rules) {
  EXPECT_TRUE(isScalarName("i0"));
  EXPECT_TRUE(isScalarName("_x9"));
  EXPECT_FALSE(isScalarName("9x"));
  EXPECT_FALSE(isScalarName("inf"));
  EXPECT_FALSE(isScalarName("size"));
  EXPECT_FALSE(isScalarName("a-b"));
  EXPECT_FALSE(isScalarName(""));
}

}  // namespace
}  // namespace fc
