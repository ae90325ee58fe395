// The pass sequence of a profile. In nvFuser's order for the path replayed:
//
//   frontend      what the frontend of that date fails to build
//   live exprs    the exprs an output depends on (ir/live_exprs.h): the rest never reach a pass
//   sharding      a fusion with meshes: the mesh rule, propagation, resharding insertion
//   bind          the complete fusion (provenance, and the sizes segments run with)
//   concretize    whole-first paths: the complete fusion
//   segment       the repro's segmentation, or the path's segmenter
//   executor      per compute segment (segment_checks.cpp): lookups, rewrite + bind +
//                 concretize (per-segment paths), what its kernel compiler checks
//
// then the findings are de-duplicated, each gets the nvFuser check it stands
// for (nvfuser_checks.h), and the verdict is the first finding in run order.
// A profile of a repro dated only by its print style runs this at every
// change point of that range instead (printed_range.h).
#include "pipeline/pipeline.h"

#include <algorithm>
#include <functional>
#include <future>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "analysis/axis_map.h"
#include "analysis/resharding.h"
#include "ir/live_exprs.h"
#include "passes/segment.h"
#include "passes/sharding.h"
#include "pipeline/context.h"
#include "pipeline/duplicate_outputs.h"
#include "pipeline/forwarded_inputs.h"
#include "pipeline/frontend_binding.h"
#include "pipeline/indexing_ops.h"
#include "pipeline/lost_extent_scalars.h"
#include "pipeline/lowered_edges.h"
#include "pipeline/nvfuser_checks.h"
#include "pipeline/opaque_ops.h"
#include "pipeline/printed_range.h"
#include "pipeline/reshape_minus_one.h"
#include "pipeline/sdpa_scheduling.h"
#include "pipeline/symbolic_squeeze.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/step_counters.h"

namespace fc {

std::string_view verdictName(Verdict v) {
  switch (v) {
    case Verdict::Clean: return "clean";
    case Verdict::Findings: return "findings";
    case Verdict::NotDecided: return "not-decided";
  }
  return "clean";
}

bool PipelineResult::failed() const {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

Verdict PipelineResult::verdict() const {
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::Error) return Verdict::Findings;
    if (d.severity == Severity::NotDecided) return Verdict::NotDecided;
  }
  return Verdict::Clean;
}

std::string verdictSummary(const PipelineResult& r) {
  size_t errors = 0, open = 0;
  for (const auto& d : r.diagnostics) {
    errors += d.severity == Severity::Error;
    open += d.severity == Severity::NotDecided;
  }
  std::string v;
  switch (r.verdict()) {
    case Verdict::Clean: v = "clean"; break;
    case Verdict::Findings: v = std::to_string(errors) + " error" + (errors > 1 ? "s" : ""); break;
    case Verdict::NotDecided:
      v = "not decided (" + std::to_string(open) + " open question" + (open > 1 ? "s" : "") +
          (errors ? ", " + std::to_string(errors) + " error" + (errors > 1 ? "s" : "") + " after it"
                  : std::string()) +
          ")";
      break;
  }
  return r.profile.label() + " (" + std::string(orderText(r.profile.order)) + "), " +
         std::to_string(r.segmented.segments.size()) +
         (r.segmented.segments.size() == 1 ? " segment, " : " segments, ") + v;
}

