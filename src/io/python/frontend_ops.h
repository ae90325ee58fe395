// The fd.ops names of nvFuser's Python frontends, legacy `nvfuser` (mid-2023 to its removal,
// 2026-02-20) and `nvfuser_direct` (2025-05 to head), each with its call form, its parameters
// in their current spelling, the older keyword spellings that map onto them, and how fusecheck
// models it: the op kind of ops.def it records, or none when fusecheck does not model that op
// yet. Names only fusecheck writes (its own Python export: zeros, ones, mean, gelu) are listed
// as such. The import half of `fusecheck ops` comes from this table.
//
// Sources: the pybind definitions of python/python_frontend/python_bindings.cpp @4a3e6b9a4 and
// python/python_direct/ops.cpp @81c4b22fd (csrc_source column of the op inventory), the
// printers fusion_record.h and python_direct/python_translate.cpp for printed-only names.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/op_kind.h"

namespace fc::py {

enum class PyForm : uint8_t {
  Elementwise,  // positional operands (tensors or scalars)
  Cast,         // (arg, dtype)
  Broadcast,    // (arg, is_broadcast_dim)
  BroadcastInDim,
  Expand,
  Squeeze,
  Permute,
  Reshape,
  Slice,
  Pad,
  Cat,
  Reduce,  // sum / prod / max / min
  Var,     // var / var_mean
  Mean,    // fusecheck's own
  Full,
  Iota,
  Rng,  // uniform / normal: (p0, p1, shape, rng_seed, rng_offset, dtype)
  Matmul,
  Linear,
  Size,         // size(arg, dim): a scalar
  Shape,        // shape(arg): a vector of scalars
  TensorSizes,  // tensor_sizes(arg): a tuple of scalars
  At,           // at(vector, index)
  StrideOrder,  // stride_order(arg, stride_order)
  OutputRule,   // a real nvFuser op imported as an opaque op, outputs by nvFuser's rule (opaque_ops.cpp)
  Unmodelled,   // a real nvFuser op fusecheck does not model yet
};

enum FrontendBit : uint8_t { kLegacy = 1, kDirect = 2, kOwn = 4, kPrinted = 8 };

struct FrontendOp {
  std::string_view name;
  PyForm form;
  uint8_t frontends;         // FrontendBit
  std::string_view params;   // current spelling, comma-separated
  std::string_view renames;  // "old>new,old2>new2": older keyword spellings
};

std::span<const FrontendOp> frontendOps();
// `op`'s parameter names, in order, and its older keyword spellings as (old, current) pairs.
std::vector<std::string> paramNames(const FrontendOp& op);
std::vector<std::pair<std::string, std::string>> keywordRenames(const FrontendOp& op);
// The entry of fd.ops.<name>: the table's, else one derived from an elementwise ops.def row
// that the table does not list; nullptr for a name neither knows.
const FrontendOp* findFrontendOp(std::string_view name);
// The op kind a modelled entry records (by its Python name in ops.def); nullopt otherwise.
std::optional<OpKind> frontendOpKind(const FrontendOp& op);
// Which frontends import op kind `k`: "legacy, direct", "fusecheck" or "".
std::string frontendsOf(OpKind k);

}  // namespace fc::py
