// A reshape or squeeze that squeezes a Symbolic axis of extent 1, before #1319. nvFuser's view
// analysis squeezes an input axis of extent 1 that is a Broadcast or a Symbolic axis (one an
// earlier dynamic reshape or resize made), and a squeeze names its axes; until #380 the squeeze
// refuses an axis that is not Broadcast, and until #1319 concretization's root-domain map
// asserts that a squeezed axis is Broadcast (nvFuser #1273; the test #1319 adds squeezes a
// dynamic reshape's output). The map is taken only for a squeeze that keeps a Symbolic axis.
#pragma once

#include <string>
#include <vector>

#include "analysis/scalar_eval.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0320 into `sink` for the first reshape or squeeze among `exprs` (topological) that
// squeezes a Symbolic axis, sizes from `ev`, at a point of `p` before #1319 (not decided, FC1001,
// for a squeeze from #380 whose producer is not a reshape's output: which axes the concretizer has
// replaced when it maps that squeeze is not replayed); false (nothing reported) otherwise. O(1)
// from #1319, else O(operand axes of the reshapes and squeezes).
bool symbolicSqueezeFails(const Fusion& f, const std::vector<ExprId>& exprs, ScalarEval& ev, const Profile& p,
                          const std::string& file, DiagnosticSink& sink);

}  // namespace fc