namespace {

using pipeline_detail::Ctx;

// Workers for a scan over n exprs or tensors that stops at its first hit.
size_t scanWorkers(size_t n) {
  constexpr size_t kParallelMin = 65536;
  return n >= kParallelMin ? threadsFor(defaultThreads()) : 1;
}

unsigned pipelineThreads(const PipelineOptions& opts) {
  return threadsFor(opts.threads != 0 ? opts.threads : defaultThreads());
}

// Whether runPipeline segments on a second thread: never when tracing (the
// trace is one ordered record), on one thread, or below the size where a
// thread costs more than it saves.
bool overlapSegmenting(const Fusion& f, const PipelineOptions& opts) {
  if (opts.trace || f.exprs.size() < opts.parallel_min_exprs) return false;
  return pipelineThreads(opts) >= 2;
}

void notDecided(DiagnosticSink& sink, const std::string& file, std::string msg, Location loc = {}) {
  if (loc.file.empty()) loc.file = file;
  sink.report(Severity::NotDecided, DiagCode::NotDecided, std::move(msg), std::move(loc));
}

Location exprLocation(const std::string& file, ExprId e) { return Location::at(file, Place::expr(e)); }

// The note for the exprs no output depends on (ascending ids of `f`, the repro's fusion).
Diagnostic deadExprNote(const Fusion& f, const std::vector<ExprId>& dead, const std::string& file) {
  auto named = [&](ExprId e) {
    const Expr& x = f.exprs[e];
    return std::to_string(e) + " (" + std::string(exprOpName(x)) + ")";
  };
  std::string msg;
  if (dead.size() == 1) {
    msg = "expr " + named(dead[0]) + " reaches no fusion output";
  } else {
    constexpr size_t kShown = 6;
    msg = std::to_string(dead.size()) + " exprs reach no fusion output: exprs ";
    for (size_t i = 0; i < dead.size() && i < kShown; ++i) msg += (i ? ", " : "") + named(dead[i]);
    if (dead.size() > kShown) msg += " and " + std::to_string(dead.size() - kShown) + " more";
  }
  msg += dead.size() == 1 ? ": nvFuser builds it but never segments, concretizes or runs it"
                          : ": nvFuser builds them but never segments, concretizes or runs them";
  Diagnostic d;
  d.severity = Severity::Note;
  d.code = DiagCode::DeadExpr;
  d.message = std::move(msg);
  d.loc = exprLocation(file, dead[0]);
  d.note(
      "nvFuser's Fusion::exprs() walks back from the fusion's outputs (csrc/fusion.cpp:461-463, "
      "csrc/iter_visitor.cpp:890-899 @ 81c4b22fd; csrc/fusion.cpp:338-340 @ 4e7365d18), and the segmenter "
      "(csrc/fusion_segmenter.cpp:3790) and the concretization analysis (csrc/dynamic_transform.cpp:112) "
      "see only those exprs");
  d.note("fusecheck replays the fusion without them: what it reports is about the other exprs");
  return d;
}

// The K axis of a matmul's / linear's first operand is a broadcast (K = 1).
bool kIsOne(const Fusion& f, const Expr& e) {
  if (e.inputs.empty() || !e.inputs[0].isTensor()) return false;
  const auto& L = f.tensors[e.inputs[0].id].logical;
  for (auto it = L.rbegin(); it != L.rend(); ++it) {
    const Axis& ax = f.axes[*it];
    if (ax.iter == IterType::Reduction) continue;
    return ax.iter == IterType::Broadcast;
  }
  return false;
}

// What nvFuser's op builders reject while the definition is built, before anything runs: nvFuser
// stops there. True when one did.
bool definitionRejected(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink) {
  using namespace nv;
  const State& s = p.state;
  if (s.get<LinearNode>() != LinearNode::LinearOp) return false;
  // The ranks linear takes (#3073): weight 1-D or 2-D, a bias only with a 2-D weight
  // (csrc/ops/composite.cpp:120-128 @ f8746a2bee50); from then on weight 2-D or more and a
  // bias 1-D or more (csrc/ops/composite.cpp:189-208 @ 81c4b22fd).
  const bool one_or_two = s.get<LinearWeightRank>() == LinearWeightRank::OneOrTwo;
  struct Ranks {
    size_t weight = 0, bias = 0;
    bool has_bias = false;
  };
  auto ranks = [&](const Expr& x) {
    Ranks r;
    r.weight = f.nonReductionRank(x.inputs[1].id);
    r.has_bias = x.inputs.size() >= 3;
    r.bias = r.has_bias && x.inputs[2].isTensor() ? f.nonReductionRank(x.inputs[2].id) : 0;
    return r;
  };
  auto why = [&](const Ranks& r) -> const char* {
    if (one_or_two) {
      if (r.weight > 2) return "Input B must be a 1D / 2D tensor.";
      if (r.weight == 1 && r.has_bias) return "Expected B to be a 2D matrix if bias is given, got 1D.";
      return nullptr;
    }
    if (r.weight < 2)
      return "Input B must be at least 2D. The last two dimensions represent out features and in features.";
    if (r.has_bias && r.bias == 0)
      return "Input bias must be at least 1D. The last dimension represents out features.";
    return nullptr;
  };
  const size_t n = f.exprs.size();
  const size_t e = firstWhere(n, scanWorkers(n), [&](size_t i) {
    const Expr& x = f.exprs[i];
    return x.op == OpKind::Linear && x.inputs.size() >= 2 && x.inputs[1].isTensor() &&
           why(ranks(x)) != nullptr;
  });
  if (e == n) return false;
  const Ranks r = ranks(f.exprs[e]);
  auto& d = sink.error(
      DiagCode::FrontendRejects,
      "nvFuser at this point does not build this linear (weight of rank " + std::to_string(r.weight) +
          (r.has_bias ? ", bias of rank " + std::to_string(r.bias) : std::string()) + "): " + why(r),
      exprLocation(file, static_cast<ExprId>(e)));
  d.note(std::string("linear's rank checks at this point: ") +
         (one_or_two ? "csrc/ops/composite.cpp:120-128 @ f8746a2bee50"
                     : "csrc/ops/composite.cpp:189-208 @ 81c4b22fd750"));
  d.note("the ranks changed with " + firstChangeTo(LinearWeightRank::TwoOrMore)->label());
  return true;
}

// An expand of an axis of constant extent 1 that is not Broadcast, to another size, before the
// change that made expand take that axis (#1394 for a Symbolic one, #1535 for any): a constant
// size fails "Invalid expand size"; another size kept the extent 1, which is not modelled. False
// (nothing reported) where expand takes every such axis.
bool expandOneRefused(const Fusion& f, ExprId e, const Profile& p, const std::string& file,
                      DiagnosticSink& sink) {
  using namespace nv;
  const ExpandOne rule = p.state.get<ExpandOne>();
  const Expr& x = f.exprs[e];
  if (rule == ExpandOne::AnyConstOne || x.op != OpKind::Expand || x.inputs.empty() || !x.inputs[0].isTensor())
    return false;
  const TensorId t = x.inputs[0].id;
  std::vector<AxisId> in;
  for (AxisId a : f.tensors[t].logical)
    if (f.axes[a].iter != IterType::Reduction) in.push_back(a);
  for (size_t i = 0; i < in.size() && i < x.attrs.shape.size(); ++i) {
    const Axis& a = f.axes[in[i]];
    const bool taken =
        a.iter == IterType::Broadcast || (rule == ExpandOne::SymbolicToo && a.iter == IterType::Symbolic);
    const std::optional<int64_t> extent = constIntOf(f, a.extent), size = constIntOf(f, x.attrs.shape[i]);
    if (taken || extent != 1 || size == 1 || size == -1) continue;
    const ExpandOne fixed_by = a.iter == IterType::Symbolic ? ExpandOne::SymbolicToo : ExpandOne::AnyConstOne;
    const std::string axis = axisToString(f, in[i]), which = "axis " + std::to_string(i) + " of " +
                                                             std::string(f.tensorName(t)) + ", " + axis;
    const Location loc = Location::at(file, Place::expr(e));
    if (!size) {
      notDecided(sink, file,
                 "expand of " + which + ", of constant extent 1 but not Broadcast, to the size " +
                     scalarToString(f, x.attrs.shape[i]) +
                     " keeps the extent 1 at this point, and what follows from that is not modelled",
                 loc);
      return true;
    }
    auto& d =
        sink.error(DiagCode::FrontendRejects,
                   "nvFuser at this point does not build this expand: " + which +
                       ", has the constant extent 1 but is not Broadcast, and expand takes only a Broadcast "
                       "axis to another size (" +
                       std::to_string(*size) + "): \"Invalid expand size, " + std::to_string(*size) +
                       ", for " + axis + "\"",
                   loc);
    d.note(
        "expand gives an axis that it does not expand its operand's constant extent and checks the size "
        "against it (csrc/ops/arith.cpp:1478-1509 @ afbee57ba)");
    d.check = CheckRef{"InvalidExpandSize", {}};
    d.note("fixed by " + firstChangeTo(fixed_by)->label() + ": " +
           (fixed_by == ExpandOne::SymbolicToo
                ? "a Symbolic axis of constant extent 1 expands like a Broadcast one"
                : "any axis of constant extent 1 expands like a Broadcast one"));
    return true;
  }
  return false;
}

// What the frontend and the IR builder of this date do before any executor
// runs: ops it did not build as the repro has them, and builds that fail.
void frontendSteps(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink) {
  using namespace nv;
  const State& s = p.state;
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    const Expr& x = f.exprs[e];
    if (x.op == OpKind::Matmul && s.get<MatmulNode>() == MatmulNode::Composite) {
      notDecided(sink, file,
                 "matmul was built as broadcast + fusedMultiplySum before " +
                     firstChangeTo(MatmulNode::MatmulOp)->label() +
                     "; fusecheck models the MatmulOp node only",
                 exprLocation(file, e));
      return;
    }
    if (x.op == OpKind::Linear && s.get<LinearNode>() == LinearNode::Composite) {
      notDecided(sink, file,
                 "linear was built as broadcast + fusedMultiplySum before " +
                     firstChangeTo(LinearNode::LinearOp)->label() +
                     "; fusecheck models the LinearOp node only",
                 exprLocation(file, e));
      return;
    }
    const KOneReduction k = s.get<KOneReduction>();
    const bool broken = (x.op == OpKind::Linear &&
                         (k == KOneReduction::LinearBroken || k == KOneReduction::MatmulAndLinearBroken)) ||
                        (x.op == OpKind::Matmul && k == KOneReduction::MatmulAndLinearBroken);
    if (broken && kIsOne(f, x)) {
      auto& d = sink.report(Severity::NotDecided, DiagCode::NotDecided,
                            std::string(opName(x.op)) +
                                " with K = 1 builds an output with an extra Reduction axis at this point",
                            exprLocation(file, e));
      d.note(
          "csrc/ops/composite.cpp:90-92,360-362 @ 3c8a3c4798d6 force an rK axis from the broadcast K; what "
          "fails downstream is not modelled (issue #2532); fixed by " +
          firstChangeTo(KOneReduction::Fixed)->label());
      return;
    }
    if (expandOneRefused(f, e, p, file, sink)) return;
    if (p.frontend == Frontend::Python && x.op == OpKind::Slice &&
        s.get<PythonSliceReduction>() == PythonSliceReduction::Broken && !x.inputs.empty() &&
        x.inputs[0].isTensor()) {
      const TensorId in = x.inputs[0].id;
      bool reduction = false;
      for (AxisId a : f.tensors[in].logical) reduction |= f.axes[a].iter == IterType::Reduction;
      if (!reduction) continue;
      auto& d = sink.error(DiagCode::FrontendRejects,
                           "the Python frontend cannot build this slice: its input " +
                               std::string(f.tensorName(in)) + " has a Reduction axis",
                           exprLocation(file, e));
      d.note(
          "SliceOpRecord loops over every axis of its input, Reduction axes included, and reads the slice "
          "ranges with vector::at (csrc/python_frontend/fusion_record.h:392-397 @ 9d66566c8979): a "
          "std::out_of_range from the C++ standard library, before any nvFuser check");
      d.note("fixed by " + firstChangeTo(PythonSliceReduction::Fixed)->label());
      return;
    }
  }
}

