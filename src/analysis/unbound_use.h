// One place where a view needs a scalar it cannot evaluate: the free symbol
// that is not known, and the extent or expr operand that needs it. The
// concretization analysis finds these; provenance (analysis/provenance.h)
// explains them.
#pragma once

#include <cstddef>

#include "ir/ids.h"

namespace fc {

struct UnboundUse {
  ScalarId symbol = kNone;  // the free symbol that is not known
  ScalarId scalar = kNone;  // the extent / operand that needs it
  TensorId tensor = kNone;  // kNone when used as a value by an expr
  AxisId axis = kNone;
  size_t pos = 0;         // logical position of `axis` in `tensor`
  bool on_input = false;  // the tensor is an input of the view
  bool reduction_axis = false;
  ExprId expr = kNone;  // set when used as a value (operand / attribute)
};

}  // namespace fc
