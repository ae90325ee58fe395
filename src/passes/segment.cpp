#include "passes/segment.h"

#include <algorithm>
#include <optional>
#include <queue>

#include "analysis/resharding.h"
#include "ir/live_exprs.h"
#include "passes/sharding.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/union_find.h"

namespace fc {

bool isMultiDevice(const Fusion& f) {
  // A mesh id indexes f.meshes: without meshes no tensor can be placed on
  // one, and the scan (a cache line per tensor) is skipped.
  if (f.meshes.empty()) return false;
  for (const Tensor& t : f.tensors)
    if (t.mesh != kNone) return true;
  return false;
}

std::string describeSegment(const Fusion& f, const Segment& s) {
  if (s.kind == SegmentKind::Communication) return std::string(commKindName(s.comm));
  std::string out = "compute: ";
  std::vector<std::string_view> seen;
  for (ExprId e : s.exprs) {
    std::string_view n = exprOpName(f.exprs[e]);
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    if (!seen.empty()) out += ", ";
    out += n;
    seen.push_back(n);
  }
  return out;
}

std::string exprLabel(const Fusion& f, ExprId e) {
  std::string s = "expr " + std::to_string(userExprId(f, e)) + " (" + std::string(exprOpName(f.exprs[e]));
  if (!f.exprs[e].outputs.empty()) s += " -> " + std::string(f.tensorName(f.exprs[e].outputs[0]));
  return s + ")";
}

namespace {

std::string schedulerFor(const Fusion& f, const std::vector<ExprId>& exprs) {
  bool matmul = false, reduction = false;
  for (ExprId e : exprs) {
    OpCategory c = opInfo(f.exprs[e].op).category;
    matmul |= c == OpCategory::Matmul;
    reduction |= c == OpCategory::Reduction;
  }
  if (matmul) return "expr_eval";
  if (reduction) return "reduction";
  return "pointwise";
}

// Every expr's operands and outputs as flat arrays (CSR), with each operand's
// producer, gathered in one pass over the exprs: the passes below then read
// a few bytes per operand in sequence instead of chasing each expr's heap
// vectors and each operand tensor's cache line (a million exprs and tensors
// fit no cache).
struct Operands {
  std::vector<uint32_t> in_begin, out_begin;  // per expr, n + 1 entries
  std::vector<ValueRef> in;
  std::vector<ExprId> in_producer;  // kNone: a scalar or a fusion input
  std::vector<TensorId> out;

