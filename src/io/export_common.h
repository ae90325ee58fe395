// Helpers shared by the exporters: a topological order of the exprs (producers before
// consumers, ties by expr index), computed iteratively. Complexity: linear in the fusion.
#pragma once

#include <vector>

#include "ir/fusion.h"

namespace fc {

// Every expr exactly once; exprs on a cycle (malformed input) come last in index order.
std::vector<ExprId> topoOrder(const Fusion& f);

}  // namespace fc
