// The input generator: specified here, not by std::*_distribution, so that
// every platform draws the same values.
//
// SplitMix64 (Steele, Lea, Flood 2014; the public-domain reference by
// Vigna): state += 0x9E3779B97F4A7C15; z = state;
// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) *
// 0x94D049BB133111EB; return z ^ (z >> 31).
// One stream per (seed, input position p, shard c): initial state =
// mix64(seed ^ mix64((p << 32) | c)), mix64 being the output function above
// applied to its argument. Values: u = (next() >> 11) * 2^-53 in [0, 1);
// floating dtypes 2u - 1 in [-1, 1) rounded to the dtype; integers
// floor(10u) in [0, 10) (as nvFuser's repro scripts use randint(0, 10));
// Bool u < 0.5. O(1) per value.
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace fc::exec {

uint64_t mix64(uint64_t z);

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  // The stream of input position `p`, shard `c` under `seed`.
  static SplitMix64 forInput(uint64_t seed, uint32_t p, uint32_t c);
  uint64_t next();
  double uniform01();  // [0, 1), 53 random bits
  // One value of `t` (see the header comment).
  double value(DType t);

 private:
  uint64_t state_;
};

}  // namespace fc::exec