// A tensor that still has a DID axis but no mesh once this path's sharding passes ran (or where it
// runs none): nvFuser's propagation gives a mesh only to an op output with a meshed input
// (propagateShardings, csrc/multidevice/utils.cpp:327 @ bfa518ceb) and, from #3054, to an input
// of an expr with a meshed output (csrc/preseg_passes/propagate_shardings.cpp:74-97 @ ab21286a5),
// and what it does with a tensor left without one is not modelled. False when there is none.
bool didWithoutMeshOpen(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink) {
  const size_t n = f.tensors.size();
  // Not the tensors of exprs no output depends on (only a copy without them has such tensors).
  const std::vector<uint8_t> used = f.expr_origin.empty() ? std::vector<uint8_t>() : usedTensors(f);
  const size_t t = firstWhere(n, scanWorkers(n), [&](size_t i) {
    const Tensor& tv = f.tensors[i];
    return (used.empty() || used[i]) && tv.mesh == kNone &&
           std::any_of(tv.loopDomain().begin(), tv.loopDomain().end(),
                       [&](AxisId a) { return isDeviceDim(f.axes[a].parallel); });
  });
  if (t < n) {
    const Tensor& tv = f.tensors[t];
    for (AxisId a : tv.loopDomain()) {
      if (!isDeviceDim(f.axes[a].parallel)) continue;
      auto& d = sink.report(
          Severity::NotDecided, DiagCode::NotDecided,
          std::string(f.tensorName(t)) + " has the " + std::string(parallelTypeName(f.axes[a].parallel)) +
              " axis " + axisToString(f, a) + " but no device mesh" +
              (p.multi_device && p.sharding_passes ? " after the sharding passes"
                                                   : ", and this path runs no sharding pass") +
              ": what nvFuser does with a DID axis off any mesh is not modelled",
          Location::at(file, Place::tensor(t)));
      d.note(tv.definition == kNone
                 ? std::string(f.tensorName(t)) +
                       (p.backprop_meshes
                            ? " is a fusion input that no expr with a meshed output reads: only the "
                              "repro's schedule (set_device_mesh / setDeviceMesh) could give it a mesh"
                            : " is a fusion input: only the repro's schedule (set_device_mesh / "
                              "setDeviceMesh) gives one a mesh")
                 : std::string(f.tensorName(t)) +
                       " is made by an op without a meshed tensor input, so propagation gives it no mesh");
      return true;
    }
  }
  return false;
}

