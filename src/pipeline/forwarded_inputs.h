// The segmenter's forwarded inputs, before #1825. FusionExecutorCache's segmenter treats the end of
// a chain of unary ops from a fusion input as an input while it merges segments (forwardInputs),
// then adds the chain back to every segment that reads that end (resolveInputsInGroup) and derives
// each segment's scheduler again (csrc/fusion_segmenter.cpp:3188-3219,3390-3408,3463-3471 @
// 831821f3a). The schedulers take a select, index_select or torch_gather, and from #584 a slice,
// pad, cat or take_along_axis, only where its first input is an input of the segment
// (csrc/scheduler/registry.cpp:40-72 @ 831821f3a; :67-101 @ 9713d78e2). A segment whose such op
// reads a forwarded chain's end therefore had no scheduler once the chain was back in it: "Can not
// find a scheduler to schedule fusion segment" (nvFuser #1541). From #1825 (af04aadb1,
// 2024-02-26) the chain joins a segment only where a scheduler takes the result.
//
// Which chains are forwarded changed three times (nv::ForwardStart, nv::ForwardChain): an input
// all of whose uses are unary ops starts a chain at each use (from #1616 only an input with one
// use, a unary op); a chain's output is forwarded where it has more than one use (from #586: not
// exactly one; from #1361: not exactly one, or one that is no unary op). nvFuser's UnaryOp is
// fusecheck's unary category but gelu (a composite: csrc/ops/composite.cpp @ 971aa3395), and a
// cast that changes the dtype (castOp to the same dtype is a set: csrc/ops/arith.cpp @ 971aa3395).
#pragma once

#include <string>
#include <vector>

#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0323 into `sink` for the first op among `exprs` (topological, the whole fusion) that
// needs its first input to be a segment input and reads the end of a forwarded chain, on a
// single-device FusionExecutorCache path at a point before #1825; false (nothing reported)
// otherwise. A slice whose range nvFuser may find trivial (no resize) is not reported. O(1) from
// #1825; else O(exprs), and the uses of every tensor are indexed only when such an op exists.
bool forwardedInputFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                         const std::string& file, DiagnosticSink& sink);

// Reports a not-decided verdict into `sink` where, on a single-device FusionExecutorCache path
// before #1616, a fusion input starts one chain of unary ops that the segmenter forwards and
// another that it does not (one that ends at a fusion output, or before #1361 at a use that is no
// unary op). forwardInputs then takes the input out of the segmenter's inputs, and the segment of
// the chain not forwarded has no such input unless a merge puts it with a segment that reads the
// forwarded end (nvFuser #1301); the merges are heuristics fusecheck does not replay. False
// (nothing reported) otherwise. O(1) from #1616; else O(exprs).
bool droppedInputUndecided(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink);

// Reports FC0325 into `sink` where, on a single-device FusionExecutorCache path from #1825 to
// #1971, an op reads the end of a forwarded chain twice in a fusion nvFuser certainly segments
// (segmenter_runs.h; `s` is its segmentation by the hard rules) and no other reader of that end
// shares the op's segment: the segmenter, taking one consumer per edge, tried to merge the chain
// into that segment twice and asserted (nvFuser #1970). Where another reader shares the segment,
// or only the schedulers would segment (a reduction, a matmul, an opaque op), the verdict is not
// decided. False (nothing reported) otherwise. O(1) outside the window; O(exprs) to find an op
// that reads a tensor twice, and the chains are walked only then.
bool forwardedMergedTwiceFails(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                               const Profile& p, const std::string& file, DiagnosticSink& sink);

}  // namespace fc
