// Dense ids of IR entities. The IR is index-based (an arena per entity
// kind inside Fusion): ids are stable, cheap to copy, and give
// deterministic output (never pointers).
#pragma once

#include <cstdint>

namespace fc {

using ScalarId = uint32_t;
using AxisId = uint32_t;
using TensorId = uint32_t;
using ExprId = uint32_t;
using MeshId = uint32_t;

inline constexpr uint32_t kNone = UINT32_MAX;

// An operand: a tensor or a scalar.
struct ValueRef {
  enum class Kind : uint8_t { Tensor, Scalar };
  Kind kind = Kind::Tensor;
  uint32_t id = kNone;

  static ValueRef tensor(TensorId t) { return {Kind::Tensor, t}; }
  static ValueRef scalar(ScalarId s) { return {Kind::Scalar, s}; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isScalar() const { return kind == Kind::Scalar; }
  friend bool operator==(ValueRef a, ValueRef b) { return a.kind == b.kind && a.id == b.id; }
};

}  // namespace fc
