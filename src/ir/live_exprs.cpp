#include "ir/live_exprs.h"

#include <algorithm>

#include "ir/topo_order.h"

namespace fc {

LiveExprs liveExprs(const Fusion& f) {
  ProducerWalk walk(f);
  for (TensorId o : f.outputs)
    if (o < f.tensors.size()) walk.visit(f.tensors[o].definition);
  LiveExprs r;
  for (ExprId e = 0; e < f.exprs.size(); ++e)
    if (!walk.visited(e)) r.dead.push_back(e);
  r.order = walk.take();
  return r;
}

bool hasDeadExprs(const Fusion& f) {
  const size_t nt = f.tensors.size();
  std::vector<uint8_t> read(nt, 0);  // 1: an expr reads it; 2: a fusion output
  for (const Expr& x : f.exprs)
    for (const ValueRef& v : x.inputs)
      if (v.isTensor() && v.id < nt) read[v.id] = 1;
  for (TensorId t : f.outputs)
    if (t < nt) read[t] = 2;
  for (const Expr& x : f.exprs) {
    bool consumed = false, output = false;
    for (TensorId t : x.outputs) {
      if (t >= nt) continue;
      consumed |= read[t] == 1;
      output |= read[t] == 2;
    }
    if (!consumed && !output) return true;
  }
  return false;
}

std::shared_ptr<Fusion> withoutExprs(const Fusion& f, const std::vector<ExprId>& dead) {
  auto g = std::make_shared<Fusion>(f);
  const size_t n = f.exprs.size();
  std::vector<ExprId> to_new(n, kNone);
  std::vector<ExprId> origin;
  origin.reserve(n - std::min(n, dead.size()));
  g->exprs.clear();
  g->exprs.reserve(origin.capacity());
  size_t d = 0;
  for (ExprId e = 0; e < n; ++e) {
    if (d < dead.size() && dead[d] == e) {
      ++d;
      continue;
    }
    to_new[e] = static_cast<ExprId>(g->exprs.size());
    origin.push_back(userExprId(f, e));
    g->exprs.push_back(f.exprs[e]);
  }
  for (Tensor& t : g->tensors)
    if (t.definition != kNone) t.definition = t.definition < n ? to_new[t.definition] : kNone;
  if (g->source) {
    std::vector<LineCol> at(g->exprs.size());
    for (ExprId e = 0; e < n; ++e)
      if (to_new[e] != kNone && e < f.source->exprs.size()) at[to_new[e]] = f.source->exprs[e];
    g->source->exprs = std::move(at);
  }
  g->origin_expr_count = f.expr_origin.empty() ? n : f.origin_expr_count;
  g->expr_origin = std::move(origin);
  g->rebuildUses();
  return g;
}

std::vector<uint8_t> usedTensors(const Fusion& f) {
  const size_t n = f.tensors.size();
  std::vector<uint8_t> used(n, 0);
  auto mark = [&](TensorId t) {
    if (t < n) used[t] = 1;
  };
  for (const ValueRef& v : f.inputs)
    if (v.isTensor()) mark(v.id);
  for (TensorId t : f.outputs) mark(t);
  for (const Expr& x : f.exprs) {
    for (const ValueRef& v : x.inputs)
      if (v.isTensor()) mark(v.id);
    for (TensorId t : x.outputs) mark(t);
  }
  return used;
}

ExprId userExprId(const Fusion& f, ExprId e) {
  if (f.expr_origin.empty()) return e;
  if (e < f.expr_origin.size()) return f.expr_origin[e];
  return static_cast<ExprId>(f.origin_expr_count + (e - f.expr_origin.size()));
}

Place userPlace(const Fusion& f, const Place& where) {
  const uint32_t e = where.rootIndex(PlaceField::Exprs);
  return e == Place::kNoIndex ? where : where.withRootIndex(userExprId(f, e));
}

std::optional<ExprId> exprOfUserId(const Fusion& f, ExprId user) {
  if (f.expr_origin.empty()) return user < f.exprs.size() ? std::optional<ExprId>(user) : std::nullopt;
  auto it = std::lower_bound(f.expr_origin.begin(), f.expr_origin.end(), user);
  if (it != f.expr_origin.end() && *it == user) return static_cast<ExprId>(it - f.expr_origin.begin());
  if (user >= f.origin_expr_count) {
    const size_t e = f.expr_origin.size() + (user - f.origin_expr_count);
    if (e < f.exprs.size()) return static_cast<ExprId>(e);
  }
  return std::nullopt;
}

}  // namespace fc
