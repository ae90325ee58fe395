// Extents a segment needs but is not given, before #5669. When it finalizes the segments,
// FusionExecutorCache's segmenter gives each one, of the scalars without a definition that its
// exprs take as operands, those that are no constant (SegmentedGroup::finalize), and, of those
// reached only from the extents of the tensors it computes, only the fusion's scalar inputs
// (resolveScalarsInGroup, csrc/fusion_segmenter.cpp:311-322,4989-5130 @ 7dff43a2f). A reshape or
// full keeps its sizes in its output's axes only, so a size that is the extent of an input tensor
// (size(T, d), T.shape) reaches its segment that way; where the segment does not read that
// tensor, nvFuser can stop at run time with "Could not launch kernel as program could not infer
// iN for the buffer ..." (the repro of #5669). Whether it does depends on concretization, which
// keeps a reshape's size only where it has no definition and replaces the output axis by one of
// the input's, and on the kernel's evaluator, which propagates values across exactly mapped axes:
// fusecheck does not replay these, so the verdict is not decided. From #5669 (79e24e9ca,
// 2025-12-16) every such scalar is made an input of the segment.
#pragma once

#include <string>
#include <vector>

#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports a not-decided verdict into `sink` for the first reshape (whose output an op of its
// segment reads) or full whose sizes name, without arithmetic over it for a reshape, the extent of
// a fusion input that its segment neither reads nor takes as an operand scalar, on a single-device
// FusionExecutorCache path before #5669 where nvFuser may segment the fusion (segmenter_runs.h).
// `exprs`: the live exprs; `s`: the segmentation by the hard rules, whose segments hold each of
// nvFuser's. False (nothing reported) otherwise. O(1) from #5669; else O(exprs + axes).
bool lostExtentScalarUndecided(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                               const Profile& p, const std::string& file, DiagnosticSink& sink);

}  // namespace fc
