// An exported repro reproduces what the repro does, or the export is
// refused: `reduce --export-python` keeps only candidates it can export
// whole, and the script it writes, imported back, still reports the
// property; `export` of a repro whose input carries a Reduction axis is
// refused with FC0610 (fixtures/interchange/ checks the words).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_run.h"

namespace fc {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("fc-export-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(ExportKeepsProperty, ReducedThenExportedThenImportedStillFails) {
  fs::path d = scratch("reduce");
  auto red = testing::runCli({"reduce", testing::sourcePath("fixtures/seed/matmul_allreduce_bias.json"),
                              "--until", "FC0301", "-o", (d / "red.json").string(), "--export-python",
                              (d / "red.py").string(), "--progress", "never"});
  ASSERT_EQ(red.rc, 0) << red.out << red.err;
  ASSERT_TRUE(fs::exists(d / "red.py"));
  auto imp = testing::runCli({"import", (d / "red.py").string(), "-o", (d / "back.json").string()});
  ASSERT_EQ(imp.rc, 0) << imp.err;
  auto check = testing::runCli({"check", (d / "back.json").string(), "--nvfuser", "2024-06", "--frontend",
                                "cpp", "--executor", "mde-fec", "--format", "json"});
  EXPECT_EQ(check.rc, 1) << check.out;
  EXPECT_NE(check.out.find("\"FC0301\""), std::string::npos) << check.out;
  fs::remove_all(d);
}

TEST(ExportKeepsProperty, ExportOfAReductionInputIsRefused) {
  fs::path d = scratch("refuse");
  const std::string seg = testing::sourcePath("fixtures/interchange/segment_input_reduction.json");
  auto r = testing::runCli({"export", seg, "-o", (d / "seg.py").string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error[FC0610]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "seg.py"));
  auto red = testing::runCli({"reduce", seg, "--until", "FC0301", "-o", (d / "r.json").string(),
                              "--export-python", (d / "r.py").string(), "--progress", "never"});
  EXPECT_EQ(red.rc, 1);
  EXPECT_NE(red.err.find("error[FC0610]"), std::string::npos) << red.err;
  EXPECT_FALSE(fs::exists(d / "r.py"));
  fs::remove_all(d);
}

// A segment written by `segment --emit-segments` replays under the profile
// of the repro it came from (its origin and nvFuser point carry over): the
// seed's bias-add segment fails on its own as the whole does.
TEST(ExportKeepsProperty, AnEmittedSegmentFailsAloneAsInTheWholeRepro) {
  fs::path d = scratch("segments");
  auto seg = testing::runCli({"segment", testing::sourcePath("fixtures/seed/matmul_allreduce_bias.json"),
                              "--emit-segments", (d / "segs").string()});
  ASSERT_EQ(seg.rc, 1) << seg.out << seg.err;
  ASSERT_TRUE(fs::exists(d / "segs" / "segment2.json")) << seg.out;
  auto check = testing::runCli({"check", (d / "segs" / "segment2.json").string(), "--format", "json"});
  EXPECT_EQ(check.rc, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("\"FC0301\""), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("mde-fec"), std::string::npos) << "the seed's executor: " << check.out;
  fs::remove_all(d);
}

}  // namespace
}  // namespace fc
