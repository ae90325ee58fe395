// What a path's executor does with one compute segment, in its order:
//  0. paths that schedule, before #143: a reduction segment without tensor
//     inputs, which the reduction and persistent schedulers asserted on (FC0319);
//  1. find the segment's inputs: tensors, fusion scalar inputs, and the
//     integral scalars SegmentedGroup::finalize forwards (extents a segment
//     uses as values); a per-segment multi-device executor that cannot
//     supply one fails (FC0310);
//  2. per-segment paths: the input rewrite, binding and the concretization
//     analysis of the segment alone (FC0301, FC0303, ...);
//  3. paths that never concretize: a dynamic transform reaches lowering (FC0312);
//  4. kernels compiled without a scheduler: a local buffer of symbolic size
//     (FC0311); a matmul inside such a kernel is not decided;
//  5. paths that schedule: the transpose scheduler's Reduction-axis hazard
//     on a segment input, before it was fixed (FC0302).
#include <algorithm>

#include "analysis/axis_map.h"
#include "ir/live_exprs.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "passes/segment_inputs.h"
#include "pipeline/context.h"
#include "support/phase_times.h"

namespace fc::pipeline_detail {
namespace {

bool mentionsSym(const Fusion& f, ScalarId s, ScalarId sym) {
  if (s == kNone) return false;
  auto free = ScalarEval::freeSymbols(f, s);
  return std::binary_search(free.begin(), free.end(), sym);
}

void addLeaves(const Fusion& f, ScalarId s, std::vector<ScalarId>& out) {
  if (s == kNone || f.scalars[s].kind == ScalarKind::Constant) return;
  if (f.scalars[s].kind == ScalarKind::Symbol) {  // its own leaf: most extents
    if (isIntegral(f.scalars[s].dtype)) out.push_back(s);
    return;
  }
  for (ScalarId x : ScalarEval::freeSymbols(f, s))
    if (isIntegral(f.scalars[x].dtype) && f.scalars[x].kind == ScalarKind::Symbol) out.push_back(x);
}

// The scalars SegmentedGroup::finalize makes inputs of `seg`
// (csrc/fusion_segmenter.cpp:319-348 @ bfa518ceb772): integral leaves the
// segment's exprs use (operands, attributes) and, from #840, leaves of the
// extents of the tensors it computes -- not constants, not fusion inputs,
// and from #840 not the extents of the non-Reduction axes of the tensors it
// takes.
std::vector<ScalarId> forwardedScalars(const Fusion& f, const Segment& seg, nv::ScalarForwarding rule) {
  std::vector<ScalarId> used;
  for (ExprId e : seg.exprs) {
    const Expr& x = f.exprs[e];
    for (const ValueRef& v : x.inputs)
      if (v.isScalar()) addLeaves(f, v.id, used);
    const Attrs& at = x.attrs;
    for (ScalarId s : at.shape) addLeaves(f, s, used);
    for (ScalarId s : at.pad) addLeaves(f, s, used);
    for (const SliceRange& r : at.ranges) {
      addLeaves(f, r.start, used);
      addLeaves(f, r.stop, used);
      addLeaves(f, r.step, used);
    }
    for (ScalarId s : {at.value, at.start, at.step}) addLeaves(f, s, used);
    if (rule != nv::ScalarForwarding::AllUsed)
      for (TensorId t : x.outputs)
        for (AxisId a : f.tensors[t].logical) {
          addLeaves(f, f.axes[a].extent, used);
          addLeaves(f, f.axes[a].expanded, used);
        }
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  if (rule == nv::ScalarForwarding::AllUsed) return used;
  std::vector<ScalarId> input_extents;
  for (const ValueRef& v : seg.inputs) {
    if (!v.isTensor()) continue;
    for (AxisId a : f.tensors[v.id].logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      input_extents.push_back(f.axes[a].expanded != kNone ? f.axes[a].expanded : f.axes[a].extent);
    }
  }
  std::sort(input_extents.begin(), input_extents.end());
  std::vector<ScalarId> out;
  for (ScalarId s : used)
    if (!std::binary_search(input_extents.begin(), input_extents.end(), s)) out.push_back(s);
  return out;
}

// Whether the host-IR evaluator knows `sym` when segment `seg` runs: it is
// the extent of a non-Reduction axis of a tensor bound before (a fusion
// input, or an output of an earlier segment), or a scalar input.
bool evaluatorKnows(const Fusion& f, const PipelineResult& r, ScalarEval& whole, const Segment& seg,
                    ScalarId sym) {
  if (whole.isKnown(sym)) {
    switch (whole.origin(sym).kind) {
      case Origin::Kind::InputAxis:
      case Origin::Kind::DidMesh:
      case Origin::Kind::Expanded:
      case Origin::Kind::ScalarInput:
      case Origin::Kind::UserBind:
      case Origin::Kind::Constant: return true;
      default: break;
    }
  }
  for (const Segment& s : r.segmented.segments) {
    if (s.id >= seg.id) break;
    for (TensorId t : s.outputs)
      for (AxisId a : f.tensors[t].logical)
        if (f.axes[a].iter != IterType::Reduction && (f.axes[a].extent == sym || f.axes[a].expanded == sym))
          return true;
  }
  return false;
}

std::string groupText(const Fusion& f, const Segment& seg) {
  std::string g = "g{";
  for (size_t i = 0; i < seg.exprs.size(); ++i)
    g += (i ? ", " : "") + std::to_string(userExprId(f, seg.exprs[i]));
  return g + "}";
}

int64_t firstDevice(const Fusion& f, const Segment& seg) {
  for (ExprId e : seg.exprs)
    for (TensorId t : f.exprs[e].outputs)
      if (f.tensors[t].mesh != kNone && !f.meshes[f.tensors[t].mesh].devices.empty())
        return f.meshes[f.tensors[t].mesh].devices.front();
  return 0;
}

// A segment the transpose scheduler takes: the repro's segmentation says
// so, it permutes, or a tensor it takes is laid out in another order (an
// allocation domain that permutes its logical domain). Approximate where the
// repro does not say: the scheduler's own choice is heuristic.
bool looksTransposed(const Fusion& f, const Segment& seg) {
  if (seg.scheduler == "transpose") return true;
  for (ExprId e : seg.exprs)
    if (f.exprs[e].op == OpKind::Permute) return true;
  for (const ValueRef& v : seg.inputs) {
    if (!v.isTensor()) continue;
    const Tensor& t = f.tensors[v.id];
    if (!t.allocation.empty() && t.allocation != t.logical && t.transforms.empty()) return true;
  }
  return false;
}

// nvFuser before #143: the reduction and persistent schedulers accept a fusion without tensor
// inputs (no check in canScheduleCompileTime) and then assert on it computing their heuristics
// (csrc/scheduler/reduction.cpp:926, normalization.cpp:998 @ 2c6d0cf932c8). Reports FC0319 and
// returns true when `seg` is such a segment on a path that schedules it.
bool reductionWithoutInputs(const Fusion& f, const Segment& seg, const Profile& p, const std::string& file,
                            DiagnosticSink& sink) {
  if (p.kernel_without_scheduler || p.state.get<nv::ReductionNoInputs>() != nv::ReductionNoInputs::Asserted ||
      seg.scheduler == "expr_eval")
    return false;
  if (std::any_of(seg.inputs.begin(), seg.inputs.end(), [](const ValueRef& v) { return v.isTensor(); }))
    return false;
  ExprId red = kNone;
  for (ExprId e : seg.exprs)
    if (opInfo(f.exprs[e].op).category == OpCategory::Reduction) {
      red = e;
      break;
    }
  if (red == kNone) return false;
  auto& d = sink.error(DiagCode::ReductionWithoutInputs,
                       "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                           ") reduces without a tensor input, and the reduction scheduler asserts on it",
                       Location::at(file, Place::expr(red)));
  d.note("every tensor the segment reads is made inside it (" + exprLabel(f, seg.exprs.front()) +
         " first): the reduction and persistent schedulers accept such a segment, then fail computing "
         "their heuristics");
  d.note(
      "which exprs share the segment is approximated by the path's hard rules: a fusion the segmenter "
      "cuts so that the reduction reads a tensor from another segment runs");
  d.check = CheckRef{"NoTensorInputs", {}};
  if (const nv::Change* fixed = nv::firstChangeTo(nv::ReductionNoInputs::Rejected))
    d.note("fixed by " + fixed->label() +
           ": the schedulers refuse a fusion without tensor inputs, and the segmenter gives the reduction "
           "one");
  return true;
}

}  // namespace

void Ctx::segmentPasses(const Segment& seg, Lane& lane) {
  if (seg.kind != SegmentKind::Compute) return;
  // At scheduling, after the whole fusion's concretization (FusionExecutorCache, the one path of
  // nvFuser before #143).
  if (reductionWithoutInputs(f, seg, p, opts.file, *lane.sink)) return;
  // Per-segment trace (the whole-fusion passes are traced regardless).
  const bool tr =
      opts.trace && (opts.trace_segment < 0 || static_cast<uint32_t>(opts.trace_segment) == seg.id);
  const InputRewrite rw = r.input_rewrite;
  const bool per_segment = p.order == ConcretizeOrder::PerSegment;
  const bool hazards = p.transpose_tile_hazard || p.transpose_outer_hazard;
  const bool lookups = p.lookup == SegmentLookup::BufferMap || p.lookup == SegmentLookup::HieBufferMap ||
                       p.lookup == SegmentLookup::Evaluator;
  // A whole-first path binds no segment: the inputs serve only the trace and
  // the hazards. Skipping them saves a walk of every segment input (~0.1 s at
  // 1M exprs).
  if (!tr && p.order == ConcretizeOrder::WholeFirst && !hazards) return;
  const bool need_sizes = tr || per_segment;
  PhaseScope inputs_phase("pipeline: segment inputs");
  std::vector<BoundInput> inputs;
  std::vector<std::pair<ScalarId, std::optional<int64_t>>> scalars;
  for (const ValueRef& v : seg.inputs) {
    if (v.isTensor()) {
      BoundInput b;
      b.tensor = v.id;
      b.domain = segmentInputDomain(f, v.id, rw);
      b.fresh_rfactor = true;
      if (need_sizes) b.sizes = runtimeSizes(v.id, b.domain);
      inputs.push_back(std::move(b));
    } else {
      scalars.push_back({v.id, whole.value(v.id)});
    }
  }
  const bool from_repro = f.segmentation && f.segmentation->input_rewrite.has_value();
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
    trace("segment-inputs", "segment " + std::to_string(seg.id), t);
  }
  inputs_phase.stop();
  const size_t before = lane.sink->all().size();
  auto failedHere = [&] {
    for (size_t i = before; i < lane.sink->all().size(); ++i)
      if (lane.sink->all()[i].severity == Severity::Error ||
          lane.sink->all()[i].severity == Severity::NotDecided)
        return true;
    return false;
  };

