// The value of a scalar that constants alone determine: a constant, or the scalar ops of
// ir/scalar.h over constants (no symbol, no size(), no uncomputed value). The importers use it
// where nvFuser evaluates such an expression while it builds the fusion, e.g. a cast of
// `2.5 * 7` to an integer for a pad width.
#pragma once

#include <optional>

#include "ir/fusion.h"
#include "ir/op_rules.h"

namespace fc {

// Computed as nvFuser's scalar evaluation does in C++: a node of integral dtype in checked int64
// arithmetic (7 / 2 is 3), a floating one in double. Nothing on overflow, division by zero, an
// expression deeper than 64 nodes, or anything that is not a constant.
std::optional<ConstValue> constantScalarValue(const Fusion& f, ScalarId s);

// constantScalarValue's integers, as the op rules read known values.
class ConstantValues final : public KnownValues {
 public:
  explicit ConstantValues(const Fusion& f) : f_(f) {}
  std::optional<int64_t> intValue(ScalarId s) const override;

 private:
  const Fusion& f_;
};

}  // namespace fc
