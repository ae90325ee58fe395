// Scalars: named symbols (i0, i3, ...), fusion scalar inputs, constants and
// derived expressions over them. Extents are scalars.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/ids.h"
#include "ir/types.h"
#include "support/interner.h"

namespace fc {

enum class ScalarKind : uint8_t {
  Symbol,    // free symbolic value with no definition (nvFuser's i0)
  Input,     // fusion scalar input (fd.define_scalar(None))
  Constant,  // literal
  Derived,   // op over other scalars
};

enum class ScalarOp : uint8_t {
  None,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  CeilDiv,
  Max,
  Min,
  Neg,
  Size,  // size(T, d): logical extent of axis d of tensor T
};
std::string_view scalarOpName(ScalarOp op);  // "add", "ceilDiv", "size", ...

// Add through Neg: the ops foldIntScalarOp computes.
bool isIntArithmetic(ScalarOp op);
// `a op b` on integers as nvFuser's scalar evaluation computes it (Neg reads `a` only);
// nothing on overflow, division by zero, or an op that is not integer arithmetic.
std::optional<int64_t> foldIntScalarOp(ScalarOp op, int64_t a, int64_t b);

struct ConstValue {
  enum class Kind : uint8_t { Int, Float, Bool };
  Kind kind = Kind::Int;
  int64_t i = 0;  // Int and Bool
  double f = 0;   // Float (may be inf / nan); a complex constant's real part
  double im = 0;  // Float: a complex constant's imaginary part (its Scalar's dtype is complex)
};

struct Scalar {
  ScalarKind kind = ScalarKind::Symbol;
  DType dtype = DType::Index;
  NameId name = kNoName;  // kNoName for anonymous constants / derived exprs
  ScalarOp op = ScalarOp::None;
  ScalarId lhs = kNone;      // Derived: first operand
  ScalarId rhs = kNone;      // Derived: second operand (binary ops)
  TensorId size_of = kNone;  // Size: the tensor
  int32_t size_dim = 0;      // Size: the logical axis (non-negative)
  ConstValue value;          // Constant
  uint32_t decl = kNone;     // index in the repro's "scalars" array, if declared there
};

}  // namespace fc
