// Where the verifier's checks send their findings, and how a check that
// runs speculatively on several threads writes the state they share.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <utility>

#include "diag/diagnostic.h"
#include "ir/ids.h"

namespace fc::verify {

// Where a check sends its findings: error() reports one and returns it for
// notes, at() makes a note's location. A sequential check reports into a
// sink (SinkReporter); a speculative pass, which runs checks on several
// threads only to learn whether they find anything, counts them
// (SpeculativeReporter): any finding means the sequential checks run and
// report. A speculative check claims shared slots atomically, leaves the
// report-once flags alone and builds no pointer from state another thread
// may be writing.
class Reporter {
 public:
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;
  virtual ~Reporter() = default;

  virtual Diagnostic& error(DiagCode code, std::string message, const std::string& pointer) = 0;
  Location at(const std::string& pointer) const { return Location{file_, pointer, 0, 0}; }
  bool speculative() const { return speculative_; }
  // How many findings were reported here.
  size_t found() const { return found_; }
  // A speculative check that cannot decide on its own (it would have to
  // grow shared state) counts this as a finding: the sequential checks
  // decide.
  void undecided() { ++found_; }

 protected:
  Reporter(std::string file, bool speculative) : file_(std::move(file)), speculative_(speculative) {}
  size_t found_ = 0;

 private:
  std::string file_;
  bool speculative_;
};

class SinkReporter final : public Reporter {
 public:
  SinkReporter(DiagnosticSink& sink, const std::string& file) : Reporter(file, false), sink_(sink) {}
  Diagnostic& error(DiagCode code, std::string message, const std::string& pointer) override {
    ++found_;
    return sink_.error(code, std::move(message), at(pointer));
  }

 private:
  DiagnosticSink& sink_;
};

class SpeculativeReporter final : public Reporter {
 public:
  SpeculativeReporter() : Reporter({}, true) {}
  Diagnostic& error(DiagCode, std::string, const std::string&) override {
    ++found_;
    scratch_ = Diagnostic{};
    return scratch_;
  }

 private:
  Diagnostic scratch_;  // takes the notes of a finding
};

// Sets `slot` to `value` when it holds kNone; returns what it held. The
// check of a speculative pass runs on several threads at once: there this
// is one compare-and-swap, so that exactly one element claims each slot.
template <typename T>
T claim(T& slot, T value, const Reporter& r) {
  T prev = kNone;
  if (r.speculative()) {
    std::atomic_ref<T>(slot).compare_exchange_strong(prev, value, std::memory_order_relaxed);
    return prev;
  }
  prev = slot;
  if (prev == kNone) slot = value;
  return prev;
}

// Sets `flag`; returns whether this call set it (atomically, as claim).
inline bool markOnce(char& flag, const Reporter& r) {
  if (r.speculative()) return std::atomic_ref<char>(flag).exchange(1, std::memory_order_relaxed) == 0;
  if (flag != 0) return false;
  flag = 1;
  return true;
}

}  // namespace fc::verify
