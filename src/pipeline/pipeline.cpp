#include "pipeline/pipeline.h"

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "analysis/axis_map.h"
#include "analysis/binding.h"
#include "analysis/binding_steps.h"
#include "ir/printer.h"
#include "passes/apply.h"
#include "passes/concretize.h"
#include "passes/segment.h"
#include "passes/segment_inputs.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/step_counters.h"

namespace fc {

bool PipelineResult::failed() const {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

std::string nvfuserUnboundMessage(Era era, const std::string& sym) {
  if (era == Era::Head)
    return "INTERNAL ASSERT FAILED at csrc/dynamic_transform.cpp:316, please report a bug with repro script "
           "to "
           "NVFuser at https://github.com/NVIDIA/Fuser/issues. Expected ext_opt.hasValue() . Could not "
           "evaluate "
           "dynamic extent: " +
           sym;
  return "ext_opt.hasValue() INTERNAL ASSERT FAILED at \"csrc/dynamic_transform.cpp\":279, please report a "
         "bug "
         "with repro script to NVFuser at https://github.com/NVIDIA/Fuser/issues. Could not evaluate dynamic "
         "extent: " +
         sym;
}

namespace {

Location axisLoc(const std::string& file, TensorId t, size_t pos) {
  return Location{file, JsonPointer().key("tensors").index(t).key("logical").index(pos).str(), 0, 0};
}

// Local (per-rank) size of axis `a` of `t` from its global extent value.
std::optional<int64_t> localSize(const Fusion& f, TensorId t, size_t pos, int64_t global, Era era) {
  ParallelType pt = shardingOf(f, t, pos);
  if (!isDeviceDim(pt) || f.tensors[t].mesh == kNone) return global;
  if (era != Era::Head) return 1;
  int64_t m = f.meshes[f.tensors[t].mesh].sizeFor(pt);
  if (m <= 0 || global % m != 0) return std::nullopt;
  return global / m;
}

// Where the per-segment passes of one thread write: diagnostics, unbound
// records, and the evaluator and scratch they reuse from segment to segment.
struct Lane {
  DiagnosticSink* sink;
  std::vector<UnboundExtent>* unbound;
  std::optional<ScalarEval> ev;  // one for every segment view, reset between them
  EpochMarks* scratch;
};

struct Ctx {
  const Fusion& f;
  const PipelineOptions& opts;
  PipelineResult& r;
  DiagnosticSink sink;
  ScalarEval& whole;
  EpochMarks concretize_scratch;  // reused by every view's analyzeConcretization
  Ctx(const Fusion& fu, const PipelineOptions& o, PipelineResult& res)
      : f(fu), opts(o), r(res), whole(*(res.whole = std::make_shared<ScalarEval>(fu))) {}

  void trace(const char* pass, std::string scope, std::string text) {
    if (opts.trace) r.trace.push_back({pass, std::move(scope), std::move(text)});
  }

  std::string bindingsText(ScalarEval& ev, bool only_named = true) {
    steps::counters.trace_elements += f.scalars.size();
    std::ostringstream os;
    std::vector<std::string> unknown;
    for (ScalarId s = 0; s < f.scalars.size(); ++s) {
      const Scalar& sc = f.scalars[s];
      if (only_named && sc.name == kNoName) continue;
      if (sc.kind != ScalarKind::Symbol && sc.kind != ScalarKind::Input) continue;
      if (!ev.isKnown(s)) {
        unknown.push_back(symbolToString(f, s));
        continue;
      }
      auto v = ev.value(s);
      os << "  " << symbolToString(f, s) << " = " << (v ? std::to_string(*v) : "(symbolic)") << "  <- "
         << describeOrigin(f, s, ev.origin(s), v, opts.era) << "\n";
    }
    if (!unknown.empty()) {
      os << "  unbound:";
      for (auto& u : unknown) os << " " << u;
      os << "\n";
    }
    return os.str();
  }

  // concrete_inputs by value (first and last description of each), built
  // once: searching the list per input was O(inputs x concrete inputs).
  std::vector<const ConcreteInput*> ci_first_tensor, ci_last_tensor;
  std::map<ScalarId, const ConcreteInput*> ci_last_scalar;
  void indexConcreteInputs() {
    ci_first_tensor.assign(f.tensors.size(), nullptr);
    ci_last_tensor.assign(f.tensors.size(), nullptr);
    for (const auto& c : f.concrete_inputs) {
      if (c.value.isTensor() && c.value.id < f.tensors.size()) {
        if (!ci_first_tensor[c.value.id]) ci_first_tensor[c.value.id] = &c;
        ci_last_tensor[c.value.id] = &c;
      } else if (c.value.isScalar()) {
        ci_last_scalar[c.value.id] = &c;
      }
    }
  }

  // Whole-first eras: concretize the complete fusion before segmenting, on
  // `threads` threads (analyzeConcretization's chunks).
  void concretizeWhole(const std::vector<ExprId>& topo, unsigned threads) {
    PhaseScope phase("pipeline: concretize whole fusion");
    ViewSpec wv;
    wv.exprs = topo;
    for (const ValueRef& in : f.inputs)
      if (in.isTensor()) wv.inputs.push_back({in.id, f.tensors[in.id].logical, std::nullopt, false});
    ConcretizationInfo info =
        analyzeConcretization(f, wv, whole, opts.era, sink, opts.file, &concretize_scratch, threads);
    reportUnbound(info, -1, nullptr, wv.inputs, InputRewrite::StripReductions, false, sink, r.unbound);
    std::string t = std::to_string(info.checked_extents) + " dynamic extents checked\n";
    for (auto& s : info.empty_extents) t += "  empty: " + s + "\n";
    for (auto& s : info.decisions) t += "  " + s + "\n";
    trace("concretize", "whole fusion", t);
    if (opts.trace) apply("whole fusion", topo, whole);
  }

  // The apply pass: print the concretized view; a concretized fusion that
  // fails verification is a bug in fusecheck (internal channel).
  void apply(const std::string& scope, const std::vector<ExprId>& exprs, ScalarEval& ev) {
    ApplyResult a = applyConcretization(f, exprs, ev);
    std::string t = std::to_string(a.replaced) + " extents replaced by their values\n" + a.printed;
    if (!a.verified) {
      t += "  INTERNAL: the concretized fusion does not verify:\n";
      for (const auto& d : a.verifier_diagnostics) t += "    " + d.message + "\n";
    }
    trace("apply", scope, t);
  }

  BindRequest wholeRequest() {
    BindRequest req;
    req.era = opts.era;
    req.file = opts.file;
    req.user_binds = opts.binds;
    indexConcreteInputs();
    for (const ValueRef& in : f.inputs) {
      const ConcreteInput* ci = nullptr;
      if (opts.concrete) {
        if (in.isTensor())
          ci = in.id < ci_last_tensor.size() ? ci_last_tensor[in.id] : nullptr;
        else if (auto it = ci_last_scalar.find(in.id); it != ci_last_scalar.end())
          ci = it->second;
      }
      if (in.isTensor()) {
        BoundInput b;
        b.tensor = in.id;
        b.domain = f.tensors[in.id].logical;
        if (ci && !ci->shape.empty()) b.sizes = ci->shape;
        if (ci && ci->shape.empty() && f.nonReductionRank(in.id) == 0) b.sizes = std::vector<int64_t>{};
        req.tensors.push_back(std::move(b));
      } else {
        std::optional<int64_t> v;
        if (ci && ci->scalar && ci->scalar->kind != ConstValue::Kind::Float) v = ci->scalar->i;
        req.scalars.push_back({in.id, v});
      }
    }
    std::vector<ExprId> all(f.exprs.size());
    for (ExprId e = 0; e < f.exprs.size(); ++e) all[e] = e;
    req.exprs = std::move(all);
    return req;
  }

  // Sizes of a segment input as the runtime tensor has them (from the whole fusion).
  std::optional<std::vector<int64_t>> runtimeSizes(TensorId t, const std::vector<AxisId>& dom) {
    if (f.tensors[t].definition == kNone && opts.concrete && t < ci_first_tensor.size() && ci_first_tensor[t])
      return ci_first_tensor[t]->shape;
    std::vector<int64_t> sizes;
    for (AxisId a : dom) {
      const Axis& ax = f.axes[a];
      if (ax.iter == IterType::Reduction) continue;
      auto v = whole.value(ax.expanded != kNone ? ax.expanded : ax.extent);
      if (!v) return std::nullopt;
      size_t pos = 0;
      while (pos < f.tensors[t].logical.size() && f.tensors[t].logical[pos] != a) ++pos;
      auto l = localSize(f, t, pos, *v, opts.era);
      if (!l) return std::nullopt;
      sizes.push_back(*l);
    }
    return sizes;
  }

  std::string useText(const UnboundUse& u, const std::string& sym, int seg) {
    if (u.expr != kNone)
      return sym + " is used as a value by expr " + std::to_string(u.expr) + " (" +
             std::string(opName(f.exprs[u.expr].op)) + ")";
    std::string what = u.reduction_axis ? "Reduction axis " : "axis ";
    std::string where = u.on_input ? (seg >= 0 ? "segment input " : "fusion input ") : "";
    const Axis& ax = f.axes[u.axis];
    std::string axis_name = std::string(1, iterTypeLetter(ax.iter)) +
                            std::string(parallelTypePrinted(ax.parallel)) + std::to_string(ax.number);
    bool direct = f.axes[u.axis].extent == u.symbol || f.axes[u.axis].expanded == u.symbol;
    return sym + (direct ? " is the extent of " : " appears in the extent of ") + what + axis_name + " of " +
           where + std::string(f.tensorName(u.tensor));
  }

  void reportUnbound(const ConcretizationInfo& info, int seg_idx, const Segment* seg,
                     const std::vector<BoundInput>& inputs, InputRewrite rw, bool rewrite_from_repro,
                     DiagnosticSink& sink, std::vector<UnboundExtent>& unbound) {
    // Group uses by symbol, in discovery order.
    std::vector<ScalarId> order;
    std::map<ScalarId, std::vector<UnboundUse>> by_sym;
    for (const UnboundUse& u : info.unbound) {
      if (!by_sym.count(u.symbol)) order.push_back(u.symbol);
      by_sym[u.symbol].push_back(u);
    }
    const std::string scope =
        seg ? "segment " + std::to_string(seg->id) + " (" + describeSegment(f, *seg) + ")"
            : std::string("the fusion");
    for (ScalarId sym : order) {
      auto& uses = by_sym[sym];
      // Report at an input's Reduction axis first (the #2481 shape), else the first use.
      auto primary_it = std::find_if(uses.begin(), uses.end(),
                                     [](const UnboundUse& u) { return u.on_input && u.reduction_axis; });
      if (primary_it == uses.end()) primary_it = uses.begin();
      std::rotate(uses.begin(), primary_it, primary_it + 1);
      const UnboundUse& p = uses.front();
      const std::string name = symbolToString(f, sym);

      UnboundExtent rec;
      rec.segment = seg_idx;
      rec.symbol = sym;
      rec.uses = uses;
      if (p.axis != kNone) rec.hops = traceHops(f, &r.segmented, p.tensor, p.axis, sym);
      bool whole_known = whole.isKnown(sym);
      if (whole_known) {
        rec.whole_origin = whole.origin(sym);
        rec.whole_value = whole.value(sym);
      }
      rec.needed = std::any_of(uses.begin(), uses.end(),
                               [](const UnboundUse& u) { return !(u.on_input && u.reduction_axis); });
      bool keeps = rw == InputRewrite::KeepReductions;
      rec.strip_applies = seg && keeps && !rec.needed;
      rec.forward_applies = seg && whole_known;

      Location loc = p.expr != kNone
                         ? Location{opts.file, JsonPointer().key("exprs").index(p.expr).str(), 0, 0}
                         : axisLoc(opts.file, p.tensor, p.pos);
      auto& d = sink.error(DiagCode::UnboundExtent, scope + " cannot evaluate extent " + name, loc);
      d.note(useText(p, name, seg_idx));
      const BoundInput* carrier = nullptr;
      for (const BoundInput& in : inputs)
        if (in.tensor == p.tensor) carrier = &in;
      if (carrier && p.reduction_axis && keeps) {
        std::string who = rewrite_from_repro
                              ? "the repro's segmentation keeps Reduction axes (input_rewrite: "
                                "keep-reductions)"
                              : "the input rewrite of this era keeps Reduction axes";
        d.note(who + ": " + std::string(f.tensorName(p.tensor)) + " enters segment " +
               std::to_string(seg_idx) + " as " + domainToString(f, carrier->domain));
      }
      if (carrier) {
        std::vector<std::string> binds;
        for (AxisId a : carrier->domain) {
          const Axis& ax = f.axes[a];
          if (ax.iter == IterType::Reduction) continue;
          ScalarId e = ax.iter == IterType::Broadcast ? ax.expanded : ax.extent;
          if (e == kNone || f.scalars[e].kind == ScalarKind::Constant) continue;
          binds.push_back(symbolToString(f, e));
        }
        std::string from;
        uint32_t ps = r.segmented.producerOf(p.tensor);
        if (ps != kNone)
          from = "the rank-" + std::to_string(binds.size() + 0) + " tensor from segment " +
                 std::to_string(ps) + " (" + describeSegment(f, r.segmented.segments[ps]) + ")";
        else
          from = "the fusion input " + std::string(f.tensorName(p.tensor));
        size_t rank = 0;
        for (AxisId a : carrier->domain) rank += f.axes[a].iter != IterType::Reduction;
        if (ps != kNone)
          from = "the rank-" + std::to_string(rank) + " tensor from segment " + std::to_string(ps) + " (" +
                 describeSegment(f, r.segmented.segments[ps]) + ")";
        std::string list;
        for (size_t i = 0; i < binds.size(); ++i) list += (i ? ", " : "") + binds[i];
        d.note("binding covers non-Reduction axes only: " + from + " binds " +
               (list.empty() ? "nothing" : list));
      }
      if (whole_known) {
        std::string n = name + " was bound in the whole fusion by " +
                        describeOrigin(f, sym, rec.whole_origin, rec.whole_value, opts.era);
        if (seg && rec.whole_origin.tensor != kNone) {
          bool enters = std::any_of(inputs.begin(), inputs.end(),
                                    [&](const BoundInput& b) { return b.tensor == rec.whole_origin.tensor; });
          if (!enters)
            n += "; " + std::string(f.tensorName(rec.whole_origin.tensor)) + " does not enter segment " +
                 std::to_string(seg_idx);
        }
        d.note(n);
      } else {
        d.note(name +
               " is not bound in the whole fusion either: no input axis, scalar input or --bind "
               "determines it");
      }
      if (rec.hops.size() > 1) {
        std::string path = name + " travelled ";
        for (size_t i = 0; i < rec.hops.size(); ++i) {
          const Hop& h = rec.hops[i];
          if (i) {
            const Hop& prev = rec.hops[i - 1];
            ExprId e = h.expr;
            path += " -> " + std::string(opName(f.exprs[e].op));
            uint32_t s = r.segmented.producerOf(h.tensor);
            if (s != kNone) path += " (segment " + std::to_string(s) + ")";
            (void)prev;
            path += " -> ";
          }
          path += std::string(f.tensorName(h.tensor)) + " " + axisToString(f, h.axis);
        }
        if (seg) {
          uint32_t s = r.segmented.producerOf(p.tensor);
          if (s != kNone && p.on_input)
            path += " -> edge segment " + std::to_string(s) + " -> segment " + std::to_string(seg_idx);
        }
        d.note(path);
      }
      if (!rec.needed) {
        d.note("no value in " + (seg ? "segment " + std::to_string(seg_idx) : std::string("the fusion")) +
               " depends on " + name + " (it only sizes a Reduction axis)");
      } else {
        std::vector<std::string> needs;
        for (const UnboundUse& u : uses)
          if (!(u.on_input && u.reduction_axis)) needs.push_back(useText(u, name, seg_idx));
        std::string n = name + " is needed in " +
                        (seg ? "segment " + std::to_string(seg_idx) : std::string("the fusion")) + ": " +
                        needs.front();
        if (needs.size() > 1) n += " (and " + std::to_string(needs.size() - 1) + " more)";
        d.note(n);
      }
      d.note("nvFuser " + std::string(eraName(opts.era)) + " raises: \"" +
             nvfuserUnboundMessage(opts.era, name) + "\"");
      if (seg && p.reduction_axis && p.on_input && keeps) {
        std::vector<AxisId> stripped = segmentInputDomain(f, p.tensor, InputRewrite::StripReductions);
        std::string msg = std::string(f.tensorName(p.tensor)) + " enters segment " + std::to_string(seg_idx) +
                          " as " + domainToString(f, stripped) + " (PR #2487); ";
        if (rec.strip_applies) {
          msg += "obligation holds";
        } else {
          msg += "obligation fails: " + name + " has another use in segment " + std::to_string(seg_idx);
        }
        d.notes.push_back(Note{"fix[strip-reduction-axes]", msg, {}});
      }
      if (seg && (rec.needed || !keeps || !p.reduction_axis)) {
        if (rec.forward_applies)
          d.notes.push_back(Note{"fix[forward-extent]",
                                 "pass " + name + " into segment " + std::to_string(seg_idx) +
                                     " as a scalar input bound on the producer side from " +
                                     describeOrigin(f, sym, rec.whole_origin, rec.whole_value, opts.era),
                                 {}});
        else
          d.note("no fix applies: " + name +
                 " is not bound anywhere; give the repro concrete inputs or --bind it");
      }
      unbound.push_back(std::move(rec));
    }
  }

  void edgeHazards(const Segment& seg, const std::vector<BoundInput>& inputs, DiagnosticSink& sink) {
    if (seg.scheduler == "expr_eval") return;
    for (const BoundInput& in : inputs) {
      const auto& dom = in.domain;
      bool seen_iter = false;
      for (size_t i = 0; i < dom.size(); ++i) {
        const Axis& ax = f.axes[dom[i]];
        if (ax.iter != IterType::Reduction) {
          seen_iter = true;
          continue;
        }
        if (!seen_iter) continue;  // an outer Reduction axis is left alone by the schedulers
        auto& d = sink.error(DiagCode::EdgeHazard,
                             "segment " + std::to_string(seg.id) + " (" + seg.scheduler + ") receives " +
                                 std::string(f.tensorName(in.tensor)) + " with inner Reduction axis " +
                                 axisToString(f, dom[i]),
                             axisLoc(opts.file, in.tensor, i));
        d.note("the input rewrite of nvFuser " + std::string(eraName(opts.era)) +
               " keeps Reduction axes: " + std::string(f.tensorName(in.tensor)) + " enters segment " +
               std::to_string(seg.id) + " as " + domainToString(f, dom));
        d.note("the " + seg.scheduler +
               " scheduler merges the input's axes while propagating its schedule, "
               "and a Reduction axis cannot merge with an Iteration axis");
        d.note(
            "nvFuser raises: \"Merging IterDomains requires that their iteration types match.\" (issues "
            "#1659, #2317)");
        d.notes.push_back(
            Note{"fix[strip-reduction-axes]",
                 std::string(f.tensorName(in.tensor)) + " enters segment " + std::to_string(seg.id) + " as " +
                     domainToString(f, segmentInputDomain(f, in.tensor, InputRewrite::StripReductions)) +
                     " (PR #2487); obligation holds",
                 {}});
        break;
      }
    }
  }
};

}  // namespace

std::vector<std::optional<int64_t>> localShape(const Fusion& f, ScalarEval& whole, TensorId t, Era era) {
  std::vector<std::optional<int64_t>> out;
  const auto& L = f.tensors[t].logical;
  for (size_t pos = 0; pos < L.size(); ++pos) {
    const Axis& ax = f.axes[L[pos]];
    if (ax.iter == IterType::Reduction) continue;
    auto v = whole.value(ax.expanded != kNone ? ax.expanded : ax.extent);
    out.push_back(v ? localSize(f, t, pos, *v, era) : std::nullopt);
  }
  return out;
}

namespace {

// Whether runPipeline segments on a second thread: never when tracing (the
// trace is one ordered record), on one thread, or below the size where a
// thread costs more than it saves.
// The threads PipelineOptions::threads asks for (0: the process default).
unsigned pipelineThreads(const PipelineOptions& opts) {
  return threadsFor(opts.threads != 0 ? opts.threads : defaultThreads());
}

bool overlapSegmenting(const Fusion& f, const PipelineOptions& opts) {
  if (opts.trace || f.exprs.size() < opts.parallel_min_exprs) return false;
  return pipelineThreads(opts) >= 2;
}

// How many lanes bind and concretize the segments (1: no chunks): only in
// eras that bind each segment alone, on the same terms as above, and within
// a memory budget. Each lane's evaluator and scratch hold ~45 bytes per
// scalar and 4 per axis (~33 MB on the 1M-expr tensor-parallel repro):
// sixteen lanes raised its peak RSS from 1.7 to 2.2 GB, past the 2 GiB
// target. The lanes beyond the first get kLaneBudget together: 8 lanes
// there, whose evaluators fit in what the reader has freed by then (peak
// RSS 1.63-1.67 GiB on the device host).
size_t segmentLanes(const Fusion& f, const PipelineOptions& opts, const PipelineResult& r) {
  if (r.whole_first || r.segmented.segments.size() < 2 || !overlapSegmenting(f, opts)) return 1;
  constexpr size_t kLaneBudget = size_t{256} << 20;
  const size_t per_lane =
      f.scalars.size() * (sizeof(uint8_t) + sizeof(std::optional<int64_t>) + sizeof(Origin)) +
      4 * f.axes.size() + 1;
  const size_t threads = pipelineThreads(opts);
  return std::min({threads, r.segmented.segments.size(), 1 + kLaneBudget / per_lane});
}

}  // namespace

PipelineResult runPipeline(const Fusion& f, const PipelineOptions& opts) {
  PipelineResult r;
  r.era = opts.era;
  Ctx c(f, opts, r);
  const bool multi = isMultiDevice(f);
  r.whole_first = opts.era == Era::Head || !multi;

  // Bind the complete fusion: needed for provenance and runtime sizes in
  // every era; it is a concretization step only in whole-first eras. Then
  // concretize it (whole-first eras) and segment it. Segmenting reads only
  // the fusion and the topological order, so on a large fusion it runs on a
  // second thread beside bind + concretize (docs/performance.md, fix 29);
  // its diagnostics follow theirs, as they do when run in turn.
  std::vector<ExprId> topo;
  SegmentPassResult sp;
  const unsigned concretize_threads = overlapSegmenting(f, opts) ? pipelineThreads(opts) : 1;
  r.concretized_in_chunks = r.whole_first && concretize_threads > 1 && f.exprs.size() > 1;
  auto bindAndConcretize = [&](const std::function<const std::vector<ExprId>&()>& order) {
    PhaseScope bind_phase("pipeline: bind whole fusion");
    bindView(f, c.wholeRequest(), c.whole, c.sink);
    bind_phase.stop();
    // bindingsText walks every scalar: build it only when tracing (it was
    // built and dropped per segment, O(segments x scalars)).
    if (opts.trace) c.trace("bind", "whole fusion", c.bindingsText(c.whole));
    const std::vector<ExprId>& t = order();
    if (r.whole_first) c.concretizeWhole(t, concretize_threads);
  };
  if (overlapSegmenting(f, opts)) {
    // Task 0 (this thread): bind, then concretize once the order is ready.
    // Task 1: the order, then the segmenter, into a sink and phase
    // collector of its own, merged after the join.
    std::promise<void> order_ready;
    std::shared_future<void> order_done = order_ready.get_future().share();
    DiagnosticSink seg_sink;
    PhaseTimes* times = PhaseTimes::active();
    PhaseTimes seg_times;
    steps::Counters seg_counters;
    parallelFor(2, [&](size_t task) {
      if (task == 0) {
        bindAndConcretize([&]() -> const std::vector<ExprId>& {
          order_done.get();  // rethrows what the order threw
          return topo;
        });
        return;
      }
      PhaseTimes::activate(times ? &seg_times : nullptr);
      // The segmenter walks the order beside gathering its operands and
      // hands the order over as soon as it has it (fix 37). Task 0 waits
      // on it: whatever is thrown first reaches it too.
      bool handed = false;
      try {
        PhaseScope segment_phase("pipeline: segment");
        sp = segmentFusion(
            f, opts.era, opts.trace, seg_sink, opts.file,
            [&](const std::vector<ExprId>& order) {
              topo = order;
              handed = true;
              order_ready.set_value();
            },
            opts.parallel_min_exprs);
        segment_phase.stop();
      } catch (...) {
        if (!handed) order_ready.set_exception(std::current_exception());
        throw;
      }
      seg_counters = steps::counters;
    });
    c.sink.append(std::move(seg_sink));
    steps::counters += seg_counters;
    if (times) times->mergeConcurrent(seg_times);
    r.overlapped = true;
  } else {
    bindAndConcretize([&]() -> const std::vector<ExprId>& {
      PhaseScope topo_phase("pipeline: topological order");
      topo = topoOrder(f);
      return topo;
    });
    PhaseScope segment_phase("pipeline: segment");
    sp = segmentFusion(f, opts.era, opts.trace, c.sink, opts.file, &topo);
  }
  r.segmented = std::move(sp.segmented);
  const bool from_repro = f.segmentation && f.segmentation->input_rewrite.has_value();
  const InputRewrite rw = from_repro ? *f.segmentation->input_rewrite : eraInputRewrite(opts.era);
  r.segmented.input_rewrite = rw;
  r.input_rewrite = rw;
  if (opts.trace) {
    std::string t;
    for (auto& line : sp.trace) t += "  " + line + "\n";
    for (const Segment& s : r.segmented.segments) {
      t +=
          "segment " + std::to_string(s.id) + " (" + describeSegment(f, s) + ") [" + s.scheduler + "]: exprs";
      for (ExprId e : s.exprs) t += " " + std::to_string(e);
      t += "  -- " + s.reason + "\n";
    }
    if (r.segmented.approximate) t += "  (approximate: single-device hard rules only)\n";
    c.trace("segment", "whole fusion", t);
  }

  // The per-segment passes of one compute segment, writing into `lane`.
  auto segmentPasses = [&](const Segment& seg, Lane& lane) {
    if (seg.kind != SegmentKind::Compute) return;
    // Per-segment trace (the whole-fusion passes above are traced regardless).
    const bool tr =
        opts.trace && (opts.trace_segment < 0 || static_cast<uint32_t>(opts.trace_segment) == seg.id);
    // A whole-first era binds no segment: the inputs serve only the trace and
    // the edge hazards of an era that keeps Reduction axes (which read their
    // domains, not their sizes). Skipping them saves a walk of every segment
    // input (~0.1 s at 1M exprs).
    if (!tr && r.whole_first && rw != InputRewrite::KeepReductions) return;
    const bool need_sizes = tr || !r.whole_first;
    PhaseScope inputs_phase("pipeline: segment inputs");
    std::vector<BoundInput> inputs;
    std::vector<std::pair<ScalarId, std::optional<int64_t>>> scalars;
    for (const ValueRef& v : seg.inputs) {
      if (v.isTensor()) {
        BoundInput b;
        b.tensor = v.id;
        b.domain = segmentInputDomain(f, v.id, rw);
        b.fresh_rfactor = true;
        if (need_sizes) b.sizes = c.runtimeSizes(v.id, b.domain);
        inputs.push_back(std::move(b));
      } else {
        scalars.push_back({v.id, c.whole.value(v.id)});
      }
    }
    if (tr) {
      std::string t;
      for (const BoundInput& b : inputs) {
        t += "  " + std::string(f.tensorName(b.tensor)) + " enters as " + domainToString(f, b.domain);
        uint32_t ps = r.segmented.producerOf(b.tensor);
        t += ps != kNone ? " (from segment " + std::to_string(ps) + ")" : std::string(" (fusion input)");
        t += "\n";
      }
      t += std::string("  rewrite: ") + std::string(inputRewriteName(rw)) +
           (from_repro ? " (from the repro)" : "") + "\n";
      c.trace("segment-inputs", "segment " + std::to_string(seg.id), t);
    }
    inputs_phase.stop();
    size_t before = lane.sink->all().size();
    if (!r.whole_first) {
      PhaseScope seg_bind_phase("pipeline: bind segments");
      // 2024 multi-device: each compute segment is bound and concretized alone.
      if (lane.ev)
        lane.ev->reset();
      else
        lane.ev.emplace(f);
      ScalarEval& ev = *lane.ev;
      BindRequest req;
      req.era = opts.era;
      req.file = opts.file;
      req.tensors = inputs;
      req.scalars = scalars;
      for (const ForwardedExtent& fw : r.segmented.forward)
        if (fw.segment == seg.id && fw.symbol < f.scalars.size())
          req.forwarded.push_back({fw.symbol, c.whole.value(fw.symbol)});
      req.exprs = seg.exprs;
      bindView(f, req, ev, *lane.sink);
      seg_bind_phase.stop();
      PhaseScope seg_concretize_phase("pipeline: concretize segments");
      if (tr) c.trace("bind", "segment " + std::to_string(seg.id), c.bindingsText(ev));
      ViewSpec view{static_cast<int>(seg.id), seg.exprs, inputs};
      ConcretizationInfo info =
          analyzeConcretization(f, view, ev, opts.era, *lane.sink, opts.file, lane.scratch);
      c.reportUnbound(info, static_cast<int>(seg.id), &seg, inputs, rw, from_repro, *lane.sink,
                      *lane.unbound);
      if (tr) {
        std::string t = std::to_string(info.checked_extents) + " dynamic extents checked";
        t += info.unbound.empty() ? ", all evaluable\n"
                                  : ", " + std::to_string(info.unbound.size()) + " not evaluable\n";
        for (auto& s : info.empty_extents) t += "  empty: " + s + "\n";
        for (auto& s : info.decisions) t += "  " + s + "\n";
        c.trace("concretize", "segment " + std::to_string(seg.id), t);
      }
      if (tr && info.unbound.empty()) c.apply("segment " + std::to_string(seg.id), seg.exprs, ev);
    }
    PhaseScope hazards_phase("pipeline: edge hazards");
    bool failed_here = lane.sink->all().size() != before;
    if (!failed_here && rw == InputRewrite::KeepReductions) c.edgeHazards(seg, inputs, *lane.sink);
  };
  const std::vector<Segment>& segments = r.segmented.segments;
  if (const size_t w = segmentLanes(f, opts, r); w > 1) {
    // 2024 multi-device eras on a large fusion: the segments are bound and
    // concretized in chunks of consecutive segments, one per thread, each
    // lane with its own evaluator, scratch, diagnostics and unbound records,
    // appended in chunk order: the one-thread order. The whole-fusion
    // evaluator is shared, read-only: every scalar is evaluated first, so
    // that reading it writes nothing.
    PhaseScope phase("pipeline: segments, in chunks");
    PhaseTimes* times = PhaseTimes::activate(nullptr);  // per-segment phases are not timed per thread
    c.whole.evaluateAll();
    const size_t n = segments.size();
    std::vector<DiagnosticSink> sinks(w);
    std::vector<std::vector<UnboundExtent>> unbound(w);
    std::vector<EpochMarks> scratch(w);
    std::vector<steps::Counters> counters(w);
    std::vector<uint64_t> exact_steps(w, 0);
    try {
      parallelFor(w, [&](size_t k) {
        Lane lane{&sinks[k], &unbound[k], std::nullopt, &scratch[k]};
        for (size_t i = n * k / w; i < n * (k + 1) / w; ++i) segmentPasses(segments[i], lane);
        if (k > 0) {  // task 0 counts on this thread already
          counters[k] = steps::counters;
          exact_steps[k] = steps::exact_map_steps;
        }
      });
    } catch (...) {
      PhaseTimes::activate(times);
      throw;
    }
    PhaseTimes::activate(times);
    for (size_t k = 0; k < w; ++k) {
      c.sink.append(std::move(sinks[k]));
      for (UnboundExtent& u : unbound[k]) r.unbound.push_back(std::move(u));
      steps::counters += counters[k];
      steps::exact_map_steps += exact_steps[k];
    }
    r.segments_in_chunks = true;
  } else {
    Lane lane{&c.sink, &r.unbound, std::nullopt, &c.concretize_scratch};
    for (const Segment& seg : segments) segmentPasses(seg, lane);
  }
  // The whole-fusion binding and a segment's binding can report the same
  // input problem: keep the first of identical diagnostics (same code,
  // pointer and message). Hashed: a failing 1M-expr repro has ~20k errors,
  // and comparing each with every kept one was quadratic.
  struct Key {
    const Diagnostic* d;
    bool operator==(const Key& o) const {
      ++steps::counters.dedup_compares;
      return d->code == o.d->code && d->loc.pointer == o.d->loc.pointer && d->message == o.d->message;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = std::hash<std::string_view>()(k.d->message);
      h ^= std::hash<std::string_view>()(k.d->loc.pointer) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      return h ^ static_cast<size_t>(k.d->code);
    }
  };
  PhaseScope dedup_phase("pipeline: drop duplicate diagnostics");
  std::vector<Diagnostic>& all = c.sink.all();
  std::unordered_set<Key, KeyHash> seen;
  seen.reserve(all.size());
  std::vector<char> keep(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) keep[i] = seen.insert(Key{&all[i]}).second;
  r.diagnostics.reserve(seen.size());
  for (size_t i = 0; i < all.size(); ++i)
    if (keep[i]) r.diagnostics.push_back(std::move(all[i]));
  return r;
}

}  // namespace fc