ShardingOptions shardingOptions(const Profile& p, const std::string& file) {
  ShardingOptions o;
  o.propagate = p.propagate;
  o.reduction_did_reset = p.reduction_did_reset;
  o.reduction_did_stays_local = p.reduction_did_stays_local;
  switch (p.propagation_reference) {
    case nv::PropagationReference::FirstMeshed: o.reference = ReferenceChoice::FirstMeshed; break;
    case nv::PropagationReference::MostParallel: o.reference = ReferenceChoice::MostParallel; break;
    case nv::PropagationReference::WeightsFirst: o.reference = ReferenceChoice::WeightsFirst; break;
  }
  o.keep_target_types = p.keep_target_types;
  o.backprop_meshes = p.backprop_meshes;
  o.backprop_dids = p.backprop_dids;
  o.backprop_loop_split = p.backprop_loop_split;
  o.reduction_dids_counted = p.reduction_dids_counted;
  o.build = p.op_build;
  o.insert_reshardings = true;
  o.reshard_after = p.reshard_after;
  switch (p.mesh_rule) {
    case nv::MeshRule::None: o.mesh = MeshRequirement::None; break;
    case nv::MeshRule::AtLeastOneInput: o.mesh = MeshRequirement::AtLeastOneInput; break;
    case nv::MeshRule::EveryTvInput: o.mesh = MeshRequirement::EveryTvInput; break;
    case nv::MeshRule::AllOrNone: o.mesh = MeshRequirement::AllOrNone; break;
    case nv::MeshRule::SomeWithout: o.mesh = MeshRequirement::SomeWithout; break;
  }
  o.reject_scalar_exprs = p.rejects_scalar_exprs;
  o.unmapped_axis_error = p.unmapped_axis_error;
  o.lowering = p.lowering;
  o.file = file;
  return o;
}

// Whether some expr reduces an axis its input shards through a DID split of a logical axis (a
// K-sharded linear, matmul or sum): nvFuser from #4209 rFactors such a reduction into a local op
// and a reduction over the DID part (csrc/preseg_passes/insert_reshardings.cpp:146-180 @
// 8e208ccc0e80; decompose_reshardings.cpp:341-414 @ 81c4b22fd750).
bool hasDeviceSplit(const Fusion& f) {
  for (const Tensor& t : f.tensors)
    for (const AxisTransform& tr : t.transforms)
      if (tr.kind == AxisTransform::Kind::Split &&
          ((tr.out != kNone && isDeviceDim(f.axes[tr.out].parallel)) ||
           (tr.out2 != kNone && isDeviceDim(f.axes[tr.out2].parallel))))
        return true;
  return false;
}

// Whether expr `e` reduces an axis of an operand that a split shards across devices.
bool reducesDeviceSplitAxis(const Fusion& f, ExprId e) {
  const Expr& x = f.exprs[e];
  for (size_t i = 0; i < x.inputs.size(); ++i) {
    if (!x.inputs[i].isTensor()) continue;
    const TensorId t = x.inputs[i].id;
    for (size_t o = 0; o < x.outputs.size(); ++o)
      for (const AxisPair& m : mapProducerConsumer(f, e, i, o))
        if (f.axes[m.consumer].iter == IterType::Reduction && !isDeviceDim(f.axes[m.producer].parallel) &&
            isDeviceDim(axisSharding(f, t, m.producer)))
          return true;
  }
  return false;
}

