// Chunked reads of tensor values (see tensor_source.h).
#include "exec/tensor_source.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "support/internal_error.h"

namespace fc::exec {

void HostTensorSource::read(int64_t begin, int64_t n, double* out) const {
  FC_CHECK(begin >= 0 && n >= 0 && begin + n <= t_.numel(), "read past the end of a host tensor");
  if (n > 0) std::memcpy(out, t_.data() + begin, static_cast<size_t>(n) * sizeof(double));
}

std::optional<int64_t> firstBitDifference(const TensorSource& a, const TensorSource& b, int64_t chunk_elems) {
  FC_CHECK(a.shape() == b.shape(), "replicas of one tensor differ in shape");
  if (a.storage() && a.storage() == b.storage()) return std::nullopt;
  const int64_t total = a.numel();
  const int64_t chunk = std::min(total, chunk_elems > 0 ? chunk_elems : kSourceChunk);
  std::vector<double> x(static_cast<size_t>(chunk)), y(static_cast<size_t>(chunk));
  for (int64_t at = 0; at < total; at += chunk) {
    const int64_t n = std::min(chunk, total - at);
    a.read(at, n, x.data());
    b.read(at, n, y.data());
    for (int64_t i = 0; i < n; ++i) {
      bool same = std::bit_cast<uint64_t>(x[i]) == std::bit_cast<uint64_t>(y[i]) ||
                  (std::isnan(x[i]) && std::isnan(y[i]));
      if (!same) return at + i;
    }
  }
  return std::nullopt;
}

}  // namespace fc::exec
