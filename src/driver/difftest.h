// Differential checks of one fusion and the fuzzing loop behind
// `fusecheck fuzz` (issue #9; docs/fuzz.md). For every fusion:
//  1. round trip: canonical JSON -> reader -> verifier -> JSON is
//     byte-identical, and the printer (both styles) prints the same text
//     for the original and the reloaded fusion;
//  2. per nvFuser point (the fusion's default path there): the segmented
//     program (CPU) equals the unsegmented exact reference within
//     docs/numerics.md's tolerance wherever the pipeline says the point
//     runs; where the pipeline predicts a failure (FC03xx),
//     execution must stop there with exactly those diagnostics ("explained");
//  3. fixes: where a point fails, `run --fix` must pass against the reference
//     or be refused with FC0401 (explained); where a point runs and keeps
//     Reduction axes on segment inputs, stripping them (PR #2487's rewrite)
//     must change no computed value when its obligations hold, and the
//     obligations must agree with the pipeline: an obligation fails exactly
//     when the stripped program has an unbound extent;
//  4. no internal error (fc::InternalError) anywhere.
// Anything else is an unexplained finding. Deterministic: fusion i of a batch
// with seed S is randomFusion(S + i), so `--seed S+i --count 1` replays it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/fusion.h"

namespace fc::difftest {

struct Finding {
  std::string
      check;  // "roundtrip" | "print" | "verify" | "segmented" | "fix" | "strip" | "obligation" | "internal"
  std::string era;      // the nvFuser point ("" when not point-specific)
  std::string message;  // what disagreed
  uint64_t seed = 0;    // randomFusion seed
  Fusion fusion;        // the fusion (minimized when a reducer ran)
  bool minimized = false;
};

struct EraTally {
  uint64_t run = 0;            // ran, every output within tolerance
  uint64_t explained = 0;      // failed where the pipeline said (FC03xx)
  uint64_t unexplained = 0;    // failed otherwise (a finding)
  uint64_t fixed = 0;          // failed, and `--fix` passes against the reference
  uint64_t fix_refused = 0;    // failed, and the fix is refused (FC0401 / no fix) -- explained
  uint64_t strip_checked = 0;  // ran, and stripping Reduction axes was executed and compared
  uint64_t strip_refused = 0;  // ran, stripping's obligations fail and the pipeline agrees
  // Compared outputs that missed the tolerance by rounding alone: every
  // element within kRoundingUlps of the faithful reference in the output's
  // dtype (cancellation after a collective's per-hop rounding; docs/fuzz.md).
  // Counted, not a finding.
  uint64_t rounding = 0;
  uint64_t not_decided = 0;  // the model does not decide this fusion at this point (not a finding)
  uint64_t no_path = 0;      // the fusion's path did not exist at this point
};

struct CheckResult {
  std::vector<EraTally> eras;     // per point (counts of 0 or 1)
  std::vector<Finding> findings;  // without `fusion` filled (the caller has it)
  uint64_t outputs_compared = 0;
};

// All checks on one verified fusion, at the nvFuser points in `points`.
CheckResult checkFusion(const Fusion& f, const std::vector<std::string>& points);

// The property a finding's minimizer keeps: "checkFusion still reports a
// finding of this check at this point".
bool stillFinds(const Fusion& f, const std::string& check, const std::string& era);

struct FuzzOptions {
  uint64_t seed = 0;
  uint64_t count = 100;
  std::vector<std::string> points{"2024-06", "2024-07", "head"};
  uint32_t max_exprs = 12;
  bool minimize = false;      // shrink findings with src/reduce (when built in)
  size_t keep_findings = 50;  // findings kept with their fusion (all are counted)
};

struct FuzzReport {
  uint64_t fusions = 0;
  uint64_t first_seed = 0;
  std::vector<EraTally> eras;         // per point of era_list
  std::vector<std::string> era_list;  // the points
  uint64_t findings_total = 0;
  std::vector<Finding> findings;  // the first keep_findings
  uint64_t outputs_compared = 0;
  uint64_t exprs = 0;
  uint64_t sharded = 0;  // fusions with a mesh
  double seconds = 0;
  bool minimizer_available = false;
};

// `progress` (may be empty) is called after every fusion with the count done.
FuzzReport runFuzz(const FuzzOptions& opts, const std::function<void(uint64_t)>& progress = {});

// Whether a reducer (src/reduce/reduce.h) is built into this binary.
bool minimizerAvailable();

// Text and JSON summaries of a batch.
std::string renderFuzzText(const FuzzReport& r);
std::string renderFuzzJson(const FuzzReport& r, const std::vector<std::string>& written);

// The repro file of a finding: the fusion with provenance entries naming the
// check, era, seed and message.
std::string findingRepro(const Finding& x);

}  // namespace fc::difftest
