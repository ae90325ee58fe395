// The synthetic generators moved to the library (src/difftest/synth.h) so
// that the fuzzer (fc_difftest) can share them; this header keeps the old
// include path ("synth.h") of tests/perf and tools/bench working.
#pragma once

#include "difftest/synth.h"
