// Extents a segment needs but is not given. When it finalizes the segments, FusionExecutorCache's
// segmenter gives each one the scalars without a definition that its exprs take as operands and
// that are no constant (SegmentedGroup::finalize), and resolveScalarsInGroup adds fusion scalar
// inputs: before #840 only those its exprs take as operands (csrc/fusion_segmenter.cpp:3911-3970
// @ 971aa3395), from #840 also those the extents of the tensors it computes reach, and from #5669
// every leaf so reached that is no constant (:5098-5113 @ 79e24e9ca). A reshape and a full keep
// their sizes in their output's axes only, and concretization keeps a reshape's size where it is a
// leaf (replacing one with a definition by the concretized axis's extent, csrc/dynamic_transform.cpp
// :880-948 @ 7dff43a2f), so such a size reaches the extents of the tensors downstream without being
// an operand. A segment that computes one of them and lacks the size -- before #840 a fusion scalar
// input, before #5669 the extent of an input it does not read (size(T, d), T.shape) -- can stop at
// run time with "Could not launch kernel as program could not infer iN for the buffer ..." (nvFuser
// #656, #5669). Whether it does depends on concretization and on the kernel's evaluator, which
// propagates values across exactly mapped axes: fusecheck replays neither, so the verdict is not
// decided.
#pragma once

#include <string>
#include <vector>

#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports a not-decided verdict into `sink` for the first tensor, computed by a segment of `s`
// (the segmentation by the hard rules, whose segments hold each of nvFuser's), one of whose extents
// reaches a size kept as above that the segment lacks, on a single-device FusionExecutorCache path
// before #5669 where nvFuser may segment the fusion (segmenter_runs.h). `exprs`: the live exprs.
// False (nothing reported) otherwise. O(1) from #5669, and without a reshape or full; else
// O(exprs + axes + the extent expressions walked).
bool lostExtentScalarUndecided(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                               const Profile& p, const std::string& file, DiagnosticSink& sink);

}  // namespace fc
