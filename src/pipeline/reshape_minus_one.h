// A dynamic reshape given a constant -1 size, before #590. Until then nvFuser made the -1 itself the
// extent of that output axis (csrc/ops/alias.cpp:123-131 @ ef13b2191^). Concretization replaces
// the reshape's output by a static reshape with the right extents, but the axes its consumers
// cloned keep the -1 (nvFuser #630 later propagated modified extents), and the runtime's choice of
// index type evaluates the extent of every tensor that is not a fusion input and asserts it is not
// negative: "Unexpected size of axis: -1" (csrc/scheduler/registry.cpp:807 @ 967e30297;
// nvFuser #249).
#pragma once

#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0322 into `sink` for the first dynamic reshape among `exprs` (topological) with a
// constant -1 size whose axis another tensor among the exprs' outputs carries (not Broadcast), at a
// point of `p` before #590; false (nothing reported) otherwise. O(1) from #590, else O(the exprs'
// output axes).
bool minusOneExtentFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                         const std::string& file, DiagnosticSink& sink);

}  // namespace fc
