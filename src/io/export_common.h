// Helpers shared by the exporters: a topological order of the exprs (producers before
// consumers, ties by expr index), computed iteratively. Complexity: linear in the fusion.
#pragma once

#include <vector>

#include "ir/fusion.h"

namespace fc {

// Every expr exactly once; exprs on a cycle (malformed input) come last in index order.
// Unlike topoOrder (ir/topo_order.h, nvFuser's order from the outputs), each
// expr follows its producers as early as the repro's own order allows, so
// that an exported definition read back numbers its tensors as before. (This
// function was also named topoOrder once: which of the two a binary used
// depended on link order, and the CLI's exports used the other one.)
std::vector<ExprId> definitionOrder(const Fusion& f);

}  // namespace fc
