// Where the verifier's checks send their findings, and how a check that
// runs speculatively on several threads writes the state they share.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/ids.h"

namespace fc::verify {

// Where a check sends its findings: error() reports one and returns it for
// notes, at() makes a note's location. A sequential check reports into a
// sink (SinkReporter); a speculative pass, which runs checks on several
// threads only to learn whether they find anything, counts them
// (SpeculativeReporter): any finding means the sequential checks run and
// report. A speculative check claims shared slots atomically, leaves the
// report-once flags alone and builds no place from state another thread
// may be writing.
class Reporter {
 public:
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;
  virtual ~Reporter() = default;

  virtual Diagnostic& error(DiagCode code, std::string message, const Place& where) = 0;
  Location at(const Place& where) const { return Location::at(file_, where); }
  bool speculative() const { return speculative_; }
  // How many findings were reported here.
  size_t found() const { return found_; }
  // Counts a finding without reporting it: a speculative check that only
  // knows that something is wrong (a table of first claimants without the
  // claimants, FirstTable), or that cannot decide on its own (it would have
  // to grow shared state). The sequential checks then report it.
  void flag() { ++found_; }

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
  Diagnostic& error(DiagCode code, std::string message, const Place& where) override {
    ++found_;
    return sink_.error(code, std::move(message), at(where));
  }

 private:
  DiagnosticSink& sink_;
};

class SpeculativeReporter final : public Reporter {
 public:
  SpeculativeReporter() : Reporter({}, true) {}
  Diagnostic& error(DiagCode, std::string, const Place&) override {
    ++found_;
    scratch_ = Diagnostic{};
    return scratch_;
  }

 private:
  Diagnostic scratch_;  // takes the notes of a finding
};

// Sets `slot` to `value` when it holds kNone (as a T); returns what it held. The
// check of a speculative pass (a speculative reporter's) runs on several
// threads at once: there this is one compare-and-swap, so that exactly one
// element claims each slot. A check that claims in a loop reads
// r.speculative() once before it: after a compare-and-swap the compiler
// reloads whatever memory the loop reads.
template <typename T>
T claim(T& slot, T value, bool speculative) {
  constexpr T kFree = static_cast<T>(kNone);
  T prev = kFree;
  if (speculative) {
    std::atomic_ref<T>(slot).compare_exchange_strong(prev, value, std::memory_order_relaxed);
    return prev;
  }
  prev = slot;
  if (prev == kFree) slot = value;
  return prev;
}

// A table of first claimants, one slot per element (the first definition
// of each name, the first description of each input), kNone when none. A
// uint32_t slot holds the first claimant, which a finding's note names. A
// uint8_t slot only says whether the element is claimed: a quarter of the
// memory, for the chunked pass, whose findings have no text. These tables
// are among the largest that pass fills (millions of slots at 1M exprs).
template <typename Slot>
using FirstTable = std::vector<Slot>;
// The value of a slot no element has claimed (kNone for uint32_t).
template <typename Slot>
inline constexpr Slot kFreeSlot = std::numeric_limits<Slot>::max();
// Whether the table keeps the claimants (its findings can be reported).
template <typename Slot>
inline constexpr bool kKeepsClaimants = sizeof(Slot) == sizeof(uint32_t);

// claim() on a FirstTable slot: returns the first claimant (0 in a uint8_t
// table), or kNone when `claimant` is the first.
template <typename Slot>
uint32_t claimFirst(Slot& slot, uint32_t claimant, bool speculative) {
  const Slot mark = kKeepsClaimants<Slot> ? static_cast<Slot>(claimant) : Slot{0};
  const Slot prev = claim(slot, mark, speculative);
  return prev == kFreeSlot<Slot> ? kNone : prev;
}

// Sets `flag`; returns whether this call set it (atomically, as claim).
inline bool markOnce(char& flag, bool speculative) {
  if (speculative) return std::atomic_ref<char>(flag).exchange(1, std::memory_order_relaxed) == 0;
  if (flag != 0) return false;
  flag = 1;
  return true;
}

}  // namespace fc::verify
