// The unsegmented references (see reference.h).
#include "exec/reference.h"

#include <algorithm>
#include <functional>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"

namespace fc::exec {

std::vector<ExprId> neededExprs(const Fusion& f) {
  size_t nt = f.tensors.size(), ne = f.exprs.size();
  std::vector<ExprId> producer(nt, kNone);
  for (ExprId e = 0; e < ne; ++e)
    for (TensorId t : f.exprs[e].outputs)
      if (t < nt) producer[t] = e;
  // Backward reachability from the outputs (explicit stack).
  std::vector<bool> needed(ne, false);
  std::vector<TensorId> stack(f.outputs.begin(), f.outputs.end());
  std::vector<bool> seen(nt, false);
  while (!stack.empty()) {
    TensorId t = stack.back();
    stack.pop_back();
    if (t >= nt || seen[t]) continue;
    seen[t] = true;
    ExprId e = producer[t];
    if (e == kNone) {
      if (!f.isInput(t))
        fail("tensor " + std::string(f.tensorName(t)) + " is neither an input nor produced", Place::tensor(t),
             DiagCode::UndefinedTensor);
      continue;
    }
    needed[e] = true;
    for (ValueRef v : f.exprs[e].inputs)
      if (v.isTensor()) stack.push_back(v.id);
  }
  // Kahn over needed exprs, ties by expr index (deterministic).
  std::vector<int> pending(ne, 0);
  std::vector<std::vector<ExprId>> consumers(ne);
  for (ExprId e = 0; e < ne; ++e) {
    if (!needed[e]) continue;
    for (ValueRef v : f.exprs[e].inputs) {
      if (!v.isTensor() || v.id >= nt || producer[v.id] == kNone) continue;
      ++pending[e];
      consumers[producer[v.id]].push_back(e);
    }
  }
  std::vector<ExprId> ready, order;
  for (ExprId e = 0; e < ne; ++e)
    if (needed[e] && pending[e] == 0) ready.push_back(e);
  std::make_heap(ready.begin(), ready.end(), std::greater<>());
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    ExprId e = ready.back();
    ready.pop_back();
    order.push_back(e);
    for (ExprId c : consumers[e])
      if (--pending[c] == 0) {
        ready.push_back(c);
        std::push_heap(ready.begin(), ready.end(), std::greater<>());
      }
  }
  size_t n_needed = std::count(needed.begin(), needed.end(), true);
  if (order.size() != n_needed)
    fail("the exprs form a cycle", Place::member(PlaceField::Exprs), DiagCode::Cycle);
  return order;
}

namespace {
// ranks - 1 when `e` reduces DID-parallel axes of its input (the cross-rank
// reduction a collective performs), else 0.
int64_t crossRankHops(const Fusion& f, ExprId e, const Shape* input0) {
  const Expr& ex = f.exprs[e];
  if (opInfo(ex.op).category != OpCategory::Reduction || !input0 || ex.inputs.empty() ||
      !ex.inputs[0].isTensor())
    return 0;
  std::vector<AxisId> axes = materializedAxes(f, ex.inputs[0].id);
  int64_t rank = static_cast<int64_t>(axes.size()), ranks = 1;
  int64_t x_rank = static_cast<int64_t>(input0->size());
  for (int64_t d : ex.attrs.dims) {
    int64_t n = d < 0 ? d + rank : d;
    if (n >= 0 && n < rank && n < x_rank && isDeviceDim(f.axes[axes[n]].parallel))
      ranks *= std::max<int64_t>(1, (*input0)[n]);
  }
  return ranks - 1;
}

void startPaths(const Fusion& f, ReferenceResult& r) {
  size_t nt = f.tensors.size();
  r.path_dtype.assign(nt, DType::Int);  // "exact" until a floating tensor is produced
  r.path_reduction.assign(nt, 1);
  r.path_hops.assign(nt, 0);
}

// The path metadata of `e`'s outputs from its inputs' (already computed).
void addPaths(const Fusion& f, ExprId e, const Shape* input0, ReferenceResult& r) {
  const Expr& ex = f.exprs[e];
  DType path = DType::Int;
  int64_t red = 1, hops = 0;
  for (ValueRef v : ex.inputs) {
    if (!v.isTensor()) continue;
    if (precisionRank(r.path_dtype[v.id]) < precisionRank(path)) path = r.path_dtype[v.id];
    red = std::max(red, r.path_reduction[v.id]);
    hops = std::max(hops, r.path_hops[v.id]);
  }
  red = std::max(red, reductionSize(f, e, input0));
  hops = std::max(hops, crossRankHops(f, e, input0));
  for (TensorId t : ex.outputs) {
    DType own = f.tensors[t].dtype;
    r.path_dtype[t] = (isFloatingPoint(own) && precisionRank(own) < precisionRank(path)) ? own : path;
    r.path_reduction[t] = red;
    r.path_hops[t] = hops;
  }
}

const Shape* firstTensorShape(const Fusion& f, ExprId e, const std::function<const Shape*(TensorId)>& shape) {
  const Expr& ex = f.exprs[e];
  return !ex.inputs.empty() && ex.inputs[0].isTensor() ? shape(ex.inputs[0].id) : nullptr;
}
}  // namespace

void computePaths(const Fusion& f, const std::function<const Shape*(TensorId)>& shape, ReferenceResult& r) {
  startPaths(f, r);
  for (ExprId e : neededExprs(f)) addPaths(f, e, firstTensorShape(f, e, shape), r);
}

ReferenceResult runReference(const Fusion& f, const RunInputs& in, ScalarValues& scalars, Flavour flavour,
                             MemoryBudget* budget) {
  ReferenceResult r;
  r.values.resize(f.tensors.size());
  startPaths(f, r);
  for (size_t p = 0; p < f.inputs.size(); ++p)
    if (f.inputs[p].isTensor()) r.values[f.inputs[p].id] = assembleGlobal(in.values[p], budget);
  OpContext ctx{&f, &scalars, flavour, budget, nullptr};
  for (ExprId e : neededExprs(f)) {
    const Expr& ex = f.exprs[e];
    std::vector<const HostTensor*> args;
    for (ValueRef v : ex.inputs) {
      if (!v.isTensor()) {
        args.push_back(nullptr);
        continue;
      }
      if (!r.values[v.id])
        fail("tensor " + std::string(f.tensorName(v.id)) + " has no value", Place::expr(e));
      args.push_back(&*r.values[v.id]);
    }
    addPaths(f, e, !args.empty() && args[0] ? &args[0]->shape() : nullptr, r);
    std::vector<HostTensor> outs = evalExpr(ctx, e, args);
    for (size_t i = 0; i < outs.size(); ++i) r.values[ex.outputs[i]] = std::move(outs[i]);
  }
  return r;
}

}  // namespace fc::exec
