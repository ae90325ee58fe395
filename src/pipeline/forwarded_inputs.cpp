#include "pipeline/forwarded_inputs.h"

#include <algorithm>

#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"
#include "pipeline/segment_input_ops.h"
#include "pipeline/segmenter_runs.h"

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

struct Uses {
  std::vector<std::vector<ExprId>> of;  // per tensor, in topological order
  std::vector<bool> output;
};

// The uses among `exprs` (the exprs an output depends on), built here rather than read from
// Fusion::uses(): that index counts every expr and is built lazily on a first call, which is not
// safe while the segmenter runs beside these checks on another thread.
Uses indexUses(const Fusion& f, const std::vector<ExprId>& exprs) {
  Uses u;
  u.of.resize(f.tensors.size());
  for (ExprId e : exprs)
    for (const ValueRef& v : f.exprs[e].inputs)
      if (v.isTensor() && (u.of[v.id].empty() || u.of[v.id].back() != e)) u.of[v.id].push_back(e);
  u.output.assign(f.tensors.size(), false);
  for (TensorId t : f.outputs) u.output[t] = true;
  return u;
}

struct Chains {
  std::vector<Forwarded> forwarded;
  // Chains walked from an input that end with nothing forwarded (`end` is the last unary op's
  // output): at a fusion output, or, by the chain rule, at a use that is no unary op.
  std::vector<Forwarded> dropped;
};

// SegmentCandidateFinder::forwardInputs at `p`'s point.
Chains walkChains(const Fusion& f, const Uses& u, const Profile& p) {
  const nv::ForwardStart start = p.state.get<nv::ForwardStart>();
  const nv::ForwardChain chain = p.state.get<nv::ForwardChain>();
  Chains out;
  for (const ValueRef& in : f.inputs) {
    if (!in.isTensor()) continue;
    const std::vector<ExprId>& first_uses = u.of[in.id];
    const bool all_unary =
        !first_uses.empty() &&
        std::all_of(first_uses.begin(), first_uses.end(), [&](ExprId e) { return isUnaryOp(f, f.exprs[e]); });
    if (!all_unary || (start == nv::ForwardStart::SingleUnaryUse && first_uses.size() != 1)) continue;
    for (ExprId first : first_uses) {
      std::vector<ExprId> path{first};
      while (true) {
        const TensorId end = f.exprs[path.back()].outputs[0];
        if (u.output[end]) {
          out.dropped.push_back(Forwarded{end, in.id, path});
          break;
        }
        const std::vector<ExprId>& ou = u.of[end];
        if (ou.size() == 1 && isUnaryOp(f, f.exprs[ou[0]])) {
          path.push_back(ou[0]);
          continue;
        }
        const bool forward = chain == nv::ForwardChain::NotSingleUnaryUse ? true
                             : chain == nv::ForwardChain::NotSingleUse    ? ou.size() != 1
                                                                          : ou.size() > 1;
        (forward ? out.forwarded : out.dropped).push_back(Forwarded{end, in.id, path});
        break;
      }
    }
  }
  return out;
}

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
  const Uses u = indexUses(f, exprs);
  const std::vector<Forwarded> forwarded = walkChains(f, u, p).forwarded;
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

bool droppedInputUndecided(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink) {
  // From #1616 an input starts a chain only where it has one use, so no input has two.
  if (p.state.get<nv::ForwardStart>() == nv::ForwardStart::SingleUnaryUse) return false;
  if (p.multi_device || p.executor != Executor::Fec) return false;
  const Uses u = indexUses(f, exprs);
  const bool shared = std::any_of(f.inputs.begin(), f.inputs.end(), [&](const ValueRef& in) {
    return in.isTensor() && u.of[in.id].size() >= 2;
  });
  if (!shared) return false;
  const Chains chains = walkChains(f, u, p);
  for (const Forwarded& kept : chains.dropped) {
    auto fw = std::find_if(chains.forwarded.begin(), chains.forwarded.end(),
                           [&](const Forwarded& c) { return c.input == kept.input; });
    if (fw == chains.forwarded.end()) continue;
    const std::string in(f.tensorName(kept.input));
    const std::string end(f.tensorName(fw->end));
    const bool at_output = u.output[kept.end];
    std::string path;
    for (ExprId e : kept.chain) path += (path.empty() ? "" : ", ") + exprLabel(f, e);
    auto& d =
        sink.report(Severity::NotDecided, DiagCode::NotDecided,
                    "nvFuser's segmenter forwards the chain of unary ops from the input " + in + " to " +
                        end + " and so drops " + in + " from the inputs it segments with, while the chain " +
                        path + " from the same input ends with nothing forwarded (" +
                        (at_output ? "at the fusion output " + std::string(f.tensorName(kept.end))
                                   : "at a use that is no unary op") +
                        ") and keeps reading " + in +
                        ": if nvFuser segments this fusion, that chain's segment has no " + in +
                        " as an input (\"Could not launch kernel as program could not infer ...\", nvFuser "
                        "#1301) unless a merge "
                        "puts it with a segment that reads " +
                        end + ", and which segments merge is a heuristic fusecheck does not replay",
                    Location::at(file, Place::expr(kept.chain.front())));
    d.note(
        "forwardInputs takes every fusion input that a forwarded chain starts from out of the segmenter's "
        "inputs "
        "(getInputsTo of the forwarded ends), and buildInitialSegments gives a segment an input only where "
        "it is "
        "one of those (csrc/fusion_segmenter.cpp:3277-3340,3477-3547 @ dc65fa73c); resolveInputsInGroup "
        "later "
        "gives the input back only to segments that read a forwarded end (:3687-3705)");
    const nv::Change* fixed = at_output ? nv::firstChangeTo(nv::ForwardStart::SingleUnaryUse)
                                        : nv::firstChangeTo(nv::ForwardChain::NotSingleUnaryUse);
    if (fixed)
      d.note("decided from " + fixed->label() +
             (at_output ? ": only an input with one use starts a forwarded chain"
                        : ": a chain is forwarded up to its first use that is no unary op"));
    return true;
  }
  return false;
}

