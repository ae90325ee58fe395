// A progress line for long jobs (fuzz, reduce, a large check, a GPU run at
// production size): one line on stderr, redrawn in place, saying what the
// job is doing, how far it is and an estimate of the time left; cleared
// when the job ends. Only on a terminal: never in pipes or files (the mode
// Auto decides with isatty(2) and TERM != dumb; Always and Never force it).
// Redraws at most 10 times a second, so calling update() per item is cheap.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace fc {

enum class ProgressMode { Auto, Always, Never };
void setProgressMode(ProgressMode m);
// Whether a progress line would be drawn now.
bool progressEnabled();

// "0.4 s", "12 s", "3 min 5 s", "2 h 10 min".
std::string formatDuration(double seconds);

class ProgressLine {
 public:
  // `what` names the job ("fuzz"); `total` is the number of steps (0:
  // unknown, no percentage and no estimate from the count).
  explicit ProgressLine(std::string what, uint64_t total = 0);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool live() const { return live_; }
  // `done` steps of `total`; `detail` says what is happening now.
  void update(uint64_t done, std::string_view detail = {});
  // The same with an estimate of the whole job's seconds given by the
  // caller (when the step count says nothing about time).
  void updateWithEstimate(std::string_view detail, double expected_total_seconds);
  // Clears the line; a later update() draws it again.
  void finish();
  double elapsed() const;

  // The text update() would draw, for tests: no escape sequences.
  static std::string render(std::string_view what, uint64_t done, uint64_t total, double elapsed,
                            std::string_view detail, double expected_total = 0);

 private:
  void draw(const std::string& text);
  std::string what_;
  uint64_t total_;
  bool live_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Redraws a ProgressLine from a background thread every half second (after
// the first second) with what `status` says, while a job with no step count
// runs (a large check: its current phase, an estimate from the input size).
class ProgressTicker {
 public:
  ProgressTicker(std::string what, std::function<std::string()> status, double expected_total_seconds);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  ProgressLine line_;
  std::function<std::string()> status_;
  double expected_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fc
