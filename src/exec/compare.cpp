// Output comparison under the magnitude-aware tolerance (see compare.h).
#include "exec/compare.h"

#include <algorithm>
#include <cmath>

#include "exec/dtype_convert.h"
#include "exec/tensor_source.h"

namespace fc::exec {

std::optional<std::pair<double, double>> torchDefaults(DType t) {
  switch (t) {
    case DType::Half: return std::pair{1e-3, 1e-5};
    case DType::BFloat16: return std::pair{1.6e-2, 1e-5};
    case DType::Float: return std::pair{1.3e-6, 1e-5};
    case DType::Double: return std::pair{1e-7, 1e-7};
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2: return std::nullopt;
    default: return std::pair{0.0, 0.0};
  }
}

namespace {
bool bad(double a, double r, double atol, double rtol, double* err) {
  bool na = std::isnan(a), nr = std::isnan(r);
  if (na || nr) {
    *err = (na && nr) ? 0 : INFINITY;
    return na != nr;
  }
  if (std::isinf(a) || std::isinf(r)) {
    *err = a == r ? 0 : INFINITY;
    return a != r;
  }
  *err = std::fabs(a - r);
  return *err > atol + rtol * std::fabs(r);
}
}  // namespace

Comparison compareTensors(const std::string& name, const HostTensor& actual, const HostTensor& expected,
                          const TolerancePolicy& pol, size_t max_worst) {
  return compareTensors(name, HostTensorSource(actual), HostTensorSource(expected), pol, max_worst);
}

Comparison compareTensors(const std::string& name, const TensorSource& actual, const TensorSource& expected,
                          const TolerancePolicy& pol, size_t max_worst, int64_t chunk_elems) {
  Comparison c;
  c.name = name;
  c.dtype = pol.out_dtype;
  c.path_dtype = pol.path_dtype;
  c.reduction_size = pol.reduction_size;
  c.shape = actual.shape();
  c.ref_shape = expected.shape();
  c.numel = expected.numel();
  if (auto td = torchDefaults(pol.out_dtype)) {
    c.torch_rtol = td->first;
    c.torch_atol = td->second;
  }
  const int64_t total = expected.numel();
  const int64_t chunk = std::min(total, chunk_elems > 0 ? chunk_elems : kSourceChunk);
  std::vector<double> ref(static_cast<size_t>(chunk));
  for (int64_t at = 0; at < total; at += chunk) {
    const int64_t n = std::min(chunk, total - at);
    expected.read(at, n, ref.data());
    for (int64_t i = 0; i < n; ++i)
      if (std::isfinite(ref[i])) c.scale = std::max(c.scale, std::fabs(ref[i]));
  }
  c.collective_hops = pol.collective_hops;
  double elem_rtol = 0;  // the per-element relative term of the rule in force
  if (pol.rtol || pol.atol) {
    c.overridden = true;
    c.rtol = pol.rtol.value_or(0);
    c.atol = pol.atol.value_or(0);
    elem_rtol = c.rtol;
  } else if (!isFloatingPoint(pol.out_dtype)) {
    c.rtol = c.atol = 0;  // integers and Bool: exact
  } else {
    DType d = isFloatingPoint(pol.path_dtype) ? pol.path_dtype : pol.out_dtype;
    auto td = torchDefaults(d);
    double rtol0 = td ? td->first : epsilon(d);
    double atol0 = td ? td->second : minSubnormal(d);
    double u_acc = d == DType::Double ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    c.rtol = rtol0 * (1.0 + 0.5 * static_cast<double>(std::max<int64_t>(0, pol.collective_hops))) +
             std::sqrt(static_cast<double>(std::max<int64_t>(1, pol.reduction_size))) * u_acc;
    c.atol = atol0 + c.rtol * c.scale;
  }
  if (actual.shape() != expected.shape()) {
    c.shape_match = false;
    c.mismatches = std::max(actual.numel(), expected.numel());
    return c;
  }
  std::vector<std::pair<double, int64_t>> worst;  // (excess ratio, index), a min-heap of size max_worst
  auto cmp = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  int64_t torch_bad = 0;
  std::vector<double> got(static_cast<size_t>(chunk));
  for (int64_t at = 0; at < total; at += chunk) {
    const int64_t n = std::min(chunk, total - at);
    actual.read(at, n, got.data());
    expected.read(at, n, ref.data());
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = at + k;
      double a = got[k], r = ref[k], err = 0;
      bool mis = bad(a, r, c.atol, elem_rtol, &err);
      if (c.torch_rtol) {
        double e2;
        if (bad(a, r, *c.torch_atol, *c.torch_rtol, &e2)) ++torch_bad;
      }
      if (std::isfinite(err)) {
        c.max_abs = std::max(c.max_abs, err);
        if (r != 0) c.max_rel = std::max(c.max_rel, err / std::fabs(r));
      } else if (err > 0) {
        c.max_abs = INFINITY;
        c.max_rel = INFINITY;
      }
      c.max_ulp = std::max(c.max_ulp, ulpDistance(pol.out_dtype, a, r));
      if (mis) ++c.mismatches;
      double allowed = c.atol + elem_rtol * std::fabs(r);
      double ratio = err == 0 ? 0 : (allowed > 0 ? err / allowed : INFINITY);
      if (max_worst > 0 && err > 0) {
        if (worst.size() < max_worst) {
          worst.emplace_back(ratio, i);
          std::push_heap(worst.begin(), worst.end(), cmp);
        } else if (cmp(std::pair{ratio, i}, worst.front())) {
          std::pop_heap(worst.begin(), worst.end(), cmp);
          worst.back() = {ratio, i};
          std::push_heap(worst.begin(), worst.end(), cmp);
        }
      }
    }
  }
  if (c.torch_rtol) c.torch_mismatches = torch_bad;
  std::sort(worst.begin(), worst.end(), cmp);
  for (auto& [ratio, i] : worst) {
    WorstElement w;
    w.index = unflatten(expected.shape(), i);
    actual.read(i, 1, &w.actual);
    expected.read(i, 1, &w.expected);
    bad(w.actual, w.expected, c.atol, elem_rtol, &w.abs_error);
    w.allowed = c.atol + elem_rtol * std::fabs(w.expected);
    w.ulp = ulpDistance(pol.out_dtype, w.actual, w.expected);
    c.worst.push_back(std::move(w));
  }
  return c;
}

}  // namespace fc::exec
