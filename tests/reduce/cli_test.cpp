// `fusecheck reduce` as a user runs it: --until on the padded seed (and a
// re-check of the result with `check`), --oracle running `fusecheck run` on
// the planted cancellation, the oracle flakiness check, an input without
// the property, SIGINT / --time-limit / --max-steps with the best result on
// disk, the progress line and --verbose, JSON, and export of the result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reduce_test_util.h"

namespace fc {
namespace {

namespace fs = std::filesystem;
using reducetest::CommandResult;
using reducetest::kCancellation;
using reducetest::kSeed;
using reducetest::kSeedPadded;
using reducetest::runCommand;
using reducetest::slurp;
using reducetest::sourcePath;

class ReduceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(FC_CLI_PATH)) << FC_CLI_PATH << " is missing: build fusecheck-cli first";
    dir_ = fs::temp_directory_path() / ("fc-reduce-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string cliPath() { return FC_CLI_PATH; }
  CommandResult cli(const std::string& args) { return runCommand(cliPath() + " " + args); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes an oracle script; returns the --oracle option that runs it.
  std::string oracleScript(const std::string& name, const std::string& body) {
    std::ofstream(path(name)) << body << "\n";
    return "--oracle 'sh " + path(name) + "'";
  }

  fs::path dir_;
};

size_t exprCount(const std::string& json_path) {
  auto j = nlohmann::json::parse(slurp(json_path));
  return j["exprs"].size();
}

TEST_F(ReduceCli, UntilFC0301OnThePaddedSeed) {
  auto r = cli("reduce " + sourcePath(kSeedPadded) + " -o " + path("min.json") +
               " --until FC0301 --match 'extent i0' --nvfuser 2024-06");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("stopped: fixpoint"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exprs         207 -> "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(re-checked: still interesting)"), std::string::npos) << r.out;
  EXPECT_LE(exprCount(path("min.json")), 7u);
  auto check = cli("check " + path("min.json") + " --nvfuser 2024-06");
  EXPECT_EQ(check.rc, 1) << check.out;
  EXPECT_NE(check.out.find("error[FC0301]"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("cannot evaluate extent i0"), std::string::npos) << check.out;
  std::cout << r.out;
}

// The --oracle form of acceptance 2: the oracle is `fusecheck run`, whose
// JSON names FC0501 when an output mismatches.
TEST_F(ReduceCli, OracleRunningFusecheckRunOnThePlantedCancellation) {
  std::string oracle = oracleScript("oracle.sh", cliPath() + " run \"$1\" --format json | grep -q FC0501");
  auto r = cli("reduce " + sourcePath(kCancellation) + " -o " + path("min.json") + " " + oracle +
               " --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(j["reduce"]["stop"], "fixpoint");
  EXPECT_EQ(j["reduce"]["confirmed"], true);
  EXPECT_GE(j["reduce"]["before"]["exprs"].get<int>(), 30);
  EXPECT_LE(j["reduce"]["after"]["exprs"].get<int>(), 5);
  EXPECT_EQ(j["reduce"]["oracle_calls"].get<uint64_t>(), j["reduce"]["property_calls"].get<uint64_t>() + 4)
      << "2 flakiness runs on the input, 2 confirmations of the result";
  auto run = cli("run " + path("min.json"));
  EXPECT_EQ(run.rc, 1) << run.out;
  EXPECT_NE(run.out.find("FC0501"), std::string::npos) << run.out;
  std::cout << r.out;
}

TEST_F(ReduceCli, MismatchOnThePlantedCancellation) {
  auto r = cli("reduce " + sourcePath(kCancellation) + " -o " + path("min.json") + " --mismatch");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_LE(exprCount(path("min.json")), 5u);
  std::cout << r.out;
}

TEST_F(ReduceCli, FlakyOracleIsRefused) {
  // exits 0, 1, 0, 1, ... on the same file
  std::string counter = path("count");
  std::string oracle = "n=$(cat " + counter + " 2>/dev/null || echo 0); echo $((n+1)) > " + counter +
                       "; test $((n % 2)) -eq 0 #";
  auto r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --oracle '" + oracle + "'");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("error[FC0802]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exited 0 on 1 of 2 runs"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("min.json")));
  // three repeats: 0, 1, 0 -> still flaky
  fs::remove(counter);
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --oracle-repeats 3 --oracle '" +
          oracle + "'");
  EXPECT_NE(r.out.find("exited 0 on 2 of 3 runs"), std::string::npos) << r.out;
}

TEST_F(ReduceCli, UninterestingInputIsRefused) {
  auto r =
      cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --until FC0301 --nvfuser 2024-07");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("error[FC0801]"), std::string::npos) << r.out;
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --oracle false");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("error[FC0801]"), std::string::npos) << r.out;
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --mismatch");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("error[FC0801]"), std::string::npos) << r.out;
}

TEST_F(ReduceCli, UsageErrors) {
  auto r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json"));
  EXPECT_EQ(r.rc, 2) << r.out;
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("min.json") + " --until FC9999");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("unknown diagnostic code"), std::string::npos) << r.out;
  r = cli("reduce " + sourcePath(kSeed) + " -o " + sourcePath(kSeed) + " --until FC0301");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("never overwrites its input"), std::string::npos) << r.out;
}

