// Whether fusecheck's executors can run a fusion: `run` refuses one that holds an op they do not
// compute, a tensor of a dtype they do not hold, or a scalar an importer could not compute (FC0909),
// counting only what nvFuser runs (the exprs some output depends on, ir/live_exprs.h).
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// Reports FC0909 into `sink` for each such op, tensor and scalar, located in `file` by the
// repro's ids; true when there is none.
bool allOpsExecuted(const Fusion& f, const std::string& file, DiagnosticSink& sink);

}  // namespace fc
