// The keyword spellings that date a Python repro (see dated_spellings.h).
#include "ir/dated_spellings.h"

namespace fc {
namespace {

constexpr std::string_view kLegacy = "python-legacy";
constexpr std::string_view kDirect = "python-direct";
constexpr std::string_view kCpp = "cpp-test";
constexpr std::string_view kReductions = "fd.ops.sum,fd.ops.prod,fd.ops.max,fd.ops.min";
constexpr std::string_view kDimsOps =
    "fd.ops.sum,fd.ops.prod,fd.ops.max,fd.ops.min,fd.ops.var,fd.ops.var_mean";

constexpr DatedSpelling kSpellings[] = {
    {kLegacy, "fd.define_tensor", "contiguous", "define-tensor-contiguity-keyword=Contiguous"},
    {kLegacy, "fd.define_tensor", "contiguity", "define-tensor-contiguity-keyword=Contiguity"},
    {kLegacy, "fd.define_tensor", "symbolic_sizes", "define-tensor-shape-keyword=SymbolicSizes"},
    {kLegacy, "fd.define_tensor", "shape", "define-tensor-shape-keyword=Shape"},
    {kLegacy, "fd.ops.broadcast_in_dim", "output_shape", "broadcast-in-dim-shape-keyword=OutputShape"},
    {kLegacy, "fd.ops.broadcast_in_dim", "shape", "broadcast-in-dim-shape-keyword=Shape"},
    {kLegacy, kDimsOps, "axes", "reduction-dims-keyword=Axes"},
    {kLegacy, kDimsOps, "dims", "reduction-dims-keyword=Dims"},
    {kLegacy, kReductions, "dim", "reduction-dims-keyword=Dims"},
    {kLegacy, "fd.ops.reshape", "(arg, original_shape, new_shape)", "reshape-form=OriginalShape"},
    {kLegacy, "fd.ops.reshape", "(arg, new_shape)", "reshape-form=NewShapeOnly"},
    {kLegacy, "fd.ops.squeeze", "(arg, original_shape, dims)", "squeeze-form=OriginalShape"},
    {kLegacy, "fd.ops.squeeze", "(arg, dims)", "squeeze-form=DimsOnly"},
    {kDirect, kReductions, "keep_dim", "direct-keepdim-keyword=KeepDim"},
    {kDirect, kReductions, "keepdim", "direct-keepdim-keyword=Keepdim"},
    // A template argument of a C++ call, in angle brackets.
    {kCpp, "IrBuilder::create", "<Int>", "cpp-typed-scalars=Typed"},
    {kCpp, "IrBuilder::create", "<Double>", "cpp-typed-scalars=Typed"},
    {kCpp, "IrBuilder::create", "<Bool>", "cpp-typed-scalars=Typed"},
    {kCpp, "IrBuilder::create", "<ComplexDouble>", "cpp-typed-scalars=Typed"},
    // A C++ call's argument list, in parentheses.
    {kCpp, "sdpfa_fwd", "(query, key, value, dropout_p, is_causal, scale)", "cpp-sdpfa-fwd-form=SixArgs"},
    {kCpp, "sdpfa_fwd", "(query, key, value, bias, mask, dropout_p, is_causal, scale)",
     "cpp-sdpfa-fwd-form=BiasMask"},
};

}  // namespace

std::span<const DatedSpelling> datedSpellings() { return kSpellings; }

bool callListHas(std::string_view calls, std::string_view call) {
  while (!calls.empty()) {
    const size_t comma = calls.find(',');
    if (calls.substr(0, comma) == call) return true;
    if (comma == std::string_view::npos) break;
    calls.remove_prefix(comma + 1);
  }
  return false;
}

bool datesScript(std::string_view origin_kind, std::string_view call, std::string_view keyword) {
  for (const DatedSpelling& s : kSpellings)
    if (s.origin_kind == origin_kind && s.keyword == keyword && callListHas(s.calls, call)) return true;
  return false;
}

}  // namespace fc
