#include "passes/sharding.h"

#include <algorithm>
#include <cstdint>

#include "analysis/axis_map.h"
#include "ir/live_exprs.h"
#include "ir/printer.h"
#include "ir/topo_order.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc {

namespace {

// Workers for a scan over n exprs: one below kParallelMinExprs.
size_t scanWorkers(size_t n) {
  constexpr size_t kParallelMinExprs = 65536;
  return n >= kParallelMinExprs ? threadsFor(defaultThreads()) : 1;
}

}  // namespace

std::vector<uint8_t> reshardingFlags(const Fusion& f) {
  const size_t n = f.exprs.size();
  std::vector<uint8_t> resharding(n, 0);
  bool any_mesh = false;
  for (const Tensor& t : f.tensors) any_mesh |= t.mesh != kNone;
  if (f.meshes.empty() || !any_mesh) return resharding;
  const size_t w = scanWorkers(n);
  parallelFor(w, [&](size_t k) {
    for (size_t e = n * k / w; e < n * (k + 1) / w; ++e)
      resharding[e] = isResharding(f, static_cast<ExprId>(e));
  });
  return resharding;
}

namespace {

Location exprLoc(const std::string& file, ExprId e) { return Location::at(file, Place::expr(e)); }
Location tensorLoc(const std::string& file, TensorId t) { return Location::at(file, Place::tensor(t)); }

std::string exprText(const Fusion& f, ExprId e) {
  std::string s = "expr " + std::to_string(userExprId(f, e)) + " (" + std::string(opName(f.exprs[e].op));
  if (!f.exprs[e].outputs.empty()) s += " -> " + std::string(f.tensorName(f.exprs[e].outputs[0]));
  return s + ")";
}

// Ops nvFuser builds from a reduction and a division by a scalar it computes
// from extents: a scalar expr in the fusion.
bool hasScalarExpr(const Fusion& f, const Expr& e) {
  if (e.op == OpKind::Mean || e.op == OpKind::Var || e.op == OpKind::VarMean) return true;
  for (const ValueRef& v : e.inputs)
    if (v.isScalar() && f.scalars[v.id].kind == ScalarKind::Derived) return true;
  return false;
}

struct Passes {
  const Fusion& orig;
  const ShardingOptions& o;
  DiagnosticSink& sink;
  ShardingResult& r;
  std::vector<ExprId> order;
  uint32_t next_axis_number = 0;
  int64_t next_tensor_number = 0;

  Fusion& mut() {
    if (!r.rewritten) r.rewritten = std::make_shared<Fusion>(orig);
    return *r.rewritten;
  }
  const Fusion& cur() const { return r.rewritten ? *r.rewritten : orig; }

  void fail(DiagCode code, std::string msg, Location loc, CheckRef check) {
    auto& d = sink.error(code, std::move(msg), std::move(loc));
    d.check = std::move(check);
    r.failed = true;
  }

  // Copies the mesh of tensor input `ref` of `e` onto output `t` and, on the axes of `t` that `e`
  // maps to the reference's, its DID types. Without `keep`, every mapped axis takes the
  // reference's DIDx / Serial (nvFuser's shardAllLike: parallelizeAllLike with {DIDx, Serial},
  // Reduction axes included); with `keep`, `t` keeps its DID axes and gains only the DID types it
  // lacks (shardAllLike with the types getParallelTypesToPropagate leaves, from #3838).
  void shardLike(Fusion& g, ExprId e, size_t ref, TensorId t, bool keep = false) {
    const Expr& x = g.exprs[e];
    const TensorId from_t = x.inputs[ref].id;
    g.tensors[t].mesh = g.tensors[from_t].mesh;
    std::vector<ParallelType> have;
    if (keep)
      for (AxisId a : g.tensors[t].loopDomain())
        if (isDeviceDim(g.axes[a].parallel) &&
            (o.reduction_dids_counted || g.axes[a].iter != IterType::Reduction))
          have.push_back(g.axes[a].parallel);
    for (size_t oi = 0; oi < x.outputs.size(); ++oi) {
      if (x.outputs[oi] != t) continue;
      for (const AxisPair& p : mapProducerConsumer(g, e, ref, oi)) {
        const ParallelType pt = axisSharding(g, from_t, p.producer);
        if (!keep) {
          g.axes[p.consumer].parallel = isDeviceDim(pt) ? pt : ParallelType::Serial;
          continue;
        }
        if (!isDeviceDim(pt) || isDeviceDim(g.axes[p.consumer].parallel) ||
            std::find(have.begin(), have.end(), pt) != have.end())
          continue;
        g.axes[p.consumer].parallel = pt;
        have.push_back(pt);
      }
    }
  }

