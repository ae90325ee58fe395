#include "support/progress.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace fc {
namespace {

TEST(Progress, StepsReachTheInnermostListenerOfTheCallingThreadOnly) {
  std::vector<std::string> outer, inner;
  reportStep(1, 2, "nobody listens");
  {
    StepListener a([&](uint64_t d, uint64_t t, std::string_view s) {
      outer.push_back(std::to_string(d) + "/" + std::to_string(t) + " " + std::string(s));
    });
    reportStep(0, 3, "first");
    {
      StepListener b([&](uint64_t, uint64_t, std::string_view s) { inner.emplace_back(s); });
      reportStep(1, 3, "second");
      std::thread other([] { reportStep(9, 9, "another thread"); });
      other.join();
    }
    reportStep(2, 3, "third");
  }
  reportStep(3, 3, "after");
  EXPECT_EQ(outer, (std::vector<std::string>{"0/3 first", "2/3 third"}));
  EXPECT_EQ(inner, (std::vector<std::string>{"second"}));
}

TEST(Progress, StepProgressKeepsTheLastStepAndDrawsNothingWhenNever) {
  testing::internal::CaptureStderr();
  {
    StepProgress p("run", ProgressMode::Never);
    EXPECT_EQ(p.last().detail, "");
    reportStep(1, 4, "segment 1: compute: add");
    ProgressStep s = p.last();
    EXPECT_EQ(s.done, 1u);
    EXPECT_EQ(s.total, 4u);
    EXPECT_EQ(s.detail, "segment 1: compute: add");
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Progress, ACommandsModeOverridesTheGlobalOne) {
  EXPECT_TRUE(progressEnabled(ProgressMode::Always));
  EXPECT_FALSE(progressEnabled(ProgressMode::Never));
  setProgressMode(ProgressMode::Never);
  EXPECT_FALSE(progressEnabled(ProgressMode::Auto));
  setProgressMode(ProgressMode::Always);
  EXPECT_TRUE(progressEnabled(ProgressMode::Auto));
  setProgressMode(ProgressMode::Auto);
}

// A job that lasts past the first second is drawn with the step it is on,
// its count and an estimate; the line is cleared at the end.
TEST(Progress, StepProgressDrawsTheCurrentStepAfterTheFirstSecond) {
  testing::internal::CaptureStderr();
  {
    StepProgress p("run", ProgressMode::Always);
    reportStep(1, 3, "segment 1: compute: matmul");
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("\r\033[Krun: 1/3 (33%) · segment 1: compute: matmul · 1."), std::string::npos) << err;
  EXPECT_NE(err.find("left"), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.size() - 4), "\r\033[K") << "the line is cleared";
}

TEST(Progress, RendersCountDetailElapsedAndEstimate) {
  EXPECT_EQ(ProgressLine::render("run", 2, 4, 3.0, "segment 2: Allreduce"),
            "run: 2/4 (50%) · segment 2: Allreduce · 3.0 s, about 3.0 s left");
  EXPECT_EQ(ProgressLine::render("run", 0, 0, 0.2, "generating the inputs"),
            "run: generating the inputs · 0.2 s");
}

}  // namespace
}  // namespace fc
