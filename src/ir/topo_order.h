// The topological order of a fusion's exprs that the passes use (producers
// before consumers): nvFuser's statement order, a
// post-order DFS from the outputs' definitions with operands in order, then
// from the exprs no output depends on, in the repro's order. Exprs on a
// cycle (malformed input) still appear exactly once. Iterative; linear in
// the fusion.
// The exporters use io/export_common.h's definitionOrder instead.
#pragma once

#include <vector>

#include "ir/fusion.h"

namespace fc {

std::vector<ExprId> topoOrder(const Fusion& f);

}  // namespace fc
