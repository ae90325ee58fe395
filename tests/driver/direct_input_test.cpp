// Every command that takes a repro takes an nvFuser repro directly: a Python repro, printed IR or
// a segmented dump is recognized by its content and imported on the way (driver::loadRepro), `-`
// reads standard input, and `--from` forces a format. The result is the one `import` then the
// command on the JSON gives.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Under AddressSanitizer (GCC's macro, clang's feature test) the CLI runs several times slower; the
// fixture/import/* tests already run every import fixture through it there.
#if defined(__SANITIZE_ADDRESS__)
#define FC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FC_TEST_ASAN 1
#endif
#endif

namespace {

namespace fs = std::filesystem;

#ifdef FC_TEST_ASAN
constexpr size_t kFixtureStride = 3;  // every third import fixture
#else
constexpr size_t kFixtureStride = 1;
#endif

struct Result {
  int rc = -1;
  std::string out;
};

// Runs the CLI through the shell; stdout (and stderr with `merge`) comes back.
Result cli(const std::string& args, bool merge = false) {
  std::string cmd = std::string(FC_CLI_PATH) + " " + args + (merge ? " 2>&1" : " 2>/dev/null");
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> importFixtures() {
  std::vector<fs::path> r;
  for (const auto& e : fs::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import"))
    if (e.path().extension() == ".py" || e.path().extension() == ".txt") r.push_back(e.path());
  std::sort(r.begin(), r.end());
  return r;
}

class DirectInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fc_direct_input_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DirectInput, EveryCommandGivesWhatImportThenTheCommandGives) {
  auto fixtures = importFixtures();
  ASSERT_GE(fixtures.size(), 17u);
  for (size_t i = 0; i < fixtures.size(); i += kFixtureStride) {
    const fs::path& src = fixtures[i];
    SCOPED_TRACE(src.string());
    fs::path json = dir_ / "imported.json";
    ASSERT_EQ(cli("import " + src.string() + " -o " + json.string()).rc, 0);
    for (const char* cmd : {"validate", "check --nvfuser 2024-06", "check", "segment"}) {
      SCOPED_TRACE(cmd);
      Result direct = cli(std::string(cmd) + " " + src.string(), true);
      Result via_json = cli(std::string(cmd) + " " + json.string());
      EXPECT_EQ(direct.rc, via_json.rc);
      // 5: not decided; 2: the repro's frontend did not exist at that point (FC0901).
      EXPECT_TRUE(direct.rc <= 1 || direct.rc == 5 ||
                  (direct.rc == 2 && direct.out.find("FC0901") != std::string::npos))
          << direct.out;
    }
    Result piped = cli("validate - < " + src.string());
    EXPECT_EQ(piped.rc, 0);
    EXPECT_NE(piped.out.find("ok ("), std::string::npos) << piped.out;
  }
}

// The JSON `import -o` writes keeps where the user's file defines each tensor: a finding about it
// points at the same line:col of the same file, read directly or through the JSON.
TEST_F(DirectInput, FindingsAboutAnImportedJsonPointIntoTheUsersFile) {
  std::string py = std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_matmul_allreduce_bias.py";
  fs::path json = dir_ / "seed.json";
  ASSERT_EQ(cli("import " + py + " -o " + json.string()).rc, 0);
  const std::string path = "check --nvfuser 2024-06 --frontend cpp --executor mde-fec ";
  Result direct = cli(path + py, true);
  Result via_json = cli(path + json.string(), true);
  EXPECT_EQ(direct.rc, 1);
  EXPECT_EQ(via_json.rc, 1);
  // `T5 = fd.ops.sum(T4, dims=[0], ...)`: the tensor that keeps the reduction axis of i0.
  const std::string at = py +
                         ":12:10: error[FC0301]: segment 2 (compute: cast, broadcast, add) cannot "
                         "evaluate extent i0 [/tensors/5/logical/0]";
  EXPECT_NE(direct.out.find(at), std::string::npos) << direct.out;
  EXPECT_NE(via_json.out.find(at), std::string::npos) << via_json.out;
  EXPECT_EQ(via_json.out.find(json.string() + ":"), std::string::npos) << via_json.out;
}

TEST_F(DirectInput, FromForcesTheFormat) {
  std::string py = std::string(FC_SOURCE_DIR) + "/fixtures/import/reductions.py";
  fs::path json = dir_ / "reductions.json";
  ASSERT_EQ(cli("import " + py + " -o " + json.string()).rc, 0);
  EXPECT_EQ(cli("validate --from nvfuser-python " + py).rc, 0);
  Result as_ir = cli("validate --from nvfuser-ir " + py, true);
  EXPECT_EQ(as_ir.rc, 2);
  EXPECT_NE(as_ir.out.find("FC0601"), std::string::npos) << as_ir.out;
  Result as_json = cli("validate --from fusecheck " + py, true);
  EXPECT_EQ(as_json.rc, 2);
  EXPECT_NE(as_json.out.find("FC0002"), std::string::npos) << as_json.out;
  EXPECT_EQ(cli("validate --from fusecheck " + json.string()).rc, 0);
  EXPECT_EQ(cli("validate --from nvfuser-python " + json.string()).rc, 2);
  EXPECT_EQ(cli("validate --from python " + py).rc, 2);  // not a format's name
}

TEST_F(DirectInput, TextThatIsNoNvfuserReproStillGetsTheJsonReadersDiagnostics) {
  fs::path junk = dir_ / "junk.txt";
  std::ofstream(junk) << "this is neither JSON nor an nvFuser repro\n";
  Result r = cli("validate " + junk.string(), true);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("FC0002"), std::string::npos) << r.out;
}

TEST_F(DirectInput, FixInPlaceRefusesToTurnAPythonReproIntoJson) {
  fs::path py = dir_ / "seed.py";
  fs::copy_file(std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_matmul_allreduce_bias.py", py);
  std::string before = slurp(py);
  Result r = cli("fix --in-place " + py.string(), true);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("-o OUT"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(py), before);
  fs::path out = dir_ / "fixed.json";
  const std::string path = " --nvfuser 2024-06 --frontend cpp --executor mde-fec ";
  EXPECT_EQ(cli("fix" + path + py.string() + " -o " + out.string()).rc, 0);
  EXPECT_EQ(cli("check" + path + out.string()).rc, 0);
}

}  // namespace