bool reducesDeviceSplitAxis(const Fusion& f) {
  if (!hasDeviceSplit(f)) return false;
  for (ExprId e = 0; e < f.exprs.size(); ++e)
    if (reducesDeviceSplitAxis(f, e)) return true;
  return false;
}

// A linear with a bias whose operands a split shards across devices on the contracted axis (a
// row-parallel linear): from #4362 the sharding passes add the bias after the reduction across
// devices (decomposeRowParallelLinearWithBias); what nvFuser ran before is not modelled. False
// when there is none.
bool biasedRowParallelOpen(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink) {
  if (!p.multi_device || p.biased_linear_decomposed || !hasDeviceSplit(f)) return false;
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    const Expr& x = f.exprs[e];
    if (x.op != OpKind::Linear || x.inputs.size() < 3 || !x.inputs[2].isTensor() ||
        !reducesDeviceSplitAxis(f, e))
      continue;
    auto& d =
        sink.report(Severity::NotDecided, DiagCode::NotDecided,
                    "expr " + std::to_string(e) +
                        " (linear) adds a bias to a product whose contracted axis is split across devices "
                        "(a row-parallel linear with a bias): what nvFuser ran for it here is not modelled",
                    exprLocation(file, e));
    d.note(
        "issue #4363 reports such a linear computing wrong numbers, the bias added on every device before "
        "the sum; "
        "from " +
        nv::firstChangeTo(nv::BiasedRowParallelLinear::Decomposed)->label() +
        " the sharding passes add it after the sum (decomposeRowParallelLinearWithBias, "
        "csrc/preseg_passes/insert_reshardings.cpp:136 @ 870e29e0cfde)");
    return true;
  }
  return false;
}

// What the verdict rests on, in words.
void describeCoverage(const Fusion& f, const Profile& p, PipelineResult& r) {
  auto& c = r.checked;
  auto& a = r.approximations;
  if (p.multi_device && p.sharding_passes)
    c.push_back(std::string("the sharding passes before segmentation (mesh rule") +
                (p.propagate ? ", propagation" : "") + ", resharding insertion)");
  c.push_back(r.segmented.explicit_segmentation ? "the repro's own segmentation, replayed"
                                                : "segmentation by the path's rules");
  switch (p.order) {
    case ConcretizeOrder::WholeFirst:
      c.push_back("binding and concretization of the complete fusion, then segmentation");
      break;
    case ConcretizeOrder::PerSegment:
      c.push_back(std::string("each compute segment bound and concretized alone (segment inputs ") +
                  (r.input_rewrite == InputRewrite::KeepReductions ? "keep" : "lose") +
                  " their Reduction axes)");
      break;
    case ConcretizeOrder::None: c.push_back("compute segments compiled without concretization"); break;
  }
  if (p.lookup == SegmentLookup::BufferMap || p.lookup == SegmentLookup::HieBufferMap ||
      p.lookup == SegmentLookup::Evaluator)
    c.push_back("the executor's lookup of each compute segment's inputs (scalars the segmenter forwards)");
  if (p.kernel_without_scheduler) c.push_back("local buffers of kernels compiled without a scheduler");
  if (p.multi_device) c.push_back("the lowering of each resharding expr to a communication");
  if (p.transpose_tile_hazard || p.transpose_outer_hazard)
    c.push_back("the transpose scheduler's merge of Reduction axes on segment inputs");
  if (r.segmented.approximate && !r.segmented.explicit_segmentation)
    a.push_back(
        p.multi_device
            ? (p.mesh_segmenter == MeshSegmenter::StandaloneHostOps
                   ? "multi-device segmentation at this point (host ops alone, HostIrLower): approximate"
                   : "compute segments between communications come from the schedulers' heuristics, which "
                     "are not replayed")
            : "single-device segmentation: only the hard rules (ExprEval ops alone, segment_set); the "
              "schedulers' heuristics are not replayed");
  if (holdsOpaqueOp(f))
    a.push_back(
        "the opaque ops (" + pipeline_detail::opaqueOpNames(f) +
        ") are followed by their outputs' extents only: the schedulers nvFuser gives them and where it "
        "cuts the fusion around them are not replayed, and no check here depends on either");
  if (p.transpose_tile_hazard || p.transpose_outer_hazard)
    a.push_back(
        "which segments the transpose scheduler takes, and its reference tensor, are heuristics: "
        "approximated by 'the segment permutes or takes a permuted layout'");
  if (p.multi_device && p.propagate && p.point.pos >= nv::firstChangeTo(nv::MeshRule::SomeWithout)->pos)
    a.push_back(
        "sharding propagation of DID loop splits (from #3838) is approximated by the 2024 propagation");
  if (p.multi_device && p.point.pos >= nv::firstChangeTo(nv::ReductionDidReset::Removed)->pos &&
      reducesDeviceSplitAxis(f))
    a.push_back(
        "a reduction over an axis split across devices is replayed as sets before the whole reduction, or as "
        "one communication; nvFuser from #4209 splits it into a local reduction and a communication (its "
        "rFactor is not modelled), so those segments are approximate");
  if (p.multi_device && p.scheduler)
    a.push_back("heuristics of the schedulers (vectorization, persistent buffers, ...) are not replayed");
}

}  // namespace

