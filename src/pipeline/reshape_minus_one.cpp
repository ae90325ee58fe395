#include "pipeline/reshape_minus_one.h"

#include <unordered_map>

#include "ir/constant_scalar.h"
#include "ir/op_rules.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"

namespace fc {

namespace {

// A dynamic reshape's output axis whose size was a constant -1.
struct MinusOne {
  ExprId reshape = kNone;
  size_t pos = 0;
};

}  // namespace

bool minusOneExtentFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                         const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::ReshapeMinusOneExtent>() == nv::ReshapeMinusOneExtent::Inferred) return false;
  const ConstantValues known(f);
  std::unordered_map<ScalarId, MinusOne> extents;  // the axis's extent in fusecheck's fusion
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    if (x.op != OpKind::Reshape || x.outputs.empty() || isStaticReshape(f, x, known)) continue;
    for (size_t d = 0; d < x.attrs.shape.size(); ++d) {
      std::optional<int64_t> v = known.intValue(x.attrs.shape[d]);
      if (!v || *v != -1) continue;
      size_t k = 0;
      for (AxisId a : f.tensors[x.outputs[0]].logical) {
        if (f.axes[a].iter == IterType::Reduction) continue;
        if (k++ == d && f.axes[a].extent != kNone) extents.emplace(f.axes[a].extent, MinusOne{e, d});
      }
    }
  }
  if (extents.empty()) return false;
  for (ExprId c : exprs) {
    for (TensorId t : f.exprs[c].outputs) {
      size_t k = 0;
      for (AxisId a : f.tensors[t].logical) {
        const Axis& ax = f.axes[a];
        if (ax.iter == IterType::Reduction) continue;
        const size_t pos = k++;
        auto it = extents.find(ax.extent);
        if (it == extents.end() || ax.iter == IterType::Broadcast) continue;
        const ExprId r = it->second.reshape;
        if (f.exprs[r].outputs[0] == t) continue;  // concretization replaces the reshape's own output
        auto& d = sink.error(
            DiagCode::MinusOneExtent,
            exprLabel(f, r) + " is a dynamic reshape given the size -1 for its axis " +
                std::to_string(it->second.pos) +
                ", and before #590 nvFuser made the -1 itself that axis's extent: " +
                std::string(f.tensorName(t)) + " (" + exprLabel(f, c) + ") keeps it on axis " +
                std::to_string(pos) + " (" + axisToString(f, a) +
                ") after concretization, and the scheduler asserts on it: \"Unexpected size of axis: -1\"",
            Location::at(file, Place::expr(r)));
        d.note(
            "until #590 the reshape's output axis took the size it was given, -1 included "
            "(csrc/ops/alias.cpp:123-131 @ ef13b2191^); concretization replaces the reshape's own output by "
            "a "
            "static reshape with the right extents, but the axes its consumers cloned keep the -1");
        d.note(
            "SchedulerRuntimeInfo evaluates the extent of every axis of every tensor that is not a fusion "
            "input "
            "to choose the kernel's index type and asserts it is not negative; it skips Broadcast axes (an "
            "axis "
            "of extent 1 at run time) and returns early when an input already needs 64-bit indexing");
        d.check = CheckRef{"UnexpectedAxisSize", {{"size", "-1"}}};
        if (const nv::Change* fixed = nv::firstChangeTo(nv::ReshapeMinusOneExtent::Inferred))
          d.note("fixed by " + fixed->label() + ": the -1 becomes the input's numel over the other sizes");
        return true;
      }
    }
  }
  return false;
}

}  // namespace fc
