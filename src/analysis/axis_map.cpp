#include "analysis/axis_map.h"

#include <algorithm>

#include "ir/op_rules.h"

namespace fc {

std::vector<AxisId> noReductions(const Fusion& f, const std::vector<AxisId>& dom) {
  std::vector<AxisId> out;
  out.reserve(dom.size());
  for (AxisId a : dom)
    if (f.axes[a].iter != IterType::Reduction) out.push_back(a);
  return out;
}

namespace {

bool sameExtent(const Fusion& f, AxisId p, AxisId c) { return f.axes[p].extent == f.axes[c].extent; }

void pair(const Fusion& f, std::vector<AxisPair>& out, AxisId p, AxisId c, bool resize_sensitive) {
  const Axis& pa = f.axes[p];
  const Axis& ca = f.axes[c];
  bool exact = true;
  if (pa.iter == IterType::Broadcast && ca.iter != IterType::Broadcast) exact = false;
  if (pa.iter != IterType::Broadcast && ca.iter == IterType::Broadcast) exact = false;
  if (pa.expanded != ca.expanded) exact = false;
  if (resize_sensitive && !sameExtent(f, p, c)) exact = false;
  // Symbolic axes map only when their extents match (ExpressionEvaluator::
  // propagateBoundValuesThroughExactMaps).
  if ((pa.iter == IterType::Symbolic || ca.iter == IterType::Symbolic) && !sameExtent(f, p, c)) exact = false;
  out.push_back({p, c, exact});
}

// The axis map reads only which operand axes map where, never constants.
class NoValues final : public KnownValues {
 public:
  std::optional<int64_t> intValue(ScalarId) const override { return std::nullopt; }
};

}  // namespace

std::vector<AxisPair> mapProducerConsumer(const Fusion& f, ExprId eid, size_t in_idx, size_t out_idx) {
  std::vector<AxisPair> out;
  appendProducerConsumer(f, eid, in_idx, out_idx, out);
  return out;
}

bool buildAxisRule(const Fusion& f, ExprId eid, ShapeRule& rule) {
  static const NoValues kNoValues;
  outputShape(f, f.exprs[eid], kNoValues, RuleMode::Build, rule);
  return rule.ok();
}

void appendProducerConsumer(const Fusion& f, ExprId eid, size_t in_idx, size_t out_idx,
                            std::vector<AxisPair>& out) {
  const Expr& e = f.exprs[eid];
  if (in_idx >= e.inputs.size() || out_idx >= e.outputs.size()) return;
  const ValueRef& in = e.inputs[in_idx];
  if (!in.isTensor() || in.id >= f.tensors.size() || e.outputs[out_idx] >= f.tensors.size()) return;
  // The rule in a buffer reused across calls (this runs for every operand of
  // every expr of every view).
  thread_local ShapeRule rule;
  if (buildAxisRule(f, eid, rule)) appendProducerConsumer(f, eid, rule, in_idx, out_idx, out);
}

void appendProducerConsumer(const Fusion& f, ExprId eid, const ShapeRule& rule, size_t in_idx, size_t out_idx,
                            std::vector<AxisPair>& out) {
  const Expr& e = f.exprs[eid];
  if (!rule.ok() || in_idx >= e.inputs.size() || out_idx >= e.outputs.size()) return;
  const ValueRef& in = e.inputs[in_idx];
  if (!in.isTensor() || in.id >= f.tensors.size() || e.outputs[out_idx] >= f.tensors.size()) return;
  thread_local std::vector<AxisId> producer_axes;
  producer_axes.clear();
  for (AxisId a : f.tensors[in.id].logical)
    if (f.axes[a].iter != IterType::Reduction) producer_axes.push_back(a);
  const Tensor& ct = f.tensors[e.outputs[out_idx]];
  // An output with a root (permute, reshape) maps its root axes to the operand's.
  if (!ct.root.empty()) {
    if (in_idx != 0) return;
    for (size_t j = 0; j < rule.root_from.size() && j < ct.root.size(); ++j)
      if (rule.root_from[j].pos < producer_axes.size())
        pair(f, out, producer_axes[rule.root_from[j].pos], ct.root[j], false);
    return;
  }
  if (!rule.root_from.empty() && rule.perm.empty()) return;  // a reshape without a root maps nothing
  for (size_t j = 0; j < rule.axes.size() && j < ct.logical.size(); ++j)
    for (const AxisFrom& m : rule.mapsOf(rule.axes[j]))
      if (m.operand == in_idx && m.pos < producer_axes.size())
        pair(f, out, producer_axes[m.pos], ct.logical[j], rule.axes[j].resized);
}

// Some device-parallel axis of `t` is not a Reduction one: a logical axis parallelized on a DID
// type, or the DID output of a split of a logical axis (its iter type is the split axis's). Every
// such axis counts, not only the first of its type: an output whose reduced axis and kept axis are
// both DIDx splits is sharded on the kept one (isSharded skips Reduction loop IDs,
// csrc/multidevice/utils.cpp @ 6b937c4e7; getShardedIterDomain, utils.cpp:212-224 @ 81c4b22fd).
bool isSharded(const Fusion& f, TensorId t) {
  const Tensor& tv = f.tensors[t];
  for (AxisId a : tv.logical)
    if (isDeviceDim(f.axes[a].parallel) && f.axes[a].iter != IterType::Reduction) return true;
  for (const AxisTransform& tr : tv.transforms) {
    if (tr.kind != AxisTransform::Kind::Split || f.axes[tr.in].iter == IterType::Reduction) continue;
    if (std::find(tv.logical.begin(), tv.logical.end(), tr.in) == tv.logical.end()) continue;
    if ((tr.out != kNone && isDeviceDim(f.axes[tr.out].parallel)) ||
        (tr.out2 != kNone && isDeviceDim(f.axes[tr.out2].parallel)))
      return true;
  }
  return false;
}

}  // namespace fc
