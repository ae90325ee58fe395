// The minimizer's numerics property (`reduce --mismatch`): CPU execution of
// the segmented program differs from the reference beyond tolerance (the
// comparison `fusecheck run` makes, driver/run.h): at least one output fails
// its comparison. A pipeline failure (the era dies at a segment) is not a
// mismatch.
#pragma once

#include "driver/run.h"
#include "reduce/reduce.h"

namespace fc {

ReduceProperty mismatchProperty(RunOptions opts);

// True when runFusion(f, opts) reports a failed output comparison.
bool hasNumericsMismatch(const RunResult& r);

}  // namespace fc
