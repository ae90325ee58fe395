#include "driver/mismatch_property.h"

#include <utility>

namespace fc {

bool hasNumericsMismatch(const RunResult& r) {
  for (const exec::Comparison& c : r.outputs)
    if (!c.passed()) return true;
  return false;
}

ReduceProperty mismatchProperty(RunOptions opts) {
  opts.against = nullptr;  // a candidate has its own inputs: compare with its own reference
  return [opts = std::move(opts)](const Fusion& f) { return hasNumericsMismatch(runFusion(f, opts)); };
}

}  // namespace fc
