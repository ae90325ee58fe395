// The exprs nvFuser's passes see. Fusion::exprs() is StmtSort::getExprs, a walk back from the
// fusion's terminating outputs (csrc/fusion.cpp:461-463, csrc/iter_visitor.cpp:890-899 @
// 81c4b22fd; csrc/fusion.cpp:338-340, csrc/iter_visitor.cpp:878-887 @ 4e7365d18): an expr no
// output depends on is built with the definition but never segmented, concretized or run (the
// segmenter walks completeFusion()->exprs(), csrc/fusion_segmenter.cpp:3790; the concretization
// analysis walks from getTerminatingOutputs(), csrc/dynamic_transform.cpp:112 @ 81c4b22fd).
// fusecheck's pipeline runs on a copy without those exprs; ids it prints are turned back into the
// repro's with userExprId.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "diag/place.h"
#include "ir/fusion.h"

namespace fc {

// The walk back from the outputs: the exprs they depend on, producers first (topoOrder's walk,
// ir/topo_order.h), and the others, ascending. With none left out, `order` is topoOrder(f).
// O(exprs + operands).
struct LiveExprs {
  std::vector<ExprId> order;
  std::vector<ExprId> dead;
};
LiveExprs liveExprs(const Fusion& f);

// Whether some expr reaches no output, without the walk: an expr whose outputs no expr reads
// (a sink) must define a fusion output, and when every sink does, every expr reaches one.
// Two sequential passes over the exprs' operands.
bool hasDeadExprs(const Fusion& f);

// A copy of `f` without the exprs `dead` (ascending): the other exprs keep their order, every
// tensor, scalar and axis keeps its id (a tensor only a left-out expr defined has no
// definition), and `expr_origin` maps the copy's expr ids to `f`'s.
std::shared_ptr<Fusion> withoutExprs(const Fusion& f, const std::vector<ExprId>& dead);

// Per tensor of `f`, whether nvFuser's Fusion::allTvs() holds it: a fusion input or output, or
// an operand or output of an expr of `f` (findAllTvs, csrc/fusion.cpp:959-987 @ 5ae31f283: the values the
// outputs use, and the inputs). In a copy from withoutExprs, the tensors only left-out exprs
// touched are not.
std::vector<uint8_t> usedTensors(const Fusion& f);

// The id the repro gives expr `e` of `f` (its own id unless `f` is such a copy).
ExprId userExprId(const Fusion& f, ExprId e);

// `where` with the expr it names (if any) given its repro id: a place in `f` as the user reads it.
Place userPlace(const Fusion& f, const Place& where);

// Expr `user` of the repro as an expr of `f`; nullopt when `f` left it out or has no such expr.
std::optional<ExprId> exprOfUserId(const Fusion& f, ExprId user);

}  // namespace fc
