#include "analysis/resharding.h"

#include <algorithm>

#include "analysis/axis_map.h"
#include "ir/op_rules.h"

namespace fc {
namespace {

bool sameMesh(const Fusion& f, MeshId a, MeshId b) {
  if (a == b) return true;
  if (a == kNone || b == kNone) return false;
  return f.meshes[a].devices == f.meshes[b].devices && f.meshes[a].shape == f.meshes[b].shape;
}

// Position of axis `a` in the logical domain of its owner, or -1.
int logicalPos(const Fusion& f, TensorId t, AxisId a) {
  const auto& L = f.tensors[t].logical;
  for (size_t i = 0; i < L.size(); ++i)
    if (L[i] == a) return static_cast<int>(i);
  const auto& R = f.tensors[t].root;
  for (size_t i = 0; i < R.size(); ++i)
    if (R[i] == a) return static_cast<int>(i);
  return -1;
}

// Whether some axis of t (root, logical, or a transform's output) is
// device-parallel: without one, axisSharding gives t no device dim anywhere.
bool hasDeviceAxis(const Fusion& f, TensorId t) {
  const Tensor& tv = f.tensors[t];
  for (const std::vector<AxisId>* dom : {&tv.root, &tv.logical})
    for (AxisId a : *dom)
      if (isDeviceDim(f.axes[a].parallel)) return true;
  for (const AxisTransform& tr : tv.transforms)
    for (AxisId a : {tr.out, tr.out2})
      if (a != kNone && isDeviceDim(f.axes[a].parallel)) return true;
  return false;
}

}  // namespace

ParallelType axisSharding(const Fusion& f, TensorId t, AxisId a) {
  if (isDeviceDim(f.axes[a].parallel)) return f.axes[a].parallel;
  int pos = logicalPos(f, t, a);
  if (pos < 0) return ParallelType::Serial;
  return shardingOf(f, t, static_cast<size_t>(pos));
}

namespace {

// Expr e's axis rule, built on first use and then shared by its operands.
class LazyRule {
 public:
  LazyRule(const Fusion& f, ExprId e, ShapeRule& buffer) : f_(f), e_(e), rule_(buffer) {}
  const ShapeRule* get() {
    if (!built_) {
      ok_ = buildAxisRule(f_, e_, rule_);
      built_ = true;
    }
    return ok_ ? &rule_ : nullptr;
  }

