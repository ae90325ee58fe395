// Faulting in a large fresh block on several threads before one thread
// fills it. The chunked reader sizes the million-element tensor and expr
// arrays (~430 MB at 1M exprs) on its calling thread: the first-touch page
// faults of that one thread were a sequential part of reading
// (docs/performance.md, fix 33). The kernel populates the pages without
// changing their contents (madvise MADV_POPULATE_WRITE, Linux 5.14+), so
// the block's objects, constructed or not, are untouched; elsewhere, or
// when the kernel refuses, this does nothing.
#pragma once

#include <cstddef>

namespace fc {

// Blocks smaller than this are not worth a thread.
inline constexpr size_t kPrefaultMinBytes = size_t{16} << 20;

// Populates the whole pages of [p, p + bytes) on up to `threads` threads.
void prefault(void* p, size_t bytes, unsigned threads);

}  // namespace fc
