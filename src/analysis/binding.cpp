#include "analysis/binding.h"

#include <functional>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "analysis/axis_map.h"
#include "analysis/binding_steps.h"
#include "ir/op_rules.h"
#include "ir/printer.h"

namespace fc {
namespace {

Location axisLoc(const Fusion& f, const std::string& file, TensorId t, size_t pos) {
  return Location::at(file, Place::tensor(t).at(PlaceField::Logical, pos));
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

// Exact-map propagation: copies a known extent across each exact pair
// until nothing changes. The result is the one of sweeping all pairs in
// order, round after round, until a round binds nothing (each visit of a
// pair sees the bindings of the visits before it) -- but a round visits
// only the pairs that can do something in it: a pair is scheduled when one
// of its extents becomes known (directly, or a derived extent whose
// operands became known), into the current round when it comes after the
// pair being visited and into the next round otherwise. A pair whose two
// extents are known and disagree reports a conflict in every round that
// runs, as the sweeps did. O(pairs + scalar-DAG edges below the extents +
// reports), however long a chain has to be followed backwards (sweeps were
// capped at 64 rounds, which could stop before the end of such a chain).
template <class Pair>
void propagateExactPairs(const Fusion& f, const BindRequest& req, ScalarEval& ev, DiagnosticSink& sink,
                         const std::vector<Pair>& pairs) {
  const size_t np = pairs.size();
  if (np == 0) return;
  // Local dense numbering of the scalars involved: the extents of the pairs
  // and, below derived ones, the scalar DAG (operands; size() -> the axis
  // extent it reads), with reverse edges (operand -> users).
  std::unordered_map<ScalarId, uint32_t> local;
  std::vector<ScalarId> scalar_of;
  auto localId = [&](ScalarId s) {
    auto [it, fresh] = local.emplace(s, static_cast<uint32_t>(scalar_of.size()));
    if (fresh) scalar_of.push_back(s);
    return it->second;
  };
  std::vector<std::pair<uint32_t, uint32_t>> pair_edges;  // local scalar -> pair
  pair_edges.reserve(2 * np);
  for (size_t j = 0; j < np; ++j) {
    pair_edges.push_back({localId(pairs[j].pe), static_cast<uint32_t>(j)});
    pair_edges.push_back({localId(pairs[j].ce), static_cast<uint32_t>(j)});
  }
  std::vector<std::pair<uint32_t, uint32_t>> user_edges;  // local operand -> local user
  for (size_t k = 0; k < scalar_of.size(); ++k) {         // grows while walking down
    const ScalarId s = scalar_of[k];
    const Scalar& sc = f.scalars[s];
    if (sc.kind != ScalarKind::Derived) continue;
    auto edge = [&](ScalarId operand) {
      if (operand == kNone) return;
      user_edges.push_back({localId(operand), static_cast<uint32_t>(k)});
    };
    if (sc.op == ScalarOp::Size) {
      // As ScalarEval::evaluate: the expanded extent, else the extent, of
      // non-Reduction logical axis size_dim.
      const Tensor& t = f.tensors[sc.size_of];
      int32_t d = sc.size_dim;
      for (AxisId a : t.logical) {
        if (f.axes[a].iter == IterType::Reduction) continue;
        if (d-- == 0) {
          edge(f.axes[a].expanded != kNone ? f.axes[a].expanded : f.axes[a].extent);
          break;
        }
      }
    } else {
      edge(sc.lhs);
      edge(sc.rhs);
    }
  }
  // Compressed adjacency (counting sort keeps the edges in insertion order).
  auto compress = [](size_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                     std::vector<uint32_t>& start, std::vector<uint32_t>& to) {
    start.assign(n + 1, 0);
    for (const auto& e : edges) ++start[e.first + 1];
    for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    to.resize(edges.size());
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (const auto& e : edges) to[fill[e.first]++] = e.second;
  };
  const size_t ns = scalar_of.size();
  std::vector<uint32_t> pairs_start, pairs_of, users_start, users_of;
  compress(ns, pair_edges, pairs_start, pairs_of);
  compress(ns, user_edges, users_start, users_of);
  std::vector<char> seen_known(ns, 0);  // known, and its pairs / users were woken

  uint32_t round = 0;
  std::vector<uint32_t> scheduled(np, 0);  // last round each pair was scheduled into
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> now;  // rounds >= 1
  std::vector<uint32_t> next;
  uint32_t visiting = 0;
  auto schedule = [&](uint32_t j) {
    if (j > visiting) {
      if (scheduled[j] == round) return;  // round 0 visits every pair in order anyway
      scheduled[j] = round;
      now.push(j);
    } else if (scheduled[j] != round + 1) {
      scheduled[j] = round + 1;
      next.push_back(j);
    }
  };
  // `s` (local) just became known: wake its pairs, and its users that are
  // known now (each scalar is woken once).
  std::vector<uint32_t> work;
  auto becameKnown = [&](uint32_t s) {
    work.push_back(s);
    seen_known[s] = 1;
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      steps::exact_map_steps += (pairs_start[x + 1] - pairs_start[x]) + (users_start[x + 1] - users_start[x]);
      for (uint32_t k = pairs_start[x]; k < pairs_start[x + 1]; ++k) schedule(pairs_of[k]);
      for (uint32_t k = users_start[x]; k < users_start[x + 1]; ++k) {
        uint32_t u = users_of[k];
        if (seen_known[u] || !ev.isKnown(scalar_of[u])) continue;
        seen_known[u] = 1;
        work.push_back(u);
      }
    }
  };
  for (size_t k = 0; k < ns; ++k)
    if (ev.isKnown(scalar_of[k])) seen_known[k] = 1;

  bool changed = false;
  auto visit = [&](uint32_t j) {
    ++steps::exact_map_steps;
    const auto& [p, e, pe, ce] = pairs[j];
    bool pk = ev.isKnown(pe), ck = ev.isKnown(ce);
    if (pk == ck) {
      if (pk) {
        auto pv = ev.value(pe), cv = ev.value(ce);
        if (pv && cv && *pv != *cv && ev.isBoundDirectly(ce)) {
          TensorId ct = f.axes[p.consumer].owner;
          conflict(f, sink, req.file, ct, logicalIndex(f, ct, p.consumer), ce, cv, *pv,
                   "exact-mapped to " + std::string(f.tensorName(f.axes[p.producer].owner)) +
                       " through expr " + std::to_string(e));
          // Known extents keep their values: it reports again in every round.
          if (scheduled[j] != round + 1) {
            scheduled[j] = round + 1;
            next.push_back(j);
          }
        }
      }
      return;  // both unknown: woken when one becomes known
    }
    AxisId from = pk ? p.producer : p.consumer;
    AxisId to = pk ? p.consumer : p.producer;
    ScalarId target = f.axes[to].extent;
    // Like nvFuser, a known value is bound to every unknown extent of the
    // set, derived ones included (their operands may stay unknown).
    if (f.scalars[target].kind == ScalarKind::Constant) return;
    Origin o{Origin::Kind::ExactMap};
    o.axis = to;
    o.tensor = f.axes[to].owner;
    o.via_axis = from;
    o.via_expr = e;
    ev.bind(target, ev.value(f.axes[from].extent), o);
    changed = true;
    uint32_t t = local.at(target);
    if (!seen_known[t]) becameKnown(t);
  };
  // Round 0 visits every pair in order; later rounds what was scheduled.
  for (visiting = 0; visiting < np; ++visiting) visit(visiting);
  while (changed) {
    changed = false;
    ++round;
    for (uint32_t j : next) now.push(j);
    next.clear();
    while (!now.empty()) {
      visiting = now.top();
      now.pop();
      visit(visiting);
    }
  }
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
      // Binding the unsharded size covers every DID sharding (a logical DID
      // axis or a DID loop split); the earlier rules give the mesh rule to a
      // logical DID axis only, and an axis sharded by a loop split binds its
      // local size like any other axis (csrc/expr_evaluator.cpp:131-212 @
      // 889262e2cddb; unsharded sizes from csrc/expr_evaluator.cpp:148-173 @
      // c154e90919c4).
      const ParallelType loop_pt = shardingOf(f, in.tensor, pos);
      ParallelType pt = isDeviceDim(ax.parallel)               ? ax.parallel
                        : req.did == DidBindingRule::Unsharded ? loop_pt
                                                               : ParallelType::Serial;
      if (!isDeviceDim(ax.parallel) && isDeviceDim(loop_pt) && mesh &&
          req.did == DidBindingRule::MeshSizeLocalOne && ax.iter != IterType::Broadcast) {
        const Scalar& sc = f.scalars[ax.extent];
        const int64_t m = mesh->sizeFor(loop_pt);
        if (sc.kind != ScalarKind::Constant) {
          auto& d = sink.report(
              Severity::NotDecided, DiagCode::NotDecided,
              std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos) + " (" +
                  axisToString(f, a) + ") is sharded by a " + std::string(parallelTypeName(loop_pt)) +
                  " loop split: at this point its symbolic extent binds the local size, and "
                  "what nvFuser does with that is not modelled",
              axisLoc(f, req.file, in.tensor, pos));
          d.note("inputs bind their unsharded sizes from \"Unshard tensor sizes before binding\" (#3444)");
        } else if (!size && m > 1 && sc.value.i % m == 0) {
          value = sc.value.i / m;  // the local size meets the constant global extent
        }
      }
      if (ax.iter == IterType::Broadcast) {
        if (ax.expanded == kNone) continue;  // extent is the constant 1
        target = ax.expanded;
        o.kind = Origin::Kind::Expanded;
      } else if (isDeviceDim(pt) && mesh && req.did != DidBindingRule::TensorSize) {
        o.kind = Origin::Kind::DidMesh;
        const bool unsharded = req.did == DidBindingRule::Unsharded;
        // Unsharded, every DID type splitting the axis divides it (DIDx, then DIDy of a part).
        int64_t msize = unsharded ? shardCount(f, in.tensor, pos, *mesh) : mesh->size();
        if (!unsharded && size && *size != 1) {
          auto& d =
              sink.error(DiagCode::DidMeshMismatch,
                         std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos) +
                             " is sharded (" + std::string(parallelTypeName(pt)) +
                             ") and must have local size 1, but the input has size " + std::to_string(*size),
                         axisLoc(f, req.file, in.tensor, pos));
          d.note("binding gives a DID axis the mesh size and expects a size-1 slice per rank");
          d.check = CheckRef{"DidLocalSizeOne",
                             {{"tv", std::string(f.tensorName(in.tensor))},
                              {"id", axisToString(f, a)},
                              {"size", std::to_string(*size)}}};
          continue;
        }
        value =
            msize > 0 ? std::optional<int64_t>(unsharded ? size.value_or(1) * msize : msize) : std::nullopt;
        if (unsharded && !size) value = std::nullopt;
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
          d.check = CheckRef{
              "BindConstant",
              {{"constant", std::to_string(sc.value.i)}, {"value", std::to_string(value.value_or(-1))}}};
        } else {
          conflict(f, sink, req.file, in.tensor, pos, target, ev.value(target), value.value_or(0),
                   "bound again by " + std::string(f.tensorName(in.tensor)) + " axis " + std::to_string(pos));
        }
      }
    }
  }

  // Exact-map propagation over the view's exprs.
  // (No per-call array over all axes or scalars of the fusion: bindView runs
  // once per segment view, and an O(axes) setup made that O(segments x axes).)
  struct ExactPair {
    AxisPair p;
    ExprId e;
    ScalarId pe, ce;  // the two extents (never equal: such pairs copy nothing)
  };
  std::vector<ExactPair> pairs;
  std::vector<AxisPair> mapped;
  thread_local ShapeRule rule;  // built once per expr for all its operands, its buffers reused
  for (ExprId e : req.exprs) {
    const Expr& ex = f.exprs[e];
    if (!buildAxisRule(f, e, rule)) continue;
    for (size_t o = 0; o < ex.outputs.size(); ++o)
      for (size_t i = 0; i < ex.inputs.size(); ++i) {
        mapped.clear();
        appendProducerConsumer(f, e, rule, i, o, mapped);
        for (const AxisPair& p : mapped) {
          if (!p.exact) continue;
          ScalarId pe = f.axes[p.producer].extent, ce = f.axes[p.consumer].extent;
          if (pe == ce) continue;
          pairs.push_back({p, e, pe, ce});
        }
      }
  }
  propagateExactPairs(f, req, ev, sink, pairs);
}

}  // namespace fc
