// No data loss (docs/reliability.md): writeFileAtomic leaves the old file
// byte-identical and no temporary behind when a write fails mid-way; the CLI
// never writes over its input without --in-place, whatever the spelling of
// the path (./x, a symlink, a hard link); --max-bytes refuses every input
// path with a located FC0005 before reading it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/atomic_file.h"

namespace fc {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fc-reliability-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    setAtomicWriteFailureInjection(false);
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

// ------------------------------------------------------------------ writeFileAtomic

using AtomicWrite = TempDir;

TEST_F(AtomicWrite, WritesANewFileAndLeavesNothingElse) {
  std::string why = writeFileAtomic((dir_ / "out.json").string(), "{\"a\": 1}\n");
  EXPECT_EQ(why, "");
  EXPECT_EQ(slurp(dir_ / "out.json"), "{\"a\": 1}\n");
  EXPECT_EQ(listing(dir_), std::set<std::string>{"out.json"});
}

TEST_F(AtomicWrite, ReplacesAnExistingFile) {
  spit(dir_ / "out.json", "old");
  EXPECT_EQ(writeFileAtomic((dir_ / "out.json").string(), "new"), "");
  EXPECT_EQ(slurp(dir_ / "out.json"), "new");
  EXPECT_EQ(listing(dir_), std::set<std::string>{"out.json"});
}

TEST_F(AtomicWrite, InjectedFailureKeepsTheOldFileByteIdentical) {
  // Bytes a text-mode or re-encoding write would change.
  std::string old = std::string("old\r\n\0\xff\xfe", 8) + std::string(1 << 20, 'x');
  spit(dir_ / "repro.json", old);
  setAtomicWriteFailureInjection(true);
  std::string why = writeFileAtomic((dir_ / "repro.json").string(), std::string(3 << 20, 'y'));
  EXPECT_NE(why, "");
  EXPECT_EQ(slurp(dir_ / "repro.json"), old);
  EXPECT_EQ(listing(dir_), std::set<std::string>{"repro.json"}) << "a temporary file was left behind";
}

TEST_F(AtomicWrite, InjectedFailureOnANewFileCreatesNothing) {
  setAtomicWriteFailureInjection(true);
  EXPECT_NE(writeFileAtomic((dir_ / "new.json").string(), "content"), "");
  EXPECT_TRUE(listing(dir_).empty());
}

TEST_F(AtomicWrite, RenameFailureKeepsTheTargetAndRemovesTheTemporary) {
  // The target is a non-empty directory: the rename fails after the data is written.
  fs::create_directories(dir_ / "target" / "inner");
  spit(dir_ / "target" / "inner" / "keep.txt", "keep");
  EXPECT_NE(writeFileAtomic((dir_ / "target").string(), "content"), "");
  EXPECT_EQ(slurp(dir_ / "target" / "inner" / "keep.txt"), "keep");
  EXPECT_EQ(listing(dir_), std::set<std::string>{"target"});
}

TEST_F(AtomicWrite, MissingDirectoryIsAnErrorNotACrash) {
  EXPECT_NE(writeFileAtomic((dir_ / "no" / "such" / "dir" / "x.json").string(), "x"), "");
  EXPECT_TRUE(listing(dir_).empty());
}

// ------------------------------------------------------------------ the CLI

struct Result {
  int rc = -1;
  std::string out, err;
};

class Cli : public TempDir {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    ASSERT_TRUE(fs::exists(FC_CLI_PATH)) << FC_CLI_PATH << " is missing: build fusecheck-cli first";
    fs::copy_file(fs::path(FC_SOURCE_DIR) / "fixtures/seed/matmul_allreduce_bias.json", dir_ / "seed.json");
    seed_bytes_ = slurp(dir_ / "seed.json");
  }

  // Runs `fusecheck ARGS` in the temp dir.
  Result cli(const std::string& args) {
    std::string cmd = "cd '" + dir_.string() + "' && '" FC_CLI_PATH "' " + args + " >stdout.txt 2>stderr.txt";
    int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir_ / "stdout.txt");
    r.err = slurp(dir_ / "stderr.txt");
    fs::remove(dir_ / "stdout.txt");
    fs::remove(dir_ / "stderr.txt");
    return r;
  }

  void expectRefused(const std::string& args, const fs::path& input, const std::string& before) {
    Result r = cli(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("refusing to overwrite the input"), std::string::npos) << args << "\n"
                                                                                          << r.out << r.err;
    EXPECT_EQ(slurp(input), before) << args << " changed its input";
    for (const std::string& name : listing(dir_))
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << args << " left " << name;
  }

  std::string seed_bytes_;
};

