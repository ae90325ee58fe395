// Where a test binary finds the files of the source tree (fixtures/...) at
// run time, so that a binary built in one directory runs from a copy of
// the tree at another path (a build carried to a GPU machine):
//
//   1. $FC_FIXTURES_DIR: the fixtures folder itself, used as given (a
//      missing folder makes every fixture MISSING, which tests use);
//   2. $FC_SOURCE_DIR: the tree's root;
//   3. the nearest ancestor of the executable's folder, then of the
//      working directory, that holds fixtures/seed/ (a build folder inside
//      the tree, or binaries copied into it);
//   4. the root the binary was configured with (FC_SOURCE_DIR, compiled in).
//
// readFixture() tells a missing file ("MISSING: ...") from an empty one
// ("EMPTY: ...") and says where it looked, so that a failed lookup fails
// its test with that message instead of handing empty text to a reader.
// Header-only, no GoogleTest dependency. O(depth of the path) lookups.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

namespace fc::test {

struct FixturesDir {
  std::string path;  // the fixtures folder (may not exist)
  std::string how;   // which rule found it, for messages
};

namespace detail {

inline bool holdsFixtures(const std::filesystem::path& root) {
  std::error_code ec;
  return std::filesystem::is_directory(root / "fixtures" / "seed", ec);
}

// The nearest ancestor of `start` (itself included) that holds fixtures/seed.
inline std::optional<std::filesystem::path> treeAbove(std::filesystem::path start) {
  for (int up = 0; up < 16 && !start.empty(); ++up) {
    if (holdsFixtures(start)) return start;
    std::filesystem::path parent = start.parent_path();
    if (parent == start) break;
    start = parent;
  }
  return std::nullopt;
}

inline std::optional<std::filesystem::path> executableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  return exe.parent_path();
}

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string();
}

}  // namespace detail

inline FixturesDir fixturesDir() {
  if (std::string d = detail::env("FC_FIXTURES_DIR"); !d.empty()) return {d, "$FC_FIXTURES_DIR"};
  if (std::string r = detail::env("FC_SOURCE_DIR"); !r.empty()) return {r + "/fixtures", "$FC_SOURCE_DIR"};
  if (auto exe = detail::executableDir())
    if (auto root = detail::treeAbove(*exe))
      return {(*root / "fixtures").string(), "the executable's folder"};
  std::error_code ec;
  if (auto root = detail::treeAbove(std::filesystem::current_path(ec)); root && !ec)
    return {(*root / "fixtures").string(), "the working directory"};
#ifdef FC_SOURCE_DIR
  return {std::string(FC_SOURCE_DIR) + "/fixtures", "the configured source folder"};
#else
  return {"fixtures", "the working directory (no source folder configured)"};
#endif
}

// The text of fixtures/<rel>, or nullopt with *error saying MISSING (no
// such file, with where it looked), EMPTY or UNREADABLE.
inline std::optional<std::string> readFixture(const std::string& rel, std::string* error) {
  FixturesDir dir = fixturesDir();
  std::string path = dir.path + "/" + rel;
  auto say = [&](const std::string& what) {
    if (error)
      *error = what + ": fixture " + path + " (fixtures folder found through " + dir.how +
               "; set FC_FIXTURES_DIR or FC_SOURCE_DIR to the tree's fixtures / root)";
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    say("MISSING");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    say("UNREADABLE");
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) {
    say("EMPTY");
    return std::nullopt;
  }
  return ss.str();
}

}  // namespace fc::test