  // The mesh and DID types nvFuser's op builders gave each output, for ops built after the
  // repro meshed an input (passes/op_build_sharding.h).
  void buildTimeSharding() {
    BuiltSharding b = opBuildSharding(cur(), o.build);
    for (const auto& [e, why] : b.open)
      sink.report(Severity::NotDecided, DiagCode::NotDecided, exprText(cur(), e) + ": " + why,
                  exprLoc(o.file, e));
    if (b.meshes.empty() && b.axes.empty()) return;
    Fusion& g = mut();
    for (auto [t, m] : b.meshes) g.tensors[t].mesh = m;
    for (auto [a, pt] : b.axes) g.axes[a].parallel = pt;
    r.trace.push_back("op builders: " + std::to_string(b.built) + (b.built == 1 ? " output" : " outputs") +
                      " of ops built after an input's mesh took sharding from it (" +
                      std::to_string(b.meshes.size()) + " a mesh, " + std::to_string(b.axes.size()) +
                      (b.axes.size() == 1 ? " axis" : " axes") + " a DID type)");
  }

  bool meshRequirementBefore() {
    const Fusion& f = cur();
    if (o.mesh != MeshRequirement::AtLeastOneInput && o.mesh != MeshRequirement::EveryTvInput) return true;
    std::vector<uint8_t> meshed(f.tensors.size(), 0);
    for (TensorId t = 0; t < f.tensors.size(); ++t) meshed[t] = f.tensors[t].mesh != kNone;
    std::vector<TensorId> tv_in;  // reused: this runs for every expr
    for (ExprId e : order) {
      const Expr& x = f.exprs[e];
      tv_in.clear();
      for (const ValueRef& v : x.inputs)
        if (v.isTensor()) tv_in.push_back(v.id);
      if (o.mesh == MeshRequirement::AtLeastOneInput) {
        if (std::none_of(tv_in.begin(), tv_in.end(), [&](TensorId t) { return meshed[t]; })) {
          fail(DiagCode::MeshMissing,
               exprText(f, e) + " has no tensor input with a mesh, which the sharding propagation requires",
               exprLoc(o.file, e),
               CheckRef{"MeshAtLeastOne", {{"expr", exprToString(f, e, PrintStyle::Y2024)}}});
          return false;
        }
      } else {
        if (tv_in.empty()) continue;  // skipped by the pass
        for (TensorId t : tv_in)
          if (!meshed[t]) {
            auto& d =
                sink.error(DiagCode::MeshMissing,
                           std::string(f.tensorName(t)) + " has no mesh, but " + exprText(f, e) +
                               " takes it: every tensor input of a multi-device fusion's exprs needs one",
                           tensorLoc(o.file, t));
            d.note(f.tensors[t].definition == kNone
                       ? std::string(f.tensorName(t)) +
                             " is a fusion input: propagation never gives one a mesh"
                       : std::string(f.tensorName(t)) + " is made by an expr without a meshed tensor input");
            d.check = CheckRef{"MeshPerInput", {{"tv", tensorToString(f, t, PrintStyle::Y2024)}}};
            r.failed = true;
            return false;
          }
      }
      if (o.propagate)
        for (TensorId t : x.outputs)
          if (!meshed[t] && !tv_in.empty()) meshed[t] = 1;
    }
    return true;
  }

  // The DID axes of `t`'s loop domain.
  // numDeviceDims: the DID loop axes, Reduction axes among them until #4353 (csrc/multidevice/
  // utils.cpp:293-298 @ 30cd9355d017).
  size_t didCount(const Fusion& f, TensorId t) const {
    size_t n = 0;
    for (AxisId a : f.tensors[t].loopDomain())
      n += isDeviceDim(f.axes[a].parallel) &&
           (o.reduction_dids_counted || f.axes[a].iter != IterType::Reduction);
    return n;
  }

