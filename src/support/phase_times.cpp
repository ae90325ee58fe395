#include "support/phase_times.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace fc {

namespace {
thread_local PhaseTimes* g_active = nullptr;
}  // namespace

PhaseTimes* PhaseTimes::activate(PhaseTimes* t) {
  PhaseTimes* prev = g_active;
  g_active = t;
  return prev;
}

PhaseTimes* PhaseTimes::active() { return g_active; }

std::string PhaseTimes::current() const {
  std::lock_guard<std::mutex> lock(current_m_);
  return current_;
}

size_t PhaseTimes::slot(std::string_view name, bool detail) {
  if (track_ && !detail) {
    std::lock_guard<std::mutex> lock(current_m_);
    current_.assign(name);
  }
  for (size_t i = 0; i < phases_.size(); ++i)
    if (phases_[i].name == name) return i;
  phases_.push_back(Phase{std::string(name)});
  phases_.back().detail = detail;
  return phases_.size() - 1;
}

void PhaseTimes::add(size_t slot, double seconds) {
  Phase& p = phases_[slot];
  p.seconds += seconds;
  ++p.calls;
  // getrusage is a system call: a phase entered once per segment samples it
  // on its first entries and then every 1024th.
  if (p.calls <= 4 || p.calls % 1024 == 0) p.peak_rss_kb = peakRssKb();
}

void PhaseTimes::mergeConcurrent(const PhaseTimes& other) {
  for (const Phase& o : other.phases_) {
    Phase& p = phases_[slot(o.name)];
    p.seconds += o.seconds;
    p.calls += o.calls;
    p.peak_rss_kb = std::max(p.peak_rss_kb, o.peak_rss_kb);
    p.concurrent = true;
    p.detail = o.detail;
  }
}

uint64_t peakRssKb() {
  struct rusage u {};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<uint64_t>(u.ru_maxrss);  // KiB on Linux
}

std::string PhaseTimes::render(double total_seconds) const {
  std::string out = "time report (wall clock; peak RSS of the process as the phase ended)\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-40s %9s %10s %6s %10s\n", "phase", "calls", "ms", "share",
                "peak RSS");
  out += line;
  double sum = 0;
  bool any_concurrent = false;
  for (const Phase& p : phases_) {
    any_concurrent |= p.concurrent;
    if (!p.concurrent && !p.detail) sum += p.seconds;
    double share = total_seconds > 0 ? 100.0 * p.seconds / total_seconds : 0.0;
    std::string name = (p.detail ? "  " : "") + p.name + (p.concurrent ? " (concurrent)" : "");
    std::snprintf(line, sizeof line, "  %-40s %9llu %10.1f %5.1f%% %6llu MiB\n", name.c_str(),
                  static_cast<unsigned long long>(p.calls), p.seconds * 1e3, share,
                  static_cast<unsigned long long>(p.peak_rss_kb / 1024));
    out += line;
  }
  double other = total_seconds - sum;
  if (other < 0) other = 0;
  std::snprintf(line, sizeof line, "  %-40s %9s %10.1f %5.1f%%\n", "(not in a phase)", "", other * 1e3,
                total_seconds > 0 ? 100.0 * other / total_seconds : 0.0);
  out += line;
  std::snprintf(line, sizeof line, "  %-40s %9s %10.1f %6s %6llu MiB\n", "total", "", total_seconds * 1e3, "",
                static_cast<unsigned long long>(peakRssKb() / 1024));
  out += line;
  if (any_concurrent)
    out += "  (concurrent): ran on a second thread at the same time as other phases; not in the sum\n";
  return out;
}

}  // namespace fc
