#include "pipeline/segment_input_ops.h"

#include <optional>
#include <string>

#include "ir/constant_scalar.h"

namespace fc {
namespace {

bool isConstant(const Fusion& f, ScalarId s, int64_t v) {
  if (s == kNone) return false;
  std::optional<ConstValue> c = constantScalarValue(f, s);
  return c && c->kind == ConstValue::Kind::Int && c->i == v;
}

bool isTakeAlongAxis(const Expr& x) {
  const std::string& n = x.attrs.name;
  return isOpaque(x.op) && (n == "take_along_axis" || n == "takeAlongAxis");
}

}  // namespace

bool isSelectLike(const Expr& x) {
  if (!isOpaque(x.op)) return false;
  const std::string& n = x.attrs.name;
  return n == "select" || n == "index_select" || n == "indexSelect" || n == "gather" || n == "torch_gather" ||
         n == "torchGather" || isTakeAlongAxis(x);
}

std::vector<TensorId> needsSegmentInput(const Fusion& f, const Expr& x, nv::FusionInputOps ops) {
  std::vector<TensorId> tensors;
  for (const ValueRef& v : x.inputs)
    if (v.isTensor()) tensors.push_back(v.id);
  if (tensors.empty()) return {};
  const bool resize_too = ops == nv::FusionInputOps::SelectLikeAndResize;
  if (isOpaque(x.op)) {
    if (isSelectLike(x) && (!isTakeAlongAxis(x) || resize_too)) return {tensors[0]};
    return {};
  }
  if (!resize_too) return {};
  if (x.op == OpKind::Slice) {
    const Tensor& in = f.tensors[tensors[0]];
    size_t k = 0;
    for (AxisId a : in.logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      if (k >= x.attrs.ranges.size()) break;
      const SliceRange& r = x.attrs.ranges[k++];
      const bool from_zero = r.start == kNone || isConstant(f, r.start, 0);
      const bool unit = r.step == kNone || isConstant(f, r.step, 1);
      const bool to_end = r.stop == kNone || r.stop == f.axes[a].extent;
      if (from_zero && unit && to_end) continue;
      // A constant stop against a constant extent may be the same value to nvFuser's sameAs.
      const bool maybe_end =
          r.stop != kNone && constantScalarValue(f, r.stop) && constantScalarValue(f, f.axes[a].extent);
      if (from_zero && unit && maybe_end) continue;
      return {tensors[0]};
    }
    return {};
  }
  if (x.op == OpKind::Pad) {
    for (ScalarId w : x.attrs.pad)
      if (!isConstant(f, w, 0)) return {tensors[0]};
    return {};
  }
  // cat pads each operand, all of one dtype (csrc/ops/alias.cpp @ 971aa3395; the verifier refuses
  // others).
  if (x.op == OpKind::Cat && tensors.size() >= 2) return tensors;
  return {};
}

}  // namespace fc
