// sdpfa_fwd among other ops, from #2294 to #2526. SdpaFwdOp's outputs have different ranks (the
// attention [N, H, L, Ev] and its log-sum-exp [N, H, L]). Every scheduler but ExprEval starts its
// checkCanSchedule by building an IterDomainGraph (csrc/scheduler/registry.cpp:185 @ 23ee81d09),
// which maps the outputs of each expr to each other and asserts "Multiple outputs with mismatched
// dimensions is not supported" (csrc/compute_at_map.cpp:387 @ 3ad95151f). ExprEval takes one
// SdpaFwdOp alone from #2361 (csrc/scheduler/expr_eval_sched.cpp:21 @ aa1f4ebb2); before it, no
// scheduler takes it at all. FusionExecutorCache tries the whole fusion first, and when the fusion
// graph is connected that try reaches the assert; the segmenter then tries merges of neighbouring
// segments, each one a new try. #2526 (1bd98c193, 2024-07-05) makes every other scheduler reject
// a fusion with SdpaFwdOp before building the map (nvFuser #2517).
#pragma once

#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0326 into `sink` for the first sdpfa_fwd among `exprs` (the live exprs) on a
// FusionExecutorCache path in that window: alone before #2361, or from #2361 where the fusion graph
// is connected and holds another expr; not decided (FC1001) where the op has a neighbour but the
// graph is not connected (whether the segmenter tries that merge depends on its order). False
// (nothing reported) otherwise. O(1) outside the window; else O(exprs).
bool sdpaComputeAtMapFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink);

}  // namespace fc