 private:
  const Fusion& f_;
  ExprId e_;
  ShapeRule& rule_;
  bool built_ = false, ok_ = false;
};

bool reshards(const Fusion& f, ExprId eid, size_t i, LazyRule& rule) {
  const Expr& e = f.exprs[eid];
  if (i >= e.inputs.size() || !e.inputs[i].isTensor()) return false;
  // Runs for every expr: the pairs go into a buffer reused across calls.
  thread_local std::vector<AxisPair> pairs;
  TensorId pt = e.inputs[i].id;
  for (size_t o = 0; o < e.outputs.size(); ++o) {
    TensorId ct = e.outputs[o];
    MeshId pm = f.tensors[pt].mesh, cm = f.tensors[ct].mesh;
    if (pm == kNone && cm == kNone) continue;
    if (!sameMesh(f, pm, cm)) return true;
    // No device dim on either side: no pair can differ in one.
    if (!hasDeviceAxis(f, pt) && !hasDeviceAxis(f, ct)) continue;
    const ShapeRule* r = rule.get();
    if (!r) continue;
    pairs.clear();
    appendProducerConsumer(f, eid, *r, i, o, pairs);
    for (const AxisPair& p : pairs) {
      // A broadcast axis holds no data: sharding the consumer's axis needs
      // no communication (every device already has the replicated value).
      if (f.axes[p.producer].iter == IterType::Broadcast) continue;
      ParallelType a = axisSharding(f, pt, p.producer);
      ParallelType b = f.axes[p.consumer].iter == IterType::Reduction ? ParallelType::Serial
                                                                      : axisSharding(f, ct, p.consumer);
      if (a != b && (isDeviceDim(a) || isDeviceDim(b))) return true;
    }
  }
  return false;
}

}  // namespace

bool reshardsInput(const Fusion& f, ExprId eid, size_t i) {
  thread_local ShapeRule buffer;
  LazyRule rule(f, eid, buffer);
  return reshards(f, eid, i, rule);
}

bool isResharding(const Fusion& f, ExprId eid) {
  thread_local ShapeRule buffer;
  LazyRule rule(f, eid, buffer);
  const Expr& e = f.exprs[eid];
  for (size_t i = 0; i < e.inputs.size(); ++i)
    if (reshards(f, eid, i, rule)) return true;
  return false;
}

bool unmappedProducerAxis(const Fusion& f, ExprId eid, AxisId* axis) {
  const Expr& e = f.exprs[eid];
  thread_local std::vector<AxisPair> pairs;
  thread_local ShapeRule buffer;
  LazyRule rule(f, eid, buffer);
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (!e.inputs[i].isTensor()) continue;
    TensorId pt = e.inputs[i].id;
    for (size_t o = 0; o < e.outputs.size(); ++o) {
      TensorId ct = e.outputs[o];
      MeshId pm = f.tensors[pt].mesh, cm = f.tensors[ct].mesh;
      if (pm == kNone || cm == kNone || !sameMesh(f, pm, cm)) continue;
      pairs.clear();
      if (const ShapeRule* r = rule.get()) appendProducerConsumer(f, eid, *r, i, o, pairs);
      for (AxisId a : f.tensors[pt].logical) {
        if (f.axes[a].iter == IterType::Reduction) continue;
        bool mapped = false;
        for (const AxisPair& p : pairs) mapped |= p.producer == a;
        if (!mapped) {
          if (axis) *axis = a;
          return true;
        }
      }
    }
  }
  return false;
}

namespace {

// How many axes expr `eid` reduces from its input `in_idx`, and how many of those are
// device-sharded on the input.
struct ReducedAxes {
  int reduced = 0, sharded = 0;
};
ReducedAxes reducedAxes(const Fusion& f, ExprId eid, size_t in_idx) {
  ReducedAxes r;
  const TensorId in = f.exprs[eid].inputs[in_idx].id;
  for (const AxisPair& p : mapProducerConsumer(f, eid, in_idx)) {
    if (f.axes[p.consumer].iter != IterType::Reduction) continue;
    ++r.reduced;
    if (isDeviceDim(axisSharding(f, in, p.producer))) ++r.sharded;
  }
  return r;
}

}  // namespace

bool isLowerable(const Fusion& f, ExprId eid, const LoweringRules& rules) {
  const Expr& e = f.exprs[eid];
  if (e.op == OpKind::Set || (rules.segment_set_is_set && e.op == OpKind::SegmentSet)) return true;
  const bool is_reduction =
      e.op == OpKind::Sum || e.op == OpKind::Max || e.op == OpKind::Min || e.op == OpKind::Prod;
  const bool is_squeeze = e.op == OpKind::Squeeze && rules.squeeze;
  if (!is_reduction && !is_squeeze) return false;
  if (e.inputs.empty() || !e.inputs[0].isTensor() || e.outputs.size() != 1) return false;
  if (is_squeeze) return true;
  const ReducedAxes r = reducedAxes(f, eid, 0);
  return r.reduced == 1 && r.sharded == 1;
}

