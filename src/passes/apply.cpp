#include "passes/apply.h"

#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/step_counters.h"

namespace fc {

ApplyResult applyConcretization(const Fusion& f, const std::vector<ExprId>& exprs, ScalarEval& ev) {
  ApplyResult r;
  steps::counters.trace_elements += f.tensors.size() + f.axes.size() + f.scalars.size() + f.exprs.size();
  r.concretized = f;
  Fusion& g = r.concretized;
  std::vector<uint8_t> in_view(f.tensors.size(), 0);
  for (ExprId e : exprs) {
    for (const ValueRef& v : f.exprs[e].inputs)
      if (v.isTensor()) in_view[v.id] = 1;
    for (TensorId t : f.exprs[e].outputs) in_view[t] = 1;
  }
  std::vector<ScalarId> constant_of(f.scalars.size(), kNone);
  auto concrete = [&](ScalarId s) -> ScalarId {
    if (s == kNone || s >= f.scalars.size() || f.scalars[s].kind == ScalarKind::Constant) return s;
    auto v = ev.value(s);
    if (!v) return s;
    if (constant_of[s] == kNone) constant_of[s] = g.addConstInt(*v, f.scalars[s].dtype);
    ++r.replaced;
    return constant_of[s];
  };
  std::vector<uint8_t> done(f.axes.size(), 0);  // root and logical share axes
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    if (!in_view[t]) continue;
    auto visit = [&](const std::vector<AxisId>& dom) {
      for (AxisId a : dom) {
        if (done[a]) continue;
        done[a] = 1;
        Axis& ax = g.axes[a];
        ax.extent = concrete(ax.extent);
        ax.expanded = concrete(ax.expanded);
        if (ax.iter == IterType::Symbolic) {
          auto v = ev.value(f.axes[a].extent);
          if (v) ax.iter = *v == 1 ? IterType::Broadcast : IterType::Iteration;
        }
      }
    };
    visit(f.tensors[t].root);
    visit(f.tensors[t].logical);
  }
  g.rebuildUses();
  for (ExprId e : exprs) {
    r.printed += exprToString(g, e, PrintStyle::Y2024);
    if (r.printed.empty() || r.printed.back() != '\n') r.printed += '\n';
  }
  DiagnosticSink sink;
  r.verified = verifyFusion(g, sink);
  r.verifier_diagnostics = sink.all();
  return r;
}

}  // namespace fc
