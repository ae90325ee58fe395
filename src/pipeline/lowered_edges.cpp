#include "pipeline/lowered_edges.h"

#include <string>
#include <utility>

#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"
#include "pipeline/segment_input_ops.h"

namespace fc {

bool loweredEdgeFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                      const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::EdgePrecision>() != nv::EdgePrecision::LowerToHalf) return false;
  if (p.multi_device || p.executor != Executor::Fec) return false;
  const nv::FusionInputOps ops = p.state.get<nv::FusionInputOps>();
  // Only the resizing ops: a select-like op reading the edge is left uncast.
  if (ops != nv::FusionInputOps::SelectLikeAndResize) return false;

  // The half type is that of the last Half or BFloat16 output (annotateFP16IntermediateTensors).
  std::vector<TensorId> half_outputs;
  for (TensorId t : f.outputs)
    if (f.tensors[t].dtype == DType::Half || f.tensors[t].dtype == DType::BFloat16) half_outputs.push_back(t);
  if (half_outputs.empty()) return false;
  const DType half = f.tensors[half_outputs.back()].dtype;

  std::vector<bool> boundary(f.tensors.size(), false);
  for (const ValueRef& in : f.inputs)
    if (in.isTensor()) boundary[in.id] = true;
  for (TensorId t : f.outputs) boundary[t] = true;
  auto lowered_candidate = [&](TensorId t) {
    return !boundary[t] && f.tensors[t].definition != kNone && f.tensors[t].dtype == DType::Float;
  };
  std::vector<std::pair<ExprId, TensorId>> reading;
  for (ExprId c : exprs) {
    const Expr& x = f.exprs[c];
    if (isSelectLike(x)) continue;
    for (TensorId t : needsSegmentInput(f, x, ops))
      if (lowered_candidate(t)) reading.emplace_back(c, t);
  }
  if (reading.empty()) return false;

  // The tensors the half outputs depend on, and one such output for each (ForceHalfAnnotation).
  std::vector<TensorId> feeds(f.tensors.size(), kNone);
  std::vector<TensorId> stack;
  for (TensorId o : half_outputs) {
    if (feeds[o] != kNone) continue;
    feeds[o] = o;
    stack.push_back(o);
    while (!stack.empty()) {
      const TensorId t = stack.back();
      stack.pop_back();
      if (f.tensors[t].definition == kNone) continue;
      for (const ValueRef& v : f.exprs[f.tensors[t].definition].inputs)
        if (v.isTensor() && feeds[v.id] == kNone) {
          feeds[v.id] = o;
          stack.push_back(v.id);
        }
    }
  }

  for (const auto& [c, t] : reading) {
    if (feeds[t] == kNone) continue;
    const std::string name(f.tensorName(t));
    const std::string op(exprOpName(f.exprs[c]));
    auto& d = sink.error(
        DiagCode::LoweredEdgeNoScheduler,
        exprLabel(f, c) + " needs " + name + " to be an input of its segment, and " + name +
            " is a Float tensor between segments that the " +
            std::string(dtypeName(f.tensors[feeds[t]].dtype)) + " output " +
            std::string(f.tensorName(feeds[t])) + " depends on: before #1889 the segmenter cast it to " +
            std::string(dtypeName(half)) + " and back to Float in front of the " + op +
            ", which then reads the cast's result, and no scheduler takes that segment: \"Can not find a "
            "scheduler to schedule fusion segment\"",
        Location::at(file, Place::expr(c)));
    d.note(
        "the segmenter casts each Float segment edge that is no fusion input or output and that a Half or "
        "BFloat16 output depends on to the outputs' half type and back in front of its uses in the consumer "
        "segment, when it tries a merge and when it finalizes the segments; only a select, index_select or "
        "gather reading the edge is left alone (castInputOutputToLowerPrecision and ForceHalfAnnotation, "
        "csrc/fusion_segmenter.cpp:1202-1353,4476-4530 @ 329c3b194)");
    d.note(
        "the schedulers take a slice, pad, cat, select, index_select, gather or take_along_axis only where "
        "its "
        "first input is an input of the segment (rejectScheduleForMemoryPromotion, "
        "csrc/scheduler/registry.cpp:67-101 @ 9713d78e2), so " +
        name + "'s producer is never in the " + op + "'s segment");
    d.check = CheckRef{"NoSchedulerForSegment", {}};
    if (const nv::Change* fixed = nv::firstChangeTo(nv::EdgePrecision::Kept))
      d.note(
          "fixed by " + fixed->label() +
          ": the segmenter keeps segment edges in their dtype unless NVFUSER_ENABLE=io_to_lower_precision, "
          "which fusecheck does not model");
    return true;
  }
  return false;
}

}  // namespace fc
