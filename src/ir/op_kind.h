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
  Opaque,  // an op without a shape rule: kept as the text gives it, never analysed
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
  Name = 1u << 13,        // "name": the op's own name (opaque)
  // "original_shape": reshape(x, original_sizes, new_sizes), analysed at definition
  OriginalShape = 1u << 14,
};
constexpr uint32_t A(Attr a) { return static_cast<uint32_t>(a); }

// How nvFuser types an elementwise op's output (see ops.def).
enum class Promotion : uint8_t { Keep, Bool, Float, Default, DoubleScalar, Part, Complex };

// How an op's calls are laid out, in nvFuser's printed IR, its Python
// frontend and its C++ API alike (see ops.def); the op's names fill it in.
enum class OpForm : uint8_t {
  Set,
  SegmentSet,
  Cast,
  Unary,
  Binary,
  Where,
  Broadcast,
  BroadcastInDim,
  Expand,
  Squeeze,
  Permute,
  Reshape,
  Slice,
  Pad,
  Cat,
  Reduction,
  Mean,
  Var,
  VarMean,
  Welford,  // avg, var_sum, N = Welford( operand(Avg), allreduce ): three outputs
  Full,
  Iota,
  Rng,  // uniform / normal: two scalar parameters, the optional seed and offset, shape, dtype
  Matmul,
  Linear,
  Opaque,  // name( operands... ): the operands and outputs as the text gives them
};

// Per-op facts of spelling and value (see ops.def).
enum class OpFlag : uint32_t {
  LibmSuffix = 1u << 0,   // nvFuser prints an "f" suffix on Float ("expf")
  FPrefix2024 = 1u << 1,  // the 2024 print style writes fmax / fmin
  FillZero = 1u << 2,     // a full of 0
  FillOne = 1u << 3,      // a full of 1
  NotExecuted = 1u << 4,  // imported and analysed, not computed by fusecheck's executors
};
constexpr uint32_t F(OpFlag f) { return static_cast<uint32_t>(f); }

enum class OpKind : uint16_t {
#define FC_OP(E, J, C, MIN, MAX, NOUT, ATTRS, PROMO, FORM, IR, PY, CPP, FLAGS) E,
#include "ir/ops.def"
#undef FC_OP
};

struct OpInfo {
  OpKind kind;
  std::string_view name;  // JSON / Python spelling
  OpCategory category;
  int min_inputs;
  int max_inputs;   // -1: variadic
  int num_outputs;  // -1: one or more
  uint32_t attrs;
  Promotion promotion;
  OpForm form;
  std::string_view ir_name;      // as nvFuser prints it ("+", "abs", "add" for a sum's reduction op)
  std::string_view python_name;  // fd.ops.<python_name>
  std::string_view cpp_name;     // the csrc/ops function
  uint32_t flags;
  bool has(OpFlag f) const { return (flags & F(f)) != 0; }
};

const OpInfo& opInfo(OpKind k);
std::optional<OpKind> parseOpKind(std::string_view s);  // by JSON name
std::optional<OpKind> opByPythonName(std::string_view s);
std::optional<OpKind> opByCppName(std::string_view s);
inline std::string_view opName(OpKind k) { return opInfo(k).name; }
inline bool opAccepts(OpKind k, Attr a) { return (opInfo(k).attrs & A(a)) != 0; }
int numOpKinds();

// Whether fusecheck's executors compute the op (`run` refuses a fusion with one that is not).
inline bool isExecuted(OpKind k) { return !opInfo(k).has(OpFlag::NotExecuted); }

// Ops nvFuser runs on the ExprEval scheduler and segments alone.
inline bool isExprEvalOnly(OpKind k) { return opInfo(k).category == OpCategory::Matmul; }

// An op fusecheck has no shape rule for: no analysis decides a fusion that holds one.
inline bool isOpaque(OpKind k) { return opInfo(k).category == OpCategory::Opaque; }

}  // namespace fc
