// The change-point table: every row names a commit of main with its date,
// switches change in commit order, and the lookups give what the table says.
#include "pipeline/history.h"

#include <gtest/gtest.h>

#include <set>

namespace fc::nv {
namespace {

uint32_t pos(std::string_view hash) {
  auto p = positionOf(std::string(hash));
  EXPECT_TRUE(p.has_value()) << hash;
  return p.value_or(0);
}

TEST(History, CommitsAreMainOldestFirst) {
  const auto& c = commits();
  ASSERT_GT(c.size(), 4000u);
  EXPECT_EQ(c.front().hash, "831821f3ae20eb0d32dad6cb3677bef99e9bc7ff");
  EXPECT_EQ(c.back().hash, "81c4b22fd750d377d69e24928c32233162f6b2bd");
  for (size_t i = 1; i < c.size(); ++i) {
    ASSERT_LE(c[i - 1].date, c[i].date) << i;
    ASSERT_EQ(c[i].hash.size(), 40u) << i;
  }
}

TEST(History, EveryChangeNamesItsCommitAndDate) {
  std::set<std::pair<int, int>> seen;
  for (const Change& ch : changes()) {
    ASSERT_LT(ch.pos, commits().size());
    EXPECT_EQ(commits()[ch.pos].hash, ch.commit) << ch.pr;
    EXPECT_EQ(commits()[ch.pos].date, ch.date) << "#" << ch.pr << " is dated " << commits()[ch.pos].date;
    EXPECT_FALSE(ch.evidence.empty()) << ch.pr;
    EXPECT_NE(ch.evidence.find(" @ "), std::string_view::npos)
        << "#" << ch.pr << ": evidence cites no commit";
    EXPECT_TRUE(seen.insert({static_cast<int>(ch.sw), ch.pr}).second) << "#" << ch.pr << " twice";
  }
}

TEST(History, EachChangeFlipsItsSwitch) {
  for (size_t s = 0; s < kSwitches; ++s) {
    uint8_t v = switchInfo(static_cast<Switch>(s)).initial;
    for (const Change& ch : changes()) {
      if (static_cast<size_t>(ch.sw) != s) continue;
      EXPECT_NE(ch.value, v) << switchInfo(ch.sw).name << " #" << ch.pr << " sets the value it already has";
      v = ch.value;
    }
  }
}

TEST(History, StateAtTheSeedCommits) {
  const uint32_t before = pos("bfa518ceb772afbbb2b54fcfceb9e0c00139bb41");
  const uint32_t after = pos("4afbdf52f1d4dbc6bcf9948b4d15ce87a85e7263");
  EXPECT_EQ(stateAt(before).get<InputRewrite>(), InputRewrite::KeepReductions);
  EXPECT_EQ(stateAt(after).get<InputRewrite>(), InputRewrite::StripReductions);
  EXPECT_EQ(stateAt(before).get<TransposeOuterReduction>(), TransposeOuterReduction::Fixed);
  EXPECT_EQ(stateAt(before).get<CppMde>(), CppMde::FeWithoutConcretization);
  EXPECT_EQ(stateAt(before).get<DidBinding>(), DidBinding::MeshSizeLocalOne);
  const Change* fix = nextChangeTo(InputRewrite::StripReductions, before);
  ASSERT_NE(fix, nullptr);
  EXPECT_EQ(fix->pr, 2487);
  EXPECT_EQ(fix->label(), "#2487 (4afbdf52f, 2024-07-01)");
  EXPECT_EQ(changeBehind(Switch::InputRewrite, after), fix);
  EXPECT_EQ(changeBehind(Switch::InputRewrite, before), nullptr);
}

TEST(History, CheckSitesByCommit) {
  auto at = [](Check c, std::string_view hash) {
    auto s = checkAt(c, pos(hash));
    return s ? std::string(s->file) + ":" + std::to_string(s->line) : std::string("-");
  };
  // The lines nvFuser printed (the macro's first line).
  EXPECT_EQ(at(Check::ConcretizeExtent, "bfa518ceb772afbbb2b54fcfceb9e0c00139bb41"),
            "csrc/dynamic_transform.cpp:277");
  // The line tests/cpp/test_multidevice_matmul.cpp quotes at this commit.
  EXPECT_EQ(at(Check::ConcretizeExtent, "1ed0e86d2ce6b84500c724b1580bac64469d1347"),
            "csrc/dynamic_transform.cpp:276");
  EXPECT_EQ(at(Check::ConcretizeExtent, "81c4b22fd750d377d69e24928c32233162f6b2bd"),
            "csrc/dynamic_transform.cpp:315");
  EXPECT_EQ(at(Check::MdeNoBuffer, "bfa518ceb772afbbb2b54fcfceb9e0c00139bb41"),
            "csrc/multidevice/executor.cpp:115");
  EXPECT_EQ(at(Check::MdeNoBuffer, "1bfb11a34d31200d7c2bc8a4e008a4279baf160b"), "-");
  EXPECT_EQ(at(Check::LocalAllocation, "bfa518ceb772afbbb2b54fcfceb9e0c00139bb41"), "csrc/executor.cpp:434");
  EXPECT_EQ(at(Check::MeshPerInput, "bfa518ceb772afbbb2b54fcfceb9e0c00139bb41"),
            "csrc/multidevice/utils.cpp:336");
  for (size_t c = 0; c < kChecks; ++c)
    EXPECT_FALSE(checkSites(static_cast<Check>(c)).empty()) << checkInfo(static_cast<Check>(c)).name;
}

TEST(History, VersionsAreInOrder) {
  const auto& v = versions();
  ASSERT_GT(v.size(), 60u);
  EXPECT_EQ(v.front().version, "0.0.4");
  EXPECT_EQ(v.back().version, "0.2.36");
  for (size_t i = 1; i < v.size(); ++i) EXPECT_LT(pos(v[i - 1].first_commit), pos(v[i].first_commit));
}

}  // namespace
}  // namespace fc::nv
