// Step counters for complexity tests (tests/perf): hot
// loops add the number of elementary steps they perform, so a
// test can assert that a pass is linear in the size of its input by
// comparing counts at n and k*n -- machine-independent, unlike timings.
// One thread-local struct of plain integers: an increment per step, no I/O.
#pragma once

#include <cstdint>

namespace fc::steps {

struct Counters {
  uint64_t eval_steps = 0;         // ScalarEval::evaluate: stack pops
  uint64_t eval_resets = 0;        // ScalarEval: entries cleared (bind's retry list, reset())
  uint64_t eval_slots = 0;         // ScalarEval: per-scalar slots allocated (constructor)
  uint64_t free_symbol_steps = 0;  // ScalarEval::freeSymbols: nodes visited
  uint64_t scratch_inits = 0;      // per-view scratch arrays: elements initialized
  uint64_t dedup_compares = 0;     // runPipeline: diagnostics compared when dropping duplicates
  uint64_t trace_elements = 0;     // traced pipeline: whole-fusion elements walked per traced view
  uint64_t binding_steps = 0;      // frontend bindings: concrete inputs and input axes visited

  // Adds another thread's counts (a pass run on a worker thread).
  Counters& operator+=(const Counters& o) {
    eval_steps += o.eval_steps;
    eval_resets += o.eval_resets;
    eval_slots += o.eval_slots;
    free_symbol_steps += o.free_symbol_steps;
    scratch_inits += o.scratch_inits;
    dedup_compares += o.dedup_compares;
    trace_elements += o.trace_elements;
    binding_steps += o.binding_steps;
    return *this;
  }
};

inline thread_local Counters counters;

inline void reset() { counters = Counters{}; }

}  // namespace fc::steps
