// Division of a 32-bit index by a divisor fixed at launch, as a
// multiply-high, an add and a shift instead of the ~20 instructions of a
// run-time integer division (the GPU kernels divide flat indices by tensor
// extents once per element group). For a divisor 1 <= d <= 2^31 and a
// dividend n < 2^31:
//   s = ceil(log2 d), m = floor(2^32 (2^s - d) / d) + 1 (m < 2^32),
//   n / d = (umulhi(n, m) + n) >> s,
// the sum staying below 2^32 because umulhi(n, m) < n. Header-only and
// usable on the host too (GpuIntDiv in tests/gpu/kernels_fast_paths_test.cpp
// checks it against plain division there).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FC_HOST_DEVICE __host__ __device__
#else
#define FC_HOST_DEVICE
#endif

namespace fc::exec::cuda {

struct IntDiv {
  uint32_t d = 1, m = 1, s = 0;  // d = 1: m = 1, s = 0 gives n

  IntDiv() = default;
  explicit IntDiv(uint32_t divisor) : d(divisor == 0 ? 1 : divisor) {
    s = 0;
    while ((uint64_t{1} << s) < d) ++s;
    m = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << s) - d)) / d + 1);
  }

  FC_HOST_DEVICE uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t hi = __umulhi(n, m);
#else
    const auto hi = static_cast<uint32_t>((uint64_t{n} * m) >> 32);
#endif
    return (hi + n) >> s;
  }
  // n = q d + r: q returned, r written.
  FC_HOST_DEVICE uint32_t divmod(uint32_t n, uint32_t& r) const {
    const uint32_t q = div(n);
    r = n - q * d;
    return q;
  }
};

}  // namespace fc::exec::cuda