// SIGINT while a slow oracle runs, sent once the oracle has been called 12
// times (so that the timing of a loaded machine does not matter): a clean
// stop, the reason printed, the best result so far on disk and still
// interesting, no temporary file left beside it.
TEST_F(ReduceCli, SigintStopsCleanlyWithTheBestSoFarOnDisk) {
  const std::string calls = path("calls");
  std::string oracle =
      oracleScript("slow.sh", "echo x >> " + calls + "; sleep 0.1; grep -q '\"op\": \"sum\"' \"$1\"");
  std::ofstream(path("drive.sh")) << cliPath() << " reduce " << sourcePath(kSeedPadded) << " -o "
                                  << path("min.json") << " " << oracle << " > " << path("out.txt")
                                  << " 2>&1 &\n"
                                  << "pid=$!\n"
                                  << "while kill -0 $pid 2>/dev/null && [ \"$(cat " << calls
                                  << " 2>/dev/null | wc -l)\" -lt 12 ]; do sleep 0.02; done\n"
                                  << "kill -INT $pid\n"
                                  << "wait $pid\n";
  auto r = runCommand("sh " + path("drive.sh"));
  std::string out = slurp(path("out.txt"));
  ASSERT_EQ(r.rc, 0) << r.out << out;
  EXPECT_NE(out.find("stopped: interrupted (SIGINT)"), std::string::npos) << out;
  EXPECT_NE(out.find("(re-checked: still interesting)"), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(path("min.json")));
  EXPECT_EQ(cli("validate " + path("min.json")).rc, 0);
  EXPECT_NE(slurp(path("min.json")).find("\"op\": \"sum\""), std::string::npos);
  EXPECT_LT(exprCount(path("min.json")), 207u) << "some progress was made and written before the signal";
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "min.json" || name == "slow.sh" || name == "drive.sh" || name == "calls" ||
                name == "out.txt")
        << "left behind: " << name;
  }
  std::cout << out;
}

TEST_F(ReduceCli, TimeLimitAndMaxStepsAreStopReasons) {
  auto r =
      cli("reduce " + sourcePath(kSeedPadded) + " -o " + path("a.json") + " --until FC0301 --max-steps 7");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("stopped: max-steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steps 7 "), std::string::npos) << r.out;
  EXPECT_EQ(cli("validate " + path("a.json")).rc, 0);
  std::string oracle = oracleScript("slow.sh", "sleep 0.2; grep -q '\"op\": \"sum\"' \"$1\"");
  r = cli("reduce " + sourcePath(kSeedPadded) + " -o " + path("b.json") + " --time-limit 1 " + oracle);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("stopped: time-limit"), std::string::npos) << r.out;
  EXPECT_EQ(cli("validate " + path("b.json")).rc, 0);
}

TEST_F(ReduceCli, ProgressLineOnATerminalAndLogLinesWithVerbose) {
  auto r = cli("reduce " + sourcePath(kSeed) + " -o " + path("a.json") + " --until FC0301 --progress always");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\r\033[Kreduce: round 1"), std::string::npos) << r.out;
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("b.json") + " --until FC0301");
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << "no progress line when stderr is not a terminal";
  r = cli("reduce " + sourcePath(kSeed) + " -o " + path("c.json") + " --until FC0301 --verbose");
  EXPECT_NE(r.out.find("reduce: step 1 [round 1, segments]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": accepted (exprs "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
}

// Acceptance 3 through the CLI: `fusecheck export` on the result, and
// --export-python.
TEST_F(ReduceCli, ResultExportsToNvfuserPython) {
  auto r = cli("reduce " + sourcePath(kSeedPadded) + " -o " + path("min.json") +
               " --until FC0301 --export-python " + path("min.py"));
  ASSERT_EQ(r.rc, 0) << r.out;
  std::string py = slurp(path("min.py"));
  EXPECT_NE(py.find("with FusionDefinition() as fd:"), std::string::npos) << py;
  auto e = cli("export " + path("min.json") + " --to nvfuser-python -o " + path("exported.py"));
  ASSERT_EQ(e.rc, 0) << e.out;
  EXPECT_EQ(slurp(path("exported.py")), py);
  auto back = cli("import " + path("exported.py") + " -o " + path("back.json"));
  ASSERT_EQ(back.rc, 0) << back.out;
  EXPECT_EQ(exprCount(path("back.json")), exprCount(path("min.json")));
  std::cout << py;
}

}  // namespace
}  // namespace fc
