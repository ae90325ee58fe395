// IterDomains ("axes"). Printed as nvFuser does: iter letter, parallel
// string, number, {extent [ex expanded]} [rf] — e.g. ideviceIdx.x10{i0},
// rS14{i0}, bS5{1 ex i2}.
#pragma once

#include "ir/ids.h"
#include "ir/types.h"

namespace fc {

struct Axis {
  uint32_t number = 0;  // nvFuser's IterDomain name (iS11 -> 11); unique per fusion
  IterType iter = IterType::Iteration;
  ParallelType parallel = ParallelType::Serial;
  ScalarId extent = kNone;
  ScalarId expanded = kNone;  // expanded extent of an expanded broadcast
  bool rfactor = false;       // rfactor product (printed suffix "rf")
  TensorId owner = kNone;     // the tensor whose domain holds this axis
};

// A transform relating a tensor's logical (or root) axes to its loop or
// allocation axes: split (in -> outer, inner) or merge (outer, inner -> out).
struct AxisTransform {
  enum class Kind : uint8_t { Split, Merge };
  Kind kind = Kind::Split;
  AxisId in = kNone;        // split input, or merge outer input
  AxisId in2 = kNone;       // merge inner input
  AxisId out = kNone;       // split outer output, or merge output
  AxisId out2 = kNone;      // split inner output
  ScalarId factor = kNone;  // split factor
  bool inner_split = true;  // false: factor sizes the outer output (DID loop split)
};

}  // namespace fc