namespace {

// The logical axis behind the first loop axis of `t` parallelized on `pt` that is not a Reduction
// (getShardedIterDomain then getLogicalFromLoopId, csrc/multidevice/utils.cpp:233-245 and
// csrc/host_ir/lower_to_communication.cpp:285-303 @ 0e2f0e2590c4), or kNone. A split output leads
// back to the split's input.
AxisId shardedLogicalAxis(const Fusion& f, TensorId t, ParallelType pt) {
  const Tensor& tv = f.tensors[t];
  auto toLogical = [&](AxisId a) -> AxisId {
    for (size_t step = 0; step <= tv.transforms.size(); ++step) {
      if (std::find(tv.logical.begin(), tv.logical.end(), a) != tv.logical.end()) return a;
      bool moved = false;
      for (const AxisTransform& tr : tv.transforms)
        if (tr.kind == AxisTransform::Kind::Split && (tr.out == a || tr.out2 == a)) {
          a = tr.in;
          moved = true;
          break;
        }
      if (!moved) return kNone;
    }
    return kNone;
  };
  auto candidate = [&](AxisId a) {
    return a != kNone && f.axes[a].parallel == pt && f.axes[a].iter != IterType::Reduction;
  };
  for (AxisId a : tv.loopDomain())
    if (candidate(a)) return toLogical(a);
  return kNone;
}

// Whether the mesh has an axis for `pt` (DIDx the innermost; DeviceMesh::hasParallelType).
bool meshHas(const Fusion& f, MeshId m, ParallelType pt) { return m != kNone && f.meshes[m].sizeFor(pt) > 0; }

// haveDifferentShardings(p, c, {pt}) (csrc/multidevice/resharding.cpp:109-175 @ b5207d5f319d): the
// meshes differ and one has an axis for pt, or some mapped pair differs in whether it is on pt.
bool reshardsOn(const Fusion& f, ExprId eid, TensorId pt_in, TensorId ct, size_t in_idx, ParallelType pt) {
  MeshId pm = f.tensors[pt_in].mesh, cm = f.tensors[ct].mesh;
  if (!sameMesh(f, pm, cm)) return meshHas(f, pm, pt) || meshHas(f, cm, pt);
  for (const AxisPair& p : mapProducerConsumer(f, eid, in_idx)) {
    if (f.axes[p.producer].iter == IterType::Broadcast) continue;
    const bool a = axisSharding(f, pt_in, p.producer) == pt;
    const bool b = f.axes[p.consumer].iter != IterType::Reduction && axisSharding(f, ct, p.consumer) == pt;
    if (a != b) return true;
  }
  return false;
}

// The consumer axis `e` maps producer axis `a` to, or kNone.
AxisId mappedConsumer(const Fusion& f, ExprId eid, size_t in_idx, AxisId a) {
  for (const AxisPair& p : mapProducerConsumer(f, eid, in_idx))
    if (p.producer == a) return p.consumer;
  return kNone;
}

// getCommunicationInfo from #5655 (PerDid, csrc/host_ir/lower_to_communication.cpp:311-422 @
// 0e2f0e2590c4) and #5969 (PerChangedDid, :344-430,459-482 @ b5207d5f319d): each DID type is
// classified alone, and more than one result is an error.
Lowering classifyPerDid(const Fusion& f, ExprId eid, size_t in_idx, bool is_set, const LoweringRules& rules) {
  const Expr& e = f.exprs[eid];
  const TensorId pt_in = e.inputs[in_idx].id, ct = e.outputs[0];
  const MeshId pm = f.tensors[pt_in].mesh, cm = f.tensors[ct].mesh;
  const bool same_mesh = sameMesh(f, pm, cm);
  const bool changed_only = rules.classification == LoweringRules::Classification::PerChangedDid;
  Lowering r;
  std::vector<std::pair<ParallelType, CommKind>> found;
  for (ParallelType pt : {ParallelType::DIDx, ParallelType::DIDy, ParallelType::DIDz}) {
    if (changed_only && !reshardsOn(f, eid, pt_in, ct, in_idx, pt)) continue;
    const AxisId p_axis = shardedLogicalAxis(f, pt_in, pt);
    const AxisId c_axis = shardedLogicalAxis(f, ct, pt);
    if (!changed_only && p_axis == kNone && c_axis == kNone) continue;
    // #5655 counts a side as sharded only on a mesh of more than one device; #5969 does not ask.
    const bool p_sh = p_axis != kNone && (changed_only || (pm != kNone && f.meshes[pm].size() > 1));
    const bool c_sh = c_axis != kNone && (changed_only || (cm != kNone && f.meshes[cm].size() > 1));
    CommKind kind = CommKind::None;
    if (is_set) {
      if (!p_sh && !c_sh) {
        if (changed_only) kind = CommKind::Broadcast;  // the meshes differ
      } else if (p_sh && !c_sh) {
        kind = same_mesh ? CommKind::Allgather : CommKind::Gather;
      } else if (!p_sh && c_sh) {
        kind = CommKind::Scatter;
      } else if (mappedConsumer(f, eid, in_idx, p_axis) == c_axis) {
        kind = CommKind::SendRecv;
      } else if (rules.all_to_all) {
        kind = CommKind::AllToAll;
      } else {
        // Before #5705 nvFuser sends the pieces point to point although they sit on other axes.
        r.not_decided = true;
        r.error = "the set moves the " + std::string(parallelTypeName(pt)) +
                  " sharding to another axis, which nvFuser lowers to a SendRecv at this point; what that "
                  "computes is not modelled";
        return r;
      }
    } else {
      if (!p_sh) {
        if (!changed_only) continue;
        r.not_decided = true;
        r.error = "the reduction shards its output on " + std::string(parallelTypeName(pt)) +
                  " without reducing an axis sharded on it, which nvFuser rejects as no reduction-based "
                  "communication; that check is not modelled";
        return r;
      }
      if (!c_sh) {
        kind = same_mesh ? CommKind::Allreduce : CommKind::Reduce;
      } else {
        const AxisId c_of_p = mappedConsumer(f, eid, in_idx, p_axis);
        if (!changed_only && (c_of_p == kNone || f.axes[c_of_p].iter != IterType::Reduction)) continue;
        kind = CommKind::ReduceScatter;
      }
    }
    if (kind != CommKind::None) found.emplace_back(pt, kind);
  }
  if (found.empty()) {
    if (!changed_only) {
      r.kind = CommKind::Broadcast;
      return r;
    }
    r.not_decided = true;
    r.error =
        "no DID type changes its sharding, which nvFuser rejects as no sharding change; that check is "
        "not modelled";
    return r;
  }
  if (found.size() > 1) {
    r.error = "classified one DID type at a time, it needs more than one communication: " +
              std::string(parallelTypeName(found[0].first)) + " gives " +
              std::string(commKindName(found[0].second)) + " and " +
              std::string(parallelTypeName(found[1].first)) + " gives " +
              std::string(commKindName(found[1].second));
    r.check = "OneShardingChange";
    return r;
  }
  r.kind = found[0].second;
  return r;
}

}  // namespace

