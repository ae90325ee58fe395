// Whether FusionExecutorCache's segmenter runs on a single-device fusion. It runs where no one
// scheduler takes the whole fusion (SegmentCandidateFinder::segment is reached only then, or
// where the fusion holds a segment_set: hasSegmentHints, csrc/fusion_segmenter.cpp:1953-1963 @
// 7eadd1867). fusecheck does not replay the schedulers' heuristics, so it tells apart what
// certainly makes every scheduler refuse the whole fusion from what may.
#pragma once

#include <vector>

#include "analysis/segmented_fusion.h"
#include "ir/fusion.h"
#include "pipeline/history.h"

namespace fc {

struct SegmenterRuns {
  bool certain = false;  // a segment_set, an ExprEval-only op among others, outputs not connected,
                         // or an op that needs a segment input reading a tensor made in the fusion
  bool may = false;      // certain, or a reduction, a matmul or an opaque op (the schedulers decide)
};

// Whether the live `exprs` of `f` make a connected fusion graph as nvFuser counts it
// (isConnectedFusionGraph, csrc/scheduler/registry_utils.cpp:224-260 @ 79e24e9ca): an expr joins its
// tensor inputs, fusion inputs included, with its outputs, and the fusion is connected where every
// tensor output made by an expr is joined with the first one. O(exprs).
bool fusionGraphConnected(const Fusion& f, const std::vector<ExprId>& exprs);

// `exprs`: the live exprs of `f`; `s`: its segmentation by the hard rules; connectivity as
// fusionGraphConnected. O(exprs).
SegmenterRuns segmenterRuns(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                            nv::FusionInputOps ops);

}  // namespace fc
