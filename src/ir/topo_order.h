// Producer-first orders of a fusion's exprs. ProducerWalk is the one walk: a
// post-order DFS over operands' producers, operands in order, iterative and
// linear in the fusion; exprs on a cycle (malformed input) are each visited
// once, the back edge ignored. The orders differ only in where the walk starts:
// - topoOrder, the order the passes use (nvFuser's statement order): from the
//   outputs' definitions, then from the exprs no output depends on, in the
//   repro's order;
// - the printer starts from the leaf tensors' definitions (ir/printer.cpp);
// - the exporters start from every expr in the repro's order
//   (io/export_common.h's definitionOrder).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/fusion.h"

namespace fc {

class ProducerWalk {
 public:
  explicit ProducerWalk(const Fusion& f);

  // Appends `root` and every expr it depends on that is not yet in the order, producers
  // first. Ids out of range and exprs already visited are ignored.
  void visit(ExprId root);
  bool visited(ExprId e) const { return e < state_.size() && state_[e] == 2; }
  const std::vector<ExprId>& order() const { return order_; }
  std::vector<ExprId> take() { return std::move(order_); }

 private:
  const Fusion& f_;
  // Each tensor's producer, gathered in one sequential pass: the walk then reads 4 bytes per
  // operand instead of a cache line of the Tensor (at a million exprs the tensors do not fit
  // any cache).
  std::vector<ExprId> producer_;
  std::vector<uint8_t> state_;  // 0 new, 1 on the stack, 2 done
  std::vector<ExprId> order_;
  std::vector<std::pair<ExprId, size_t>> stack_;
};

std::vector<ExprId> topoOrder(const Fusion& f);

}  // namespace fc
