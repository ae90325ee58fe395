// Replays stored inputs through the fuzz harness bodies in a normal
// (GoogleTest) build, so that `ctest` re-runs every crash the fuzzers found:
//
//   tests/fuzz/regressions/<harness>/*   crash / hang / leak inputs (after the fix)
//
// and, as a smoke test of the harnesses themselves, every repro fixture
// (fixtures/**/*.json through json and check, fixtures/import/* through the
// matching importer). A harness finding throws fc::fuzz::FuzzFailure here
// (fuzz_common.h); under the asan preset the sanitizers report the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_common.h"

int fcFuzz_json(const uint8_t* data, size_t size);
int fcFuzz_check(const uint8_t* data, size_t size);
int fcFuzz_import_python(const uint8_t* data, size_t size);
int fcFuzz_import_ir(const uint8_t* data, size_t size);
int fcFuzz_import_segments(const uint8_t* data, size_t size);
int fcFuzz_import_cpp_test(const uint8_t* data, size_t size);
int fcFuzz_import_paste(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;
using Harness = int (*)(const uint8_t*, size_t);

const fs::path kSource = FC_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Regular files under `dir` (recursively) whose name passes `keep`, sorted.
template <typename Keep>
std::vector<fs::path> filesUnder(const fs::path& dir, Keep keep) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && keep(e.path().filename().string())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void replay(Harness h, const std::vector<fs::path>& files) {
  for (const fs::path& p : files) {
    SCOPED_TRACE(p.string());
    std::string data = slurp(p);
    try {
      h(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    } catch (const fc::fuzz::FuzzFailure& e) {
      ADD_FAILURE() << p.string() << ": " << e.what();
    }
  }
}

struct Case {
  const char* name;
  Harness fn;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const Case kHarnesses[] = {
    {"json", fcFuzz_json},
    {"check", fcFuzz_check},
    {"import_python", fcFuzz_import_python},
    {"import_ir", fcFuzz_import_ir},
    {"import_segments", fcFuzz_import_segments},
    {"import_cpp_test", fcFuzz_import_cpp_test},
    {"import_paste", fcFuzz_import_paste},
};

class Regressions : public testing::TestWithParam<Case> {};

TEST_P(Regressions, ReplayStoredInputs) {
  auto files = filesUnder(kSource / "tests/fuzz/regressions" / GetParam().name,
                          [](const std::string& n) { return n != "README.md"; });
  replay(GetParam().fn, files);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, Regressions, testing::ValuesIn(kHarnesses),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

auto jsonRepros() {
  return filesUnder(kSource / "fixtures", [](const std::string& n) {
    return endsWith(n, ".json") && !endsWith(n, ".expect.json");
  });
}

TEST(FuzzSeeds, JsonFixtures) { replay(fcFuzz_json, jsonRepros()); }
TEST(FuzzSeeds, CheckFixtures) { replay(fcFuzz_check, jsonRepros()); }
TEST(FuzzSeeds, ImportFixtures) {
  replay(fcFuzz_import_python,
         filesUnder(kSource / "fixtures/import", [](const std::string& n) { return endsWith(n, ".py"); }));
  replay(fcFuzz_import_ir, filesUnder(kSource / "fixtures/import",
                                      [](const std::string& n) { return endsWith(n, ".ir.txt"); }));
  replay(fcFuzz_import_segments, filesUnder(kSource / "fixtures/import", [](const std::string& n) {
           return n.find("segment") != std::string::npos;
         }));
  replay(fcFuzz_import_cpp_test,
         filesUnder(kSource / "fixtures/import", [](const std::string& n) { return endsWith(n, ".cpp"); }));
  replay(fcFuzz_import_paste,
         filesUnder(kSource / "fixtures/import", [](const std::string& n) { return endsWith(n, ".md"); }));
}

}  // namespace
