// A reshape that squeezes a Symbolic axis of extent 1, before #1319. nvFuser's view analysis
// squeezes an input axis of extent 1 that is a Broadcast or a Symbolic axis (one an earlier
// dynamic reshape or resize made); until #380 the squeeze it builds refuses an axis that is not
// Broadcast, and until #1319 concretization's root-domain map asserts that a squeezed axis is
// Broadcast (nvFuser #1273).
#pragma once

#include <string>
#include <vector>

#include "analysis/scalar_eval.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0320 into `sink` for the first reshape among `exprs` (topological) that squeezes a
// Symbolic axis, sizes from `ev`, at a point of `p` before #1319; false (nothing reported)
// otherwise. O(1) from #1319, else O(operand axes of the reshapes).
bool symbolicSqueezeFails(const Fusion& f, const std::vector<ExprId>& exprs, ScalarEval& ev, const Profile& p,
                          const std::string& file, DiagnosticSink& sink);

}  // namespace fc
