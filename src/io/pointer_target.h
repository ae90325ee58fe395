// What a diagnostic's place points at in the fusion: the tensor, the axis,
// the expr or the segment that the place in the repro describes (tensor 5 ->
// logical 1 is axis 1 of T5's logical domain, expr 3 -> shape 0 is expr 3,
// segment 2 is segment 2). Commands that draw or explain the fusion use it to
// attach every located diagnostic to its place. O(depth of the place).
#pragma once

#include <string_view>

#include "diag/diagnostic.h"
#include "diag/place.h"
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
// that order; an expr of a copy without dead exprs by its id in the repro, ir/live_exprs.h);
// out-of-range indexes resolve to nothing.
PointerTarget resolvePlace(const Fusion& f, const Place& place);
// The place a pointer spells (io/place_pointer.h), resolved.
PointerTarget resolvePointer(const Fusion& f, std::string_view pointer);
// A location's place, or the place its pointer spells when it has none (a
// diagnostic read back from JSON).
PointerTarget resolveLocation(const Fusion& f, const Location& loc);

}  // namespace fc
