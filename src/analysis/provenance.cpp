#include "analysis/provenance.h"

#include <algorithm>

#include "analysis/axis_map.h"
#include "ir/printer.h"

namespace fc {

std::vector<Hop> traceHops(const Fusion& f, const SegmentedFusion* sf, TensorId t, AxisId a,
                           ScalarId symbol) {
  std::vector<Hop> rev;
  rev.push_back({t, a, kNone, kNone});
  for (size_t step = 0; step <= f.exprs.size(); ++step) {
    ExprId def = f.tensors[t].definition;
    if (def == kNone) break;
    rev.back().expr = def;
    rev.back().segment = sf ? sf->producerOf(t) : kNone;
    bool moved = false;
    const Expr& e = f.exprs[def];
    for (size_t o = 0; o < e.outputs.size() && !moved; ++o) {
      if (e.outputs[o] != t) continue;
      for (size_t i = 0; i < e.inputs.size() && !moved; ++i)
        for (const AxisPair& p : mapProducerConsumer(f, def, i, o)) {
          if (p.consumer != a) continue;
          auto syms = ScalarEval::freeSymbols(f, f.axes[p.producer].extent);
          if (!std::binary_search(syms.begin(), syms.end(), symbol)) continue;
          t = f.axes[p.producer].owner;
          a = p.producer;
          rev.push_back({t, a, kNone, kNone});
          moved = true;
          break;
        }
    }
    if (!moved) break;
  }
  std::reverse(rev.begin(), rev.end());
  return rev;
}

std::string describeOrigin(const Fusion& f, ScalarId s, const Origin& o, std::optional<int64_t> value,
                           DidBindingRule did) {
  auto val = [&] { return value ? " = " + std::to_string(*value) : std::string(" (symbolically)"); };
  auto axis = [&] {
    std::string r = std::string(f.tensorName(o.tensor)) + " axis " + std::to_string(o.axis_pos);
    return r;
  };
  switch (o.kind) {
    case Origin::Kind::DidMesh: {
      const Tensor& t = f.tensors[o.tensor];
      ParallelType pt = f.axes[o.axis].parallel;
      if (!isDeviceDim(pt)) pt = shardingOf(f, o.tensor, static_cast<size_t>(o.axis_pos));
      const bool unsharded = did == DidBindingRule::Unsharded;
      std::string mesh = t.mesh != kNone ? f.meshes[t.mesh].toString(unsharded) : "its mesh";
      if (unsharded)
        return axis() + " (" + std::string(parallelTypeName(pt)) + ") = local size x " + mesh + ".size(" +
               std::string(parallelTypeName(pt)) + ")" + val();
      return axis() + " (" + std::string(parallelTypeName(pt)) + ") = " + mesh + ".size()" + val();
    }
    case Origin::Kind::InputAxis: return axis() + val();
    case Origin::Kind::Expanded: return axis() + " (expanded broadcast)" + val();
    case Origin::Kind::ScalarInput: return "the scalar input " + std::string(f.scalarName(s)) + val();
    case Origin::Kind::UserBind: return "--bind " + std::string(f.scalarName(s)) + val();
    case Origin::Kind::ExactMap:
      return "an exact map from " + std::string(f.tensorName(f.axes[o.via_axis].owner)) + " " +
             axisToString(f, o.via_axis) + " to " + std::string(f.tensorName(o.tensor)) + " " +
             axisToString(f, o.axis) + " (expr " + std::to_string(o.via_expr) + ")" + val();
    case Origin::Kind::RewriteFresh: return "the fresh extent of " + axis() + val();
    case Origin::Kind::Forwarded: return "a forwarded scalar input" + val();
    case Origin::Kind::Constant: return "a constant" + val();
    case Origin::Kind::Derived: return "a derived expression" + val();
    case Origin::Kind::None: break;
  }
  return "nothing";
}

}  // namespace fc
