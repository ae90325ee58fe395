#include "pipeline/symbolic_squeeze.h"

#include "analysis/view_analysis.h"
#include "ir/op_rules.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"

namespace fc {

namespace {

// The reshape's input sizes (its original_shape when it was given them), new sizes (a -1
// inferred) and implicit-broadcast flags; false where a size is unknown.
bool viewOf(const Fusion& f, const Expr& x, const std::vector<AxisId>& in, ScalarEval& ev,
            std::vector<int64_t>& in_sizes, std::vector<int64_t>& new_sizes, std::vector<bool>& implicit) {
  const bool given = x.attrs.original_shape.size() == in.size();
  int64_t numel = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const Axis& ax = f.axes[in[k]];
    std::optional<int64_t> v = given ? std::optional<int64_t>(x.attrs.original_shape[k])
                                     : ev.value(ax.expanded != kNone ? ax.expanded : ax.extent);
    if (!v || *v <= 0 || __builtin_mul_overflow(numel, *v, &numel)) return false;
    in_sizes.push_back(*v);
    implicit.push_back((ax.iter == IterType::Broadcast && ax.expanded == kNone) ||
                       (ax.iter == IterType::Symbolic && *v == 1));
  }
  int minus_one = -1;
  int64_t others = 1;
  for (size_t k = 0; k < x.attrs.shape.size(); ++k) {
    auto v = ev.value(x.attrs.shape[k]);
    if (!v) return false;
    if (*v == -1 && minus_one < 0) {
      minus_one = static_cast<int>(k);
      new_sizes.push_back(-1);
      continue;
    }
    if (*v <= 0 || __builtin_mul_overflow(others, *v, &others)) return false;
    new_sizes.push_back(*v);
  }
  if (minus_one >= 0) {
    if (numel % others != 0) return false;
    new_sizes[static_cast<size_t>(minus_one)] = numel / others;
  }
  return true;
}

}  // namespace

bool symbolicSqueezeFails(const Fusion& f, const std::vector<ExprId>& exprs, ScalarEval& ev, const Profile& p,
                          const std::string& file, DiagnosticSink& sink) {
  const auto rule = p.state.get<nv::SymbolicSqueeze>();
  if (rule == nv::SymbolicSqueeze::Allowed) return false;
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    const bool reshape = x.op == OpKind::Reshape;
    if ((!reshape && x.op != OpKind::Squeeze) || x.inputs.empty() || !x.inputs[0].isTensor()) continue;
    const TensorId t = x.inputs[0].id;
    std::vector<AxisId> in;
    bool symbolic = false;
    for (AxisId a : f.tensors[t].logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      in.push_back(a);
      symbolic |= f.axes[a].iter == IterType::Symbolic;
    }
    if (!symbolic) continue;
    // The input axes the expr squeezes: a reshape's by the view analysis, a squeeze's its dims.
    std::vector<bool> squeezed(in.size(), false);
    if (reshape) {
      std::vector<int64_t> in_sizes, new_sizes;
      std::vector<bool> implicit;
      if (!viewOf(f, x, in, ev, in_sizes, new_sizes, implicit)) continue;
      auto by_view = viewSqueezes(in_sizes, new_sizes, implicit);
      if (!by_view) continue;
      squeezed = *by_view;
    } else {
      for (int64_t d : x.attrs.dims)
        if (int64_t k = normalizeDim(d, in.size()); k >= 0) squeezed[static_cast<size_t>(k)] = true;
    }
    // Concretization maps a squeeze's producer to its consumer only when the consumer has a
    // Symbolic axis (propagateFromProducerToConsumer, csrc/dynamic_transform.cpp:801-804 @
    // a8935d52a^): some axis the squeeze keeps is Symbolic.
    bool keeps_symbolic = false;
    for (size_t k = 0; k < in.size(); ++k)
      keeps_symbolic |= !squeezed[k] && f.axes[in[k]].iter == IterType::Symbolic;
    const bool refused = rule == nv::SymbolicSqueeze::Refused;
    for (size_t k = 0; k < in.size(); ++k) {
      if (!squeezed[k] || f.axes[in[k]].iter != IterType::Symbolic) continue;
      const std::string axis = axisToString(f, in[k]);
      if (!reshape && !refused) {
        if (!keeps_symbolic) continue;
        // The #1319 test (SymbolicSqueeze, tests/cpp/test_dynamic_transform.cpp @ a8935d52a)
        // squeezes a dynamic reshape's own output. Through other ops, whether the producer axis is
        // still Symbolic when the map is taken depends on the concretizer's visiting order.
        const ExprId def = f.tensors[t].definition;
        if (def == kNone || def >= f.exprs.size() || f.exprs[def].op != OpKind::Reshape) {
          auto& d = sink.report(
              Severity::NotDecided, DiagCode::NotDecided,
              exprLabel(f, e) + " squeezes axis " + std::to_string(k) + " of " +
                  std::string(f.tensorName(t)) + ", the Symbolic axis " + axis +
                  ", which a dynamic op made before the op that defines " + std::string(f.tensorName(t)) +
                  ": whether concretization's root-domain map still sees it Symbolic (an assert before "
                  "#1319) "
                  "depends on the order nvFuser's concretizer replaces axes in, which is not replayed",
              Location::at(file, Place::expr(e)));
          d.note(
              "a squeeze of a dynamic reshape's own output failed before #1319 (FC0320); from #1319 both "
              "run");
          return true;
        }
      }
      auto& d =
          sink.error(DiagCode::SymbolicSqueeze,
                     exprLabel(f, e) + " squeezes axis " + std::to_string(k) + " of " +
                         std::string(f.tensorName(t)) + ", the Symbolic axis " + axis + " of extent 1, and " +
                         (refused ? "nvFuser's squeeze refuses an axis that is not Broadcast"
                                  : "concretization's root-domain map asserts a squeezed axis is Broadcast"),
                     Location::at(file, Place::expr(e)));
      if (reshape)
        d.note(
            "nvFuser's view analysis squeezes an input axis of extent 1 that is a Broadcast, or a Symbolic "
            "axis of extent 1 at run time (csrc/transform_view.cpp:479-491 @ a8935d52a^); " +
            std::string(f.tensorName(t)) + "'s axis " + std::to_string(k) +
            " is Symbolic, made by a dynamic op before it (a reshape of symbolic extents, a resize)");
      else
        d.note(
            "the squeeze names axis " + std::to_string(k) + " of " + std::string(f.tensorName(t)) +
            ", which is Symbolic, made by a dynamic op before it (a reshape of symbolic extents, a resize)");
      d.note(refused
                 ? (reshape ? "the squeeze is built when the reshape is: at definition for a reshape over "
                              "constant extents, in concretization for a dynamic one"
                            : "the squeeze checks its axes when the fusion is defined")
                 : "concretization rebuilds the reshapes before it concretizes the axes they read, so "
                   "the squeeze's producer axis is still Symbolic when the map is taken");
      d.check = CheckRef{refused ? "SqueezeNonBroadcast" : "SqueezedProducerBroadcast", {}};
      if (const nv::Change* fixed = nv::firstChangeTo(nv::SymbolicSqueeze::Allowed))
        d.note("fixed by " + fixed->label() + ": a squeezed axis may be Symbolic");
      return true;
    }
  }
  return false;
}

}  // namespace fc
