// Topological expr order for the exporters (see export_common.h).
#include "io/export_common.h"

namespace fc {

std::optional<int64_t> constIntOf(const Fusion& f, ScalarId s) {
  if (s >= f.scalars.size()) return std::nullopt;
  const Scalar& sc = f.scalars[s];
  if (sc.kind == ScalarKind::Constant && sc.value.kind == ConstValue::Kind::Int) return sc.value.i;
  return std::nullopt;
}

std::vector<ExprId> definitionOrder(const Fusion& f) {
  const size_t ne = f.exprs.size(), nt = f.tensors.size();
  std::vector<char> state(ne, 0);  // 0 new, 1 on stack, 2 done
  std::vector<ExprId> out;
  struct Frame {
    ExprId e;
    size_t next;
  };
  for (ExprId r = 0; r < ne; ++r) {
    if (state[r]) continue;
    std::vector<Frame> stack{{r, 0}};
    state[r] = 1;
    while (!stack.empty()) {
      Frame& fr = stack.back();
      const Expr& e = f.exprs[fr.e];
      if (fr.next < e.inputs.size()) {
        const ValueRef& v = e.inputs[fr.next++];
        if (!v.isTensor() || v.id >= nt) continue;
        ExprId d = f.tensors[v.id].definition;
        if (d < ne && state[d] == 0) {
          state[d] = 1;
          stack.push_back({d, 0});
        }
        continue;
      }
      state[fr.e] = 2;
      out.push_back(fr.e);
      stack.pop_back();
    }
  }
  return out;
}

}  // namespace fc
