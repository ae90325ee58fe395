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
// The same under a command's own --progress (Auto: the global mode decides).
bool progressEnabled(ProgressMode command_mode);

// "0.4 s", "12 s", "3 min 5 s", "2 h 10 min".
std::string formatDuration(double seconds);

class ProgressLine {
 public:
  // `what` names the job ("fuzz"); `total` is the number of steps (0:
  // unknown, no percentage and no estimate from the count).
  explicit ProgressLine(std::string what, uint64_t total = 0, ProgressMode mode = ProgressMode::Auto);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool live() const { return live_; }
  // `done` steps of `total`; `detail` says what is happening now.
  void update(uint64_t done, std::string_view detail = {});
  // The same for a job whose step count is known only as it runs (0: none).
  void update(uint64_t done, uint64_t total, std::string_view detail);
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

// Which step of a long job library code is on (the executors: the segment
// they run), for a command that shows it on a progress line. reportStep does
// nothing (one thread-local load) unless a StepListener is active on the
// calling thread, so library code reports unconditionally, as with
// PhaseScope. Listeners nest; the innermost hears the steps.
void reportStep(uint64_t done, uint64_t total, std::string_view detail);

class StepListener {
 public:
  using Callback = std::function<void(uint64_t done, uint64_t total, std::string_view detail)>;
  explicit StepListener(Callback cb);
  ~StepListener();
  StepListener(const StepListener&) = delete;
  StepListener& operator=(const StepListener&) = delete;

 private:
  friend void reportStep(uint64_t, uint64_t, std::string_view);
  Callback cb_;
  StepListener* prev_;
};

// One step of a job: `done` of `total` (0: unknown) and what is happening.
struct ProgressStep {
  uint64_t done = 0, total = 0;
  std::string detail;
};

// Redraws a ProgressLine from a background thread every half second (after
// the first second) while a job runs: with what `status` says and an
// estimate of the whole job's seconds (a large check: its current phase,
// an estimate from the input size), or with the step `step` returns (its
// count gives the estimate).
class ProgressTicker {
 public:
  ProgressTicker(std::string what, std::function<std::string()> status, double expected_total_seconds);
  ProgressTicker(std::string what, std::function<ProgressStep()> step,
                 ProgressMode mode = ProgressMode::Auto);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  void start();
  ProgressLine line_;
  std::function<std::string()> status_;
  std::function<ProgressStep()> step_;
  double expected_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// A progress line fed by reportStep: while it lives, the steps library code
// reports on this thread are drawn by a ProgressTicker (a run on a large
// input: the segment each executor is on).
class StepProgress {
 public:
  explicit StepProgress(std::string what, ProgressMode mode = ProgressMode::Auto);
  StepProgress(const StepProgress&) = delete;
  StepProgress& operator=(const StepProgress&) = delete;

  // The last step reported.
  ProgressStep last() const;

 private:
  mutable std::mutex m_;
  ProgressStep last_;
  StepListener listener_;
  ProgressTicker ticker_;  // last: stops before the state it reads goes
};

}  // namespace fc
