// The ops that nvFuser's schedulers take only where an operand is an input of the segment. A
// select, index_select or torch_gather (csrc/scheduler/registry.cpp:40-72 @ 831821f3a), and from
// #584 also a slice, pad, cat or take_along_axis (rejectScheduleForMemoryPromotion,
// csrc/scheduler/registry.cpp:67-101 @ 9713d78e2), is refused by every scheduler when its first
// input is made inside the segment. The segmenter's rewrites that put an op in front of such an
// operand (forwarded_inputs.h, lowered_edges.h) therefore leave a segment no scheduler takes.
#pragma once

#include <vector>

#include "ir/fusion.h"
#include "pipeline/history.h"

namespace fc {

// The tensor operands of `x` that its scheduler needs to be inputs of the segment at `ops`'s
// state; empty for any other op. Only ops that certainly resize are counted: a slice nvFuser may
// find trivial (start 0, stop its operand's extent, step 1: no resize, csrc/ops/alias.cpp @
// 971aa3395) and a pad by constant zeros are not. A cat gives every operand (it pads each one).
std::vector<TensorId> needsSegmentInput(const Fusion& f, const Expr& x, nv::FusionInputOps ops);

// Whether `x` is one of the select-like ops (select, index_select, torch_gather,
// take_along_axis: nvFuser's SelectOp, IndexSelectOp and TorchGatherOp).
bool isSelectLike(const Expr& x);

}  // namespace fc