  // The inputs of `x` propagation copies, in turn (nvFuser's reference inputs at this point).
  std::vector<size_t> references(const Fusion& f, const Expr& x) const {
    auto meshed = [&](size_t i) {
      return i < x.inputs.size() && x.inputs[i].isTensor() && f.tensors[x.inputs[i].id].mesh != kNone;
    };
    std::vector<size_t> all;
    for (size_t i = 0; i < x.inputs.size(); ++i)
      if (meshed(i)) all.push_back(i);
    if (all.empty()) return all;
    switch (o.reference) {
      case ReferenceChoice::FirstMeshed: return {all.front()};
      case ReferenceChoice::MostParallel: {
        size_t best = all.front();
        for (size_t i : all)
          if (didCount(f, x.inputs[i].id) > didCount(f, x.inputs[best].id)) best = i;
        return {best};
      }
      case ReferenceChoice::WeightsFirst: {
        std::vector<size_t> order;
        if (x.op == OpKind::Matmul) order = {1, 0};
        if (x.op == OpKind::Linear) order = {1, 2, 0};
        if (!order.empty()) {
          std::vector<size_t> r;
          for (size_t i : order)
            if (meshed(i)) r.push_back(i);
          return r;
        }
        std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) {
          const TensorId ta = x.inputs[a].id, tb = x.inputs[b].id;
          const size_t da = didCount(f, ta), db = didCount(f, tb);
          if (da != db) return da > db;
          return f.tensors[ta].loopDomain().size() > f.tensors[tb].loopDomain().size();
        });
        return all;
      }
    }
    return all;
  }

  // Sets every DID type on a Reduction axis of `t` (logical or loop) to Serial; returns how many.
  static size_t resetReductionDids(Fusion& g, TensorId t) {
    size_t n = 0;
    auto reset = [&](AxisId a) {
      if (g.axes[a].iter == IterType::Reduction && isDeviceDim(g.axes[a].parallel)) {
        g.axes[a].parallel = ParallelType::Serial;
        ++n;
      }
    };
    for (AxisId a : g.tensors[t].logical) reset(a);
    for (AxisId a : g.tensors[t].loop) reset(a);
    return n;
  }

  // Before #4209, a reduction whose output keeps the producer axis's DID type on the axis it
  // reduces is no resharding: each device reduces its own piece and nothing combines them.
  void localReductionsOpen() {
    if (!o.reduction_did_stays_local) return;
    const Fusion& f = cur();
    for (ExprId e : order) {
      const Expr& x = f.exprs[e];
      if (x.outputs.empty()) continue;
      for (size_t i = 0; i < x.inputs.size(); ++i) {
        if (!x.inputs[i].isTensor()) continue;
        const TensorId p = x.inputs[i].id;
        // Compared as this nvFuser does, every pair the same, and one a DID kept on a Reduction axis.
        bool kept = false, differs = false;
        for (size_t oi = 0; oi < x.outputs.size() && !differs; ++oi) {
          const TensorId c = x.outputs[oi];
          if (f.tensors[p].mesh != f.tensors[c].mesh) differs = true;
          for (const AxisPair& m : mapProducerConsumer(f, e, i, oi)) {
            if (f.axes[m.producer].iter == IterType::Broadcast) continue;
            const ParallelType a = axisSharding(f, p, m.producer), b = axisSharding(f, c, m.consumer);
            if (a != b && (isDeviceDim(a) || isDeviceDim(b))) differs = true;
            if (isDeviceDim(a) && a == b && f.axes[m.consumer].iter == IterType::Reduction) kept = true;
          }
        }
        if (!kept || differs) continue;
        auto& d = sink.report(
            Severity::NotDecided, DiagCode::NotDecided,
            exprText(f, e) + " reduces a device-sharded axis into a Reduction axis that keeps its DID type",
            exprLoc(o.file, e));
        d.note(
            "before #4209 nvFuser's resharding check does not treat a DID axis reduced into a Reduction axis "
            "of "
            "the same DID type as a change (haveDifferentShardings, csrc/multidevice/utils.cpp:169 @ "
            "c9f451c5fca2; "
            "the change is counted from csrc/multidevice/utils.cpp:529 @ 8e208ccc0e80), so the reduction "
            "runs on each device's piece and nothing combines the partial results; that run is not modelled");
        break;
      }
    }
  }

  void propagate() {
    size_t changed = 0, reset = 0;
    std::vector<TensorId> targets;
    for (ExprId e : order) {
      const Fusion& f = cur();
      const Expr& x = f.exprs[e];
      targets.clear();
      for (TensorId t : x.outputs)
        if (f.tensors[t].mesh == kNone) targets.push_back(t);
      if (targets.empty()) continue;
      const std::vector<size_t> refs = references(f, x);
      if (refs.empty()) continue;
      Fusion& g = mut();
      for (TensorId t : targets) {
        if (o.keep_target_types)
          for (size_t ref : refs) shardLike(g, e, ref, t, /*keep=*/true);
        else
          shardLike(g, e, refs.front(), t);
        ++changed;
        if (o.reduction_did_reset == ReductionDidScope::PropagatedOnly) reset += resetReductionDids(g, t);
      }
    }
    if (o.reduction_did_reset == ReductionDidScope::AllTensors) {
      const Fusion& f = cur();
      bool any = false;
      for (AxisId a = 0; a < f.axes.size() && !any; ++a)
        any = f.axes[a].iter == IterType::Reduction && isDeviceDim(f.axes[a].parallel);
      if (any) {
        Fusion& g = mut();
        for (TensorId t = 0; t < g.tensors.size(); ++t) reset += resetReductionDids(g, t);
      }
    }
    if (!changed && !reset) return;
    if (!changed) {
      r.trace.push_back("propagate shardings: no tensor without a mesh; " + std::to_string(reset) +
                        " Reduction axes reset to Serial");
      return;
    }
    std::string how;
    switch (o.reference) {
      case ReferenceChoice::FirstMeshed: how = "their first meshed input's mesh and DIDx"; break;
      case ReferenceChoice::MostParallel:
        how = "the mesh and DIDx of their meshed input with the most DID axes";
        break;
      case ReferenceChoice::WeightsFirst:
        how = "the mesh and the DID types they lacked from their meshed inputs, weights first";
        break;
    }
    r.trace.push_back("propagate shardings: " + std::to_string(changed) + " tensors without a mesh took " +
                      how + (reset ? " (" + std::to_string(reset) + " Reduction axes reset to Serial)" : ""));
  }

  // From #3054, after the forward walk, consumers first: a tensor input of an expr that has no
  // mesh takes the mesh of the expr's meshed output (the first one; from #3838 the one with the
  // most DID axes, then the most loop axes), and from #3838 an input that is not a fusion input
  // and had no mesh or no DID axis also takes that output's DID types on the axes the expr maps
  // (shardAllLike from the output); a DID type the output holds on a loop split reaches it only
  // from #4353 (csrc/preseg_passes/propagate_shardings.cpp:267-279 @ 30cd9355d017). Before #3054,
  // nothing reaches a fusion input without a mesh.
  // csrc/preseg_passes/propagate_shardings.cpp:74-97 @ ab21286a5 (#3054), :270-305 @ c9d2cc9d8
  // (#3838); at head the same walk sets the mesh in transformLoopDomain,
  // csrc/multidevice/propagation.cpp:103-105 @ 99b644647.
  void backpropagate() {
    size_t meshed = 0, sharded = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const ExprId e = *it;
      size_t ref = SIZE_MAX;
      {
        const Fusion& f = cur();
        const Expr& x = f.exprs[e];
        for (size_t oi = 0; oi < x.outputs.size(); ++oi) {
          const TensorId t = x.outputs[oi];
          if (f.tensors[t].mesh == kNone) continue;
          if (ref == SIZE_MAX) {
            ref = oi;
            if (!o.backprop_dids) break;
            continue;
          }
          const TensorId b = x.outputs[ref];
          const size_t dt = didCount(f, t), db = didCount(f, b);
          if (dt > db || (dt == db && f.tensors[t].loopDomain().size() > f.tensors[b].loopDomain().size()))
            ref = oi;
        }
        if (ref == SIZE_MAX) continue;
        bool any = false;
        for (const ValueRef& v : x.inputs)
          if (v.isTensor())
            any |= f.tensors[v.id].mesh == kNone ||
                   (o.backprop_dids && f.tensors[v.id].definition != kNone && didCount(f, v.id) == 0);
        if (!any) continue;
      }
      Fusion& g = mut();
      const TensorId out = g.exprs[e].outputs[ref];
      for (size_t i = 0; i < g.exprs[e].inputs.size(); ++i) {
        const ValueRef v = g.exprs[e].inputs[i];
        if (!v.isTensor()) continue;
        const TensorId p = v.id;
        const bool no_mesh = g.tensors[p].mesh == kNone;
        const bool shard =
            o.backprop_dids && g.tensors[p].definition != kNone && (no_mesh || didCount(g, p) == 0);
        if (no_mesh) {
          g.tensors[p].mesh = g.tensors[out].mesh;
          ++meshed;
          if (g.tensors[p].definition == kNone) r.inputs_meshed_back.push_back(p);
        }
        if (!shard) continue;
        for (const AxisPair& m : mapProducerConsumer(g, e, i, ref)) {
          const ParallelType pt = axisSharding(g, out, m.consumer);
          if (!isDeviceDim(pt) || isDeviceDim(g.axes[m.producer].parallel)) continue;
          // A DID on a loop split of the consumer's axis: no DID transform reached the input
          // before #4353.
          if (!o.backprop_loop_split && !isDeviceDim(g.axes[m.consumer].parallel)) continue;
          g.axes[m.producer].parallel = pt;
          ++sharded;
        }
      }
    }
    if (meshed || sharded)
      r.trace.push_back(
          "back-propagate meshes: " + std::to_string(meshed) +
          (meshed == 1 ? " tensor input took the mesh of its" : " tensor inputs took the mesh of their") +
          " consumer's output" +
          (o.backprop_dids ? ", and " + std::to_string(sharded) + (sharded == 1 ? " axis" : " axes") +
                                 " a DID type from it"
                           : std::string()));
  }

  bool meshRequirementAfter() {
    if (o.mesh != MeshRequirement::AllOrNone && o.mesh != MeshRequirement::SomeWithout) return true;
    const Fusion& f = cur();
    TensorId with = kNone, without = kNone;
    // Fusion::allTvs(): the tensors of the exprs nvFuser sees, and the inputs
    // (validateMeshes, csrc/preseg_passes/finalize_multidevice_domains.cpp:28-43 @ 5ae31f283).
    // Only a copy without dead exprs (ir/live_exprs.h) has tensors no expr touches.
    const std::vector<uint8_t> used = f.expr_origin.empty() ? std::vector<uint8_t>() : usedTensors(f);
    for (TensorId t = 0; t < f.tensors.size(); ++t) {
      if (!used.empty() && !used[t]) continue;
      if (f.tensors[t].mesh != kNone) {
        if (with == kNone) with = t;
      } else if (without == kNone) {
        without = t;
      }
    }
    if (with == kNone || without == kNone) return true;
    std::string msg = std::string(f.tensorName(without)) + " has no mesh while " +
                      std::string(f.tensorName(with)) +
                      " has one: after propagation every tensor must have a mesh, or none";
    if (o.mesh == MeshRequirement::AllOrNone)
      fail(DiagCode::MeshMissing, msg, tensorLoc(o.file, without),
           CheckRef{"MeshAllOrNone",
                    {{"tv", std::string(f.tensorName(with))}, {"tv2", std::string(f.tensorName(without))}}});
    else
      fail(DiagCode::MeshMissing, msg, tensorLoc(o.file, without), CheckRef{"MeshSomeWithout", {}});
    return false;
  }

  bool scalarExprs() {
    if (!o.reject_scalar_exprs) return true;
    const Fusion& f = cur();
    for (ExprId e : order) {
      if (!hasScalarExpr(f, f.exprs[e])) continue;
      auto& d = sink.error(
          DiagCode::ScalarExprInMultiDevice,
          exprText(f, e) + " needs a scalar expr, which the sharding passes of this nvFuser reject",
          exprLoc(o.file, e));
      d.note(
          "insertReshardings asks isLowerableToCommunication about every expr of the fusion, scalar ones "
          "included, and that rejects an expr without tensor outputs");
      d.check = CheckRef{"NonTvOp", {{"expr", exprText(f, e)}}};
      r.failed = true;
      return false;
    }
    return true;
  }

  bool unmappedAxes() {
    if (!o.unmapped_axis_error) return true;
    const Fusion& f = cur();
    // The first expr in order with an unmapped producer axis.
    const size_t n = order.size();
    const size_t at = firstWhere(n, scanWorkers(n), [&](size_t i) {
      AxisId unused = kNone;
      return unmappedProducerAxis(f, order[i], &unused);
    });
    if (at < n) {
      const ExprId e = order[at];
      AxisId a = kNone;
      unmappedProducerAxis(f, e, &a);
      TensorId p = f.axes[a].owner, c = f.exprs[e].outputs[0];
      auto& d = sink.error(DiagCode::UnmappedProducerAxis,
                           exprText(f, e) + " drops axis " + axisToString(f, a) + " of " +
                               std::string(f.tensorName(p)) +
                               ", which this nvFuser's resharding check cannot handle",
                           exprLoc(o.file, e));
      d.note(
          "haveDifferentShardings maps every producer axis to its consumer and fails on one that has none");
      d.check = CheckRef{"UnmappedProducerAxis",
                         {{"p", std::string(f.tensorName(p))},
                          {"id", axisToString(f, a)},
                          {"c", std::string(f.tensorName(c))}}};
      r.failed = true;
      return false;
    }
    return true;
  }

  TensorId newSetOutput(Fusion& g, TensorId like) {
    std::vector<AxisId> axes;
    for (AxisId a : g.tensors[like].logical) {
      const Axis& ax = g.axes[a];
      if (ax.iter == IterType::Reduction) continue;
      axes.push_back(g.addAxis(next_axis_number++, ax.iter, ax.parallel, ax.extent, ax.expanded));
    }
    std::string name = "T" + std::to_string(next_tensor_number++);
    return g.addTensor(name, g.tensors[like].dtype, MemoryType::Local, std::move(axes), g.tensors[like].mesh);
  }

  void insertAfter(ExprId e) {
    Fusion& g = mut();
    TensorId out = g.exprs[e].outputs[0];
    // The set's output keeps what `out` was; `out` takes its input's sharding.
    TensorId moved = newSetOutput(g, out);
    size_t ref = 0;
    while (!g.exprs[e].inputs[ref].isTensor()) ++ref;
    for (ExprId u = 0; u < g.exprs.size(); ++u)
      for (ValueRef& v : g.exprs[u].inputs)
        if (v.isTensor() && v.id == out) v.id = moved;
    for (TensorId& t : g.outputs)
      if (t == out) t = moved;
    ExprId s = g.addExpr(OpKind::Set, {ValueRef::tensor(out)}, {moved});
    shardLike(g, e, ref, out);
    r.inserted.push_back({s, e});
  }

  void insertBefore(ExprId e) {
    Fusion& g = mut();
    for (size_t i = 0; i < g.exprs[e].inputs.size(); ++i) {
      if (!reshardsInput(g, e, i)) continue;
      TensorId in = g.exprs[e].inputs[i].id;
      TensorId copy = newSetOutput(g, in);
      // The copy takes the output's mesh and, where e maps it, its DIDx.
      g.tensors[copy].mesh = g.tensors[g.exprs[e].outputs[0]].mesh;
      const auto& in_dom = g.tensors[in].logical;
      std::vector<AxisId> in_axes;
      for (AxisId a : in_dom)
        if (g.axes[a].iter != IterType::Reduction) in_axes.push_back(a);
      for (AxisId a : g.tensors[copy].logical) g.axes[a].parallel = ParallelType::Serial;
      for (const AxisPair& p : mapProducerConsumer(g, e, i, 0)) {
        auto it = std::find(in_axes.begin(), in_axes.end(), p.producer);
        if (it == in_axes.end()) continue;
        AxisId to = g.tensors[copy].logical[static_cast<size_t>(it - in_axes.begin())];
        TensorId ct = g.exprs[e].outputs[0];
        const auto& L = g.tensors[ct].logical;
        size_t k = 0;
        while (k < L.size() && L[k] != p.consumer) ++k;
        ParallelType pt = isDeviceDim(g.axes[p.consumer].parallel) ? g.axes[p.consumer].parallel
                          : k < L.size()                           ? shardingOf(g, ct, k)
                                                                   : ParallelType::Serial;
        if (g.axes[p.consumer].iter == IterType::Reduction) pt = ParallelType::Serial;
        g.axes[to].parallel = isDeviceDim(pt) ? pt : ParallelType::Serial;
      }
      ExprId s = g.addExpr(OpKind::Set, {ValueRef::tensor(in)}, {copy});
      g.exprs[e].inputs[i] = ValueRef::tensor(copy);
      r.inserted.push_back({s, e});
    }
  }

  // `resharding`: reshardingFlags(cur()).
  void insertReshardings(const std::vector<uint8_t>& resharding) {
    // Which exprs need a set: resharding and not lowerable, in the order of
    // the fusion before the pass (a set added for one expr changes no other).
    const Fusion& f = cur();
    std::vector<ExprId> after, before;
    for (ExprId e : order) {
      if (!resharding[e] || isLowerable(f, e, o.lowering)) continue;
      if (f.exprs[e].outputs.size() != 1) continue;  // reported as unlowerable by the segmenter
      (o.reshard_after && f.exprs[e].inputs.size() == 1 ? after : before).push_back(e);
    }
    if (after.empty() && before.empty()) return;
    // Numbers for what is added: after the fusion's own.
    for (const Axis& a : f.axes) next_axis_number = std::max(next_axis_number, a.number + 1);
    for (TensorId t = 0; t < f.tensors.size(); ++t)
      next_tensor_number = std::max(next_tensor_number, f.tensorNumber(t) + 1);
    for (auto it = after.rbegin(); it != after.rend(); ++it) insertAfter(*it);
    for (ExprId e : before) insertBefore(e);
    mut().rebuildUses();
    r.trace.push_back("insert reshardings: " + std::to_string(r.inserted.size()) + " sets added (" +
                      std::to_string(after.size()) + " after a one-input expr, " +
                      std::to_string(before.size()) + " exprs resharded before)");
  }
};

}  // namespace

