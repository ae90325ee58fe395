// The verdict at every change point of a stretch of nvFuser's history, on one path: the positions
// where some switch changes (history.h), each replayed with its own profile, merged into intervals
// of one verdict. `check --matrix` walks the whole history; a repro dated only by its print style
// walks the points that style was printed at (printed_range.h).
//
// Complexity: one pipeline run per change position in the stretch (at most one per row of
// nvfuser_history.def).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace fc {

// The path a walk replays at each point: a frontend and executor, either fixed or (nullopt)
// what the repro and the point imply, as profileAt decides; with executor_follows_frontend,
// the executor the frontend chose at each point.
struct WalkPath {
  std::optional<Frontend> frontend;
  std::optional<Executor> executor;
  bool executor_follows_frontend = false;
};

// Positions `first`..`last` (inclusive) of main: the verdict at `first` and at every change
// after it, `base`'s options (binds, file) with each point's profile. Neighbours with the same
// verdict and codes merge (and the same path, where it is assumed at each point).
std::vector<VerdictInterval> walkPoints(const Fusion& f, const PipelineOptions& base, uint32_t first,
                                        uint32_t last, const WalkPath& path);

// "2024-07-01": the date of position `pos` of main.
std::string pointDate(uint32_t pos);
// "#2487 (4afbdf52f, 2024-07-01), #2490 (...)": each PR once.
std::string changesText(const std::vector<const nv::Change*>& cs);

}  // namespace fc
