// Step counter of bindView's exact-map propagation (pair visits and
// wake-ups) on this thread, for the complexity tests of tests/perf (the
// other counters are in support/step_counters.h).
#pragma once

#include <cstdint>

namespace fc::steps {

inline thread_local uint64_t exact_map_steps = 0;

}  // namespace fc::steps
