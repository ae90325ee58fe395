#include "analysis/binding.h"

#include <numeric>

#include "analysis/axis_map.h"

namespace fc {
namespace {

Location axisLoc(const Fusion& f, const std::string& file, TensorId t, size_t pos) {
  return Location{file, JsonPointer().key("tensors").index(t).key("logical").index(pos).str(), 0, 0};
}

void conflict(const Fusion& f, DiagnosticSink& sink, const std::string& file, TensorId t, size_t pos,
              ScalarId s, std::optional<int64_t> have, int64_t want, const std::string& why) {
  std::string name = f.scalarName(s).empty() ? "the extent" : std::string(f.scalarName(s));
  auto& d = sink.error(DiagCode::ConflictingBinding,
                       name + " is bound twice to different values: " + (have ? std::to_string(*have) : "?") +
                           " and " + std::to_string(want),
                       axisLoc(f, file, t, pos));
  d.note(why);
}

// Position of axis `a` in the logical domain of `t` (for locations).
size_t logicalIndex(const Fusion& f, TensorId t, AxisId a) {
  const auto& L = f.tensors[t].logical;
  for (size_t i = 0; i < L.size(); ++i)
    if (L[i] == a) return i;
  return 0;
}

}  // namespace

void bindView(const Fusion& f, const BindRequest& req, ScalarEval& ev, DiagnosticSink& sink) {
  // --bind first: user values win and are checked against what inputs say.
  for (const auto& [name, v] : req.user_binds)
    if (auto s = f.findScalar(name)) ev.bind(*s, v, Origin{Origin::Kind::UserBind});
  for (const auto& [s, v] : req.scalars) {
    Origin o{Origin::Kind::ScalarInput};
    if (!ev.bind(s, v, o)) conflict(f, sink, req.file, 0, 0, s, ev.value(s), v.value_or(0), "a scalar input");
  }
  for (const auto& [s, v] : req.forwarded) ev.bind(s, v, Origin{Origin::Kind::Forwarded});

  for (const BoundInput& in : req.tensors) {
    const Tensor& t = f.tensors[in.tensor];
    const Mesh* mesh = t.mesh != kNone && t.mesh < f.meshes.size() ? &f.meshes[t.mesh] : nullptr;
    size_t k = 0;  // index into sizes (non-Reduction axes)
    for (AxisId a : in.domain) {
      const Axis& ax = f.axes[a];
      if (ax.iter == IterType::Reduction) continue;  // binding skips Reduction axes
      size_t pos = logicalIndex(f, in.tensor, a);
      std::optional<int64_t> size;
      if (in.sizes && k < in.sizes->size()) size = (*in.sizes)[k];
      ++k;
      Origin o;
      o.tensor = in.tensor;
      o.axis = a;
      o.axis_pos = static_cast<int32_t>(pos);
      ScalarId target = ax.extent;
      std::optional<int64_t> value = size;
      ParallelType pt = isDeviceDim(ax.parallel) ? ax.parallel : shardingOf(f, in.tensor, pos);
      if (ax.iter == IterType::Broadcast) {
        if (ax.expanded == kNone) continue;  // extent is the constant 1
        target = ax.expanded;
        o.kind = Origin::Kind::Expanded;
      } else if (isDeviceDim(pt) && mesh) {
        o.kind = Origin::Kind::DidMesh;
        int64_t msize = req.era == Era::Head ? mesh->sizeFor(pt) : mesh->size();
        if (req.era != Era::Head && size && *size != 1) {
          auto& d =
              sink.error(DiagCode::DidMeshMismatch,
                         std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos) +
                             " is sharded (" + std::string(parallelTypeName(pt)) +
                             ") and must have local size 1, but the input has size " + std::to_string(*size),
                         axisLoc(f, req.file, in.tensor, pos));
          d.note("nvFuser " + std::string(eraName(req.era)) +
                 " binds a DID axis to the mesh size and expects a size-1 slice per rank");
          continue;
        }
        value = msize > 0 ? std::optional<int64_t>(req.era == Era::Head ? size.value_or(1) * msize : msize)
                          : std::nullopt;
        if (req.era == Era::Head && !size) value = std::nullopt;
      } else if (in.fresh_rfactor && ax.rfactor) {
        o.kind = Origin::Kind::RewriteFresh;
      } else {
        o.kind = Origin::Kind::InputAxis;
      }
      if (!ev.bind(target, value, o)) {
        const Scalar& sc = f.scalars[target];
        if (o.kind == Origin::Kind::DidMesh) {
          auto& d = sink.error(DiagCode::DidMeshMismatch,
                               std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos) +
                                   ": the DID extent is " + std::to_string(ev.value(target).value_or(-1)) +
                                   " but the mesh gives " + std::to_string(value.value_or(-1)),
                               axisLoc(f, req.file, in.tensor, pos));
          d.note(
              "a DID axis's extent must equal the size of the mesh axis it is parallelized on (nvFuser "
              "binds it from the mesh)");
        } else if (sc.kind == ScalarKind::Constant) {
          auto& d = sink.error(DiagCode::BadBinding,
                               "input " + std::string(f.tensorName(in.tensor)) + " axis " +
                                   std::to_string(pos) + " has size " + std::to_string(value.value_or(-1)) +
                                   " but its extent is the constant " + std::to_string(sc.value.i),
                               axisLoc(f, req.file, in.tensor, pos));
          d.note("nvFuser raises \"Tried to bind to a constant value\"");
        } else {
          conflict(f, sink, req.file, in.tensor, pos, target, ev.value(target), value.value_or(0),
                   "bound again by " + std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos));
        }
      }
    }
  }

  // Exact-map propagation over the view's exprs.
  // (No per-call array over all axes of the fusion: bindView runs once per
  // segment view, and an O(axes) setup made that O(segments x axes).)
  std::vector<std::pair<AxisPair, ExprId>> pairs;
  for (ExprId e : req.exprs) {
    const Expr& ex = f.exprs[e];
    for (size_t o = 0; o < ex.outputs.size(); ++o)
      for (size_t i = 0; i < ex.inputs.size(); ++i)
        for (const AxisPair& p : mapProducerConsumer(f, e, i, o)) {
          if (!p.exact) continue;
          pairs.push_back({p, e});
        }
  }
  // Fixpoint: copy a known extent across each exact pair.
  bool changed = true;
  for (int iter = 0; changed && iter < 64; ++iter) {
    changed = false;
    for (const auto& [p, e] : pairs) {
      ScalarId pe = f.axes[p.producer].extent, ce = f.axes[p.consumer].extent;
      if (pe == ce) continue;
      bool pk = ev.isKnown(pe), ck = ev.isKnown(ce);
      if (pk == ck) {
        if (pk) {
          auto pv = ev.value(pe), cv = ev.value(ce);
          if (pv && cv && *pv != *cv && ev.isBoundDirectly(ce)) {
            TensorId ct = f.axes[p.consumer].owner;
            conflict(f, sink, req.file, ct, logicalIndex(f, ct, p.consumer), ce, cv, *pv,
                     "exact-mapped to " + std::string(f.tensorName(f.axes[p.producer].owner)) +
                         " through expr " + std::to_string(e));
          }
        }
        continue;
      }
      AxisId from = pk ? p.producer : p.consumer;
      AxisId to = pk ? p.consumer : p.producer;
      ScalarId target = f.axes[to].extent;
      // Like nvFuser, a known value is bound to every unknown extent of the
      // set, derived ones included (their operands may stay unknown).
      if (f.scalars[target].kind == ScalarKind::Constant) continue;
      Origin o{Origin::Kind::ExactMap};
      o.axis = to;
      o.tensor = f.axes[to].owner;
      o.via_axis = from;
      o.via_expr = e;
      ev.bind(target, ev.value(f.axes[from].extent), o);
      changed = true;
    }
  }
}

}  // namespace fc