TEST_F(Cli, ConvertRefusesToOverwriteItsInputInAnySpelling) {
  expectRefused("convert seed.json -o seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("convert seed.json -o ./seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("convert seed.json -o " + (dir_ / "seed.json").string(), dir_ / "seed.json", seed_bytes_);
  expectRefused("convert ./seed.json -o ../" + dir_.filename().string() + "/seed.json", dir_ / "seed.json",
                seed_bytes_);
  fs::create_symlink("seed.json", dir_ / "link.json");
  expectRefused("convert seed.json -o link.json", dir_ / "seed.json", seed_bytes_);
  fs::create_hard_link(dir_ / "seed.json", dir_ / "hard.json");
  expectRefused("convert hard.json -o seed.json", dir_ / "seed.json", seed_bytes_);
}

TEST_F(Cli, ConvertInPlaceRewritesTheInput) {
  Result r = cli("convert seed.json --in-place");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(cli("validate seed.json").rc, 0);
  EXPECT_EQ(listing(dir_), std::set<std::string>{"seed.json"});
}

TEST_F(Cli, FixRefusesToOverwriteItsInputWithoutInPlace) {
  expectRefused("fix seed.json -o seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("fix seed.json -o ./seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("fix seed.json -o " + (dir_ / "seed.json").string() + " --format json", dir_ / "seed.json",
                seed_bytes_);
}

TEST_F(Cli, FixInPlaceRewritesTheInput) {
  Result r = cli("fix seed.json --in-place");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(slurp(dir_ / "seed.json"), seed_bytes_);
  EXPECT_EQ(cli("check seed.json").rc, 0);
}

TEST_F(Cli, ExportRefusesToOverwriteItsInput) {
  expectRefused("export seed.json -o seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("export seed.json --to nvfuser-cpp-test -o ./seed.json", dir_ / "seed.json", seed_bytes_);
}

TEST_F(Cli, ImportRefusesToOverwriteItsInput) {
  fs::copy_file(fs::path(FC_SOURCE_DIR) / "fixtures/import/seed_matmul_allreduce_bias.py", dir_ / "seed.py");
  std::string before = slurp(dir_ / "seed.py");
  expectRefused("import seed.py -o seed.py", dir_ / "seed.py", before);
  expectRefused("import seed.py -o ./seed.py", dir_ / "seed.py", before);
}

TEST_F(Cli, DotAndReportRefuseToOverwriteTheirInput) {
  Result r = cli("dot seed.json -o seed.json");
  if (r.rc == 3) GTEST_SKIP() << "SKIPPED: this build has no Graphviz";
  expectRefused("dot seed.json -o seed.json", dir_ / "seed.json", seed_bytes_);
  expectRefused("report seed.json -o ./seed.json", dir_ / "seed.json", seed_bytes_);
}

// --max-bytes: every command that reads a repro or an nvFuser text refuses a
// larger input with FC0005, located at the file, exit 2.
TEST_F(Cli, MaxBytesIsEnforcedOnEveryInputPath) {
  fs::copy_file(fs::path(FC_SOURCE_DIR) / "fixtures/import/seed_matmul_allreduce_bias.py", dir_ / "seed.py");
  fs::copy_file(fs::path(FC_SOURCE_DIR) / "fixtures/import/seed_issue_2481.ir.txt", dir_ / "seed.ir.txt");
  fs::copy_file(fs::path(FC_SOURCE_DIR) / "fixtures/import/seed_segmented_fusion.txt", dir_ / "seed.seg.txt");
  struct Case {
    std::string args;
    bool json;  // --format json is available
  };
  const std::vector<Case> cases = {
      {"validate seed.json", true},
      {"print seed.json", true},
      {"convert seed.json -o out.json", true},
      {"check seed.json", true},
      {"check --matrix seed.json", true},
      {"segment seed.json", true},
      {"concretize seed.json", true},
      {"explain seed.json i0", true},
      {"fix seed.json -o out.json", true},
      {"run seed.json", true},
      {"export seed.json", true},
      {"import seed.py", true},
      {"import --from nvfuser-ir seed.ir.txt", true},
      {"import --from nvfuser-segments seed.seg.txt", true},
      {"dot seed.json -o out.dot", false},
      {"report seed.json -o out.html", false},
  };
  for (const Case& c : cases) {
    for (bool json : {false, true}) {
      if (json && !c.json) continue;
      std::string args = c.args + " --max-bytes 100" + (json ? " --format json" : "");
      Result r = cli(args);
      if (r.rc == 3 && !json) continue;  // dot/report without Graphviz
      EXPECT_EQ(r.rc, 2) << args << "\n" << r.out << r.err;
      if (json) {
        EXPECT_NE(r.out.find("\"code\": \"FC0005\""), std::string::npos) << args << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find("\"file\": \""), std::string::npos) << args << ": not located\n" << r.out;
      } else {
        EXPECT_NE(r.err.find("error[FC0005]"), std::string::npos) << args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("seed."), std::string::npos) << args << ": the message names no file\n" << r.err;
      }
      EXPECT_FALSE(fs::exists(dir_ / "out.json") || fs::exists(dir_ / "out.dot") ||
                   fs::exists(dir_ / "out.html"))
          << args << " wrote an output";
    }
  }
  // A limit the file fits passes.
  EXPECT_EQ(cli("validate seed.json --max-bytes " + std::to_string(seed_bytes_.size())).rc, 0);
  EXPECT_EQ(cli("validate seed.json --max-bytes " + std::to_string(seed_bytes_.size() - 1)).rc, 2);
}

}  // namespace
}  // namespace fc
