// Fork-join over a few coarse tasks: the reader splits a million-expr
// repro's arrays into one chunk per core (docs/performance.md).
//
// parallelFor(n, fn) runs fn(0) .. fn(n-1), task 0 on the calling thread and
// each other task on a thread of its own, and returns when all have ended.
// An exception thrown by a task is rethrown on the caller (the first one in
// task order) after every task has ended. Tasks must not share mutable state
// unless they synchronize it themselves.
#pragma once

#include <cstddef>
#include <functional>

namespace fc {

void parallelFor(size_t tasks, const std::function<void(size_t)>& fn);

// The number of threads worth starting: `requested` when it is not 0,
// otherwise the hardware's concurrency, at most kMaxThreads and at least 1.
inline constexpr unsigned kMaxThreads = 64;
unsigned threadsFor(unsigned requested);

// The process-wide default thread count of the parallel passes (the
// reader's chunks, the verifier's op checks); 0: every core. The CLI's
// --threads sets it.
unsigned defaultThreads();
void setDefaultThreads(unsigned threads);

// The smallest i < n with pred(i), or n: `workers` tasks each scan a stretch
// of [0, n) up to its first hit, and the earliest stretch's hit wins.
size_t firstWhere(size_t n, size_t workers, const std::function<bool(size_t)>& pred);

}  // namespace fc
