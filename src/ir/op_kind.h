// Op kinds and their static facts, generated from ops.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fc {

enum class OpCategory : uint8_t {
  Set,
  Cast,
  Unary,
  Binary,
  Compare,
  Ternary,
  Shape,
  Reduction,
  Factory,
  Matmul,
};

// Attribute keys an op may carry (bitmask).
enum class Attr : uint32_t {
  DType = 1u << 0,        // "dtype": target/accumulate dtype
  Approximate = 1u << 1,  // "approximate": "none" | "tanh" (gelu)
  Flags = 1u << 2,        // "flags": broadcast flags, one per output axis
  Shape = 1u << 3,        // "shape": scalar exprs (reshape, expand, factories, broadcast_in_dim)
  Dims = 1u << 4,         // "dims": axes (reduce, permute, squeeze, broadcast_in_dim)
  Ranges = 1u << 5,       // "ranges": [{start, stop, step}] per input axis (slice)
  Pad = 1u << 6,          // "pad": widths, innermost axis first, as nvFuser/torch
  Value = 1u << 7,        // "value": fill / pad value (scalar expr)
  Dim = 1u << 8,          // "dim": cat axis
  Keepdim = 1u << 9,      // "keepdim"
  Correction = 1u << 10,  // "correction" (var, var_mean)
  Start = 1u << 11,       // "start" (iota)
  Step = 1u << 12,        // "step" (iota)
};
constexpr uint32_t A(Attr a) { return static_cast<uint32_t>(a); }

// How nvFuser types an elementwise op's output (see ops.def).
enum class Promotion : uint8_t { Keep, Bool, Float, Default, DoubleScalar };

enum class OpKind : uint16_t {
#define FC_OP(E, J, C, MIN, MAX, NOUT, ATTRS, PROMO) E,
#include "ir/ops.def"
#undef FC_OP
};

struct OpInfo {
  OpKind kind;
  std::string_view name;  // JSON / Python spelling
  OpCategory category;
  int min_inputs;
  int max_inputs;  // -1: variadic
  int num_outputs;
  uint32_t attrs;
  Promotion promotion;
};

const OpInfo& opInfo(OpKind k);
std::optional<OpKind> parseOpKind(std::string_view s);
inline std::string_view opName(OpKind k) { return opInfo(k).name; }
inline bool opAccepts(OpKind k, Attr a) { return (opInfo(k).attrs & A(a)) != 0; }
int numOpKinds();

// Ops nvFuser runs on the ExprEval scheduler and segments alone.
inline bool isExprEvalOnly(OpKind k) { return opInfo(k).category == OpCategory::Matmul; }

}  // namespace fc
