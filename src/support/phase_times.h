// Wall time and peak resident set per phase of one command, for
// `fusecheck check --time-report` (like clang's -ftime-report or ninja's
// -d stats): where a slow run on a large repro spends its time, printed by
// the tool itself instead of guessed from a profiler.
//
// A phase is timed by a PhaseScope. Scopes do nothing (one thread-local load)
// unless a PhaseTimes is active on the calling thread, so library code keeps
// them in place at no measurable cost. A phase entered many times (once per
// segment) accumulates; phases are reported in the order first entered.
// A detail phase (PhaseScope::Detail) times a part of the phase around it:
// it is printed indented and left out of the "(not in a phase)" sum, so that
// `--time-report` can say where a long phase goes without counting twice.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fc {

class PhaseTimes {
 public:
  struct Phase {
    std::string name;
    double seconds = 0;
    uint64_t calls = 0;
    uint64_t peak_rss_kb = 0;  // the process's peak RSS when the phase last ended
    bool concurrent = false;   // ran on another thread beside the other phases
    bool detail = false;       // a part of the enclosing phase, not summed
  };

  // The active collector of this thread (nullptr: none); returns the previous.
  static PhaseTimes* activate(PhaseTimes* t);
  static PhaseTimes* active();

  // Index of the phase called `name`, created on first use.
  size_t slot(std::string_view name, bool detail = false);
  void add(size_t slot, double seconds);
  // Adds the phases another thread timed while this one ran its own; they
  // are marked concurrent and left out of the "(not in a phase)" sum.
  void mergeConcurrent(const PhaseTimes& other);

  const std::vector<Phase>& phases() const { return phases_; }

  // With tracking on, the name of the phase entered last (details left
  // out) is kept for another thread to read: a progress line says what a
  // long command is doing.
  void trackCurrent(bool on) { track_ = on; }
  std::string current() const;
  // A table: phase, calls, ms, share of `total_seconds`, peak RSS.
  std::string render(double total_seconds) const;

 private:
  std::vector<Phase> phases_;
  bool track_ = false;
  mutable std::mutex current_m_;
  std::string current_;
};

// Process peak resident set so far, in KiB (getrusage); 0 where unknown.
uint64_t peakRssKb();

class PhaseScope {
 public:
  struct Detail {};
  explicit PhaseScope(std::string_view name) : PhaseScope(name, false) {}
  PhaseScope(std::string_view name, Detail) : PhaseScope(name, true) {}
  ~PhaseScope() { stop(); }
  // Ends the phase before the scope does.
  void stop() {
    if (!t_) return;
    t_->add(slot_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    t_ = nullptr;
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseScope(std::string_view name, bool detail) : t_(PhaseTimes::active()) {
    if (t_) {
      slot_ = t_->slot(name, detail);
      start_ = std::chrono::steady_clock::now();
    }
  }
  PhaseTimes* t_;
  size_t slot_ = 0;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace fc
