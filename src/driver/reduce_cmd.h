// `fusecheck reduce`: minimize a repro while a property stays true (issue
// 9; the algorithm is src/reduce/, docs/reduce.md the manual). Exactly one
// property: --until CODE (the era's pipeline still reports CODE), --oracle
// CMD (an external command exits 0 on the candidate file) or --mismatch
// (CPU execution differs from the reference, as `run` compares).
//
// The best candidate so far is on disk at `output` from the start (the
// input itself) and after every improvement (atomic writes). SIGINT stops
// the search cleanly. Exit codes: 0 reduced (or nothing to remove) and the
// written result confirmed; 1 the final re-check failed (FC0802); 2 usage,
// an unreadable input, or an input without the property (FC0801) or whose
// oracle verdict is flaky (FC0802); 3 the output cannot be written.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "driver/common.h"

namespace fc::driver {

struct ReduceArgs {
  std::string file;
  std::string output;
  // the property: exactly one of these
  std::string until;  // a diagnostic code (FC0301) or its slug (unbound-extent)
  std::string oracle;
  bool mismatch = false;
  std::string match;  // --until: the diagnostic's message or a note must contain this
  PipelineFlags flags;
  // --mismatch: run options as `run` takes them
  std::string reference = "exact";
  std::optional<uint64_t> seed;
  std::optional<double> rtol, atol;
  uint64_t max_bytes = 0;
  // limits
  uint64_t max_steps = 0;
  double time_limit_s = 0;
  int oracle_repeats = 2;
  double oracle_timeout_s = 0;
  bool no_shrink_sizes = false;
  bool no_shrink_meshes = false;
  // output
  bool verbose = false;
  std::string progress = "auto";  // auto (a terminal on stderr) | always | never
  std::string export_python;      // also write the result as nvFuser Python here
  OutputFormat format = OutputFormat::Text;
};
int reduceRepro(const ReduceArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
