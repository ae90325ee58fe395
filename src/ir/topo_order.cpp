#include "ir/topo_order.h"

#include <cstdint>
#include <utility>

namespace fc {

std::vector<ExprId> topoOrder(const Fusion& f) {
  // nvFuser's statement order: post-order DFS from the outputs, operands in
  // order; exprs no output depends on follow, from the repro's order.
  const size_t n = f.exprs.size(), nt = f.tensors.size();
  // Each tensor's producer, gathered in one sequential pass: the walk below
  // then reads 4 bytes per operand instead of a cache line of the Tensor
  // (168 bytes; at a million exprs the tensors do not fit any cache).
  std::vector<ExprId> producer(nt);
  for (size_t t = 0; t < nt; ++t) producer[t] = f.tensors[t].definition;
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<ExprId> order;
  order.reserve(n);
  std::vector<std::pair<ExprId, size_t>> stack;
  auto visit = [&](ExprId root) {
    if (root >= n || state[root] != 0) return;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [e, next] = stack.back();
      const auto& ins = f.exprs[e].inputs;
      bool pushed = false;
      while (next < ins.size()) {
        const ValueRef& v = ins[next++];
        if (!v.isTensor() || v.id >= nt) continue;
        ExprId p = producer[v.id];
        if (p == kNone || p >= n || state[p] != 0) continue;  // state 1: a cycle, ignored here
        state[p] = 1;
        stack.push_back({p, 0});
        pushed = true;
        break;
      }
      if (pushed) continue;
      state[e] = 2;
      order.push_back(e);
      stack.pop_back();
    }
  };
  for (TensorId o : f.outputs)
    if (o < nt) visit(producer[o]);
  for (ExprId e = 0; e < n; ++e) visit(e);
  return order;
}

}  // namespace fc
