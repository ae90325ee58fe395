// The segment-input rewrite:
// the domain a segment input tensor has inside the segment fusion.
// Before PR #2487 the root is erased and Reduction axes survive with their
// extent symbol; after it they are removed from logical/allocation/
// contiguity. Rfactor-product axes get fresh extents (bound by the input).
#pragma once

#include <vector>

#include "ir/fusion.h"
#include "ir/segmentation.h"

namespace fc {

// The logical domain `t` has as an input of a segment fusion.
std::vector<AxisId> segmentInputDomain(const Fusion& f, TensorId t, InputRewrite rw);

}  // namespace fc
