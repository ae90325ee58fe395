// `fusecheck fuzz`: random well-formed fusions checked differentially
// (src/driver/difftest.h, docs/fuzz.md). Exit 0 when no unexplained
// finding, 1 with findings (each written as a repro into --out), 2 usage,
// 3 when --out cannot be written.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/common.h"

namespace fc::driver {

struct FuzzArgs {
  uint64_t seed = 0;
  uint64_t count = 100;
  std::vector<std::string> eras;  // --nvfuser POINT (or --era); empty: 2024-06, 2024-07, head
  std::string out;                // where finding repros go ("" : not written)
  std::string emit;               // write the generated fusions here instead of checking them
  uint32_t max_exprs = 12;
  bool minimize = false;
  bool progress = false;  // a progress line on stderr every 1000 fusions
  OutputFormat format = OutputFormat::Text;
};
int fuzz(const FuzzArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
