// The segmenter's lower-precision edges, before #1889. FusionExecutorCache's segmenter marks every
// Float tensor that is no fusion input or output and that a Half or BFloat16 output depends on
// (ForceHalfAnnotation), and wherever such a tensor is an edge between segments it casts it to the
// outputs' half type in the producer segment and back to Float in front of its uses in the
// consumer segment, both when it tries a merge and when it finalizes the segments, then derives
// each segment's scheduler (castInputOutputToLowerPrecision, csrc/fusion_segmenter.cpp:1202-1353,
// 4290-4322,4476-4530 @ 329c3b194). Only a select, index_select or torch_gather reading the edge is
// left alone. A slice, pad or cat, which the schedulers take from #584 only on an input of the
// segment (segment_input_ops.h), then reads the cast-back tensor: "Can not find a scheduler to
// schedule fusion segment" (nvFuser #1872). Such an op's operand made in the fusion is always an
// edge, since no scheduler takes the op with its producer. From #1889 (caa629f3c, 2024-03-09) the
// cast is off unless NVFUSER_ENABLE=io_to_lower_precision, which fusecheck does not model.
#pragma once

#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0324 into `sink` for the first slice, pad or cat among `exprs` (topological, the whole
// fusion) whose operand the segmenter casts down and back, on a single-device FusionExecutorCache
// path at a point from #584 and before #1889; false (nothing reported) otherwise. O(1) outside
// that window or without a Half or BFloat16 output; else O(exprs + tensors).
bool loweredEdgeFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                      const std::string& file, DiagnosticSink& sink);

}  // namespace fc
