// Per-segment device times of one CudaProgram::run (the bookkeeping only;
// the CUDA events live in the executor). Each segment that runs records
// its own pair of marks (events recorded on the run's stream before and
// after its work), so a segment's time is the device time between its own
// marks: never negative (events of one stream complete in order), and the
// segments' times add up to the run's total (first mark to last) but for
// the host's gaps between segments. When a segment's work executes inside
// a later segment's kernels (a collective fused into its consumer's
// kernel), the two form one group, reported once with the sum of its
// members' intervals. Plain C++ (no CUDA), so the bookkeeping is tested on
// any machine. O(segments) per call.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace fc::exec::cuda {

struct SegmentTime {
  std::vector<uint32_t> ids;  // the group's segment ids, in run order
  double ms = 0;
};

struct SegmentTimes {
  std::vector<SegmentTime> groups;  // in run order of each group's first segment
  double total_ms = 0;              // first segment's first mark to the last segment's last mark
  double sumMs() const {
    double s = 0;
    for (const SegmentTime& g : groups) s += g.ms;
    return s;
  }
};

class SegmentTimeline {
 public:
  // Starts a run over `n` segments (indexes 0..n-1 in run order, ids as given).
  void reset(const std::vector<uint32_t>& ids) {
    ids_ = ids;
    begin_.assign(ids.size(), -1);
    end_.assign(ids.size(), -1);
    parent_.resize(ids.size());
    std::iota(parent_.begin(), parent_.end(), size_t{0});
  }
  // Segment `k` ran between marks `begin` and `end` (indexes the caller's
  // elapsed() understands).
  void ran(size_t k, int begin, int end) {
    begin_.at(k) = begin;
    end_.at(k) = end;
  }
  // Segment `from`'s work executed inside segment `into`'s interval.
  void fuse(size_t from, size_t into) {
    size_t a = find(from), b = find(into);
    if (a == b) return;
    if (a < b)
      parent_[b] = a;
    else
      parent_[a] = b;
  }
  bool hasRun(size_t k) const { return k < begin_.size() && begin_[k] >= 0; }

  // elapsed(a, b): milliseconds from mark a to mark b.
  SegmentTimes times(const std::function<double(int, int)>& elapsed) const {
    SegmentTimes t;
    std::vector<int> group_of(ids_.size(), -1);
    int first = -1, last = -1;
    for (size_t k = 0; k < ids_.size(); ++k) {
      if (begin_[k] < 0) continue;
      if (first < 0) first = begin_[k];
      last = end_[k];
      size_t root = find(k);
      if (group_of[root] < 0) {
        group_of[root] = static_cast<int>(t.groups.size());
        t.groups.emplace_back();
      }
      SegmentTime& g = t.groups[group_of[root]];
      g.ids.push_back(ids_[k]);
      g.ms += elapsed(begin_[k], end_[k]);
    }
    if (first >= 0) t.total_ms = elapsed(first, last);
    return t;
  }

 private:
  size_t find(size_t k) const {
    while (parent_[k] != k) k = parent_[k];
    return k;
  }
  std::vector<uint32_t> ids_;
  std::vector<int> begin_, end_;
  std::vector<size_t> parent_;
};

// "" when every group's time is finite and >= 0 and the groups add up to
// the total within `rel` (relative to the total); else what is wrong.
inline std::string checkSegmentTimes(const SegmentTimes& t, double rel = 0.05) {
  for (const SegmentTime& g : t.groups)
    if (!std::isfinite(g.ms) || g.ms < 0)
      return "segment " + std::to_string(g.ids.empty() ? 0 : g.ids.front()) + " has time " +
             std::to_string(g.ms) + " ms";
  double sum = t.sumMs();
  if (!std::isfinite(t.total_ms) || t.total_ms < 0) return "total " + std::to_string(t.total_ms) + " ms";
  if (std::fabs(sum - t.total_ms) > rel * t.total_ms)
    return "segments add up to " + std::to_string(sum) + " ms, the total is " + std::to_string(t.total_ms) +
           " ms (more than " + std::to_string(rel * 100) + "% apart)";
  return "";
}

}  // namespace fc::exec::cuda
