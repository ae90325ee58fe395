// `run` names the segment where the era really fails: an edge hazard
// (FC0302) in segment 2 stops the run at segment 2, after segments 0 and
// 1 ran, and the failing segment is the one the diagnostics name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace fc {
namespace {

TEST(RunFailingSegment, EdgeHazardFailsInTheSegmentItNames) {
  auto r = testing::runCli({"run", testing::sourcePath("fixtures/nvfuser/transpose_reduction_outer.json"),
                            "--nvfuser", "2024-06-24", "--format", "json"});
  EXPECT_EQ(r.rc, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& segs = j["run"]["segments"];
  ASSERT_EQ(segs.size(), 2u) << r.out;
  EXPECT_EQ(segs[0]["status"], "ran");
  EXPECT_EQ(segs[1]["status"], "failed") << r.out;
  auto text = testing::runCli({"run", testing::sourcePath("fixtures/nvfuser/transpose_reduction_outer.json"),
                               "--nvfuser", "2024-06-24"});
  EXPECT_NE(text.out.find("segment 1 (compute: permute, add): failed"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("segment 0 (compute: sum): failed"), std::string::npos) << text.out;
}

TEST(RunFailingSegment, SeedStillFailsInSegmentTwo) {
  auto r = testing::runCli(
      {"run", testing::sourcePath("fixtures/seed/matmul_allreduce_bias.json"), "--format", "json"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run"]["segments"][2]["status"], "failed") << r.out;
}

}  // namespace
}  // namespace fc