  // 1. The executor's lookup of what the segment takes.
  std::vector<ScalarId> forwarded;
  if (lookups || per_segment || tr) forwarded = forwardedScalars(f, seg, p.state.get<nv::ScalarForwarding>());
  if (lookups) {
    auto recorded = [&](ScalarId s) {
      return std::any_of(r.segmented.forward.begin(), r.segmented.forward.end(),
                         [&](const ForwardedExtent& fw) { return fw.segment == seg.id && fw.symbol == s; });
    };
    for (ScalarId s : forwarded) {
      if (recorded(s)) continue;
      const bool known = p.lookup == SegmentLookup::Evaluator && evaluatorKnows(f, r, whole, seg, s);
      if (known) continue;
      const std::string name = symbolToString(f, s);
      ExprId user = kNone;
      for (ExprId e : seg.exprs) {
        for (const ValueRef& v : f.exprs[e].inputs)
          if (v.isScalar() && mentionsSym(f, v.id, s)) user = e;
        if (user != kNone) break;
      }
      auto& d = lane.sink->error(DiagCode::MissingSegmentInput,
                                 "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                                     ") takes " + name + ", which its executor has no value for",
                                 user != kNone ? exprLoc(user) : Location{opts.file, "", 0, 0});
      d.note(name + " is an extent " +
             (user != kNone ? "expr " + std::to_string(userExprId(f, user)) + " (" +
                                  std::string(opName(f.exprs[user].op)) + ") uses as a value"
                            : std::string("the segment's tensors need")) +
             ": the segmenter forwards it into segment " + std::to_string(seg.id) +
             " as a scalar input (SegmentedGroup::finalize)");
      UnboundExtent rec;
      rec.segment = static_cast<int>(seg.id);
      rec.symbol = s;
      rec.missing_input = true;
      rec.needed = true;
      UnboundUse u;
      u.symbol = s;
      u.expr = user;
      rec.uses.push_back(u);
      if (whole.isKnown(s)) {
        rec.whole_origin = whole.origin(s);
        rec.whole_value = whole.value(s);
      }
      if (p.lookup == SegmentLookup::BufferMap) {
        d.note(
            "the MultiDeviceExecutor supplies a segment only the tensors it holds (fusion inputs, outputs of "
            "earlier segments), never a scalar");
        d.check = CheckRef{
            "MdeNoBuffer",
            {{"device", std::to_string(firstDevice(f, seg))}, {"val", name}, {"group", groupText(f, seg)}}};
      } else {
        d.note(p.lookup == SegmentLookup::HieBufferMap
                   ? "the host-IR interpreter looks a segment's inputs up in a map of the tensors it holds"
                   : "the host-IR evaluator knows the extents of the tensors bound so far, and " + name +
                         " is none of them");
        d.check =
            CheckRef{"HieNoBuffer", {{"val", name}, {"post", "PostOnStream (" + groupText(f, seg) + ")"}}};
      }
      const nv::Change* later = p.lookup == SegmentLookup::Evaluator
                                    ? nullptr
                                    : nv::nextChangeTo(nv::SegmentInputLookup::Evaluator, p.point.pos);
      if (later && evaluatorKnows(f, r, whole, seg, s)) {
        rec.forward_applies = true;
        d.notes.push_back(Note{"fix[forward-extent]",
                               "bind " + name + " in segment " + std::to_string(seg.id) + " from " +
                                   describeOrigin(f, s, rec.whole_origin, rec.whole_value, p.did_rule) +
                                   " (what nvFuser does from " + later->label() + ")",
                               {}});
      }
      lane.unbound->push_back(std::move(rec));
      break;  // the executor stops at the first
    }
    if (p.lookup == SegmentLookup::BufferMap && !failedHere())
      for (const ValueRef& v : seg.inputs)
        if (v.isScalar()) {
          auto& d = lane.sink->error(DiagCode::MissingSegmentInput,
                                     "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                                         ") takes the scalar input " + symbolToString(f, v.id) +
                                         ", which the MultiDeviceExecutor cannot pass to a segment",
                                     Location{opts.file, "", 0, 0});
          d.note("the MultiDeviceExecutor runs a compute segment with tensors only");
          d.check = CheckRef{"MdeScalarInput", {}};
          break;
        }
    if (failedHere()) return;
  }

  // 2. Per-segment paths: bind and concretize the segment alone.
  if (per_segment) {
    PhaseScope seg_bind_phase("pipeline: bind segments");
    if (lane.ev)
      lane.ev->reset();
    else
      lane.ev.emplace(f);
    ScalarEval& ev = *lane.ev;
    BindRequest req;
    req.did = p.did_rule;
    req.file = opts.file;
    req.tensors = inputs;
    req.scalars = scalars;
    for (ScalarId s : forwarded) req.forwarded.push_back({s, whole.value(s)});
    for (const ForwardedExtent& fw : r.segmented.forward)
      if (fw.segment == seg.id && fw.symbol < f.scalars.size())
        req.forwarded.push_back({fw.symbol, whole.value(fw.symbol)});
    req.exprs = seg.exprs;
    bindView(f, req, ev, *lane.sink);
    seg_bind_phase.stop();
    PhaseScope seg_concretize_phase("pipeline: concretize segments");
    if (tr) trace("bind", "segment " + std::to_string(seg.id), bindingsText(ev));
    ViewSpec view{static_cast<int>(seg.id), seg.exprs, inputs};
    ConcretizationInfo info =
        analyzeConcretization(f, view, ev, p.did_rule, *lane.sink, opts.file, lane.scratch);
    reportUnbound(info, static_cast<int>(seg.id), &seg, inputs, rw, from_repro, *lane.sink, *lane.unbound);
    if (tr) traceConcretize("segment " + std::to_string(seg.id), info, true);
    if (tr && info.unbound.empty()) apply("segment " + std::to_string(seg.id), seg.exprs, ev);
    if (failedHere()) return;
  }

  // 3. Never concretized: a dynamic transform reaches lowering.
  if (p.order == ConcretizeOrder::None) {
    std::vector<std::string> dynamic;
    ExprId first = kNone;  // where the first Symbolic axis is made
    for (ExprId e : seg.exprs)
      for (TensorId t : f.exprs[e].outputs)
        for (AxisId a : f.tensors[t].logical)
          if (f.axes[a].iter == IterType::Symbolic) {
            dynamic.push_back(std::string(f.tensorName(t)));
            if (first == kNone) first = e;
            break;
          }
    if (!dynamic.empty()) {
      std::string list;
      for (size_t i = 0; i < dynamic.size(); ++i) list += (i ? ", " : "") + dynamic[i];
      auto& d =
          lane.sink->error(DiagCode::UnconcretizedDynamic,
                           "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                               ") holds a dynamic transform, and this path compiles it without concretizing",
                           exprLoc(first));
      d.note(list + " " + (dynamic.size() == 1 ? "has" : "have") +
             " Symbolic axes that only concretization decides");
      d.check = CheckRef{"DynamicBeforeLowering", {{"tensors", list}}};
      return;
    }
  }

  // 4. A kernel compiled without a scheduler.
  if (p.kernel_without_scheduler) {
    bool matmul = false, only_matmul = true;
    for (ExprId e : seg.exprs) {
      const bool mm = opInfo(f.exprs[e].op).category == OpCategory::Matmul;
      matmul |= mm;
      only_matmul &= mm || f.exprs[e].op == OpKind::Permute;
    }
    if (matmul && !(only_matmul && p.expr_eval_dispatch)) {
      auto& d =
          lane.sink->report(Severity::NotDecided, DiagCode::NotDecided,
                            "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                                ") holds a matmul that this path compiles into a kernel without a scheduler",
                            Location{opts.file, "", 0, 0});
      d.note(p.label() + " compiles a compute segment with " +
             (p.state.get<nv::MdeKernelDispatch>() == nv::MdeKernelDispatch::KernelOnly
                  ? std::string("FusionExecutor::compileFusion")
                  : std::string("a KernelExecutor")) +
             " and no scheduler; what lowering does with a MatmulOp there is not modelled");
      return;
    }
    if (!matmul) {
      // The segment's own outputs, sorted: a table over every tensor of the
      // fusion would make this quadratic in a fusion of many segments.
      std::vector<TensorId> outputs(seg.outputs.begin(), seg.outputs.end());
      std::sort(outputs.begin(), outputs.end());
      std::vector<std::string> buffers;
      for (ExprId e : seg.exprs)
        for (TensorId t : f.exprs[e].outputs) {
          if (std::binary_search(outputs.begin(), outputs.end(), t) ||
              f.tensors[t].memory == MemoryType::Global)
            continue;
          bool symbolic = false;
          for (AxisId a : f.tensors[t].logical) {
            const Axis& ax = f.axes[a];
            if (ax.iter == IterType::Reduction || ax.iter == IterType::Broadcast || isDeviceDim(ax.parallel))
              continue;
            if (ax.extent != kNone && f.scalars[ax.extent].kind != ScalarKind::Constant) symbolic = true;
          }
          if (symbolic) buffers.push_back(tensorToString(f, t, PrintStyle::Y2024));
        }
      if (!buffers.empty()) {
        std::string list;
        for (auto& b : buffers) list += b + ", ";
        if (list.size() >= 2) list.resize(list.size() - 2);
        auto& d = lane.sink->error(DiagCode::DynamicLocalAllocation,
                                   "segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) +
                                       ") keeps " + std::to_string(buffers.size()) + " intermediate tensor" +
                                       (buffers.size() == 1 ? "" : "s") + " of symbolic size in local memory",
                                   Location{opts.file, "", 0, 0});
        d.note(p.label() +
               " compiles the segment into a kernel without a scheduler: its intermediates stay "
               "in local memory, whose size must be a constant");
        d.check = CheckRef{"LocalAllocation", {{"buffers", list}}};
        return;
      }
    }
  }

  // 5. The transpose scheduler on a segment input that keeps a Reduction axis.
  if (hazards && rw == InputRewrite::KeepReductions && seg.scheduler != "expr_eval" &&
      looksTransposed(f, seg)) {
    PhaseScope hazards_phase("pipeline: edge hazards");
    for (const BoundInput& in : inputs) {
      const auto& dom = in.domain;
      const size_t n = dom.size();
      for (size_t i = 0; i < n; ++i) {
        if (f.axes[dom[i]].iter != IterType::Reduction) continue;
        const bool tile = i + 2 >= n;  // among the two innermost
        const bool outer = !tile && n >= 3;
        const nv::Change* fixed = nullptr;
        if (tile && p.transpose_tile_hazard)
          fixed = nv::firstChangeTo(nv::TransposeTileReduction::Fixed);
        else if (outer && p.transpose_outer_hazard)
          fixed = nv::firstChangeTo(nv::TransposeOuterReduction::Fixed);
        else
          continue;
        auto& d =
            lane.sink->error(DiagCode::EdgeHazard,
                             "segment " + std::to_string(seg.id) + " (" + seg.scheduler + ") receives " +
                                 std::string(f.tensorName(in.tensor)) + " with Reduction axis " +
                                 axisToString(f, dom[i]) + ", which the transpose scheduler merges",
                             axisLoc(in.tensor, i));
        d.note(
            "the input rewrite at this point keeps Reduction axes: " + std::string(f.tensorName(in.tensor)) +
            " enters segment " + std::to_string(seg.id) + " as " + domainToString(f, dom));
        d.note(std::string(
                   "the segment transposes, so the transpose scheduler takes it (approximate: its choice "
                   "and its reference tensor are heuristics), and ") +
               (tile ? "merges the two tile axes of its reference"
                     : "merges the non-tile axes of its reference") +
               " without looking at Reduction axes; " +
               (fixed ? "fixed by " + fixed->label() : std::string()));
        d.check = CheckRef{"MergeIterTypes", {}};
        const nv::Change* later = nv::nextChangeTo(nv::InputRewrite::StripReductions, p.point.pos);
        d.notes.push_back(
            Note{"fix[strip-reduction-axes]",
                 std::string(f.tensorName(in.tensor)) + " enters segment " + std::to_string(seg.id) + " as " +
                     domainToString(f, segmentInputDomain(f, in.tensor, InputRewrite::StripReductions)) +
                     (later ? " (what nvFuser does from " + later->label() + ")" : std::string()) +
                     "; obligation holds",
                 {}});
        return;
      }
    }
  }
}

}  // namespace fc::pipeline_detail
