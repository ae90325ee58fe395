// support/parallel.h: every task runs once, on distinct threads beyond the
// caller's; an exception reaches the caller only after every task ended.
#include "support/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fc {
namespace {

TEST(ParallelFor, RunsEachTaskOnceAndTaskZeroOnTheCaller) {
  std::vector<int> runs(9, 0);
  std::mutex m;
  std::set<std::thread::id> ids;
  std::thread::id task0;
  parallelFor(runs.size(), [&](size_t k) {
    ++runs[k];  // distinct elements: no race
    std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
    if (k == 0) task0 = std::this_thread::get_id();
  });
  EXPECT_EQ(runs, std::vector<int>(9, 1));
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_EQ(task0, std::this_thread::get_id());
  parallelFor(0, [&](size_t) { FAIL() << "no task to run"; });
}

TEST(ParallelFor, RethrowsTheFirstFailureAfterAllTasksEnded) {
  std::atomic<int> ended{0};
  try {
    parallelFor(4, [&](size_t k) {
      if (k == 3) throw std::runtime_error("task 3");
      if (k == 1) throw std::logic_error("task 1");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++ended;
    });
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "task 1");  // task order, not time order
  }
  EXPECT_EQ(ended.load(), 2);
}

TEST(ParallelFor, ThreadsForClampsTheRequest) {
  EXPECT_EQ(threadsFor(3), 3u);
  EXPECT_EQ(threadsFor(100000), kMaxThreads);
  EXPECT_GE(threadsFor(0), 1u);
  EXPECT_LE(threadsFor(0), kMaxThreads);
}

TEST(ParallelFor, FirstWhereIsTheSmallestHitWhateverTheWorkers) {
  // Hits at 70 and 900 of 1000: every split returns 70; no hit returns n.
  auto hit = [](size_t i) { return i == 70 || i == 900; };
  for (size_t w : {1, 2, 3, 7, 64}) {
    EXPECT_EQ(firstWhere(1000, w, hit), 70u) << w;
    EXPECT_EQ(firstWhere(1000, w, [](size_t) { return false; }), 1000u) << w;
  }
  EXPECT_EQ(firstWhere(0, 4, hit), 0u);
}

}  // namespace
}  // namespace fc
