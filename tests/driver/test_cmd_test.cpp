// `fusecheck test`: a sidecar that no longer holds fails and says why (text,
// JUnit, SARIF located in the sidecar, GitHub annotations); what this
// fusecheck cannot run is skipped, never passed, and fails with --strict;
// --update makes a sidecar for a repro that has none and then passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"

namespace fc {
namespace {

namespace fs = std::filesystem;

class TestCmd : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("fc-testcmd-" + std::to_string(getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(testing::sourcePath("fixtures/seed/matmul_allreduce_bias.json"), dir / "seed.json");
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; }
  std::string read(const std::string& name) {
    std::ifstream in(dir / name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

const char* kWrongVerdict = R"({
  "format": "fusecheck.expect/1",
  "input": "seed.json",
  "runs": [
    {"args": ["check"], "points": {"2024-06": {"verdict": "clean"}, "head": {"verdict": "clean"}}}
  ]
}
)";

TEST_F(TestCmd, AFailingExpectationIsReportedEverywhere) {
  write("seed.expect.json", kWrongVerdict);
  auto r = testing::runCli({"test", dir.string(), "--junit", (dir / "j.xml").string()});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL " + (dir / "seed.expect.json").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run 0 at 2024-06"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit 1 (findings), expected 0 (clean)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test: 1 sidecar, 0 passed, 1 failed, 0 skipped"), std::string::npos) << r.out;
  std::string junit = read("j.xml");
  EXPECT_NE(junit.find("<testsuite name=\"fusecheck test\" tests=\"1\" failures=\"1\""), std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<failure"), std::string::npos);
  auto s = testing::runCli({"--sarif-root", dir.string(), "test", dir.string(), "--format", "sarif"});
  EXPECT_EQ(s.rc, 1);
  auto j = nlohmann::json::parse(s.out);
  const auto& res = j["runs"][0]["results"];
  ASSERT_EQ(res.size(), 1u) << s.out;
  EXPECT_EQ(res[0]["ruleId"], "FC0701");
  EXPECT_EQ(res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "seed.expect.json");
  EXPECT_EQ(res[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 5) << "the run's line";
  auto g = testing::runCli({"--sarif-root", dir.string(), "test", dir.string(), "--format", "github"});
  EXPECT_NE(g.out.find("::error file=seed.expect.json,line=5,"), std::string::npos) << g.out;
}

// A point this fusecheck does not know is never passed: the run fails with
// the CLI's usage error (exit 2).
TEST_F(TestCmd, APointTheModelDoesNotKnowFails) {
  write("seed.expect.json", R"({
  "format": "fusecheck.expect/1",
  "input": "seed.json",
  "runs": [
    {"args": ["check"], "points": {"2024-06": {"verdict": "findings"}, "1999-01-01": {"verdict": "clean"}}}
  ]
}
)");
  auto r = testing::runCli({"test", (dir / "seed.json").string()});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("run 0 at 1999-01-01"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit 2 (bad-input), expected 0 (clean)"), std::string::npos) << r.out;
}

TEST_F(TestCmd, UpdateRecordsANewSidecarThatThenPasses) {
  auto u = testing::runCli({"test", "--update", (dir / "seed.json").string(), "--new-args", "check"});
  EXPECT_EQ(u.rc, 0) << u.out << u.err;
  std::string side = read("seed.expect.json");
  EXPECT_NE(side.find("\"format\": \"fusecheck.expect/1\""), std::string::npos) << side;
  EXPECT_NE(side.find("\"code\": \"FC0301\""), std::string::npos) << side;
  EXPECT_EQ(testing::runCli({"test", dir.string()}).rc, 0);
  // An invalid sidecar fails with its problem located.
  write(
      "seed.expect.json",
      R"({"format": "fusecheck.expect/1", "input": "seed.json", "runs": [{"args": ["check"], "diagnostics": [{"code": "E105"}]}]})");
  auto bad = testing::runCli({"test", dir.string(), "--format", "json"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.out.find("FC0702"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("does not have the form"), std::string::npos) << bad.out;
}

TEST_F(TestCmd, UsageErrors) {
  auto r = testing::runCli({"test", (dir / "nothing.txt.bin").string()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("is neither a folder nor a sidecar X.expect.json or a repro X.json / X.py / X.txt / "
                       "X.cpp / X.cc / X.md"),
            std::string::npos)
      << r.err;
}

// A C++ test is named by its own path, as the other forms are: its sidecar is X.expect.json.
TEST_F(TestCmd, ACppReproIsTestedThroughItsSidecar) {
  const std::string cpp = testing::sourcePath("fixtures/import/cpp_layer_norm_welford.cpp");
  auto r = testing::runCli({"test", cpp});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("cpp_layer_norm_welford.expect.json"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fc