  explicit Operands(const Fusion& f) {
    const size_t n = f.exprs.size();
    std::vector<ExprId> producer(f.tensors.size());
    for (size_t t = 0; t < f.tensors.size(); ++t) producer[t] = f.tensors[t].definition;
    in_begin.resize(n + 1);
    out_begin.resize(n + 1);
    size_t nin = 0, nout = 0;
    for (size_t e = 0; e < n; ++e) {
      in_begin[e] = static_cast<uint32_t>(nin);
      out_begin[e] = static_cast<uint32_t>(nout);
      nin += f.exprs[e].inputs.size();
      nout += f.exprs[e].outputs.size();
    }
    in_begin[n] = static_cast<uint32_t>(nin);
    out_begin[n] = static_cast<uint32_t>(nout);
    in.reserve(nin);
    in_producer.reserve(nin);
    out.reserve(nout);
    for (size_t e = 0; e < n; ++e) {
      for (const ValueRef& v : f.exprs[e].inputs) {
        in.push_back(v);
        in_producer.push_back(v.isTensor() ? producer[v.id] : kNone);
      }
      out.insert(out.end(), f.exprs[e].outputs.begin(), f.exprs[e].outputs.end());
    }
  }
  uint32_t inBegin(ExprId e) const { return in_begin[e]; }
  uint32_t inEnd(ExprId e) const { return in_begin[e + 1]; }
};

// Fills inputs / outputs / edges / producer_of and orders segments
// topologically (by their smallest topo position).
void finish(const Fusion& f, const Operands& ops, SegmentedFusion& sf,
            const std::vector<uint32_t>& seg_of_expr, const std::vector<uint32_t>& topo_pos) {
  PhaseScope phase("segments: order, inputs, outputs, edges", PhaseScope::Detail{});
  const size_t nseg = sf.segments.size();
  // Order segments: Kahn over segment dependencies, ties by first topo position.
  std::vector<uint32_t> first(nseg, UINT32_MAX);
  for (uint32_t s = 0; s < nseg; ++s)
    for (ExprId e : sf.segments[s].exprs) first[s] = std::min(first[s], topo_pos[e]);
  // Segment dependencies, each (producer, consumer) pair once: the pairs of
  // one consumer are made together, so a mark per producer segment finds
  // repeats in O(1) (a search of the producer's successor list was
  // quadratic in the fan-out of a tensor read by many segments). Successor
  // lists are one flat array (CSR).
  std::vector<uint32_t> indeg(nseg, 0), mark(nseg, UINT32_MAX), succ_begin(nseg + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> deps;
  for (uint32_t s = 0; s < nseg; ++s)
    for (ExprId e : sf.segments[s].exprs)
      for (uint32_t k = ops.inBegin(e); k < ops.inEnd(e); ++k) {
        ExprId p = ops.in_producer[k];
        if (p == kNone) continue;
        uint32_t ps = seg_of_expr[p];
        if (ps != s && mark[ps] != s) {
          mark[ps] = s;
          deps.push_back({ps, s});
          ++indeg[s];
          ++succ_begin[ps + 1];
        }
      }
  for (uint32_t s = 0; s < nseg; ++s) succ_begin[s + 1] += succ_begin[s];
  std::vector<uint32_t> succ(deps.size());
  {
    std::vector<uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
    for (auto [ps, s] : deps) succ[fill[ps]++] = s;
  }
  using Item = std::pair<uint32_t, uint32_t>;  // (first, seg)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (uint32_t s = 0; s < nseg; ++s)
    if (indeg[s] == 0) ready.push({first[s], s});
  std::vector<uint32_t> order;
  while (!ready.empty()) {
    uint32_t s = ready.top().second;
    ready.pop();
    order.push_back(s);
    for (uint32_t i = succ_begin[s]; i < succ_begin[s + 1]; ++i)
      if (uint32_t t = succ[i]; --indeg[t] == 0) ready.push({first[t], t});
  }
  std::vector<uint32_t> renum(nseg, 0);
  std::vector<Segment> sorted;
  sorted.reserve(nseg);
  for (uint32_t k = 0; k < order.size(); ++k) {
    renum[order[k]] = k;
    sorted.push_back(std::move(sf.segments[order[k]]));
    sorted.back().id = k;
  }
  sf.segments = std::move(sorted);
  sf.producer_of.assign(f.tensors.size(), kNone);
  for (const Segment& s : sf.segments)
    for (ExprId e : s.exprs)
      for (uint32_t k = ops.out_begin[e]; k < ops.out_begin[e + 1]; ++k) sf.producer_of[ops.out[k]] = s.id;
  // Exprs within a segment in topological order (the segmenter's lists
  // already are; a repro's may not be).
  for (Segment& s : sf.segments) {
    auto before = [&](ExprId a, ExprId b) { return topo_pos[a] < topo_pos[b]; };
    if (!std::is_sorted(s.exprs.begin(), s.exprs.end(), before))
      std::sort(s.exprs.begin(), s.exprs.end(), before);
  }
  // Inputs, outputs, edges.
  std::vector<uint32_t> seen_in(f.tensors.size(), UINT32_MAX);
  std::vector<uint32_t> seen_scalar(f.scalars.size(), UINT32_MAX);
  for (Segment& s : sf.segments) {
    for (ExprId e : s.exprs)
      for (uint32_t k = ops.inBegin(e); k < ops.inEnd(e); ++k) {
        const ValueRef& v = ops.in[k];
        if (v.isTensor()) {
          if (sf.producer_of[v.id] == s.id || seen_in[v.id] == s.id) continue;
          seen_in[v.id] = s.id;
          s.inputs.push_back(v);
          if (sf.producer_of[v.id] != kNone) sf.edges.push_back({sf.producer_of[v.id], s.id, v.id});
        } else if (f.scalars[v.id].kind == ScalarKind::Input && seen_scalar[v.id] != s.id) {
          seen_scalar[v.id] = s.id;
          s.inputs.push_back(v);
        }
      }
  }
  std::vector<uint8_t> used_outside(f.tensors.size(), 0);
  for (const SegmentEdge& ed : sf.edges) used_outside[ed.tensor] = 1;
  for (TensorId o : f.outputs) used_outside[o] = 1;
  for (Segment& s : sf.segments)
    for (ExprId e : s.exprs)
      for (uint32_t k = ops.out_begin[e]; k < ops.out_begin[e + 1]; ++k)
        if (used_outside[ops.out[k]]) s.outputs.push_back(ops.out[k]);
  std::sort(sf.edges.begin(), sf.edges.end(), [](const SegmentEdge& a, const SegmentEdge& b) {
    return std::tie(a.to, a.from, a.tensor) < std::tie(b.to, b.from, b.tensor);
  });
}

SegmentPassResult segmentWith(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                              const std::vector<ExprId>& order, const Operands& ops,
                              const std::vector<uint8_t>& resharding);

}  // namespace

SegmentPassResult segmentFusion(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                                const std::vector<ExprId>* topo) {
  std::vector<uint8_t> computed;
  const std::vector<uint8_t>& resharding = so.resharding ? *so.resharding : (computed = reshardingFlags(f));
  if (topo != nullptr) return segmentWith(f, so, sink, *topo, Operands(f), resharding);
  std::vector<ExprId> order = topoOrder(f);
  return segmentWith(f, so, sink, order, Operands(f), resharding);
}

SegmentPassResult segmentFusion(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                                const std::function<void(const std::vector<ExprId>&)>& on_order,
                                size_t overlap_min_exprs) {
  std::vector<ExprId> order;
  std::optional<Operands> ops;
  std::vector<uint8_t> resharding;
  // The order is a walk over the whole graph, the operands a gather over
  // it: neither reads the other, so on a large fusion they run side by side.
  auto gather = [&] {
    PhaseScope phase("operands, resharding", PhaseScope::Detail{});  // timed when on this thread
    ops.emplace(f);
    if (!so.resharding) resharding = reshardingFlags(f);
  };
  auto walk = [&] {
    PhaseScope phase("topological order", PhaseScope::Detail{});
    order = topoOrder(f);
    phase.stop();
    on_order(order);
  };
  if (f.exprs.size() >= overlap_min_exprs) {
    parallelFor(2, [&](size_t task) { task == 0 ? walk() : gather(); });
  } else {
    walk();
    gather();
  }
  return segmentWith(f, so, sink, order, *ops, so.resharding ? *so.resharding : resharding);
}

namespace {

// An op the MultiDeviceExecutor's later lowering runs as a host op of its
// own: matmul, linear, slice, select, binary ops, reductions, and a set that
// is not a permute (csrc/host_ir/lower.cpp:617-645 @ cf5c6d2bf40f).
bool standaloneHostOp(const Fusion& f, ExprId e) {
  const Expr& x = f.exprs[e];
  switch (opInfo(x.op).category) {
    case OpCategory::Matmul:
    case OpCategory::Binary:
    case OpCategory::Compare: return true;
    case OpCategory::Reduction:  // a WelfordOp is no ReductionOp
      return x.op != OpKind::Mean && x.op != OpKind::Var && x.op != OpKind::VarMean &&
             x.op != OpKind::Welford;
    case OpCategory::Set:
      return x.op == OpKind::Set && x.outputs.size() == 1 && f.tensors[x.outputs[0]].root.empty();
    default: return x.op == OpKind::Slice;
  }
}

SegmentPassResult segmentWith(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                              const std::vector<ExprId>& order, const Operands& ops,
                              const std::vector<uint8_t>& resharding) {
  const bool trace = so.trace;
  const std::string& file = so.file;
  SegmentPassResult r;
  SegmentedFusion& sf = r.segmented;
  sf.fusion = &f;
  const size_t n = f.exprs.size();
  std::vector<uint32_t> topo_pos(n, 0);
  for (uint32_t i = 0; i < order.size(); ++i) topo_pos[order[i]] = i;
  const bool multi = isMultiDevice(f);

  auto lower = [&](Segment& s, ExprId e) {
    s.kind = SegmentKind::Communication;
    s.scheduler = "communication";
    Lowering lw = lowerToCommunication(f, e, so.lowering);
    if (lw.not_decided) {
      auto& d =
          sink.report(Severity::NotDecided, DiagCode::NotDecided,
                      exprLabel(f, e) + " is resharding: what it lowers to at this point is not modelled",
                      Location::at(file, Place::expr(e)));
      d.note(lw.error);
      s.reason = "resharding expr (lowering not modelled)";
    } else if (!lw.error.empty()) {
      auto& d = sink.error(DiagCode::UnlowerableResharding,
                           exprLabel(f, e) + " is resharding but cannot be lowered to a communication",
                           Location::at(file, Place::expr(e)));
      d.note(lw.error);
      d.note(so.path +
             " segments each resharding expr alone and lowers it to a collective; this one fails at "
             "lowering");
      if (!lw.check.empty()) d.check = CheckRef{lw.check, {{"expr", exprLabel(f, e)}}};
      s.reason = "resharding expr (not lowerable)";
    } else {
      s.comm = lw.kind;
      s.reason = "resharding expr, lowered to " + std::string(commKindName(lw.kind));
    }
  };

  std::vector<uint32_t> seg_of(n, kNone);
  if (f.segmentation) {
    sf.explicit_segmentation = true;
    for (const SegmentSpec& spec : f.segmentation->segments) {
      Segment s;
      s.exprs = spec.exprs;
      s.scheduler = spec.scheduler;
      s.reason = "replayed from the repro's segmentation";
      bool single_resharding = s.exprs.size() == 1 && multi && resharding[s.exprs[0]];
      if (single_resharding || spec.scheduler == "communication") {
        if (s.exprs.size() == 1) lower(s, s.exprs[0]);
      }
      for (ExprId e : s.exprs) seg_of[e] = static_cast<uint32_t>(sf.segments.size());
      sf.segments.push_back(std::move(s));
    }
    if (trace)
      r.trace.push_back("replaying the repro's segmentation: " + std::to_string(sf.segments.size()) +
                        " segments");
    if (f.segmentation->input_rewrite) sf.input_rewrite = *f.segmentation->input_rewrite;
    sf.forward = f.segmentation->forward;
    finish(f, ops, sf, seg_of, topo_pos);
    return r;
  }

  // Barriers: exprs that run alone. Cut tensors: segment_set outputs, so an
  // operand is cut when its producer is a segment_set (single device).
  std::vector<uint8_t> barrier(n, 0), cuts(n, 0);
  for (ExprId e = 0; e < n; ++e) {
    if (!multi) {
      barrier[e] = isExprEvalOnly(f.exprs[e].op);
      cuts[e] = f.exprs[e].op == OpKind::SegmentSet;
      continue;
    }
    barrier[e] = resharding[e];
    if (so.mesh == MeshSegmenter::StandaloneHostOps) barrier[e] |= standaloneHostOp(f, e);
    if (so.mesh == MeshSegmenter::SchedulerDriven) {
      barrier[e] |= isExprEvalOnly(f.exprs[e].op);
      cuts[e] = f.exprs[e].op == OpKind::SegmentSet;
    }
  }
  sf.approximate = !multi || so.mesh != MeshSegmenter::ReshardingAlone;
  // The operand's producer p is never kNone here.
  auto weight = [&](ExprId p) { return (barrier[p] || cuts[p]) ? 1u : 0u; };

  PhaseScope levels_phase("levels, consumers", PhaseScope::Detail{});
  // ASAP levels, then ALAP (latest level that keeps every edge's weight).
  std::vector<uint32_t> asap(n, 0), alap(n, UINT32_MAX);
  uint32_t max_level = 0;
  for (ExprId e : order) {
    for (uint32_t k = ops.inBegin(e); k < ops.inEnd(e); ++k) {
      ExprId p = ops.in_producer[k];
      if (p != kNone) asap[e] = std::max(asap[e], asap[p] + weight(p));
    }
    max_level = std::max(max_level, asap[e]);
  }
  // Each expr's (consumer, tensor) pairs in the consumers' topological
  // order, as one flat array (CSR): a vector per expr was a million heap
  // blocks at a million exprs.
  std::vector<uint32_t> cons_begin(n + 1, 0);
  for (ExprId e : order)
    for (uint32_t k = ops.inBegin(e); k < ops.inEnd(e); ++k)
      if (ops.in_producer[k] != kNone) ++cons_begin[ops.in_producer[k] + 1];
  for (size_t e = 0; e < n; ++e) cons_begin[e + 1] += cons_begin[e];
  std::vector<std::pair<ExprId, TensorId>> cons(cons_begin[n]);
  {
    std::vector<uint32_t> fill(cons_begin.begin(), cons_begin.end() - 1);
    for (ExprId e : order)
      for (uint32_t k = ops.inBegin(e); k < ops.inEnd(e); ++k)
        if (ExprId p = ops.in_producer[k]; p != kNone) cons[fill[p]++] = {e, ops.in[k].id};
  }
  auto consumers = [&](ExprId e) {
    return std::pair(cons.begin() + cons_begin[e], cons.begin() + cons_begin[e + 1]);
  };
  for (size_t k = order.size(); k-- > 0;) {
    ExprId e = order[k];
    uint32_t l = max_level;
    for (auto [it, end] = consumers(e); it != end; ++it) l = std::min(l, alap[it->first] - weight(e));
    alap[e] = barrier[e] ? asap[e] : std::max(l, asap[e]);
  }

  if (trace) {
    std::string init = "initial groups: one per expr:";
    for (ExprId e : order) init += " g" + std::to_string(e) + "{" + std::string(opName(f.exprs[e].op)) + "}";
    r.trace.push_back(init);
  }
  levels_phase.stop();
  PhaseScope merge_phase("merges, expr lists, lowering", PhaseScope::Detail{});
  UnionFind uf(n);
  for (ExprId e : order)
    for (auto [it, end] = consumers(e); it != end; ++it) {
      auto [c, t] = *it;
      // Why the two may not merge; the text is built only for the trace.
      enum class Refuse { No, Barrier, Cut, Level } refuse = Refuse::No;
      if (barrier[e] || barrier[c])
        refuse = Refuse::Barrier;
      else if (cuts[e])  // t is e's output
        refuse = Refuse::Cut;
      else if (alap[e] != alap[c])
        refuse = Refuse::Level;
      if (refuse != Refuse::No) {
        if (trace) {
          std::string why;
          if (refuse == Refuse::Barrier) {
            ExprId b = barrier[e] ? e : c;
            why = multi && resharding[b] ? exprLabel(f, b) + " is resharding and runs alone"
                  : multi && so.mesh == MeshSegmenter::StandaloneHostOps
                      ? exprLabel(f, b) + " is a host op and runs alone"
                      : exprLabel(f, b) + " runs on ExprEval alone";
          } else if (refuse == Refuse::Cut) {
            why = std::string(f.tensorName(t)) + " is a segment_set output";
          } else {
            why = "a resharding expr lies between them on another path (merging would form a cycle)";
          }
          r.trace.push_back("refuse merge g" + std::to_string(e) + "+g" + std::to_string(c) + " over " +
                            std::string(f.tensorName(t)) + ": " + why);
        }
        continue;
      }
      if (trace && uf.find(e) != uf.find(c))
        r.trace.push_back("merge g" + std::to_string(e) + "+g" + std::to_string(c) + " over " +
                          std::string(f.tensorName(t)) + ": both compute at level " +
                          std::to_string(alap[e]));
      uf.unite(e, c);
    }

  // Segments numbered in order of their first expr in `order`, each expr
  // list in `order` too. Counted first, so that each list is one exact heap
  // block (growing 200k lists a push at a time was half of this pass).
  std::vector<uint32_t> seg_of_root(n, kNone), seg_size;
  for (ExprId e : order) {
    uint32_t& sid = seg_of_root[uf.find(e)];
    if (sid == kNone) {
      sid = static_cast<uint32_t>(seg_size.size());
      seg_size.push_back(0);
    }
    seg_of[e] = sid;
    ++seg_size[sid];
  }
  sf.segments.resize(seg_size.size());
  for (size_t k = 0; k < seg_size.size(); ++k) sf.segments[k].exprs.reserve(seg_size[k]);
  for (ExprId e : order) sf.segments[seg_of[e]].exprs.push_back(e);
  for (Segment& s : sf.segments) {
    if (multi && resharding[s.exprs[0]]) {
      lower(s, s.exprs[0]);
    } else {
      s.kind = SegmentKind::Compute;
      s.scheduler = schedulerFor(f, s.exprs);
      s.reason = !barrier[s.exprs[0]]                                   ? "maximal compute region"
                 : multi && so.mesh == MeshSegmenter::StandaloneHostOps ? "host op, segmented alone"
                                                                        : "ExprEval-only op, segmented alone";
    }
  }
  merge_phase.stop();
  finish(f, ops, sf, seg_of, topo_pos);
  return r;
}

}  // namespace

}  // namespace fc
