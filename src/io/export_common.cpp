// Helpers shared by the exporters (see export_common.h).
#include "io/export_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ir/rng_like.h"
#include "ir/topo_order.h"

namespace fc {

std::string doubleLiteral(double v, const char* nan, const char* inf, const char* neg_inf) {
  if (std::isnan(v)) return nan;
  if (std::isinf(v)) return v < 0 ? neg_inf : inf;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::vector<ExprId> definitionOrder(const Fusion& f) {
  ProducerWalk walk(f);
  for (ExprId e = 0; e < f.exprs.size(); ++e) walk.visit(e);
  return walk.take();
}

std::vector<int64_t> strideOrderOf(const Fusion& f, TensorId t) {
  const Tensor& tv = f.tensors[t];
  std::vector<AxisId> logical;
  for (AxisId a : tv.logical)
    if (f.axes[a].iter != IterType::Reduction) logical.push_back(a);
  if (tv.allocation.size() != logical.size() || tv.allocation == logical) return {};
  std::vector<int64_t> order;
  for (AxisId a : logical) {
    auto it = std::find(tv.allocation.begin(), tv.allocation.end(), a);
    if (it == tv.allocation.end()) return {};
    order.push_back(static_cast<int64_t>(tv.allocation.end() - it) - 1);
  }
  return order;
}

int64_t stridedSpan(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t span = 1;
  for (size_t d = 0; d < sizes.size() && d < strides.size(); ++d) {
    if (sizes[d] == 0) return 0;
    span += (sizes[d] - 1) * strides[d];
  }
  return span;
}

bool scheduled(const Fusion& f, const Tensor& t) {
  if (!t.loop.empty() && t.loop != t.logical) return true;
  for (AxisId a : t.loopDomain()) {
    const ParallelType p = f.axes[a].parallel;
    if (isDeviceDim(p) || p == ParallelType::Stream) return true;
  }
  return false;
}

std::optional<TensorId> rngLikeOperand(const Fusion& f, const Expr& e, const std::vector<uint8_t>& written) {
  const Attrs& at = e.attrs;
  const DType dt = at.dtype.value_or(f.tensors[e.outputs[0]].dtype);
  for (TensorId t = 0; t < f.tensors.size() && t < written.size(); ++t) {
    if (!written[t] || f.tensors[t].dtype != dt) continue;
    std::vector<AxisId> axes;
    for (AxisId a : f.tensors[t].logical)
      if (f.axes[a].iter != IterType::Reduction) axes.push_back(a);
    if (likeFlags(f, axes) != at.flags) continue;
    if (std::equal(axes.begin(), axes.end(), at.shape.begin(), at.shape.end(),
                   [&](AxisId a, ScalarId s) { return f.axes[a].extent == s; }))
      return t;
  }
  return std::nullopt;
}

}  // namespace fc
