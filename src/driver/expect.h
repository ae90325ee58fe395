// The expectation format fusecheck.expect/1 (docs/fixtures.md): a sidecar
// X.expect.json beside a repro says, per CLI invocation, the verdict, the
// diagnostics (code, place, words), output substrings and limits. This is
// the C++ reading of the format behind `fusecheck test`; the project's own
// runner, tests/run_fixture.py with tests/fixture_expect.py, is an
// independent reading of the same files, and CTest checks that the two
// give every fixture the same verdict.
//
// Here: loading and validating a sidecar (the JSON Schema, embedded at
// build time from schemas/fixture-expect.schema.json, and the rules it
// cannot say), expanding it into invocations, matching diagnostics both
// ways, the words a new expectation records, and writing a sidecar back in
// the canonical layout (one diagnostic per line).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fc::driver::expect {

using ojson = nlohmann::ordered_json;

inline constexpr const char* kFormat = "fusecheck.expect/1";

// A problem with a sidecar or with what an invocation did.
struct Error {
  std::string message;
};

// The schema text (schemas/fixture-expect.schema.json, embedded).
const std::string& schemaText();
// Problems of `data` against the schema, each "/where: what" as the
// project's runner words them; empty when valid.
std::vector<std::string> schemaErrors(const ojson& data);
// The schema problems, then the rules the schema cannot say (a point spec
// at most once per run, fixed_by only beside findings on a check run with
// points, no diagnostics in a text run, no --nvfuser in args of a run with
// points). Empty when the sidecar is valid.
std::vector<std::string> validate(const ojson& data);

// "X.expect.json" for a sidecar or for a repro X.json / X.py / X.txt / X.cpp / X.cc / X.md;
// nullopt for any other name.
std::optional<std::string> sidecarPath(const std::string& path);

// Reads and validates a sidecar; throws Error with every problem.
ojson load(const std::string& path);

// ---- points

struct Spec {
  std::string point;
  std::string frontend;  // "" when not given
  std::string executor;
  bool operator==(const Spec& o) const {
    return point == o.point && frontend == o.frontend && executor == o.executor;
  }
};
// "2024-07, head" -> two specs; throws Error for a malformed key.
std::vector<Spec> parsePointKey(const std::string& key);
std::string formatSpec(const Spec& s);
std::vector<std::string> pointFlags(const Spec& s);  // --nvfuser P [--frontend F] [--executor E]

// The outcome one invocation must give: the run's outcome keys, replaced by
// the point's own (a point's verdict or exit replaces both of the run's).
ojson mergedOutcome(const ojson& run, const ojson& point_outcome);

struct Invocation {
  size_t run_index = 0;
  enum class Kind { Run, FixedBy } kind = Kind::Run;
  std::vector<std::string> args;
  std::string format = "json";
  ojson outcome = ojson::object();
  std::optional<Spec> spec;
  int64_t fixed_by = 0;
  std::string label() const;  // "run 0 at 2024-06", "fixed_by check 1 at head"
  // args, the input, --format json|text.
  std::vector<std::string> command(const std::string& input) const;
};
// Each run (one per point spec when it has points), then one `check
// --matrix --expect-fixed-by N` per distinct fixed_by.
std::vector<Invocation> expand(const ojson& data);

// ---- diagnostics

struct Actual {
  std::string code;
  ojson pointer, line, col;  // null when absent
  std::string message;
  std::vector<std::string> notes;  // "kind: message"
};
// The diagnostics of a command's JSON output ({"diagnostics": [...]});
// throws Error when there is no such array.
std::vector<Actual> actualDiagnostics(const ojson& doc);
// Problems between expected and actual diagnostics, both ways.
std::vector<std::string> compareDiagnostics(const ojson& expected, const std::vector<Actual>& actual);
// The part of a message a new expectation checks (docs/fixtures.md).
std::string distinctive(const std::string& message);

// ---- recording (--update)

// The run rewritten from what the CLI did: `observed[i]` is the exit code,
// the diagnostics (nullopt for text runs) and the output of invocation i of
// the run's point specs in order (one for a run without points; nullopt
// when it could not run, which keeps the point as written). Returns the
// new run and notes for the reviewer.
struct Observed {
  int exit_code = 0;
  std::optional<std::vector<Actual>> diagnostics;
  std::string output;
};
std::pair<ojson, std::vector<std::string>> updateRun(const ojson& run, size_t index,
                                                     const std::vector<std::optional<Observed>>& observed,
                                                     const std::vector<std::string>& cannot_run_notes);
// The invocations updateRun expects observations for, in order.
std::vector<Invocation> updateInvocations(const ojson& run, size_t index);
// A new sidecar for a repro without one: a single run of `args`.
ojson newSidecar(const std::string& repro, const std::vector<std::string>& args);
// The migration of a sidecar of the earlier format (no "format" key).
ojson migrate(const ojson& data);
// The canonical text of a sidecar (fixed key order, one diagnostic per line).
std::string dump(const ojson& data);

// Verdict names: clean 0, findings 1, bad-input 2, not-decided 5.
std::optional<int> verdictExit(const std::string& verdict);
std::optional<std::string> verdictOf(int exit_code);

}  // namespace fc::driver::expect
