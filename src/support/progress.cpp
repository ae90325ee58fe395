#include "support/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace fc {
namespace {

std::atomic<ProgressMode> g_mode{ProgressMode::Auto};
thread_local StepListener* t_listener = nullptr;

size_t terminalWidth() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20) return w.ws_col;
  return 80;
}

}  // namespace

void setProgressMode(ProgressMode m) { g_mode.store(m, std::memory_order_relaxed); }

bool progressEnabled() {
  switch (g_mode.load(std::memory_order_relaxed)) {
    case ProgressMode::Always: return true;
    case ProgressMode::Never: return false;
    case ProgressMode::Auto: break;
  }
  if (!isatty(STDERR_FILENO)) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::strcmp(term, "dumb") == 0);
}

bool progressEnabled(ProgressMode command_mode) {
  switch (command_mode) {
    case ProgressMode::Always: return true;
    case ProgressMode::Never: return false;
    case ProgressMode::Auto: break;
  }
  return progressEnabled();
}

std::string formatDuration(double s) {
  char buf[48];
  if (!(s >= 0)) s = 0;
  if (s < 10)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %d s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %d min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  return buf;
}

ProgressLine::ProgressLine(std::string what, uint64_t total, ProgressMode mode)
    : what_(std::move(what)), total_(total), live_(progressEnabled(mode)) {
  start_ = std::chrono::steady_clock::now();
  last_ = start_ - std::chrono::seconds(1);
}

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressLine::render(std::string_view what, uint64_t done, uint64_t total, double elapsed,
                                 std::string_view detail, double expected_total) {
  std::string s(what);
  s += ": ";
  if (total) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * static_cast<double>(done) / static_cast<double>(total));
    s += std::to_string(done) + "/" + std::to_string(total) + " (" + pct + ")";
  } else if (done) {
    s += std::to_string(done);
  }
  if (!detail.empty()) s += std::string(s.back() == ' ' ? "" : " · ") + std::string(detail);
  s += " · " + formatDuration(elapsed);
  double left = -1;
  if (total && done && done < total && elapsed > 0.5)
    left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
  else if (expected_total > 0)
    left = expected_total - elapsed;
  if (left >= 0)
    s += ", about " + formatDuration(left) + " left";
  else if (expected_total > 0)
    s += ", taking longer than the estimate";
  return s;
}

void ProgressLine::update(uint64_t done, std::string_view detail) {
  if (!live_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100) && done != total_) return;
  last_ = now;
  draw(render(what_, done, total_, elapsed(), detail));
}

void ProgressLine::update(uint64_t done, uint64_t total, std::string_view detail) {
  total_ = total;
  update(done, detail);
}

void ProgressLine::updateWithEstimate(std::string_view detail, double expected_total_seconds) {
  if (!live_) return;
  last_ = std::chrono::steady_clock::now();
  draw(render(what_, 0, 0, elapsed(), detail, expected_total_seconds));
}

void ProgressLine::draw(const std::string& text) {
  std::string line = text;
  size_t width = terminalWidth() - 1;
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  std::cerr << "\r\033[K" << line << std::flush;
  drawn_ = true;
}

void ProgressLine::finish() {
  if (live_ && drawn_) std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

void reportStep(uint64_t done, uint64_t total, std::string_view detail) {
  if (StepListener* l = t_listener) l->cb_(done, total, detail);
}

StepListener::StepListener(Callback cb) : cb_(std::move(cb)), prev_(t_listener) { t_listener = this; }

StepListener::~StepListener() { t_listener = prev_; }

ProgressTicker::ProgressTicker(std::string what, std::function<std::string()> status,
                               double expected_total_seconds)
    : line_(std::move(what)), status_(std::move(status)), expected_(expected_total_seconds) {
  start();
}

ProgressTicker::ProgressTicker(std::string what, std::function<ProgressStep()> step, ProgressMode mode)
    : line_(std::move(what), 0, mode), step_(std::move(step)) {
  start();
}

void ProgressTicker::start() {
  if (!line_.live()) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(m_);
    if (cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) return;
    do {
      if (step_) {
        ProgressStep s = step_();
        line_.update(s.done, s.total, s.detail);
      } else {
        line_.updateWithEstimate(status_ ? status_() : std::string(), expected_);
      }
    } while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; }));
    line_.finish();
  });
}

ProgressTicker::~ProgressTicker() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

StepProgress::StepProgress(std::string what, ProgressMode mode)
    : listener_([this](uint64_t done, uint64_t total, std::string_view detail) {
        std::lock_guard<std::mutex> lock(m_);
        last_.done = done;
        last_.total = total;
        last_.detail.assign(detail);
      }),
      ticker_(
          std::move(what), [this] { return last(); }, mode) {}

ProgressStep StepProgress::last() const {
  std::lock_guard<std::mutex> lock(m_);
  return last_;
}

}  // namespace fc
