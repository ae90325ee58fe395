#include "pipeline/forwarded_inputs.h"

#include <algorithm>

#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"
#include "pipeline/segment_input_ops.h"

namespace fc {
namespace {

// Whether nvFuser builds `x` as a chain of UnaryOps (the op and any cast of its operand to the
// compute dtype).
bool isUnaryOp(const Fusion& f, const Expr& x) {
  if (x.inputs.size() != 1 || x.outputs.size() != 1 || !x.inputs[0].isTensor()) return false;
  if (x.op == OpKind::Cast) return x.attrs.dtype && *x.attrs.dtype != f.tensors[x.inputs[0].id].dtype;
  return opInfo(x.op).category == OpCategory::Unary && x.op != OpKind::Gelu;
}

struct Forwarded {
  TensorId end = kNone;
  TensorId input = kNone;
  std::vector<ExprId> chain;
};

}  // namespace

bool forwardedInputFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                         const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::ForwardedResolve>() == nv::ForwardedResolve::WhenMergeable) return false;
  if (p.multi_device || p.executor != Executor::Fec) return false;
  // The ops that need a segment input, with those operands: most fusions have none, and then no
  // chain is walked.
  const nv::FusionInputOps ops = p.state.get<nv::FusionInputOps>();
  std::vector<std::pair<ExprId, std::vector<TensorId>>> needing;
  for (ExprId c : exprs)
    if (std::vector<TensorId> need = needsSegmentInput(f, f.exprs[c], ops); !need.empty())
      needing.emplace_back(c, std::move(need));
  if (needing.empty()) return false;
  std::vector<std::vector<ExprId>> uses(f.tensors.size());
  for (ExprId e : exprs)
    for (const ValueRef& v : f.exprs[e].inputs)
      if (v.isTensor() && (uses[v.id].empty() || uses[v.id].back() != e)) uses[v.id].push_back(e);
  std::vector<bool> output(f.tensors.size(), false);
  for (TensorId t : f.outputs) output[t] = true;

  // SegmentCandidateFinder::forwardInputs at this point.
  const nv::ForwardStart start = p.state.get<nv::ForwardStart>();
  const nv::ForwardChain chain = p.state.get<nv::ForwardChain>();
  std::vector<Forwarded> forwarded;
  for (const ValueRef& in : f.inputs) {
    if (!in.isTensor()) continue;
    const std::vector<ExprId>& u = uses[in.id];
    const bool all_unary =
        !u.empty() && std::all_of(u.begin(), u.end(), [&](ExprId e) { return isUnaryOp(f, f.exprs[e]); });
    if (!all_unary || (start == nv::ForwardStart::SingleUnaryUse && u.size() != 1)) continue;
    for (ExprId first : u) {
      std::vector<ExprId> path{first};
      while (true) {
        const TensorId out = f.exprs[path.back()].outputs[0];
        if (output[out]) break;
        const std::vector<ExprId>& ou = uses[out];
        const bool one_unary = ou.size() == 1 && isUnaryOp(f, f.exprs[ou[0]]);
        if (one_unary) {
          path.push_back(ou[0]);
          continue;
        }
        const bool forward = chain == nv::ForwardChain::NotSingleUnaryUse ? true
                             : chain == nv::ForwardChain::NotSingleUse    ? ou.size() != 1
                                                                          : ou.size() > 1;
        if (forward) forwarded.push_back(Forwarded{out, in.id, path});
        break;
      }
    }
  }
  if (forwarded.empty()) return false;

  for (const auto& [c, need] : needing) {
    for (const Forwarded& fw : forwarded) {
      if (std::find(need.begin(), need.end(), fw.end) == need.end()) continue;
      std::string unary;
      for (ExprId e : fw.chain) unary += (unary.empty() ? "" : ", ") + exprLabel(f, e);
      const std::string end(f.tensorName(fw.end));
      auto& d = sink.error(
          DiagCode::ForwardedInputNoScheduler,
          exprLabel(f, c) + " needs " + end + " to be an input of its segment, but " + end +
              " ends a chain of unary ops from the input " + std::string(f.tensorName(fw.input)) + " (" +
              unary +
              ") that nvFuser's segmenter forwards, and before #1825 it put the chain back into the segment "
              "that reads " +
              end +
              ", which no scheduler then takes: \"Can not find a scheduler to schedule fusion segment\"",
          Location::at(file, Place::expr(c)));
      d.note(
          "the segmenter treats the end of a chain of unary ops from a fusion input as an input while it "
          "merges, then adds the chain to every segment that reads that end and derives each segment's "
          "scheduler again (csrc/fusion_segmenter.cpp:3188-3219,3390-3408,3463-3471 @ 831821f3a)");
      d.note(
          ops == nv::FusionInputOps::SelectLikeAndResize
              ? "the schedulers take a slice, pad, cat, select, index_select, gather or take_along_axis only "
                "where its first input is an input of the segment (rejectScheduleForMemoryPromotion, "
                "csrc/scheduler/registry.cpp:67-101 @ 9713d78e2)"
              : "the schedulers take a select, index_select or gather only where its first input is an input "
                "of the segment (rejectScheduleForSelectLikeOps, csrc/scheduler/registry.cpp:40-72 @ "
                "831821f3a)");
      d.check = CheckRef{"NoSchedulerForSegment", {}};
      if (const nv::Change* fixed = nv::firstChangeTo(nv::ForwardedResolve::WhenMergeable))
        d.note("fixed by " + fixed->label() +
               ": the chain joins a segment only where a scheduler takes the result");
      return true;
    }
  }
  return false;
}

}  // namespace fc
