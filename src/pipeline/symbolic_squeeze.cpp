#include "pipeline/symbolic_squeeze.h"

#include "analysis/view_analysis.h"
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
    if (x.op != OpKind::Reshape || x.inputs.empty() || !x.inputs[0].isTensor()) continue;
    const TensorId t = x.inputs[0].id;
    std::vector<AxisId> in;
    bool symbolic = false;
    for (AxisId a : f.tensors[t].logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      in.push_back(a);
      symbolic |= f.axes[a].iter == IterType::Symbolic;
    }
    if (!symbolic) continue;
    std::vector<int64_t> in_sizes, new_sizes;
    std::vector<bool> implicit;
    if (!viewOf(f, x, in, ev, in_sizes, new_sizes, implicit)) continue;
    auto squeezed = viewSqueezes(in_sizes, new_sizes, implicit);
    if (!squeezed) continue;
    for (size_t k = 0; k < in.size(); ++k) {
      if (!(*squeezed)[k] || f.axes[in[k]].iter != IterType::Symbolic) continue;
      const std::string axis = axisToString(f, in[k]);
      const bool refused = rule == nv::SymbolicSqueeze::Refused;
      auto& d =
          sink.error(DiagCode::SymbolicSqueeze,
                     exprLabel(f, e) + " squeezes axis " + std::to_string(k) + " of " +
                         std::string(f.tensorName(t)) + ", the Symbolic axis " + axis + " of extent 1, and " +
                         (refused ? "nvFuser's squeeze refuses an axis that is not Broadcast"
                                  : "concretization's root-domain map asserts a squeezed axis is Broadcast"),
                     Location::at(file, Place::expr(e)));
      d.note(
          "nvFuser's view analysis squeezes an input axis of extent 1 that is a Broadcast, or a Symbolic "
          "axis of extent 1 at run time (csrc/transform_view.cpp:479-491 @ a8935d52a^); " +
          std::string(f.tensorName(t)) + "'s axis " + std::to_string(k) +
          " is Symbolic, made by a dynamic op before it (a reshape of symbolic extents, a resize)");
      d.note(refused ? "the squeeze is built when the reshape is: at definition for a reshape over constant "
                       "extents, in concretization for a dynamic one"
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
