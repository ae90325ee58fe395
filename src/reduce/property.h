// In-process properties for the minimizer (reduce/reduce.h):
//
// - diagnosticProperty: the era's pipeline (analysis/pipeline.h, the same
//   options `check` takes) still reports a diagnostic with `code` (and, when
//   `symbol` is given, an FC0301 for that symbol).
// - mismatchProperty: CPU execution of the segmented program differs from
//   the reference beyond tolerance (the comparison `fusecheck run` makes,
//   exec/run.h): at least one output fails its comparison. A pipeline
//   failure (the era dies at a segment) is not a mismatch.
#pragma once

#include <string>

#include "analysis/pipeline.h"
#include "diag/diagnostic.h"
#include "exec/run.h"
#include "reduce/reduce.h"

namespace fc {

ReduceProperty diagnosticProperty(DiagCode code, PipelineOptions opts, std::string symbol = {});

ReduceProperty mismatchProperty(RunOptions opts);

// True when runFusion(f, opts) reports a failed output comparison.
bool hasNumericsMismatch(const RunResult& r);

}  // namespace fc