ShardingResult runShardingPasses(const Fusion& f, const ShardingOptions& o, DiagnosticSink& sink) {
  ShardingResult r;
  if (f.segmentation) {
    r.trace.push_back(
        "the repro carries its segmentation, a dump taken after the sharding passes: not replayed");
    r.resharding = reshardingFlags(f);
    return r;
  }
  PhaseScope order_phase("producer-first order", PhaseScope::Detail{});
  Passes p{f, o, sink, r, topoOrder(f)};
  order_phase.stop();
  PhaseScope check_phase("mesh requirements, propagation", PhaseScope::Detail{});
  p.buildTimeSharding();
  bool ok = p.meshRequirementBefore();
  if (ok && o.propagate) p.propagate();
  if (ok && o.propagate && o.backprop_meshes) p.backpropagate();
  if (ok) ok = p.meshRequirementAfter();
  if (ok) p.localReductionsOpen();
  check_phase.stop();
  PhaseScope unmapped_phase("unmapped axes, scalar exprs", PhaseScope::Detail{});
  if (ok) ok = p.unmappedAxes();
  if (ok) ok = p.scalarExprs();
  unmapped_phase.stop();
  PhaseScope flags_phase("resharding flags", PhaseScope::Detail{});
  r.resharding = reshardingFlags(p.cur());
  flags_phase.stop();
  if (ok && o.insert_reshardings) {
    PhaseScope insert_phase("insert reshardings", PhaseScope::Detail{});
    p.insertReshardings(r.resharding);
    if (!r.inserted.empty()) r.resharding = reshardingFlags(p.cur());
  }
  if (r.inserted.empty()) r.order = std::move(p.order);
  return r;
}

}  // namespace fc
