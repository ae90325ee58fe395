// Which axes a reshape squeezes, as nvFuser's view analysis decides
// (csrc/transform_view.cpp, AnalyzeViewTransformation::findTransformation @ a8935d52a^).
#include "analysis/view_analysis.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

using Flags = std::vector<bool>;

// nvFuser #1273: [2, 1, 2] -> [2, 2] with the middle axis a Symbolic axis of extent 1.
TEST(ViewAnalysis, AnImplicitBroadcastNoNewSizeTakesIsSqueezed) {
  auto s = viewSqueezes({2, 1, 2}, {2, 2}, {false, true, false});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Flags{false, true, false}));
}

// The same sizes with the 1 not an implicit broadcast (an Iteration axis of extent 1 at run
// time): merged into its neighbour, never squeezed.
TEST(ViewAnalysis, ARuntimeOneIsMergedNotSqueezed) {
  auto s = viewSqueezes({2, 1, 2}, {2, 2}, {false, false, false});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Flags{false, false, false}));
}

// A 1 that lines up with a 1 of the new sizes is kept.
TEST(ViewAnalysis, AOneThatLinesUpIsKept) {
  auto s = viewSqueezes({2, 1, 2}, {2, 1, 2}, {false, true, false});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Flags{false, false, false}));
}

// An implicit broadcast between two axes that must merge is squeezed ({1, 2, 1, 4} -> {1, 8, 1}:
// the second 1 is in the way of the merge of 2 and 4, the first lines up with the new 1).
TEST(ViewAnalysis, AnImplicitBroadcastInTheWayOfAMergeIsSqueezed) {
  auto s = viewSqueezes({1, 2, 1, 4}, {1, 8, 1}, {true, false, true, false});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Flags{false, false, true, false}));
}

// Splits alone squeeze nothing; sizes that do not describe a reshape give no answer.
TEST(ViewAnalysis, SplitsAndRejectedSizes) {
  auto s = viewSqueezes({6, 4}, {2, 3, 4}, {false, false});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Flags{false, false}));
  EXPECT_FALSE(viewSqueezes({6, 4}, {5, 5}, {false, false}));  // element counts differ
  EXPECT_FALSE(viewSqueezes({0, 4}, {0}, {false, false}));     // empty
  EXPECT_FALSE(viewSqueezes({}, {1}, {}));                     // a 0-d input
}

}  // namespace
}  // namespace fc
