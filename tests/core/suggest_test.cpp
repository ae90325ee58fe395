#include "support/suggest.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(editDistance("check", "check"), 0u);
  EXPECT_EQ(editDistance("chek", "check"), 1u);
  EXPECT_EQ(editDistance("chekc", "check"), 1u);
  EXPECT_EQ(editDistance("matmull", "matmul"), 1u);
  EXPECT_EQ(editDistance("MATMUL", "matmul"), 0u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
}

TEST(Suggest, TyposOfSubcommandsAndOps) {
  std::vector<std::string> subs{"check", "concretize", "convert", "demo", "dot", "explain", "fix", "run"};
  EXPECT_EQ(suggest("chek", subs), std::vector<std::string>{"check"});
  EXPECT_EQ(suggest("concretise", subs), std::vector<std::string>{"concretize"});
  EXPECT_TRUE(suggest("zzzz", subs).empty());
  std::vector<std::string> ops{"matmul", "linear", "sum", "mul", "max"};
  EXPECT_EQ(suggest("matmull", ops).front(), "matmul");
  EXPECT_EQ(didYouMean("matmull", ops), " (did you mean matmul?)");
  EXPECT_EQ(didYouMean("qqqqqq", ops), "");
}

TEST(Suggest, PrefixesAndExactMatches) {
  std::vector<std::string> opts{"threads", "trace", "time-report"};
  EXPECT_EQ(suggest("thread", opts).front(), "threads");
  EXPECT_EQ(suggest("TRACE", opts), std::vector<std::string>{"trace"});
  EXPECT_EQ(didYouMean("tr", {"trace", "tree"}), "");  // too short to guess
  EXPECT_EQ(didYouMean("tre", {"trace", "tree"}), " (did you mean tree or trace?)");
  EXPECT_EQ(didYouMean("i1", {"i0", "i2", "i10"}), " (did you mean i0, i2 or i10?)");
}

}  // namespace
}  // namespace fc
