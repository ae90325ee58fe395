// In-process properties for the minimizer (reduce/reduce.h):
//
// - diagnosticProperty: the era's pipeline (pipeline/pipeline.h, the same
//   options `check` takes) still reports a diagnostic with `code`; when
//   `message_contains` is not empty, its message or one of its notes must
//   contain that text (e.g. "i0 was bound in the whole fusion" keeps the
//   #2481 shape of FC0301: bound in the whole fusion, unbound in a segment).
// - mismatchProperty: CPU execution of the segmented program differs from
//   the reference beyond tolerance (the comparison `fusecheck run` makes,
//   exec/run.h): at least one output fails its comparison. A pipeline
//   failure (the era dies at a segment) is not a mismatch.
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "exec/run.h"
#include "pipeline/pipeline.h"
#include "reduce/reduce.h"

namespace fc {

ReduceProperty diagnosticProperty(DiagCode code, PipelineOptions opts, std::string message_contains = {});

ReduceProperty mismatchProperty(RunOptions opts);

// True when runFusion(f, opts) reports a failed output comparison.
bool hasNumericsMismatch(const RunResult& r);

}  // namespace fc
