// What a diagnostic's JSON pointer points at in the fusion: the tensor, the
// axis, the expr or the segment that the place in the repro describes
// ("/tensors/5/logical/1" is axis 1 of T5's logical domain, "/exprs/3/shape/0"
// is expr 3, "/segmentation/segments/2" is segment 2). Commands that draw or
// explain the fusion use it to attach every located diagnostic to its place.
// O(length of the pointer).
#pragma once

#include <string_view>

#include "ir/fusion.h"

namespace fc {

struct PointerTarget {
  TensorId tensor = kNone;
  AxisId axis = kNone;  // set with tensor when the pointer names a domain entry
  ExprId expr = kNone;
  int segment = -1;  // an explicit segmentation's segment
  bool any() const { return tensor != kNone || expr != kNone || segment >= 0; }
};

// Tensors and exprs are numbered as in the repro's arrays (the reader keeps
// that order); out-of-range indexes resolve to nothing.
PointerTarget resolvePointer(const Fusion& f, std::string_view pointer);

}  // namespace fc