bool forwardedMergedTwiceFails(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                               const Profile& p, const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::ForwardedResolve>() != nv::ForwardedResolve::WhenMergeable) return false;
  if (p.state.get<nv::ForwardedConsumers>() == nv::ForwardedConsumers::PerGroup) return false;
  if (p.multi_device || p.executor != Executor::Fec) return false;
  // An op that reads one tensor twice: most fusions have none, and then no chain is walked.
  auto reads_twice = [&](ExprId e, TensorId t) {
    return std::count_if(f.exprs[e].inputs.begin(), f.exprs[e].inputs.end(),
                         [&](const ValueRef& v) { return v.isTensor() && v.id == t; }) >= 2;
  };
  const bool any_twice = std::any_of(exprs.begin(), exprs.end(), [&](ExprId e) {
    const std::vector<ValueRef>& in = f.exprs[e].inputs;
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i].isTensor() && reads_twice(e, in[i].id)) return true;
    return false;
  });
  if (!any_twice) return false;
  const Uses u = indexUses(f, exprs);
  const Chains chains = walkChains(f, u, p);
  if (chains.forwarded.empty()) return false;

  // Whether nvFuser's segmenter certainly runs, and whether it may (segmenter_runs.h).
  const SegmenterRuns runs = segmenterRuns(f, exprs, s, p.state.get<nv::FusionInputOps>());
  const bool certain = runs.certain;
  if (!runs.may) return false;
  std::vector<uint32_t> segment_of(f.exprs.size(), UINT32_MAX);
  for (const Segment& g : s.segments)
    for (ExprId e : g.exprs) segment_of[e] = g.id;

  for (const Forwarded& fw : chains.forwarded) {
    const std::vector<ExprId>& readers = u.of[fw.end];
    for (ExprId x : readers) {
      if (!reads_twice(x, fw.end)) continue;
      // Another reader in the same segment of the hard rules may end in x's final segment, and a
      // merge can then keep one edge: which, depends on the merge order.
      const bool alone = std::none_of(readers.begin(), readers.end(),
                                      [&](ExprId r) { return r != x && segment_of[r] == segment_of[x]; });
      const std::string end(f.tensorName(fw.end));
      std::string chain;
      for (ExprId e : fw.chain) chain += (chain.empty() ? "" : ", ") + exprLabel(f, e);
      const std::string what = exprLabel(f, x) + " reads " + end + " twice, and " + end +
                               " ends a chain of unary ops from the input " +
                               std::string(f.tensorName(fw.input)) + " (" + chain +
                               ") that nvFuser's segmenter forwards";
      const char* merge_note =
          "from #1825 the segmenter merges a forwarded chain into each segment that reads its end, taking "
          "one "
          "segment per edge from the chain; buildInitialSegments makes one edge per operand and merges keep "
          "a "
          "segment's own duplicate edges (csrc/fusion_segmenter.cpp:792-830,3714,4241-4275 @ 7eadd1867); the "
          "second try finds the chain no longer connected to the segment and codeGenSupportedMerge asserts";
      if (certain && alone) {
        auto& d =
            sink.error(DiagCode::ForwardedInputMergedTwice,
                       what +
                           ": from #1825 the segmenter tried to merge the chain into that op's segment once "
                           "per edge, and the second try asserted \"only support testing immediate "
                           "producer-consumer groups\"",
                       Location::at(file, Place::expr(x)));
        d.note(merge_note);
        d.check = CheckRef{"MergeNotConnected", {}};
        if (const nv::Change* fixed = nv::firstChangeTo(nv::ForwardedConsumers::PerGroup))
          d.note("fixed by " + fixed->label() + ": each segment that reads the chain's end is tried once");
      } else {
        auto& d = sink.report(
            Severity::NotDecided, DiagCode::NotDecided,
            what + ": " +
                (certain
                     ? std::string("another op in its segment reads ") + end +
                           " too, and whether a merge keeps one edge or two depends on the merge order"
                     : std::string("if nvFuser segments this fusion, which the schedulers decide, the "
                                   "segmenter tries to merge the chain into that op's segment once per edge "
                                   "and asserts")) +
                " (\"only support testing immediate producer-consumer groups\", nvFuser #1970)",
            Location::at(file, Place::expr(x)));
        d.note(merge_note);
        if (const nv::Change* fixed = nv::firstChangeTo(nv::ForwardedConsumers::PerGroup))
          d.note("decided from " + fixed->label() +
                 ": each segment that reads the chain's end is tried once");
      }
      return true;
    }
  }
  return false;
}

}  // namespace fc
