#include "support/prefault.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "support/parallel.h"

namespace fc {

void prefault(void* p, size_t bytes, unsigned threads) {
  const PrefaultBlock block{p, bytes};
  prefault(std::span<const PrefaultBlock>(&block, 1), threads);
}

void prefault(std::span<const PrefaultBlock> blocks, unsigned threads) {
  if (threads < 2) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // Each block's whole pages: [lo, lo + pages * page).
  struct Pages {
    uintptr_t lo = 0;
    size_t pages = 0, before = 0;  // pages of the blocks before it
  };
  std::vector<Pages> runs;
  size_t total = 0;
  for (const PrefaultBlock& b : blocks) {
    if (b.p == nullptr) continue;
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(b.p) + page - 1) / page * page;
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(b.p) + b.bytes) / page * page;
    if (hi <= lo) continue;
    runs.push_back(Pages{lo, (hi - lo) / page, total});
    total += (hi - lo) / page;
  }
  if (total * page < kPrefaultMinBytes) return;
  const size_t w = std::min<size_t>(threads, total);
  parallelFor(w, [&](size_t k) {
    const size_t from = total * k / w, to = total * (k + 1) / w;  // pages of all the blocks
    for (const Pages& r : runs) {
      const size_t a = std::max(from, r.before), b = std::min(to, r.before + r.pages);
      // A write fault per page that leaves its byte as it was: an atomic
      // or with 0 (one write fault, where a read and then a write would
      // map the zero page first).
      for (size_t i = a; i < b; ++i)
        __atomic_fetch_or(reinterpret_cast<unsigned char*>(r.lo + (i - r.before) * page), 0,
                          __ATOMIC_RELAXED);
    }
  });
}

}  // namespace fc
