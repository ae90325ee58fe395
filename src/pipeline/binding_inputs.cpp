// What the binding of a view starts from: the complete fusion's inputs with
// the repro's concrete sizes (or symbolically), and the per-rank sizes a
// segment input has at run time (from the complete fusion's binding).
#include <algorithm>

#include "analysis/axis_map.h"
#include "pipeline/context.h"

namespace fc {
namespace {

// Local (per-rank) size of axis `pos` of `t` from its global extent value.
std::optional<int64_t> localSize(const Fusion& f, TensorId t, size_t pos, int64_t global,
                                 DidBindingRule did) {
  ParallelType pt = shardingOf(f, t, pos);
  if (!isDeviceDim(pt) || f.tensors[t].mesh == kNone || did == DidBindingRule::TensorSize) return global;
  // A logical DID axis holds a size-1 slice per rank; a DID loop split the
  // global size over the mesh.
  if (did == DidBindingRule::MeshSizeLocalOne && isDeviceDim(f.axes[f.tensors[t].logical[pos]].parallel))
    return 1;
  int64_t m = f.meshes[f.tensors[t].mesh].sizeFor(pt);
  if (m <= 0 || global % m != 0) return std::nullopt;
  return global / m;
}

}  // namespace

std::vector<std::optional<int64_t>> localShape(const Fusion& f, ScalarEval& whole, TensorId t,
                                               DidBindingRule did) {
  std::vector<std::optional<int64_t>> out;
  const auto& L = f.tensors[t].logical;
  for (size_t pos = 0; pos < L.size(); ++pos) {
    const Axis& ax = f.axes[L[pos]];
    if (ax.iter == IterType::Reduction) continue;
    auto v = whole.value(ax.expanded != kNone ? ax.expanded : ax.extent);
    out.push_back(v ? localSize(f, t, pos, *v, did) : std::nullopt);
  }
  return out;
}

namespace pipeline_detail {

BindRequest Ctx::wholeRequest() {
  BindRequest req;
  req.did = p.did_rule;
  req.file = opts.file;
  req.user_binds = opts.binds;
  ci_first_tensor.assign(f.tensors.size(), nullptr);
  ci_last_tensor.assign(f.tensors.size(), nullptr);
  ci_last_scalar.clear();
  for (const auto& c : f.concrete_inputs) {
    if (c.value.isTensor() && c.value.id < f.tensors.size()) {
      if (!ci_first_tensor[c.value.id]) ci_first_tensor[c.value.id] = &c;
      ci_last_tensor[c.value.id] = &c;
    } else if (c.value.isScalar()) {
      ci_last_scalar[c.value.id] = &c;
    }
  }
  auto lastScalar = [&](ScalarId s) -> const ConcreteInput* {
    auto it = ci_last_scalar.find(s);
    return it == ci_last_scalar.end() ? nullptr : it->second;
  };
  const auto tensor_inputs = static_cast<size_t>(
      std::count_if(f.inputs.begin(), f.inputs.end(), [](const ValueRef& v) { return v.isTensor(); }));
  req.tensors.reserve(tensor_inputs);
  req.scalars.reserve(f.inputs.size() - tensor_inputs);
  for (const ValueRef& in : f.inputs) {
    const ConcreteInput* ci = nullptr;
    if (opts.concrete)
      ci = in.isTensor() ? (in.id < ci_last_tensor.size() ? ci_last_tensor[in.id] : nullptr)
                         : lastScalar(in.id);
    if (in.isTensor()) {
      BoundInput b;
      b.tensor = in.id;
      b.domain = f.tensors[in.id].logical;
      if (ci && !ci->shape.empty()) b.sizes = ci->shape;
      if (ci && ci->shape.empty() && f.nonReductionRank(in.id) == 0) b.sizes = std::vector<int64_t>{};
      req.tensors.push_back(std::move(b));
    } else {
      std::optional<int64_t> v;
      if (ci && ci->scalar && ci->scalar->kind != ConstValue::Kind::Float) v = ci->scalar->i;
      req.scalars.push_back({in.id, v});
    }
  }
  std::vector<ExprId> all(f.exprs.size());
  for (ExprId e = 0; e < f.exprs.size(); ++e) all[e] = e;
  req.exprs = std::move(all);
  return req;
}

std::optional<std::vector<int64_t>> Ctx::runtimeSizes(TensorId t, const std::vector<AxisId>& dom) {
  if (f.tensors[t].definition == kNone && opts.concrete && t < ci_first_tensor.size() && ci_first_tensor[t])
    return ci_first_tensor[t]->shape;
  std::vector<int64_t> sizes;
  for (AxisId a : dom) {
    const Axis& ax = f.axes[a];
    if (ax.iter == IterType::Reduction) continue;
    auto v = whole.value(ax.expanded != kNone ? ax.expanded : ax.extent);
    if (!v) return std::nullopt;
    size_t pos = 0;
    while (pos < f.tensors[t].logical.size() && f.tensors[t].logical[pos] != a) ++pos;
    auto l = localSize(f, t, pos, *v, p.did_rule);
    if (!l) return std::nullopt;
    sizes.push_back(*l);
  }
  return sizes;
}

}  // namespace pipeline_detail
}  // namespace fc
