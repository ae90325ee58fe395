// SplitMix64 for the generators of src/difftest (synthetic repros, random
// fusions): a specified generator, identical on every standard library, so a
// seed names the same fusion everywhere (std::*_distribution does not).
#pragma once

#include <cstdint>

namespace fc::difftest {

struct Rng {
  uint64_t s = 0;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform-enough in [0, n) for the small n the generators use; n > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  // True with probability num/den.
  bool chance(uint64_t num, uint64_t den) { return below(den) < num; }
};

}  // namespace fc::difftest
