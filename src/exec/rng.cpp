// SplitMix64 and the per-dtype value rule (see rng.h). O(1) per value.
#include "exec/rng.h"

#include <cmath>

#include "exec/dtype_convert.h"

namespace fc::exec {

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

SplitMix64 SplitMix64::forInput(uint64_t seed, uint32_t p, uint32_t c) {
  return SplitMix64(mix64(seed ^ mix64((static_cast<uint64_t>(p) << 32) | c)));
}

uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  return mix64(state_);
}

double SplitMix64::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double SplitMix64::value(DType t) {
  double u = uniform01();
  if (t == DType::Bool) return u < 0.5 ? 1.0 : 0.0;
  if (isIntegral(t)) return std::floor(10.0 * u);
  return roundTo(t, 2.0 * u - 1.0);
}

}  // namespace fc::exec
