#include "passes/op_build_sharding.h"

#include <algorithm>

#include "analysis/axis_map.h"
#include "ir/constant_scalar.h"
#include "ir/op_rules.h"

namespace fc {

namespace {

enum class Step : uint8_t {
  NewOutput,
  Reduction,
  Broadcast,
  Permute,
  Squeeze,
  Expand,
  Resize,
  Cat,
  Matmul,
  Linear
};

// The steps nvFuser's builder of `x`'s output `oi` goes through; empty: a
// builder that takes nothing from its inputs (factories, dynamic reshape,
// opaque ops).
std::vector<Step> chainOf(const Fusion& f, const Expr& x, size_t oi) {
  using S = Step;
  std::vector<Step> c;
  switch (opInfo(x.op).category) {
    case OpCategory::Set:
    case OpCategory::Cast:
    case OpCategory::Unary:
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Ternary: return {S::NewOutput};
    case OpCategory::Matmul: return {x.op == OpKind::Linear ? S::Linear : S::Matmul};
    case OpCategory::Reduction:
      if (x.op == OpKind::Mean)
        c = {S::Reduction, S::NewOutput};
      else if (x.op == OpKind::Var)
        c = {S::NewOutput, S::Reduction, S::NewOutput};
      else if (x.op == OpKind::VarMean && oi == 0)
        c = {S::Reduction, S::NewOutput};
      else
        c = {S::Reduction};
      if (x.attrs.keepdim) c.push_back(S::Broadcast);
      return c;
    case OpCategory::Shape: break;
    default: return {};
  }
  switch (x.op) {
    case OpKind::Broadcast: return {S::Broadcast};
    case OpKind::BroadcastInDim: {
      c = {S::Broadcast};
      for (AxisId a : f.tensors[x.outputs[oi]].logical)
        if (f.axes[a].expanded != kNone) return {S::Broadcast, S::Expand};
      return c;
    }
    case OpKind::Expand: return {S::Expand};
    case OpKind::Squeeze: return {S::Squeeze};
    case OpKind::Permute: return {S::Permute};
    case OpKind::Slice:
    case OpKind::Pad: return {S::Resize};
    case OpKind::Cat: return {S::Cat};
    default: return {};
  }
}

bool passesMesh(Step s, const OpBuildRules& r) {
  switch (s) {
    case Step::NewOutput: return r.new_output_mesh;
    case Step::Reduction: return r.reduction;
    case Step::Broadcast:
    case Step::Squeeze: return r.broadcast_squeeze_mesh;
    case Step::Permute: return r.permute_mesh;
    case Step::Linear: return r.linear_mesh;
    default: return false;  // Expand, Resize, Cat, Matmul
  }
}

// Whether step `s` passes the DID type of producer axis `p` on to consumer axis `c`.
bool passesDid(Step s, const OpBuildRules& r, const Axis& p, const Axis& c, const AxisPair& pair,
               bool keepdim) {
  const bool promoted = r.new_output_dids && (r.broadcast_axis_dids || p.iter != IterType::Broadcast);
  switch (s) {
    case Step::NewOutput:
    case Step::Matmul:
    case Step::Linear: return promoted;
    case Step::Cat: return promoted && pair.exact;
    case Step::Reduction:
      return r.reduction && c.iter != IterType::Reduction &&
             !(keepdim && c.iter == IterType::Broadcast && p.iter != IterType::Broadcast);
    case Step::Broadcast: return r.broadcast_dids;
    case Step::Resize: return pair.exact;
    default: return true;  // Permute, Squeeze, Expand
  }
}

}  // namespace

BuiltSharding opBuildSharding(const Fusion& f, const OpBuildRules& rules) {
  BuiltSharding out;
  if (std::none_of(f.tensors.begin(), f.tensors.end(),
                   [](const Tensor& t) { return t.mesh_set_at != kMeshSetAfterDefinition; }))
    return out;
  // What each tensor had when later ops were built: the repro's own mesh and
  // parallel types from mesh_set_at on, else what its builder gave it.
  std::vector<MeshId> built_mesh(f.tensors.size(), kNone);
  std::vector<ParallelType> built_did(f.axes.size(), ParallelType::Serial);
  auto setBy = [&](TensorId t, ExprId e) { return f.tensors[t].mesh_set_at <= e; };
  auto meshAt = [&](TensorId t, ExprId e) {
    return setBy(t, e) && f.tensors[t].mesh != kNone ? f.tensors[t].mesh : built_mesh[t];
  };
  auto didAt = [&](TensorId t, AxisId a, ExprId e) {
    return setBy(t, e) && isDeviceDim(f.axes[a].parallel) ? f.axes[a].parallel : built_did[a];
  };
  std::vector<AxisPair> pairs;
  const ConstantValues constants(f);
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    const Expr& x = f.exprs[e];
    bool sharded_input = false;
    for (const ValueRef& v : x.inputs) {
      if (!v.isTensor()) continue;
      if (meshAt(v.id, e) != kNone) sharded_input = true;
      for (AxisId a : f.tensors[v.id].logical) sharded_input |= isDeviceDim(didAt(v.id, a, e));
    }
    if (!sharded_input) continue;
    if (x.op == OpKind::Reshape && isStaticReshape(f, x, constants)) {
      const TensorId in = x.inputs[0].id;
      for (AxisId a : f.tensors[in].logical)
        if (isDeviceDim(didAt(in, a, e))) {
          out.open.push_back({e,
                              "a static reshape of a tensor with a DID axis, built after its mesh: which "
                              "axes nvFuser's merges and splits give a DID type is not replayed"});
          break;
        }
      if (rules.static_reshape_mesh && meshAt(in, e) != kNone) {
        const TensorId t = x.outputs[0];
        built_mesh[t] = meshAt(in, e);
        if (f.tensors[t].mesh == kNone) out.meshes.push_back({t, built_mesh[t]});
        ++out.built;
      }
      continue;
    }
    for (size_t oi = 0; oi < x.outputs.size(); ++oi) {
      const std::vector<Step> chain = chainOf(f, x, oi);
      if (chain.empty()) continue;
      const TensorId t = x.outputs[oi];
      // The mesh, when every step passes it: a reduction's or linear's input's, else the first
      // meshed input's.
      MeshId mesh = kNone;
      if (std::all_of(chain.begin(), chain.end(), [&](Step s) { return passesMesh(s, rules); })) {
        if (chain.front() == Step::Linear || chain.front() == Step::Reduction)
          mesh = meshAt(x.inputs[0].id, e);
        else
          for (size_t i = 0; i < x.inputs.size() && mesh == kNone; ++i)
            if (x.inputs[i].isTensor()) mesh = meshAt(x.inputs[i].id, e);
      }
      bool took = mesh != kNone;
      built_mesh[t] = mesh;
      if (mesh != kNone && f.tensors[t].mesh == kNone) out.meshes.push_back({t, mesh});
      // Per axis the first input's DID type that every step passes on.
      const bool reduction_chain = std::find(chain.begin(), chain.end(), Step::Reduction) != chain.end();
      for (size_t i = 0; i < x.inputs.size(); ++i) {
        if (!x.inputs[i].isTensor() || (reduction_chain && i != 0)) continue;
        pairs.clear();
        appendProducerConsumer(f, e, i, oi, pairs);
        for (const AxisPair& p : pairs) {
          const ParallelType pt = didAt(x.inputs[i].id, p.producer, e);
          if (!isDeviceDim(pt) || isDeviceDim(built_did[p.consumer])) continue;
          const Axis& pa = f.axes[p.producer];
          const Axis& ca = f.axes[p.consumer];
          if (!std::all_of(chain.begin(), chain.end(),
                           [&](Step s) { return passesDid(s, rules, pa, ca, p, x.attrs.keepdim); }))
            continue;
          built_did[p.consumer] = pt;
          took = true;
          if (!isDeviceDim(ca.parallel)) out.axes.push_back({p.consumer, pt});
        }
      }
      if (took) ++out.built;
    }
  }
  return out;
}

}  // namespace fc
