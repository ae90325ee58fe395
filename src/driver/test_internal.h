// The parts of `fusecheck test` (test_cmd.h) shared by its files: running
// the CLI under test, what it can do (read from its help), and one
// sidecar's result.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostic.h"
#include "driver/expect.h"
#include "support/child_process.h"

namespace fc::driver::testcmd {

inline constexpr double kTimeoutSeconds = 20;

// The fusecheck under test, with the cached facts every sidecar needs.
class Cli {
 public:
  explicit Cli(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  // Runs `fusecheck ARGS` in `folder`.
  ChildResult run(const std::vector<std::string>& args, const std::string& folder) const;
  // (CPU seconds, peak MiB) of `--version`: the start-up cost every run pays.
  std::pair<double, double> baseline();
  // Why this CLI cannot run the invocation (a skip), or nullopt; throws
  // expect::Error for an invocation no CLI could run (points on a
  // subcommand without --nvfuser).
  std::optional<std::string> cannotRun(const expect::Invocation& inv);

 private:
  std::string path_;
  std::mutex m_;
  std::optional<std::pair<double, double>> baseline_;
  std::map<std::string, std::string> help_;
  std::string help(const std::string& sub);
};

struct SidecarResult {
  std::string path;  // the sidecar, as found
  enum class Status { Pass, Fail, Skip } status = Status::Pass;
  std::vector<std::string> problems, skips;
  size_t ran = 0;  // invocations run
  double seconds = 0;
  std::vector<Diagnostic> diagnostics;  // FC0701 / FC0702 / FC0703, located in the sidecar
};

// Checks one sidecar (status Pass / Fail / Skip, before --strict).
SidecarResult checkSidecar(Cli& cli, const std::string& path);
// Rewrites one sidecar (or makes one for a repro); returns the lines to
// print ("updated X", "  note: ..."), and problems when it cannot.
std::pair<std::vector<std::string>, std::vector<std::string>> updateSidecar(
    Cli& cli, const std::string& path, const std::vector<std::string>& new_args);

// The sidecars a path names: a folder's *.expect.json (recursively, sorted),
// or the sidecar of a sidecar / repro path. nullopt: neither.
std::optional<std::vector<std::string>> sidecarsOf(const std::string& path, bool update);

// JUnit XML of the results (one testsuite, one testcase per sidecar).
std::string junitXml(const std::vector<SidecarResult>& results, double seconds);

}  // namespace fc::driver::testcmd
