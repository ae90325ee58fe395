// Conversions against known bit patterns (IEEE half, bfloat16, OCP fp8).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec/dtype_convert.h"

namespace fc::exec {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(DType, HalfKnownPatterns) {
  EXPECT_EQ(toBits(DType::Half, 65504.0), 0x7bffu);
  EXPECT_EQ(toBits(DType::Half, 1.0 / 3.0), 0x3555u);
  EXPECT_EQ(toBits(DType::Half, 1.0), 0x3c00u);
  EXPECT_EQ(toBits(DType::Half, -2.0), 0xc000u);
  EXPECT_EQ(toBits(DType::Half, 65520.0), 0x7c00u);  // rounds to +inf
  EXPECT_EQ(toBits(DType::Half, 65519.0), 0x7bffu);  // just below the rounding boundary
  EXPECT_EQ(toBits(DType::Half, -kInf), 0xfc00u);
  EXPECT_EQ(toBits(DType::Half, std::ldexp(1.0, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(toBits(DType::Half, std::ldexp(1.0, -25)), 0x0000u);  // tie -> even (0)
  EXPECT_EQ(toBits(DType::Half, std::ldexp(3.0, -26)), 0x0001u);  // above the tie
  EXPECT_EQ(toBits(DType::Half, std::ldexp(3.0, -25)), 0x0002u);  // tie 1.5 ulp -> even (2)
  EXPECT_TRUE(std::isnan(roundTo(DType::Half, kNaN)));
  EXPECT_DOUBLE_EQ(roundTo(DType::Half, 1.0 / 3.0), 0.333251953125);
}

TEST(DType, HalfFromDoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40: through float this would become the tie 1 + 2^-11 and
  // round to even (1.0); rounded once from fp64 it is above the tie.
  EXPECT_EQ(toBits(DType::Half, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3c01u);
  EXPECT_EQ(toBits(DType::Half, 1.0 + std::ldexp(1.0, -11)), 0x3c00u);  // tie -> even
  EXPECT_EQ(toBits(DType::Half, 1.0 + std::ldexp(3.0, -11)), 0x3c02u);  // tie -> even
}

TEST(DType, BFloat16Rounding) {
  EXPECT_EQ(toBits(DType::BFloat16, 1.0), 0x3f80u);
  EXPECT_EQ(toBits(DType::BFloat16, 1.0 + std::ldexp(1.0, -8)), 0x3f80u);  // tie -> even
  EXPECT_EQ(toBits(DType::BFloat16, 1.0 + std::ldexp(3.0, -8)), 0x3f82u);  // tie -> even (up)
  EXPECT_EQ(toBits(DType::BFloat16, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81u);
  EXPECT_EQ(toBits(DType::BFloat16, 1.0 / 3.0), 0x3eabu);
  EXPECT_EQ(toBits(DType::BFloat16, 3.4e38), 0x7f80u);  // beyond max -> inf
  EXPECT_DOUBLE_EQ(maxFinite(DType::BFloat16), 3.3895313892515355e38);
  EXPECT_TRUE(std::isnan(roundTo(DType::BFloat16, kNaN)));
}

TEST(DType, Float8E4M3fn) {
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, 448.0), 0x7eu);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 448.0), 448.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 464.0), 448.0);  // tie -> even mantissa
  // No inf in e4m3fn: nvFuser's kernels saturate (cvt.rn.satfinite).
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 470.0), 448.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 1e6), 448.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, kInf), 448.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, -kInf), -448.0);
  EXPECT_TRUE(std::isnan(roundTo(DType::Float8_e4m3fn, kNaN)));
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, kNaN) & 0x7f, 0x7fu);
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, std::ldexp(1.0, -9)), 0x01u);   // smallest subnormal
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, std::ldexp(1.0, -10)), 0x00u);  // tie -> 0
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, std::ldexp(3.0, -10)), 0x02u);  // tie -> even (2)
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, 1.0), 0x38u);
  EXPECT_EQ(toBits(DType::Float8_e4m3fn, -1.0), 0xb8u);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 1.0625), 1.0);   // tie -> even
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e4m3fn, 1.1875), 1.25);  // tie -> even (up)
}

TEST(DType, Float8E5M2) {
  EXPECT_EQ(toBits(DType::Float8_e5m2, 57344.0), 0x7bu);
  EXPECT_EQ(toBits(DType::Float8_e5m2, 1e6), 0x7bu);  // saturates
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e5m2, -kInf), -57344.0);
  EXPECT_EQ(toBits(DType::Float8_e5m2, 1.0), 0x3cu);
  EXPECT_EQ(toBits(DType::Float8_e5m2, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_DOUBLE_EQ(roundTo(DType::Float8_e5m2, 1.125), 1.0);  // tie -> even
  EXPECT_TRUE(std::isnan(roundTo(DType::Float8_e5m2, kNaN)));
}

TEST(DType, FloatAndIntegers) {
  EXPECT_EQ(toBits(DType::Float, 1.0 / 3.0), 0x3eaaaaabu);
  EXPECT_DOUBLE_EQ(roundTo(DType::Int, -2.7), -2.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Int32, 3e10), 2147483647.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Int32, kNaN), 0.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Bool, -0.5), 1.0);
  EXPECT_DOUBLE_EQ(roundTo(DType::Bool, 0.0), 0.0);
}

TEST(DType, BitsRoundTrip) {
  for (DType t : {DType::Half, DType::BFloat16, DType::Float8_e4m3fn, DType::Float8_e5m2, DType::Float}) {
    for (double x : {0.0, -0.0, 1.5, -3.25, 100.0, 1e-3}) {
      double r = roundTo(t, x);
      EXPECT_EQ(fromBits(t, toBits(t, x)), r) << dtypeName(t) << " " << x;
      EXPECT_EQ(roundTo(t, r), r) << "idempotent";
    }
  }
}

TEST(DType, UlpDistance) {
  EXPECT_EQ(ulpDistance(DType::Half, 1.0, 1.0 + std::ldexp(1.0, -10)), 1u);
  EXPECT_EQ(ulpDistance(DType::Half, -std::ldexp(1.0, -24), std::ldexp(1.0, -24)), 2u);  // across zero
  EXPECT_EQ(ulpDistance(DType::Half, 0.0, -0.0), 0u);
  EXPECT_EQ(ulpDistance(DType::Half, 65504.0, kInf), 1u);
  EXPECT_EQ(ulpDistance(DType::Float, kNaN, kNaN), 0u);
  EXPECT_EQ(ulpDistance(DType::Float, kNaN, 1.0), UINT64_MAX);
  EXPECT_EQ(ulpDistance(DType::BFloat16, 1.0, 2.0), 128u);
  EXPECT_EQ(ulpDistance(DType::Int, 3.0, 7.0), 4u);
}

}  // namespace
}  // namespace fc::exec
