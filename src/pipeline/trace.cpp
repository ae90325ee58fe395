// Instrumentation: the state each pass leaves, recorded for --trace,
// --print-after and --dump-dir (only when asked: building these walks the
// whole fusion).
#include <sstream>

#include "ir/live_exprs.h"
#include "ir/printer.h"
#include "passes/apply.h"
#include "passes/segment.h"
#include "pipeline/context.h"
#include "support/step_counters.h"

namespace fc::pipeline_detail {

std::string Ctx::bindingsText(ScalarEval& ev, bool only_named) {
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
       << describeOrigin(f, s, ev.origin(s), v, p.did_rule) << "\n";
  }
  if (!unknown.empty()) {
    os << "  unbound:";
    for (auto& u : unknown) os << " " << u;
    os << "\n";
  }
  return os.str();
}

// The apply pass: print the concretized view; a concretized fusion that
// fails verification is a bug in fusecheck (internal channel).
void Ctx::apply(const std::string& scope, const std::vector<ExprId>& exprs, ScalarEval& ev) {
  ApplyResult a = applyConcretization(f, exprs, ev);
  std::string t = std::to_string(a.replaced) + " extents replaced by their values\n" + a.printed;
  if (!a.verified) {
    t += "  INTERNAL: the concretized fusion does not verify:\n";
    for (const auto& d : a.verifier_diagnostics) t += "    " + d.message + "\n";
  }
  trace("apply", scope, t);
}

void Ctx::traceConcretize(const std::string& scope, const ConcretizationInfo& info, bool per_segment) {
  if (!opts.trace) return;
  std::string t = std::to_string(info.checked_extents) + " dynamic extents checked";
  if (per_segment)
    t += info.unbound.empty() ? ", all evaluable\n"
                              : ", " + std::to_string(info.unbound.size()) + " not evaluable\n";
  else
    t += "\n";
  for (auto& s : info.empty_extents) t += "  empty: " + s + "\n";
  for (auto& s : info.decisions) t += "  " + s + "\n";
  trace("concretize", scope, t);
}

void Ctx::traceSegments(const std::vector<std::string>& segmenter_trace) {
  if (!opts.trace) return;
  std::string t;
  for (auto& line : segmenter_trace) t += "  " + line + "\n";
  for (const Segment& s : r.segmented.segments) {
    t += "segment " + std::to_string(s.id) + " (" + describeSegment(f, s) + ") [" + s.scheduler + "]: exprs";
    for (ExprId e : s.exprs) t += " " + std::to_string(userExprId(f, e));
    t += "  -- " + s.reason + "\n";
  }
  if (r.segmented.approximate)
    t += p.multi_device ? "  (approximate: the path's schedulers are not replayed)\n"
                        : "  (approximate: single-device hard rules only)\n";
  trace("segment", "whole fusion", t);
}

}  // namespace fc::pipeline_detail
