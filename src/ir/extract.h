// Extracts a standalone Fusion from a subset of exprs: the segment as a
// repro of its own (segment --emit-segments). Inputs are
// the tensors the exprs use but do not produce (root erased; Reduction
// axes dropped when `strip_reductions`); outputs the tensors `outputs`
// names. Names, axis numbers, scalars and the repro metadata (origin and
// nvFuser point included: the segment replays under the same profile)
// carry over. O(size of the fusion).
#pragma once

#include <vector>

#include "ir/fusion.h"

namespace fc {

Fusion extractSubfusion(const Fusion& f, const std::vector<ExprId>& exprs,
                        const std::vector<TensorId>& outputs, bool strip_reductions);

}  // namespace fc
