#include "support/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "support/parallel.h"

namespace fc {

void prefault(void* p, size_t bytes, unsigned threads) {
#ifdef MADV_POPULATE_WRITE
  if (p == nullptr || bytes < kPrefaultMinBytes || threads < 2) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
  if (hi <= lo) return;
  const size_t pages = (hi - lo) / page;
  const size_t w = std::min<size_t>(threads, pages);
  parallelFor(w, [&](size_t k) {
    uintptr_t a = lo + pages * k / w * page, b = lo + pages * (k + 1) / w * page;
    // Advice only: a kernel without it, or a refusal, leaves the faults to the first writes.
    madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);
  });
#else
  (void)p;
  (void)bytes;
  (void)threads;
#endif
}

}  // namespace fc
