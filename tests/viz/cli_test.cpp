// The dot and report commands as a user runs them (the fusecheck binary):
// exit codes, the seed's DOT before and after `fusecheck fix`, --svg,
// --stage / --focus errors, and the HTML report: self-contained, with the
// steps, a diff, FC0301 linked to the graph, the fix's diff, and the
// numerics table from --results or --run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "viz/dot_writer.h"
#include "viz_test_util.h"

namespace fc::viz {
namespace {

namespace fs = std::filesystem;
using viztest::runCommand;
using viztest::slurp;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(FC_CLI_PATH))
        << FC_CLI_PATH << " is missing: build the fusecheck-cli target first";
    dir_ = fs::temp_directory_path() / ("fc-viz-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  viztest::CommandResult cli(const std::string& args) {
    return runCommand(std::string(FC_CLI_PATH) + " " + args);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string seed() const { return viztest::sourcePath(viztest::kSeed); }

  fs::path dir_;
};

// Every href points inside the document, nothing is loaded from elsewhere.
void expectSelfContained(const std::string& html) {
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  size_t pos = 0;
  while ((pos = html.find("href=\"", pos)) != std::string::npos) {
    pos += 6;
    EXPECT_EQ(html[pos], '#') << html.substr(pos, 60);
  }
}

TEST_F(Cli, DotWithoutGraphvizExitsThree) {
  if (graphvizAvailable())
    GTEST_SKIP() << "SKIPPED: this build has Graphviz; the exit-3 path is not reachable";
  auto r = cli("dot " + seed() + " -o " + path("seed.dot"));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("FC0906"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without Graphviz"), std::string::npos) << r.out;
}

TEST_F(Cli, DotSeedThenFix) {
  if (!graphvizAvailable()) GTEST_SKIP() << "SKIPPED: built without Graphviz";
  auto r = cli("dot " + seed() + " -o " + path("seed.dot"));
  EXPECT_EQ(r.rc, 1) << r.out;  // the seed has a finding; the drawing is written anyway
  EXPECT_NE(r.out.find("3 segment clusters"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 axis in red, 1 of 1 diagnostic drawn"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FC0301"), std::string::npos) << r.out;
  std::string dot = slurp(path("seed.dot"));
  EXPECT_NE(dot.find("subgraph cluster_seg2"), std::string::npos);
  EXPECT_NE(dot.find("<font color=\"red\">rS14{i0}</font>"), std::string::npos);

  auto f = cli("fix " + seed() + " -o " + path("fixed.json"));
  ASSERT_EQ(f.rc, 0) << f.out;
  auto d = cli("dot " + path("fixed.json") + " -o " + path("fixed.dot") + " --svg " + path("fixed.svg"));
  EXPECT_EQ(d.rc, 0) << d.out;
  EXPECT_NE(d.out.find("0 axes in red, 0 of 0 diagnostics drawn, 1 repaired edge"), std::string::npos)
      << d.out;
  std::string fixed = slurp(path("fixed.dot"));
  EXPECT_FALSE(viztest::drawsRed(fixed));
  EXPECT_NE(fixed.find("strip-reduction-axes"), std::string::npos);
  std::string svg = slurp(path("fixed.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("id=\"tensor_T5\""), std::string::npos);
}

TEST_F(Cli, DotToStdoutAndOptions) {
  if (!graphvizAvailable()) GTEST_SKIP() << "SKIPPED: built without Graphviz";
  auto r = cli("dot " + seed());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("digraph fusion {", 0), 0u) << r.out.substr(0, 200);
  auto stage = cli("dot " + seed() + " --stage segment -o " + path("s.dot"));
  EXPECT_EQ(stage.rc, 1) << stage.out;
  EXPECT_FALSE(viztest::drawsRed(slurp(path("s.dot"))));
  auto bad_stage = cli("dot " + seed() + " --stage lowering -o " + path("x.dot"));
  EXPECT_EQ(bad_stage.rc, 2);
  EXPECT_NE(bad_stage.out.find("segment-inputs"), std::string::npos) << bad_stage.out;
  auto bad_focus = cli("dot " + seed() + " --focus T42 -o " + path("x.dot"));
  EXPECT_EQ(bad_focus.rc, 2);
  EXPECT_NE(bad_focus.out.find("T42"), std::string::npos) << bad_focus.out;
  auto focus = cli("dot " + seed() + " --focus e2 --depth 1 -o " + path("f.dot"));
  EXPECT_EQ(focus.rc, 1);
  EXPECT_NE(focus.out.find("focus e2, depth 1: 3 of 17 nodes"), std::string::npos) << focus.out;
  auto era = cli("dot " + seed() + " --nvfuser 2024-07 -o " + path("e.dot"));
  EXPECT_EQ(era.rc, 0) << era.out;
  std::string e = slurp(path("e.dot"));
  EXPECT_FALSE(viztest::drawsRed(e));
  EXPECT_NE(e.find("enters segment 2 as [iS15{i3}, iS16{i6}]"), std::string::npos);
  auto bad_file = cli("dot " + path("missing.json") + " -o " + path("x.dot"));
  EXPECT_EQ(bad_file.rc, 2);
  auto unwritable = cli("dot " + seed() + " -o " + path("no/such/dir/x.dot"));
  EXPECT_EQ(unwritable.rc, 3) << unwritable.out;
}

TEST_F(Cli, ReportOfTheSeed) {
  auto r = cli("report " + seed() + " -o " + path("seed.html"));
  EXPECT_EQ(r.rc, 1) << r.out;
  std::string html = slurp(path("seed.html"));
  ASSERT_FALSE(html.empty());
  expectSelfContained(html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("data-code=\"FC0301\""), std::string::npos);
  EXPECT_NE(html.find("class=\"step failing\" id=\"step-"), std::string::npos);
  EXPECT_NE(html.find("data-pass=\"concretize\" data-scope=\"segment 2\""), std::string::npos);
  EXPECT_NE(html.find("class=\"diff-add\""), std::string::npos);
  EXPECT_NE(html.find("class=\"diff-del\""), std::string::npos);
  EXPECT_NE(html.find("id=\"fix-check\""), std::string::npos);
  // The fix's check diff: the error goes, "clean" arrives.
  EXPECT_NE(html.find("<td class=\"sg\">+</td><td>check: nvFuser 2024-06"), std::string::npos);
  EXPECT_NE(html.find("fix[strip-reduction-axes]"), std::string::npos);
  if (graphvizAvailable()) {
    EXPECT_NE(html.find("<svg"), std::string::npos);
    EXPECT_NE(html.find("id=\"tensor_T5\""), std::string::npos);
    EXPECT_NE(html.find("id=\"fixed_tensor_T5\""), std::string::npos);
    EXPECT_NE(html.find("data-node=\"tensor_T5\""), std::string::npos);
  } else {
    EXPECT_NE(html.find("without Graphviz"), std::string::npos);
  }
  // A small fusion's numerics are included by default (run on the CPU), and the report says so.
  EXPECT_NE(html.find("run on the CPU by default"), std::string::npos);
  EXPECT_NE(html.find("id=\"run-outputs\""), std::string::npos);
  EXPECT_NE(html.find("<title>fusecheck report: matmul_allreduce_bias — FAIL: 1 error (FC0301)</title>"),
            std::string::npos);
  EXPECT_EQ(html.find('`'), std::string::npos) << "a literal backtick";
}

TEST_F(Cli, ReportWithResults) {
  std::ofstream(path("run.json")) << R"({"run": {"file": "x.json", "against": null, "device": "cuda",
    "era": "2024-07", "fix": false, "fix_actions": [], "reference": "exact", "seed": 0,
    "communicator": "nccl", "ranks": 2, "passed": false, "exit_code": 1, "peak_bytes": 10,
    "segments": [{"id": 0, "kind": "compute", "comm": null, "status": "ok", "summary": "permute, matmul"},
                 {"id": 1, "kind": "communication", "comm": "Allreduce", "status": "ok", "summary": "Allreduce"}],
    "outputs": [{"name": "T9", "dtype": "Float", "shape": [64, 64], "reference_shape": [64, 64],
                 "passed": false, "numel": 4096, "mismatches": 3, "max_abs_error": 0.3125,
                 "max_rel_error": "inf", "max_ulp": 12,
                 "tolerance": {"policy": "magnitude-aware", "rtol": 0.001, "atol": 0.02},
                 "worst": [{"index": [3, 7], "actual": 1.5, "expected": 1.1875, "abs_error": 0.3125,
                            "allowed": 0.02, "ulp": 12}]}],
    "diagnostics": [{"severity": "error", "code": "FC0501", "message": "T9 differs from the reference"}]}})";
  auto r =
      cli("report " + seed() + " --nvfuser 2024-07 --results " + path("run.json") + " -o " + path("r.html"));
  EXPECT_EQ(r.rc, 1) << r.out;  // the numerics fail
  EXPECT_NE(r.out.find("numerics FAIL"), std::string::npos) << r.out;
  std::string html = slurp(path("r.html"));
  expectSelfContained(html);
  EXPECT_NE(html.find("id=\"run-outputs\""), std::string::npos);
  EXPECT_NE(html.find("<td>0.3125</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>inf</td>"), std::string::npos);
  EXPECT_NE(html.find("3 of 4096"), std::string::npos);
  EXPECT_NE(html.find("at [3, 7]: got 1.5, reference 1.1875"), std::string::npos);
  EXPECT_NE(html.find("Allreduce"), std::string::npos);
  EXPECT_NE(html.find("FC0501"), std::string::npos);

  std::ofstream(path("bad.json")) << "{\"outputs\": []}";
  auto bad = cli("report " + seed() + " --results " + path("bad.json") + " -o " + path("b.html"));
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_FALSE(fs::exists(path("b.html")));
  auto both = cli("report " + seed() + " --run --results " + path("run.json") + " -o " + path("b.html"));
  EXPECT_EQ(both.rc, 2) << both.out;
}

TEST_F(Cli, ReportWithRun) {
  // 2024-07 strips Reduction axes: the segmented program runs and matches.
  auto r = cli("report " + seed() + " --nvfuser 2024-07 --run -o " + path("run.html"));
  std::string html = slurp(path("run.html"));
  ASSERT_FALSE(html.empty()) << r.out;
  EXPECT_NE(html.find("id=\"run-outputs\""), std::string::npos);
  EXPECT_NE(html.find("--run on cpu"), std::string::npos);
  EXPECT_NE(html.find(">T9</"), std::string::npos);
  EXPECT_EQ(r.rc, 0) << r.out;
}

}  // namespace
}  // namespace fc::viz
