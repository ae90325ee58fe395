// Faulting in a large fresh block on several threads before one thread
// fills it. The chunked reader sizes the million-element tensor and expr
// arrays (~430 MB at 1M exprs) on its calling thread: the first-touch page
// faults of that one thread were a sequential part of reading.
// Each thread writes one byte of each of its
// pages with an atomic or of 0, which faults the page in without changing
// what it holds; no other thread may use the block meanwhile. (madvise
// MADV_POPULATE_WRITE does the same in the kernel, but measured 4-6 times
// slower than these writes on the device host's virtual machine.)
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace fc {

// Blocks smaller than this are not worth a thread.
inline constexpr size_t kPrefaultMinBytes = size_t{4} << 20;

// Populates the whole pages of [p, p + bytes) on up to `threads` threads.
void prefault(void* p, size_t bytes, unsigned threads);

// A block for the list form.
struct PrefaultBlock {
  void* p = nullptr;
  size_t bytes = 0;
};
// Populates the whole pages of every block in one fork-join, each thread
// taking an equal share of all the pages: for several blocks that are each
// too small to be worth a fork-join (a pass's per-element state), when
// together they are not.
void prefault(std::span<const PrefaultBlock> blocks, unsigned threads);

// v.resize(n, x) for n >= v.size(): the pages of the new elements (in a new
// block, or in capacity reserved earlier and perhaps never touched) are
// faulted in on up to `threads` threads first.
template <class T>
void resizePrefaulted(std::vector<T>& v, size_t n, unsigned threads, const T& x = T()) {
  if (n <= v.size()) return v.resize(n, x);
  v.reserve(n);
  prefault(v.data() + v.size(), (n - v.size()) * sizeof(T), threads);
  v.resize(n, x);
}

}  // namespace fc
