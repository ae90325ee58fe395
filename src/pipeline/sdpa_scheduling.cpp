#include "pipeline/sdpa_scheduling.h"

#include <algorithm>

#include "ir/printer.h"
#include "pipeline/history.h"
#include "pipeline/segmenter_runs.h"

namespace fc {

bool sdpaComputeAtMapFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink) {
  const nv::SdpaScheduling rule = p.state.get<nv::SdpaScheduling>();
  if (rule != nv::SdpaScheduling::AssertsAlways && rule != nv::SdpaScheduling::AssertsWithOthers)
    return false;
  if (p.executor != Executor::Fec) return false;
  // By the frontends' name, or as nvFuser prints SdpaFwdOp (`= sdpa(`, csrc/ir/nodes.cpp:4305 @
  // 1bd98c193).
  auto sdpa = std::find_if(exprs.begin(), exprs.end(), [&](ExprId e) {
    return f.exprs[e].op == OpKind::Opaque &&
           (f.exprs[e].attrs.name == "sdpfa_fwd" || f.exprs[e].attrs.name == "sdpa");
  });
  if (sdpa == exprs.end()) return false;
  const ExprId e = *sdpa;
  const Expr& x = f.exprs[e];
  // A neighbour: an expr making one of its tensor operands or reading one of its outputs.
  ExprId neighbour = kNone;
  for (ExprId o : exprs) {
    if (o == e) continue;
    const Expr& y = f.exprs[o];
    const bool makes = std::any_of(x.inputs.begin(), x.inputs.end(), [&](const ValueRef& v) {
      return v.isTensor() && std::find(y.outputs.begin(), y.outputs.end(), v.id) != y.outputs.end();
    });
    const bool reads = std::any_of(y.inputs.begin(), y.inputs.end(), [&](const ValueRef& v) {
      return v.isTensor() && std::find(x.outputs.begin(), x.outputs.end(), v.id) != x.outputs.end();
    });
    if (makes || reads) {
      neighbour = o;
      break;
    }
  }
  const bool alone = rule == nv::SdpaScheduling::AssertsAlways;
  if (!alone && neighbour == kNone) return false;
  const bool certain = alone || fusionGraphConnected(f, exprs);
  const nv::Change* fixed = nv::firstChangeTo(nv::SdpaScheduling::Rejected);
  const std::string why =
      alone
          ? "no scheduler takes sdpfa_fwd before #2361, and each one's checkCanSchedule first builds the "
            "compute-at map, which asserts on the op's outputs of different ranks"
          : "ExprEval takes sdpfa_fwd only alone, and every other scheduler's checkCanSchedule first builds "
            "the compute-at map, which asserts on the op's outputs of different ranks";
  const std::string msg =
      "Multiple outputs with mismatched dimensions is not supported. Only supported case is "
      "welford op where all outputs tvs have identical domains.";
  if (certain) {
    auto& d = sink.error(
        DiagCode::SdpaComputeAtMap,
        exprLabel(f, e) + " is SdpaFwdOp (sdpfa_fwd)" +
            (alone ? std::string() : " among other ops (" + exprLabel(f, neighbour) + " is its neighbour)") +
            ": " + why + ", so FusionExecutorCache stops with \"" + msg + "\"",
        Location::at(file, Place::expr(e)));
    if (!alone)
      d.note(
          "the fusion graph is connected, so FusionExecutorCache's first try, the whole fusion, reaches the "
          "assert (csrc/scheduler/registry.cpp:185 @ 23ee81d09)");
    d.check = CheckRef{"MultiOutputMismatch", {}};
    if (fixed)
      d.note(
          "fixed by " + fixed->label() +
          ": every scheduler but ExprEval rejects a fusion with sdpfa_fwd before it builds the map, and the "
          "op is segmented alone (nvFuser #2517)");
    return true;
  }
  auto& d =
      sink.report(Severity::NotDecided, DiagCode::NotDecided,
                  exprLabel(f, e) + " is SdpaFwdOp (sdpfa_fwd) beside " + exprLabel(f, neighbour) +
                      ", in a fusion graph that is not connected: if the segmenter tries to merge their "
                      "segments, " +
                      why + " (\"" + msg + "\"); whether it does depends on its merge order",
                  Location::at(file, Place::expr(e)));
  if (fixed)
    d.note("decided from " + fixed->label() + ", which rejects such a merge before building the map");
  return true;
}

}  // namespace fc
