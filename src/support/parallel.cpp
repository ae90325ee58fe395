#include "support/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace fc {

void parallelFor(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  std::vector<std::exception_ptr> errors(tasks);
  auto guarded = [&](size_t k) {
    try {
      fn(k);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(tasks - 1);
  for (size_t k = 1; k < tasks; ++k) threads.emplace_back(guarded, k);
  guarded(0);
  for (std::thread& t : threads) t.join();
  for (std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

namespace {
std::atomic<unsigned> g_default_threads{0};
}  // namespace

unsigned defaultThreads() { return g_default_threads.load(std::memory_order_relaxed); }
void setDefaultThreads(unsigned threads) { g_default_threads.store(threads, std::memory_order_relaxed); }

unsigned threadsFor(unsigned requested) {
  unsigned n = requested != 0 ? requested : std::thread::hardware_concurrency();
  return std::clamp(n, 1u, kMaxThreads);
}

size_t firstWhere(size_t n, size_t workers, const std::function<bool(size_t)>& pred) {
  const size_t w = std::max<size_t>(workers, 1);
  std::vector<size_t> first(w, n);
  parallelFor(w, [&](size_t k) {
    for (size_t i = n * k / w; i < n * (k + 1) / w; ++i)
      if (pred(i)) {
        first[k] = i;
        return;
      }
  });
  return *std::min_element(first.begin(), first.end());
}

}  // namespace fc
