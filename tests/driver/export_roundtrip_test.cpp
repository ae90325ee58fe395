// The CLI's export, read back by its import, gives the repro it started
// from, byte for byte, on every Python import fixture. This failed on 6 of
// the 16 (the seed among them) while two functions named fc::topoOrder
// existed: the CLI's link took the segmenter's (nvFuser's order from the
// outputs) for the exporters, whose own tests linked the exporters' (the
// repro's order). The exporters call io/export_common.h's definitionOrder now.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The repro without its origin: the export is written in the legacy layout with today's keyword
// spellings and without a version header, so a re-import records that origin, not the first
// script's; and its source positions name the file imported, not the first script.
std::string withoutOrigin(const std::string& json) {
  std::string out, line;
  std::istringstream in(json);
  bool skip = false;
  while (std::getline(in, line)) {
    if (line.rfind("  \"source\":", 0) == 0 || line.rfind("  \"origin\":", 0) == 0)
      skip = true;
    else if (line.rfind("  \"", 0) == 0)
      skip = false;
    if (!skip && line.rfind("  \"nvfuser\":", 0) != 0 && line.rfind("  \"format\":", 0) != 0)
      out += line + "\n";
  }
  return out;
}

int cli(const std::string& args) {
  std::string cmd = std::string(FC_CLI_PATH) + " " + args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

TEST(CliExport, ImportExportImportGivesTheSameRepro) {
  fs::path dir = fs::temp_directory_path() / ("fc_export_roundtrip_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<fs::path> fixtures;
  for (const auto& e : fs::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import"))
    if (e.path().extension() == ".py") fixtures.push_back(e.path());
  ASSERT_GE(fixtures.size(), 15u);
  for (const fs::path& py : fixtures) {
    SCOPED_TRACE(py.string());
    fs::path a = dir / "a.json", b = dir / "b.py", c = dir / "c.json";
    ASSERT_EQ(cli("import " + py.string() + " -o " + a.string()), 0);
    ASSERT_EQ(cli("export " + a.string() + " -o " + b.string()), 0);
    ASSERT_EQ(cli("import " + b.string() + " -o " + c.string()), 0);
    EXPECT_EQ(withoutOrigin(slurp(a)), withoutOrigin(slurp(c))) << slurp(b);
    fs::remove(a);
    fs::remove(b);
    fs::remove(c);
  }
  fs::remove_all(dir);
}

}  // namespace
