// The magnitude-aware tolerance and the comparison report.
#include "exec/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fc::exec {
namespace {

HostTensor vec(DType dt, std::vector<double> v) {
  HostTensor t(dt, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t[i] = v[i];
  return t;
}

TEST(Compare, RelativeErrorNearZeroDoesNotFlagACorrectProgram) {
  // A Half-path output with |ref| up to ~516 and errors of
  // about one Half ulp; one element is almost zero (cancellation), where the
  // relative error is in the thousands.
  HostTensor ref = vec(DType::Float, {516.0, -300.1, 0.0001, 12.3});
  HostTensor got = vec(DType::Float, {516.25, -300.0, 0.29, 12.3});
  TolerancePolicy p{DType::Float, DType::Half, 8192, 1, {}, {}};
  Comparison c = compareTensors("T9", got, ref, p);
  EXPECT_TRUE(c.passed()) << c.mismatches;
  EXPECT_GT(c.max_rel, 1000.0);
  EXPECT_NEAR(c.max_abs, 0.2899, 1e-3);
  EXPECT_DOUBLE_EQ(c.scale, 516.0);
  // Torch's default rule for the output dtype (float32) flags it.
  EXPECT_GT(c.torch_mismatches, 0);
  ASSERT_TRUE(c.torch_rtol.has_value());
  EXPECT_DOUBLE_EQ(*c.torch_rtol, 1.3e-6);
}

TEST(Compare, AWrongValueIsFlaggedWithItsPosition) {
  HostTensor ref = vec(DType::Float, {1, 2, 3, 4});
  HostTensor got = vec(DType::Float, {1, 2, 3.5, 4});
  TolerancePolicy p{DType::Float, DType::Half, 4, 0, {}, {}};
  Comparison c = compareTensors("T", got, ref, p);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.mismatches, 1);
  ASSERT_FALSE(c.worst.empty());
  EXPECT_EQ(c.worst[0].index, (std::vector<int64_t>{2}));
  EXPECT_EQ(c.worst[0].actual, 3.5);
  EXPECT_EQ(c.worst[0].expected, 3);
  EXPECT_EQ(c.worst[0].ulp, 2097152u);  // 0.5 at 3 in float (ulp 2^-22): 2^21 ulps
}

TEST(Compare, NarrowerRoundingThanThePathIsCaught) {
  // A Half path tolerates Half rounding but not bfloat16 rounding.
  // Values rounded to Half (error <= 2^-11 relative) and to bfloat16
  // (1.0039 -> 1.0, error 0.0039): S = 1.9, allowed = 1e-5 + ~1e-3 * 1.9.
  HostTensor ref = vec(DType::Float, {1.0 + 1.0 / 3.0, 1.7, 1.9, 1.0039});
  HostTensor half_r = vec(DType::Float, {1.3330078125, 1.7001953125, 1.900390625, 1.00390625});
  HostTensor bf_r = vec(DType::Float, {1.3359375, 1.703125, 1.8984375, 1.0});
  TolerancePolicy p{DType::Float, DType::Half, 1, 0, {}, {}};
  EXPECT_TRUE(compareTensors("T", half_r, ref, p).passed());
  EXPECT_FALSE(compareTensors("T", bf_r, ref, p).passed());
}

TEST(Compare, NaNInfAndShape) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  TolerancePolicy p{DType::Float, DType::Float, 1, 0, {}, {}};
  EXPECT_TRUE(compareTensors("T", vec(DType::Float, {nan, inf}), vec(DType::Float, {nan, inf}), p).passed());
  EXPECT_FALSE(compareTensors("T", vec(DType::Float, {nan, 1}), vec(DType::Float, {1, 1}), p).passed());
  EXPECT_FALSE(compareTensors("T", vec(DType::Float, {-inf, 1}), vec(DType::Float, {inf, 1}), p).passed());
  Comparison s = compareTensors("T", vec(DType::Float, {1, 2}), vec(DType::Float, {1, 2, 3}), p);
  EXPECT_FALSE(s.shape_match);
  EXPECT_FALSE(s.passed());
}

TEST(Compare, OverrideIsThePlainRule) {
  HostTensor ref = vec(DType::Float, {100, 0.001});
  HostTensor got = vec(DType::Float, {100.5, 0.0015});
  TolerancePolicy p{DType::Float, DType::Half, 1, 0, 1e-2, 0.0};
  Comparison c = compareTensors("T", got, ref, p);
  EXPECT_TRUE(c.overridden);
  EXPECT_EQ(c.mismatches, 1);  // 0.0005 > 1e-2 * 0.001; 0.5 <= 1e-2 * 100
  EXPECT_EQ(c.worst[0].index, (std::vector<int64_t>{1}));
}

TEST(Compare, IntegerOutputsMustMatchExactly) {
  TolerancePolicy p{DType::Int, DType::Int, 1, 0, {}, {}};
  EXPECT_TRUE(compareTensors("T", vec(DType::Int, {3, 4}), vec(DType::Int, {3, 4}), p).passed());
  EXPECT_FALSE(compareTensors("T", vec(DType::Int, {3, 5}), vec(DType::Int, {3, 4}), p).passed());
}

TEST(Compare, ToleranceGrowsWithReductionSize) {
  HostTensor ref = vec(DType::Float, {1.0});
  TolerancePolicy small{DType::Float, DType::Float, 1, 0, {}, {}};
  TolerancePolicy big{DType::Float, DType::Float, 1 << 20, 0, {}, {}};
  Comparison a = compareTensors("T", ref, ref, small), b = compareTensors("T", ref, ref, big);
  EXPECT_GT(b.rtol, a.rtol);
  EXPECT_NEAR(b.rtol - a.rtol, 1023.0 * std::ldexp(1.0, -24), 1e-12);
}

}  // namespace
}  // namespace fc::exec
