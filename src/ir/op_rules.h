// The facts of each op beyond its ops.def row, in one place:
//   - the output shape: one rule per output axis, saying which operand axes
//     map to it, which iter type nvFuser gives it and where its extent comes
//     from (operand axis, a new broadcast, a shape attribute, a resize);
//   - the output dtype: nvFuser's type promotion;
//   - attribute normalization (negative dims, default reduction dims).
// The verifier checks an expr's outputs against these rules, the importers
// build outputs from them, the executor sizes its results with them and the
// axis map pairs producer and consumer axes with them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/ids.h"
#include "ir/op_kind.h"
#include "ir/types.h"

namespace fc {

class Fusion;

// `d` counted from the end when negative (torch's convention); -1 when it is
// outside [-rank, rank).
int64_t normalizeDim(int64_t d, size_t rank);

// Constant values of scalars as the caller knows them (the verifier's folded
// constants, the importer's literals, the executor's evaluated values).
class KnownValues {
 public:
  virtual ~KnownValues() = default;
  virtual std::optional<int64_t> intValue(ScalarId s) const = 0;
};

// An operand axis that maps to an output axis: operand index, position among
// the operand's non-Reduction logical axes.
struct AxisFrom {
  uint16_t operand = 0;
  uint16_t pos = 0;
};

// One output axis. `from` lists the operand axes that map to it; the map is
// exact unless `resized` (slice, pad, cat change the extent).
struct AxisRule {
  enum class Extent : uint8_t {
    Operand,   // the extent of the first mapped operand axis that is not a broadcast
    One,       // a new Broadcast axis of extent 1
    Expanded,  // a Broadcast axis of extent 1 expanded to attrs.shape[attr]
    Reduced,   // a Reduction axis of the mapped operand axis's extent
    Sliced,    // slice of the operand axis by attrs.ranges[attr]
    Padded,    // the operand axis widened by the pad widths for axis `attr` (from the inner end)
    Concat,    // the sum of the mapped operand axes' extents
    Reshaped,  // attrs.shape[attr]; -1 is numel / the other sizes
    Shape,     // attrs.shape[attr] (factories)
  };
  Extent extent = Extent::Operand;
  IterType make = IterType::Iteration;  // the iter type nvFuser gives a new output axis
  uint8_t allowed = 0;                  // iter types an output axis may have here (bit per IterType)
  int16_t attr = -1;
  bool resized = false;
  bool whole = false;                       // Sliced: the range covers the whole axis, which stays as it is
  uint16_t from_begin = 0, from_count = 0;  // into ShapeRule::from
};

constexpr uint8_t iterBit(IterType t) { return static_cast<uint8_t>(1u << static_cast<unsigned>(t)); }

// What is wrong with an op's operands or attributes. `index` is the operand,
// attribute entry or flag the problem is at; `a` and `b` carry the numbers
// the consumer's message needs (the verifier and the importers word them
// for their readers).
struct ShapeIssue {
  enum class Kind : uint8_t {
    None,
    NotATensor,          // operand `index` must be a tensor
    ScalarsOnly,         // an elementwise op without tensor operands
    RankMismatch,        // operand `index` has rank a, the others b
    FlagsCount,          // broadcast: a flags for b output axes (verifier only)
    FlagsKept,           // broadcast: a false flags for an input of rank b
    BidShapeCount,       // broadcast_in_dim: a shape entries for b output axes (verifier only)
    BidDimsCount,        // broadcast_in_dim: a dims for an input of rank b
    BidDimsOrder,        // broadcast_in_dim: dims[index] = a is not increasing or >= output rank b
    ShapeCount,          // expand: a shape entries for an input of rank b
    DimOutOfRange,       // dims[index] = a is out of range for rank b
    DimRepeated,         // dims[index] = a repeats
    SqueezeNotOne,       // squeeze of dims[index]: the axis has constant extent a
    PermuteCount,        // permute: a dims for an input of rank b
    NotAPermutation,     // permute: dims[index] = a is out of range (b = 0) or repeats (b = 1)
    ReshapeTwoMinusOne,  // reshape: a second -1 at shape[index]
    ReshapeNegative,     // reshape: shape[index] = a < -1
    SliceRanges,         // slice: a ranges for an input of rank b
    PadWidths,           // pad: a widths for an input of rank b
    CatRank,             // cat: operand `index` has rank a, operand 0 rank b
    CatDim,              // cat: dim a out of range for rank b
    NegativeSize,        // factory: shape[index] = a < 0
    LikeFlagsCount,      // a random factory shaped like a tensor: a flags for b sizes
    LikeBroadcastSize,   // ... whose flags[index] marks a Broadcast axis of size a (not 1)
    IotaLength,          // iota: a lengths, not one
    FullNoValue,         // full without a fill value
    NoDims,              // a reduction without dims (verifier only: importers default to all)
    MatmulRankZero,      // matmul / linear: operand `index` has rank 0
    LinearWeightRank,    // linear: weight of rank a (not 1 or 2)
    LinearBiasRank,      // linear: bias of rank a
    NoRule,              // an opaque op: fusecheck has no shape rule for it
  };
  Kind kind = Kind::None;
  uint32_t index = 0;
  int64_t a = 0, b = 0;
};

// The output domains of an op. For permute and reshape the output also has a
// root: one axis per operand axis (root_from), and `perm` says which root
// axis each logical axis of a permute is.
struct ShapeRule {
  std::vector<AxisRule> axes;  // the output's logical domain
  std::vector<AxisFrom> from;
  std::vector<AxisFrom> root_from;  // permute / reshape: root axis j <- operand 0's axis j
  std::vector<int64_t> perm;        // permute: logical j = root[perm[j]]
  size_t outputs = 1;               // var_mean: two outputs of this shape
  // Problems with the operands or attributes, in the order a reader meets
  // them; the axes are meaningful only when there are none.
  std::vector<ShapeIssue> issues;
  bool ok() const { return issues.empty(); }
  std::span<const AxisFrom> mapsOf(const AxisRule& r) const {
    return {from.data() + r.from_begin, r.from_count};
  }
};

// A one-line description of `issue` for a reader of `op`'s call
// ("permute: dims is not a permutation").
std::string describeIssue(OpKind op, const ShapeIssue& issue, const Attrs& attrs);

// How strict the rules are about attributes the importers fill in: the
// verifier checks a stored expr as it is (a reduction without dims is an
// error); an importer's expr gets nvFuser's defaults first.
enum class RuleMode : uint8_t { Check, Build };

// The shape rule of `e` over the fusion's current operands. `out` is reused
// (callers on hot paths keep one per thread). Operands that are not tensors
// where a tensor is needed give an issue, never a crash.
void outputShape(const Fusion& f, const Expr& e, const KnownValues& values, RuleMode mode, ShapeRule& out);

// Whether nvFuser builds reshape `e` statically: its output axes Iteration or
// Broadcast at definition, not Symbolic until concretization. reshape(tv, sizes)
// is static only when every size (a -1 aside) and every input extent (expanded
// where expanded) is a constant (tryStaticReshape, csrc/ops/alias.cpp:103-128
// @ 81c4b22fd); reshape(tv, original_sizes, new_sizes) is analysed at definition
// from the sizes it is given (alias.cpp:61), so only its new sizes count. The
// op rules and the replay of the op builders' sharding both ask this.
bool isStaticReshape(const Fusion& f, const Expr& e, const KnownValues& values);

// The attributes nvFuser stores for an op built from a frontend call:
// negative dims normalized, a reduction's dims sorted and de-duplicated
// (every axis when none are given), a cat dim normalized.
void normalizeAttrs(const Fusion& f, OpKind op, std::span<const ValueRef> inputs, Attrs& attrs);

// ---------------------------------------------------------------- concrete sizes

// What the executor knows when it runs an op: each tensor operand's sizes
// (its non-Reduction axes), the shape attribute's entries as this rank sees
// them (-1 kept), and the values of integer scalars (slice bounds, pad widths).
class ConcreteOperands {
 public:
  virtual ~ConcreteOperands() = default;
  virtual const std::vector<int64_t>* sizes(size_t operand) const = 0;  // null for a scalar
  virtual int64_t shapeEntry(size_t d) const = 0;
  virtual int64_t intValue(ScalarId s) const = 0;
};

// The sizes of the output's non-Reduction axes under `rule`, or nullopt with
// `why` set when the operands' sizes do not fit it (axes that should match
// differ, a -1 that does not divide, a negative size).
std::optional<std::vector<int64_t>> concreteShape(const ShapeRule& rule, const Expr& e,
                                                  const ConcreteOperands& in, std::string& why);

// ---------------------------------------------------------------- dtypes

// The dtype nvFuser gives output `out` of `e`, and a phrase saying why
// ("the promoted dtype of its operands"); nullopt when the rules do not
// decide it (fp8 mixed with other floats, say).
struct DTypeRule {
  std::optional<DType> dtype;
  const char* why = "";
};
DTypeRule outputDType(const Fusion& f, const Expr& e, size_t out);

// The dtype rule of `op` in words, for the op table ("promoted; Half and
// BFloat16 computed in Float").
std::string_view dtypeRuleSummary(OpKind op);

// The JSON keys of the attributes `op` takes, in Attr order.
std::vector<std::string_view> attrKeys(OpKind op);

// nvFuser's type promotion (csrc/type_promotion.cpp computeTypes) of
// elementwise operands: tensors decide within the highest category among
// them; a scalar of a higher category lifts the result to that category's
// default type. `int_to_float`: integral and Bool results become the
// default float type (ops with TypePromotion::float_op_config). Half,
// BFloat16 and fp8 results become Float, as computeTypes does by default.
struct PromotionOperand {
  DType dtype;
  bool tensor;
  bool zero_dim = false;  // a tensor with no logical axes
};
std::optional<DType> promoteTypes(std::span<const PromotionOperand> operands, bool int_to_float = false);

// PyTorch's result type of an elementwise op on torch tensors (a repro's `0.1 * torch.randn(...)`):
// the same rule without the Half -> Float step, whose c10 original nvFuser's computeTypes follows. A
// Python number is a non-tensor operand of its category's default dtype (Float, Int, ComplexFloat,
// Bool). `int_to_float`: true division.
std::optional<DType> torchResultType(std::span<const PromotionOperand> operands, bool int_to_float = false);

// The dtype of a scalar expression of operands `a` and `b`: promoteTypes of the
// two scalars (Double with a Double operand, Float of Float and an integer,
// Index of Index and Int); where they do not promote (Bool and Index), Double
// with a floating operand, else `a` where it is integral, else `fallback`.
DType derivedScalarDType(DType a, DType b, DType fallback);

}  // namespace fc
