#include "ir/topo_order.h"

namespace fc {

ProducerWalk::ProducerWalk(const Fusion& f) : f_(f), producer_(f.tensors.size()), state_(f.exprs.size(), 0) {
  for (size_t t = 0; t < producer_.size(); ++t) producer_[t] = f.tensors[t].definition;
  order_.reserve(state_.size());
}

void ProducerWalk::visit(ExprId root) {
  const size_t n = state_.size(), nt = producer_.size();
  if (root >= n || state_[root] != 0) return;
  stack_.push_back({root, 0});
  state_[root] = 1;
  while (!stack_.empty()) {
    auto& [e, next] = stack_.back();
    const auto& ins = f_.exprs[e].inputs;
    bool pushed = false;
    while (next < ins.size()) {
      const ValueRef& v = ins[next++];
      if (!v.isTensor() || v.id >= nt) continue;
      ExprId p = producer_[v.id];
      if (p == kNone || p >= n || state_[p] != 0) continue;  // state 1: a cycle, ignored here
      state_[p] = 1;
      stack_.push_back({p, 0});
      pushed = true;
      break;
    }
    if (pushed) continue;
    state_[e] = 2;
    order_.push_back(e);
    stack_.pop_back();
  }
}

std::vector<ExprId> topoOrder(const Fusion& f) {
  ProducerWalk walk(f);
  for (TensorId o : f.outputs)
    if (o < f.tensors.size()) walk.visit(f.tensors[o].definition);
  for (ExprId e = 0; e < f.exprs.size(); ++e) walk.visit(e);
  return walk.take();
}

}  // namespace fc
