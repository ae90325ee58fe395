// The bookkeeping of per-segment device times (exec/cuda/segment_timeline.h)
// on made-up mark times: each segment is timed by its own marks, fused
// segments form one group, times are never negative and add up to the
// total, and checkSegmentTimes() flags what breaks that. No GPU needed
// (the GPU side, CudaProgram's events, is in cuda_backend_test.cpp).
#include "exec/cuda/segment_timeline.h"

#include <gtest/gtest.h>

#include <vector>

namespace fc::exec::cuda {
namespace {

// Marks at the given times (ms); elapsed(a, b) = t[b] - t[a].
struct Clock {
  std::vector<double> t;
  double operator()(int a, int b) const { return t.at(b) - t.at(a); }
};

TEST(SegmentTimeline, EachSegmentIsTimedByItsOwnMarks) {
  SegmentTimeline tl;
  tl.reset({0, 1, 2});
  // segment k: marks 2k, 2k+1; host gaps of 0.01 ms between segments
  Clock c{{0.0, 1.64, 1.65, 1.87, 1.88, 1.91}};
  for (size_t k = 0; k < 3; ++k) tl.ran(k, static_cast<int>(2 * k), static_cast<int>(2 * k + 1));
  SegmentTimes t = tl.times(c);
  ASSERT_EQ(t.groups.size(), 3u);
  EXPECT_DOUBLE_EQ(t.groups[0].ms, 1.64);
  EXPECT_NEAR(t.groups[1].ms, 0.22, 1e-12);
  EXPECT_NEAR(t.groups[2].ms, 0.03, 1e-12);
  EXPECT_EQ(t.groups[2].ids, std::vector<uint32_t>{2});
  EXPECT_DOUBLE_EQ(t.total_ms, 1.91);
  EXPECT_NEAR(t.sumMs(), 1.89, 1e-12);
  EXPECT_EQ(checkSegmentTimes(t), "");
}

TEST(SegmentTimeline, FusedSegmentsAreOneGroup) {
  SegmentTimeline tl;
  tl.reset({0, 1, 2});
  // segment 1 (a collective) deferred into segment 2's kernel: its own
  // interval holds no device work
  Clock c{{0.0, 1.50, 1.50, 1.50, 1.50, 1.65}};
  for (size_t k = 0; k < 3; ++k) tl.ran(k, static_cast<int>(2 * k), static_cast<int>(2 * k + 1));
  tl.fuse(1, 2);
  SegmentTimes t = tl.times(c);
  ASSERT_EQ(t.groups.size(), 2u);
  EXPECT_EQ(t.groups[0].ids, std::vector<uint32_t>{0});
  EXPECT_EQ(t.groups[1].ids, (std::vector<uint32_t>{1, 2}));
  EXPECT_NEAR(t.groups[1].ms, 0.15, 1e-12);
  EXPECT_EQ(checkSegmentTimes(t), "");
  // fusing again, or in the other direction, changes nothing
  tl.fuse(2, 1);
  EXPECT_EQ(tl.times(c).groups.size(), 2u);
}

TEST(SegmentTimeline, SegmentsThatDidNotRunAreLeftOut) {
  SegmentTimeline tl;
  tl.reset({4, 7, 9});
  tl.ran(0, 0, 1);
  Clock c{{0.0, 2.0}};
  SegmentTimes t = tl.times(c);
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].ids, std::vector<uint32_t>{4});
  EXPECT_TRUE(tl.hasRun(0));
  EXPECT_FALSE(tl.hasRun(1));
  EXPECT_DOUBLE_EQ(t.total_ms, 2.0);
  SegmentTimeline none;
  none.reset({0});
  EXPECT_TRUE(none.times(c).groups.empty());
  EXPECT_EQ(none.times(c).total_ms, 0.0);
}

TEST(SegmentTimeline, CheckFlagsNegativeTimesAndMissingTime) {
  SegmentTimes neg;
  neg.groups = {{{0}, 1.9}, {{2}, -0.008}};
  neg.total_ms = 1.9;
  EXPECT_NE(checkSegmentTimes(neg).find("segment 2 has time"), std::string::npos);
  SegmentTimes gap;  // 10% of the total between segments
  gap.groups = {{{0}, 0.5}, {{1}, 0.4}};
  gap.total_ms = 1.0;
  EXPECT_NE(checkSegmentTimes(gap).find("add up to"), std::string::npos);
  EXPECT_EQ(checkSegmentTimes(gap, 0.11), "");
  SegmentTimes over;  // more than the total: overlapping intervals counted twice
  over.groups = {{{0}, 0.8}, {{1}, 0.8}};
  over.total_ms = 1.0;
  EXPECT_NE(checkSegmentTimes(over), "");
}

}  // namespace
}  // namespace fc::exec::cuda
