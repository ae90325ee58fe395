// The in-process property of the minimizer (reduce/reduce.h) that the
// pipeline decides: diagnosticProperty holds while the era's pipeline
// (pipeline/pipeline.h, the same options `check` takes) still reports a
// diagnostic with `code`; when `message_contains` is not empty, its message
// or one of its notes must contain that text (e.g. "i0 was bound in the
// whole fusion" keeps the #2481 shape of FC0301: bound in the whole fusion,
// unbound in a segment).
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "pipeline/pipeline.h"
#include "reduce/reduce.h"

namespace fc {

ReduceProperty diagnosticProperty(DiagCode code, PipelineOptions opts, std::string message_contains = {});

}  // namespace fc
