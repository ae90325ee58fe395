#include "support/phase_times.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

TEST(PhaseTimes, ScopesDoNothingWithoutACollector) {
  ASSERT_EQ(PhaseTimes::active(), nullptr);
  { PhaseScope s("nobody listens"); }
  EXPECT_EQ(PhaseTimes::active(), nullptr);
}

TEST(PhaseTimes, AccumulatesPerPhaseInFirstEntryOrder) {
  PhaseTimes t;
  PhaseTimes* prev = PhaseTimes::activate(&t);
  EXPECT_EQ(prev, nullptr);
  for (int i = 0; i < 3; ++i) {
    PhaseScope a("b: second");
    a.stop();
    a.stop();  // a second stop is a no-op
    PhaseScope b("a: first");
  }
  { PhaseScope c("b: second"); }
  EXPECT_EQ(PhaseTimes::activate(prev), &t);
  EXPECT_EQ(PhaseTimes::active(), nullptr);
  ASSERT_EQ(t.phases().size(), 2u);
  EXPECT_EQ(t.phases()[0].name, "b: second");
  EXPECT_EQ(t.phases()[0].calls, 4u);
  EXPECT_EQ(t.phases()[1].name, "a: first");
  EXPECT_EQ(t.phases()[1].calls, 3u);
  for (const auto& p : t.phases()) {
    EXPECT_GE(p.seconds, 0.0);
    EXPECT_GT(p.peak_rss_kb, 0u);
  }
}

TEST(PhaseTimes, RendersEveryPhaseAndTheRemainder) {
  PhaseTimes t;
  t.add(t.slot("load: build IR"), 0.25);
  t.add(t.slot("pipeline: segment"), 0.5);
  t.add(t.slot("load: build IR"), 0.25);
  std::string r = t.render(2.0);
  EXPECT_NE(r.find("load: build IR"), std::string::npos) << r;
  EXPECT_NE(r.find("500.0  25.0%"), std::string::npos) << r;  // 0.5 s of 2 s, two calls
  EXPECT_NE(r.find("(not in a phase)"), std::string::npos) << r;
  EXPECT_NE(r.find("1000.0  50.0%"), std::string::npos) << r;  // 2 - 0.5 - 0.5
  EXPECT_NE(r.find("2000.0"), std::string::npos) << r;
}

TEST(PhaseTimes, DetailPhasesAreIndentedAndNotSummed) {
  PhaseTimes t;
  {
    PhaseTimes* prev = PhaseTimes::activate(&t);
    PhaseScope outer("load: build IR");
    { PhaseScope part("tensors, in chunks", PhaseScope::Detail{}); }
    outer.stop();
    PhaseTimes::activate(prev);
  }
  ASSERT_EQ(t.phases().size(), 2u);
  EXPECT_FALSE(t.phases()[0].detail);
  EXPECT_TRUE(t.phases()[1].detail);
  PhaseTimes r;
  r.add(r.slot("load: build IR"), 0.5);
  r.add(r.slot("tensors, in chunks", true), 0.25);
  std::string out = r.render(1.0);
  EXPECT_NE(out.find("\n    tensors, in chunks"), std::string::npos) << out;
  // 1 s - 0.5 s: the detail's 0.25 s is inside the 0.5 s, not beside it.
  EXPECT_NE(out.find("500.0  50.0%\n  total"), std::string::npos) << out;
}

}  // namespace
}  // namespace fc