PipelineResult runPipeline(const Fusion& f_in, const PipelineOptions& opts) {
  // A repro dated by its print style only: the verdict over the points of that style.
  if (opts.profile.printed_range) return runOverPrintedRange(f_in, opts);
  PipelineResult r;
  r.profile = opts.profile;
  const Profile& p = r.profile;
  r.notes = p.assumptions;
  r.input_rewrite = p.input_rewrite;
  r.whole_first = p.wholeFirst();

  // An op without a rule that the pipeline cannot follow here: nothing after it is decided.
  {
    DiagnosticSink opaque;
    if (pipeline_detail::opaqueOpsOpen(f_in, p, opts.file, opaque)) {
      r.opaque_open = true;
      r.diagnostics = std::move(opaque.all());
      r.whole = std::make_shared<ScalarEval>(f_in);  // nothing bound: no pass ran
      citeDiagnostics(p, r.diagnostics);
      return r;
    }
  }

  // No output: nothing of the fusion would run, and a repro without outputs is most often one cut
  // before the add_output calls that nvFuser's repro printers end a definition with.
  if (f_in.outputs.empty()) {
    DiagnosticSink none;
    auto& d = none.report(Severity::NotDecided, DiagCode::NotDecided,
                          "the fusion has no outputs, so there is nothing to check",
                          Location::at(opts.file, Place::member(PlaceField::Outputs)));
    d.note(
        "nvFuser's repro printers end a definition with its add_output calls: a repro without them is "
        "usually cut short; give the whole repro");
    r.diagnostics = std::move(none.all());
    r.whole = std::make_shared<ScalarEval>(f_in);  // nothing bound: no pass ran
    citeDiagnostics(p, r.diagnostics);
    return r;
  }

  // The definition itself: an op nvFuser's builder rejects at this point stops everything.
  {
    DiagnosticSink defs;
    if (definitionRejected(f_in, p, opts.file, defs)) {
      r.diagnostics = std::move(defs.all());
      r.whole = std::make_shared<ScalarEval>(f_in);  // nothing bound: no pass ran
      citeDiagnostics(p, r.diagnostics);
      return r;
    }
  }

  // Exprs no output depends on never reach nvFuser's passes: they run on a copy without them.
  // (A repro's own segmentation is nvFuser's, made after that walk.)
  std::vector<ExprId> dead;
  std::shared_ptr<Fusion> live;
  if (!f_in.segmentation) {
    PhaseScope phase("pipeline: live exprs");
    if (hasDeadExprs(f_in)) {
      dead = liveExprs(f_in).dead;
      live = withoutExprs(f_in, dead);
    }
  }
  const Fusion& f_live = live ? *live : f_in;

  // The frontend, then the path itself, may be out of the model.
  DiagnosticSink early;
  PhaseScope frontend_phase("pipeline: frontend");
  // A failure in the frontend's own binding comes first: nvFuser stops there.
  const bool stopped = p.pre_schedule_binding && preScheduleBinding(f_in, opts.file, early);
  if (!stopped)
    for (const std::string& why : p.not_decided) notDecided(early, opts.file, p.label() + ": " + why);
  frontendSteps(f_in, p, opts.file, early);
  frontend_phase.stop();

  // The sharding passes (a fusion with meshes, on paths that run them).
  DiagnosticSink sharding_sink;
  ShardingResult sharding;
  const bool run_sharding = p.multi_device && (p.sharding_passes || !f_in.segmentation);
  if (run_sharding) {
    PhaseScope phase("pipeline: sharding passes");
    ShardingOptions so = shardingOptions(p, opts.file);
    if (!p.sharding_passes) {  // only the resharding flags and what the lowering needs
      so.propagate = false;
      so.mesh = MeshRequirement::None;
      so.reject_scalar_exprs = false;
      so.unmapped_axis_error = false;
      so.insert_reshardings = false;
    }
    sharding = runShardingPasses(f_live, so, sharding_sink);
    r.ran = sharding.rewritten;
  }
  if (!r.ran) r.ran = live;
  const Fusion& f = r.ran ? *r.ran : f_in;
  if (!sharding.failed) {
    PhaseScope phase("pipeline: DID axes off a mesh");
    didWithoutMeshOpen(f, p, opts.file, early);
    biasedRowParallelOpen(f_live, p, opts.file, early);
  }
  Ctx c(f, opts, r);
  c.sink.append(std::move(early));
  // The MultiDeviceExecutor runs its passes first; FusionExecutorCache after
  // concretizing the whole fusion.
  const bool passes_first = !p.wholeFirst();
  if (passes_first) c.sink.append(std::exchange(sharding_sink, DiagnosticSink{}));
  // Where the sharding passes' diagnostics end: when they stop nvFuser, nothing after them
  // (segmentation, and on paths that run the passes first, binding) is nvFuser's.
  size_t after_passes = c.sink.all().size();
  if (opts.trace && run_sharding) {
    std::string t;
    for (auto& line : sharding.trace) t += "  " + line + "\n";
    for (auto [set, for_expr] : sharding.inserted)
      t += "  expr " + std::to_string(set) + " (set -> " +
           std::string(f.tensorName(f.exprs[set].outputs[0])) + ") added for expr " +
           std::to_string(for_expr) + " (" + std::string(opName(f.exprs[for_expr].op)) + ")\n";
    if (t.empty()) t = "  nothing to change: every tensor has its mesh and every resharding expr lowers\n";
    c.trace("sharding", "whole fusion", t);
  }

  // Bind the complete fusion: needed for provenance and runtime sizes on
  // every path; a concretization step only on whole-first paths. Then
  // concretize it (whole-first) and segment it. Segmenting reads only the
  // fusion and the topological order, so on a large fusion it runs on a
  // second thread beside bind + concretize; its diagnostics follow theirs,
  // as they do when run in turn.
  std::vector<ExprId> topo;
  SegmentPassResult sp;
  SegmentOptions seg_opts;
  seg_opts.lowering = p.lowering;
  seg_opts.mesh = p.mesh_segmenter;
  seg_opts.path = p.label();
  seg_opts.resharding = run_sharding ? &sharding.resharding : nullptr;
  seg_opts.trace = opts.trace;
  seg_opts.file = opts.file;
  const unsigned concretize_threads = overlapSegmenting(f, opts) ? pipelineThreads(opts) : 1;
  r.concretized_in_chunks = p.wholeFirst() && concretize_threads > 1 && f.exprs.size() > 1;
  auto bindAndConcretize = [&](const std::function<const std::vector<ExprId>&()>& order) {
    PhaseScope bind_phase("pipeline: bind whole fusion");
    BindRequest req = c.wholeRequest();
    // A whole-first path binds the fusion before its sharding passes: fusion inputs bind with the
    // meshes the repro gave them, not those the walk back from their consumers gave them.
    std::optional<Fusion> as_given;
    if (p.wholeFirst() && !sharding.inputs_meshed_back.empty()) {
      as_given.emplace(f);
      for (TensorId t : sharding.inputs_meshed_back) as_given->tensors[t].mesh = kNone;
    }
    bindView(as_given ? *as_given : f, req, c.whole, c.sink);
    bind_phase.stop();
    // bindingsText walks every scalar: built only when tracing.
    if (opts.trace) c.trace("bind", "whole fusion", c.bindingsText(c.whole));
    const std::vector<ExprId>& t = order();
    if (!p.wholeFirst()) return;
    PhaseScope phase("pipeline: concretize whole fusion");
    ViewSpec wv;
    wv.exprs = t;
    // The fusion's tensor inputs with their logical domains, as the binding had them.
    wv.inputs = std::move(req.tensors);
    for (BoundInput& in : wv.inputs) in.sizes.reset();
    ConcretizationInfo info = analyzeConcretization(f, wv, c.whole, p.did_rule, c.sink, opts.file,
                                                    &c.concretize_scratch, concretize_threads);
    c.reportUnbound(info, -1, nullptr, wv.inputs, InputRewrite::StripReductions, false, c.sink, r.unbound);
    // The reshapes are rebuilt before the axes they read are concretized.
    if (!c.sink.hasErrors()) symbolicSqueezeFails(f, t, c.whole, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) unmappedSymbolicFails(f, t, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) minusOneExtentFails(f, t, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) forwardedInputFails(f, t, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) loweredEdgeFails(f, t, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) sdpaComputeAtMapFails(f, t, p, opts.file, c.sink);
    if (!c.sink.hasErrors()) droppedInputUndecided(f, t, p, opts.file, c.sink);
    c.traceConcretize("whole fusion", info, false);
    if (opts.trace) c.apply("whole fusion", t, c.whole);
  };
  if (overlapSegmenting(f, opts)) {
    // Task 0 (this thread): bind, then concretize once the order is ready.
    // Task 1: the order, then the segmenter, into a sink and phase
    // collector of its own, merged after the join.
    std::promise<void> order_ready;
    std::shared_future<void> order_done = order_ready.get_future().share();
    // The sharding passes' walk is the order when they added no expr.
    const bool have_order = !sharding.order.empty() || f.exprs.empty();
    if (have_order) {
      topo = std::move(sharding.order);
      order_ready.set_value();
    }
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
      // Without the passes' order, the segmenter walks the order beside
      // gathering its operands and hands it over as soon as it has it. Task 0
      // waits on it: whatever is thrown first reaches it too.
      bool handed = have_order;
      try {
        PhaseScope segment_phase("pipeline: segment");
        if (have_order)
          sp = segmentFusion(f, seg_opts, seg_sink, &topo);
        else
          sp = segmentFusion(
              f, seg_opts, seg_sink,
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
    if (!passes_first) {
      c.sink.append(std::exchange(sharding_sink, DiagnosticSink{}));
      after_passes = c.sink.all().size();
    }
    c.sink.append(std::move(seg_sink));
    steps::counters += seg_counters;
    if (times) times->mergeConcurrent(seg_times);
    r.overlapped = true;
  } else {
    bindAndConcretize([&]() -> const std::vector<ExprId>& {
      PhaseScope topo_phase("pipeline: topological order");
      topo = sharding.order.empty() ? topoOrder(f) : std::move(sharding.order);
      return topo;
    });
    if (!passes_first) {
      c.sink.append(std::exchange(sharding_sink, DiagnosticSink{}));
      after_passes = c.sink.all().size();
    }
    PhaseScope segment_phase("pipeline: segment");
    sp = segmentFusion(f, seg_opts, c.sink, &topo);
  }
  r.segmented = std::move(sp.segmented);
  const bool from_repro = f.segmentation && f.segmentation->input_rewrite.has_value();
  if (from_repro) r.input_rewrite = *f.segmentation->input_rewrite;
  r.segmented.input_rewrite = r.input_rewrite;
  c.traceSegments(sp.trace);
  // While it segments: after the whole fusion is concretized, before any segment is compiled.
  if (!c.sink.hasErrors() && !sharding.failed && p.wholeFirst())
    forwardedMergedTwiceFails(f, topo, r.segmented, p, opts.file, c.sink);

  // The executor, per compute segment -- unless nvFuser stopped in the
  // sharding passes.
  r.stopped_in_sharding = sharding.failed;
  if (!sharding.failed) {
    pipeline_detail::runSegmentLanes(c);
    // At run time, after compiling: reached only when nothing before stopped nvFuser.
    if (!c.sink.hasErrors()) duplicateOutputFails(f, r.segmented, p, opts.file, c.sink);
    // At run time, sizing a segment's buffers.
    if (!c.sink.hasErrors()) lostExtentScalarUndecided(f, topo, r.segmented, p, opts.file, c.sink);
  } else {
    c.sink.all().erase(c.sink.all().begin() + static_cast<std::ptrdiff_t>(after_passes), c.sink.all().end());
  }

  // The whole-fusion binding and a segment's binding can report the same
  // input problem: keep the first of identical diagnostics (same code,
  // place and message). Hashed: a failing 1M-expr repro has ~20k errors,
  // and comparing each with every kept one was quadratic.
  struct Key {
    const Diagnostic* d;
    bool operator==(const Key& o) const {
      ++steps::counters.dedup_compares;
      return d->code == o.d->code && d->loc.place == o.d->loc.place && d->loc.pointer == o.d->loc.pointer &&
             d->message == o.d->message;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = std::hash<std::string_view>()(k.d->message);
      h ^= k.d->loc.place.hash() + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
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
  dedup_phase.stop();
  // Locations of the sets the sharding passes added: the expr they serve. From #4209 nvFuser
  // rFactors a reduction over a device-split axis into a local reduction and a communication
  // (csrc/preseg_passes/insert_reshardings.cpp:146-180 @ 8e208ccc0e80), which fusecheck replays as
  // sets before the whole reduction: a set it added for such a reduction that does not lower is
  // no finding of nvFuser's, only an open question.
  const bool rfactors =
      p.multi_device && p.point.pos >= nv::firstChangeTo(nv::ReductionDidReset::Removed)->pos;
  // From #3838 nvFuser propagates DID loop splits (csrc/preseg_passes/propagate_shardings.cpp @
  // 81c4b22fd), which fusecheck approximates by the 2024 propagation: where it puts its sets, and
  // the shardings around them, are that approximation's where the fusion splits an axis across
  // devices, so a set it added that does not lower is an open question, not nvFuser's failure.
  const bool approx_sets = p.multi_device && p.propagate &&
                           p.point.pos >= nv::firstChangeTo(nv::MeshRule::SomeWithout)->pos &&
                           hasDeviceSplit(f_live);
  if (!sharding.inserted.empty())
    for (Diagnostic& d : r.diagnostics)
      for (auto [set, for_expr] : sharding.inserted)
        if (d.loc.place == Place::expr(set)) {
          d.loc.place = Place::expr(for_expr);
          const std::string set_id = std::to_string(userExprId(f, set)),
                            for_id = std::to_string(userExprId(f, for_expr));
          // The set not lowering is an open question: `but` says why.
          const std::string set_label = exprLabel(f, set);
          auto undecided = [&](const std::string& but) {
            d.severity = Severity::NotDecided;
            d.code = DiagCode::NotDecided;
            d.check.reset();
            std::erase_if(d.notes,
                          [](const Note& n) { return n.message.ends_with("this one fails at lowering"); });
            d.message = set_label + ", a set fusecheck adds for expr " + for_id +
                        ", does not lower to one communication, but " + but;
          };
          if (rfactors && d.code == DiagCode::UnlowerableResharding &&
              reducesDeviceSplitAxis(f_live, for_expr)) {
            undecided("nvFuser from " + nv::firstChangeTo(nv::ReductionDidReset::Removed)->label() +
                      " rFactors expr " + for_id + " instead: whether what it runs lowers is not decided");
            d.note("expr " + for_id +
                   " reduces an axis split across devices; nvFuser splits it into a local reduction and "
                   "a communication, which fusecheck does not model (it replays sets before the whole "
                   "reduction)");
          }
          if (approx_sets && d.code == DiagCode::UnlowerableResharding) {
            undecided(
                "where nvFuser's sharding propagation of DID loop splits puts its sets, and the shardings "
                "around them, is approximated: whether what nvFuser runs lowers is not decided");
            d.note("the fusion splits an axis across devices; from " +
                   nv::firstChangeTo(nv::MeshRule::SomeWithout)->label() +
                   " nvFuser propagates such splits, which fusecheck replays with the 2024 propagation");
          }
          d.note("expr " + set_id + " is the set the sharding passes added for expr " + for_id);
        }
  // Ids of the copy without dead exprs, back to the repro's; then the note on those exprs.
  if (live) {
    for (Diagnostic& d : r.diagnostics) {
      d.loc.place = userPlace(f, d.loc.place);
      for (Note& n : d.notes) n.loc.place = userPlace(f, n.loc.place);
    }
    r.diagnostics.insert(r.diagnostics.begin(), deadExprNote(f_in, dead, opts.file));
  }
  PhaseScope cite_phase("pipeline: cite checks, coverage");
  citeDiagnostics(p, r.diagnostics);
  describeCoverage(f_in, p, r);
  return r;
}

}  // namespace fc
