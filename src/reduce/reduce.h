// The delta-debugging minimizer behind `fusecheck reduce`: shrinks
// a fusion while a property stays true. Hierarchical ddmin: first whole
// segments, then single exprs (a dropped expr's output that is still used
// becomes a fresh fusion input of the same type; a dropped output's dead
// producers go too), then outputs, inputs (tensors and scalars), concrete
// sizes and meshes; rounds repeat until none of them removes anything.
//
// Every candidate is serialized, re-read and verified before the property
// sees it: invalid candidates are rejected without a property call, and the
// fusion the property accepted is exactly what a written file loads as.
// Identical candidates are answered from a cache.
//
// Library use (e.g. minimizing a fuzz finding):
//
//   ReduceOptions o;
//   o.max_steps = 5000;
//   ReduceResult r = reduce(fusion, diagnosticProperty(DiagCode::UnboundExtent, popts), o);
//   writeFusion(r.best);
//
// Property factories are in reduce/property.h (diagnostic code),
// reduce/oracle.h (external command) and, for a numerics mismatch, which
// runs the fusion, driver/mismatch_property.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// True when the candidate is still "interesting". Must be deterministic for
// the result to be meaningful (an oracle is re-checked: reduce/oracle.h).
using ReduceProperty = std::function<bool(const Fusion&)>;

enum class StopReason : uint8_t {
  Fixpoint,        // a whole round removed nothing
  MaxSteps,        // ReduceOptions::max_steps candidates were tried
  TimeLimit,       // ReduceOptions::time_limit_s elapsed
  Interrupted,     // *ReduceOptions::interrupt became true (SIGINT)
  NotInteresting,  // the input itself does not have the property: nothing done
};
std::string_view stopReasonName(StopReason r);  // "fixpoint", "max-steps", ...

// Sizes reported before and after. `segments` is the era's segmentation of
// the fusion (explicit, or computed by the pipeline).
struct FusionSize {
  size_t exprs = 0;
  size_t tensors = 0;
  size_t segments = 0;
  size_t inputs = 0;
  size_t outputs = 0;
  size_t scalars = 0;
};
FusionSize measureFusion(const Fusion& f, const Profile& profile);

struct ReduceStats {
  uint64_t steps = 0;           // candidates built (valid or not)
  uint64_t property_calls = 0;  // property evaluations (valid, uncached candidates)
  uint64_t invalid = 0;         // candidates the verifier (or the re-read) rejected
  uint64_t cache_hits = 0;      // candidates seen before
  uint64_t improvements = 0;    // accepted candidates
  uint32_t rounds = 0;          // full passes over all phases
  double seconds = 0;
  std::string phase;  // "segments", "exprs", "outputs", "inputs", "sizes", "meshes"
};

// What on_progress is told after every candidate.
struct ReduceEvent {
  const ReduceStats* stats = nullptr;
  const Fusion* best = nullptr;
  bool accepted = false;  // this candidate became the best
  std::string what;       // "drop 12 exprs", "halve concrete sizes", ...
  std::string verdict;    // "accepted", "not interesting", "invalid", "cached"
};

struct ReduceOptions {
  uint64_t max_steps = 0;                        // 0: unlimited
  double time_limit_s = 0;                       // 0: unlimited
  const std::atomic<bool>* interrupt = nullptr;  // polled between candidates
  // The profile whose segmentation the "segments" phase removes (the
  // fusion's own when unset: defaultProfile).
  std::optional<Profile> profile;
  bool shrink_sizes = true;   // halve concrete input sizes
  bool shrink_meshes = true;  // drop devices of 1-D meshes
  bool check_input = true;    // evaluate the property on the input first
  // Called with each new best fusion (write it to disk here).
  std::function<void(const Fusion& best, const ReduceStats&)> on_improvement;
  std::function<void(const ReduceEvent&)> on_progress;
};

struct ReduceResult {
  Fusion best;  // the input when nothing could be removed
  StopReason stop = StopReason::Fixpoint;
  ReduceStats stats;
  FusionSize before, after;
};

// `f` must have passed the verifier. The property is never called
// concurrently.
ReduceResult reduce(const Fusion& f, const ReduceProperty& property, const ReduceOptions& opts = {});

}  // namespace fc