Lowering lowerToCommunication(const Fusion& f, ExprId eid, const LoweringRules& rules) {
  const Expr& e = f.exprs[eid];
  Lowering r;
  int tensor_inputs = 0;
  for (const auto& v : e.inputs) tensor_inputs += v.isTensor() ? 1 : 0;
  if (tensor_inputs != 1 || e.outputs.size() != 1) {
    r.error = "a communication needs exactly one input and one output tensor; " + std::string(opName(e.op)) +
              " has " + std::to_string(tensor_inputs) + " and " + std::to_string(e.outputs.size());
    r.check = "LoweringNotSupported";
    return r;
  }
  size_t in_idx = 0;
  while (!e.inputs[in_idx].isTensor()) ++in_idx;
  TensorId pt = e.inputs[in_idx].id;
  TensorId ct = e.outputs[0];
  bool p_sharded = isSharded(f, pt);
  bool c_sharded = isSharded(f, ct);
  bool same_mesh = sameMesh(f, f.tensors[pt].mesh, f.tensors[ct].mesh);

  bool is_reduction =
      e.op == OpKind::Sum || e.op == OpKind::Max || e.op == OpKind::Min || e.op == OpKind::Prod;
  bool is_squeeze = e.op == OpKind::Squeeze;
  const bool is_set = e.op == OpKind::Set || (rules.segment_set_is_set && e.op == OpKind::SegmentSet);
  if (rules.classification != LoweringRules::Classification::GlobalFlag && is_reduction) {
    // isLowerableToCommunication still asks for one reduced axis, sharded on the producer.
    auto [reduced, reduced_sharded] = reducedAxes(f, eid, in_idx);
    if (reduced != 1 || reduced_sharded != 1) {
      r.error = reduced != 1
                    ? "a reduction lowers to a communication only when it reduces exactly one axis (this "
                      "one reduces " +
                          std::to_string(reduced) + ")"
                    : "the reduction does not reduce a device-sharded axis";
      r.check = "LoweringNotSupported";
      return r;
    }
  }
  if (rules.classification != LoweringRules::Classification::GlobalFlag && (is_set || is_reduction))
    return classifyPerDid(f, eid, in_idx, is_set, rules);
  if (is_reduction || (rules.squeeze && is_squeeze)) {
    auto [reduced, reduced_sharded] = reducedAxes(f, eid, in_idx);
    if (is_squeeze) {
      // nvFuser lowers any resharding squeeze as the reduction of the producer's sharded axis
      // (csrc/host_ir/lower_to_communication.cpp:487-497, 676-678 @ 81c4b22fd); when the axis it
      // squeezes is not that one, the collective's meaning is not modelled.
      bool squeezes_sharded = false;
      const std::vector<AxisPair> pairs = mapProducerConsumer(f, eid, in_idx);
      for (AxisId a : f.tensors[pt].logical) {
        if (f.axes[a].iter == IterType::Reduction) continue;
        bool mapped = false;
        for (const AxisPair& p : pairs) mapped |= p.producer == a;
        if (!mapped && isDeviceDim(axisSharding(f, pt, a))) squeezes_sharded = true;
      }
      if (!squeezes_sharded) {
        r.not_decided = true;
        r.error =
            "the squeeze changes the sharding of an axis it keeps; nvFuser lowers a resharding squeeze as "
            "the Allreduce of the sharded axis, which fusecheck does not model for a kept axis";
        return r;
      }
      reduced = reduced_sharded = 1;
    }
    if (reduced != 1) {
      r.error =
          "a reduction lowers to a communication only when it reduces exactly one axis (this one reduces " +
          std::to_string(reduced) + ")";
      r.check = "LoweringNotSupported";
      return r;
    }
    if (reduced_sharded != 1) {
      r.error = "the reduction does not reduce a device-sharded axis";
      r.check = "LoweringNotSupported";
      return r;
    }
    if (c_sharded) {
      if (!same_mesh) {
        r.error = "a ReduceScatter needs the same mesh on both sides";
        return r;
      }
      r.kind = CommKind::ReduceScatter;
    } else {
      r.kind = same_mesh ? CommKind::Allreduce : CommKind::Reduce;
    }
    return r;
  }
  if (e.op == OpKind::Set || (rules.segment_set_is_set && e.op == OpKind::SegmentSet)) {
    if (!p_sharded && c_sharded)
      r.kind = CommKind::Scatter;
    else if (p_sharded && !c_sharded)
      r.kind = same_mesh ? CommKind::Allgather : CommKind::Gather;
    else if (!p_sharded && !c_sharded)
      r.kind = CommKind::Broadcast;
    else if (shardedLogicalPos(f, pt, ParallelType::DIDx) == shardedLogicalPos(f, ct, ParallelType::DIDx))
      r.kind = CommKind::SendRecv;
    else if (rules.all_to_all)
      r.kind = CommKind::AllToAll;
    else if (rules.swap_unknown) {
      r.not_decided = true;
      const bool other_types = shardedLogicalPos(f, pt, ParallelType::DIDy) >= 0 ||
                               shardedLogicalPos(f, ct, ParallelType::DIDy) >= 0 ||
                               shardedLogicalPos(f, pt, ParallelType::DIDz) >= 0 ||
                               shardedLogicalPos(f, ct, ParallelType::DIDz) >= 0;
      r.error = other_types
                    ? "both sides are sharded, on more than one DID type, and this nvFuser lowers a set by "
                      "one sharded-or-not flag per side"
                    : "the set moves the sharding to another axis";
    } else {
      r.error =
          "the set moves the sharding to another axis, which this nvFuser cannot express in one "
          "communication";
      r.check = "OneAxisResharding";
    }
    return r;
  }
  r.error = std::string(opName(e.op)) +
            " changes the sharding but is neither a single-axis reduction nor a set, so it cannot be lowered "
            "to a communication";
  r.check = "LoweringNotSupported";
  return r;
}

}  // namespace fc
