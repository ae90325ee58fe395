// See packed_fp4.h.
#include "io/packed_fp4.h"

#include <algorithm>

namespace fc {

std::optional<size_t> packedFp4KeptStride(const Fusion& f, TensorId t) {
  const Tensor& tv = f.tensors[t];
  if (tv.logical.empty()) return std::nullopt;
  if (!tv.allocation.empty()) {
    auto it = std::find(tv.logical.begin(), tv.logical.end(), tv.allocation.back());
    if (it != tv.logical.end()) return static_cast<size_t>(it - tv.logical.begin());
  }
  return tv.logical.size() - 1;
}

SizesAndStrides unpackFp4(const Fusion& f, TensorId t, SizesAndStrides packed) {
  std::optional<size_t> kept = packedFp4KeptStride(f, t);
  if (!kept || packed.sizes.empty()) return packed;
  packed.sizes.back() *= 2;
  for (size_t d = 0; d < packed.strides.size(); ++d)
    if (d != *kept) packed.strides[d] *= 2;
  return packed;
}

std::optional<SizesAndStrides> packFp4(const Fusion& f, TensorId t, SizesAndStrides bound) {
  std::optional<size_t> kept = packedFp4KeptStride(f, t);
  if (!kept || bound.sizes.empty() || bound.sizes.back() % 2 != 0) return std::nullopt;
  bound.sizes.back() /= 2;
  for (size_t d = 0; d < bound.strides.size(); ++d) {
    if (d == *kept) continue;
    if (bound.strides[d] % 2 != 0) return std::nullopt;
    bound.strides[d] /= 2;
  }
  return bound;
}

}  // namespace fc
