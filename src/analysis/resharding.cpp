#include "analysis/resharding.h"

#include "analysis/axis_map.h"

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

ParallelType axisSharding(const Fusion& f, TensorId t, AxisId a) {
  if (isDeviceDim(f.axes[a].parallel)) return f.axes[a].parallel;
  int pos = logicalPos(f, t, a);
  if (pos < 0) return ParallelType::Serial;
  return shardingOf(f, t, static_cast<size_t>(pos));
}

}  // namespace

bool isResharding(const Fusion& f, ExprId eid) {
  const Expr& e = f.exprs[eid];
  // Runs for every expr: the pairs go into a buffer reused across calls.
  thread_local std::vector<AxisPair> pairs;
  for (size_t o = 0; o < e.outputs.size(); ++o) {
    TensorId ct = e.outputs[o];
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      if (!e.inputs[i].isTensor()) continue;
      TensorId pt = e.inputs[i].id;
      MeshId pm = f.tensors[pt].mesh, cm = f.tensors[ct].mesh;
      if (pm == kNone && cm == kNone) continue;
      if (!sameMesh(f, pm, cm)) return true;
      pairs.clear();
      appendProducerConsumer(f, eid, i, o, pairs);
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
  }
  return false;
}

Lowering lowerToCommunication(const Fusion& f, ExprId eid, Era era) {
  const Expr& e = f.exprs[eid];
  Lowering r;
  int tensor_inputs = 0;
  for (const auto& v : e.inputs) tensor_inputs += v.isTensor() ? 1 : 0;
  if (tensor_inputs != 1 || e.outputs.size() != 1) {
    r.error = "a communication needs exactly one input and one output tensor; " + std::string(opName(e.op)) +
              " has " + std::to_string(tensor_inputs) + " and " + std::to_string(e.outputs.size());
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
  if (is_reduction || (era == Era::Head && is_squeeze)) {
    int reduced = 0, reduced_sharded = 0;
    for (const AxisPair& p : mapProducerConsumer(f, eid, in_idx)) {
      if (f.axes[p.consumer].iter != IterType::Reduction) continue;
      ++reduced;
      if (isDeviceDim(axisSharding(f, pt, p.producer))) ++reduced_sharded;
    }
    if (is_squeeze) reduced = reduced_sharded = 1;
    if (era != Era::Head && reduced != 1) {
      r.error =
          "a reduction lowers to a communication only when it reduces exactly one axis (this one reduces " +
          std::to_string(reduced) + ")";
      return r;
    }
    if (reduced_sharded != 1) {
      r.error = "the reduction does not reduce exactly one device-sharded axis";
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
  if (e.op == OpKind::Set || (era == Era::Head && e.op == OpKind::SegmentSet)) {
    if (!p_sharded && c_sharded)
      r.kind = CommKind::Scatter;
    else if (p_sharded && !c_sharded)
      r.kind = same_mesh ? CommKind::Allgather : CommKind::Gather;
    else if (!p_sharded && !c_sharded)
      r.kind = CommKind::Broadcast;
    else if (era == Era::Head) {
      // Both sharded: same logical axis -> SendRecv (mesh change), else AllToAll.
      bool same_axis =
          shardedLogicalPos(f, pt, ParallelType::DIDx) == shardedLogicalPos(f, ct, ParallelType::DIDx);
      r.kind = same_axis ? CommKind::SendRecv : CommKind::AllToAll;
    } else {
      r.kind = CommKind::SendRecv;
    }
    return r;
  }
  r.error = std::string(opName(e.op)) + " changes the sharding but is neither a reduction nor a set, so " +
            (era == Era::Head ? "head" : "2024") + " nvFuser cannot lower it to a communication";
  return r;
}

}  // namespace fc
