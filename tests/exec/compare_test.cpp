// The magnitude-aware tolerance and the comparison report.
#include "exec/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/tensor_source.h"

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

// A host tensor read through the TensorSource interface, recording the
// largest read it was asked for and how many reads it served.
class CountingSource final : public TensorSource {
 public:
  explicit CountingSource(const HostTensor& t, const void* storage = nullptr) : t_(t), storage_(storage) {}
  DType dtype() const override { return t_.dtype(); }
  const Shape& shape() const override { return t_.shape(); }
  int64_t numel() const override { return t_.numel(); }
  void read(int64_t begin, int64_t n, double* out) const override {
    ++reads;
    largest = std::max(largest, n);
    for (int64_t i = 0; i < n; ++i) out[i] = t_[begin + i];
  }
  const void* storage() const override { return storage_; }
  mutable int64_t reads = 0, largest = 0;

 private:
  const HostTensor& t_;
  const void* storage_;
};

TEST(Compare, ChunkedReadsGiveTheReportOfAWholeRead) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  HostTensor ref(DType::Float, {7, 5}), got(DType::Float, {7, 5});
  for (int64_t i = 0; i < ref.numel(); ++i) ref[i] = got[i] = std::sin(static_cast<double>(i)) * 40.0;
  // Errors of several sizes, two of equal excess (the index breaks the tie),
  // a NaN on one side and an infinity on both.
  got[3] += 0.5;
  got[11] += 0.25;
  got[12] += 0.25;
  got[20] = nan;
  got[33] = ref[33] = inf;
  got[34] -= 2.0;
  TolerancePolicy p{DType::Float, DType::Half, 64, 1, {}, {}};
  Comparison whole = compareTensors("T", got, ref, p, 4);
  ASSERT_EQ(whole.worst.size(), 4u);
  EXPECT_EQ(whole.worst[0].index, (std::vector<int64_t>{4, 0}));  // the NaN
  EXPECT_EQ(whole.worst[2].index, (std::vector<int64_t>{0, 3}));
  for (int64_t chunk : {1, 3, 7, 34, 35, 1000}) {
    CountingSource a(got), r(ref);
    Comparison c = compareTensors("T", a, r, p, 4, chunk);
    EXPECT_LE(a.largest, chunk);
    EXPECT_LE(r.largest, chunk);
    EXPECT_EQ(c.mismatches, whole.mismatches) << chunk;
    EXPECT_EQ(c.torch_mismatches, whole.torch_mismatches) << chunk;
    EXPECT_EQ(c.max_abs, whole.max_abs) << chunk;
    EXPECT_EQ(c.max_rel, whole.max_rel) << chunk;
    EXPECT_EQ(c.max_ulp, whole.max_ulp) << chunk;
    EXPECT_EQ(c.scale, whole.scale) << chunk;
    ASSERT_EQ(c.worst.size(), whole.worst.size()) << chunk;
    for (size_t k = 0; k < c.worst.size(); ++k) {
      EXPECT_EQ(c.worst[k].index, whole.worst[k].index) << chunk << " " << k;
      EXPECT_EQ(std::isnan(c.worst[k].actual), std::isnan(whole.worst[k].actual));
      if (!std::isnan(c.worst[k].actual)) EXPECT_EQ(c.worst[k].actual, whole.worst[k].actual);
      EXPECT_EQ(c.worst[k].allowed, whole.worst[k].allowed);
    }
  }
}

TEST(Compare, ReplicasDifferBitForBitAndOneStorageIsNotRead) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor a = vec(DType::Float, {1, 0.0, nan, 4, 5}), b = a;
  EXPECT_EQ(firstBitDifference(HostTensorSource(a), HostTensorSource(b), 2), std::nullopt);
  b[1] = -0.0;  // equal as numbers, different bits
  b[4] = 6;
  EXPECT_EQ(firstBitDifference(HostTensorSource(a), HostTensorSource(b), 2), std::optional<int64_t>(1));
  b[2] = -nan;  // NaNs are equal to each other whatever their bits
  b[1] = 0.0;
  EXPECT_EQ(firstBitDifference(HostTensorSource(a), HostTensorSource(b), 2), std::optional<int64_t>(4));
  // Two sources over one storage hold the same bits: nothing is read.
  CountingSource x(a, &a), y(b, &a);
  EXPECT_EQ(firstBitDifference(x, y), std::nullopt);
  EXPECT_EQ(x.reads + y.reads, 0);
}

}  // namespace
}  // namespace fc::exec
