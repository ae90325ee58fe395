// A set of small integer ids (tensor ids, scalar ids) that is emptied in O(1):
// each id stores the epoch in which it was last marked. For per-view passes
// that run once per segment: a `std::vector<uint8_t>(f.tensors.size())` per
// call costs O(segments x tensors) in clearing alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "support/step_counters.h"

namespace fc {

class EpochMarks {
 public:
  // Empties the set and makes ids [0, n) usable. O(1) amortized: storage is
  // initialized only when it grows (and once per 2^32 calls).
  void reset(size_t n) {
    if (marks_.size() < n) {
      steps::counters.scratch_inits += n - marks_.size();
      marks_.resize(n, 0);
    }
    if (++epoch_ == 0) {
      std::fill(marks_.begin(), marks_.end(), 0);
      epoch_ = 1;
    }
  }
  bool test(size_t i) const { return marks_[i] == epoch_; }
  void set(size_t i) { marks_[i] = epoch_; }

 private:
  std::vector<uint32_t> marks_;
  uint32_t epoch_ = 0;
};

}  // namespace fc
