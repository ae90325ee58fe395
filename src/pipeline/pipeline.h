// The pipeline: nvFuser's steps on one path at one point of its
// history, as a profile (profile.h) says -- the sharding passes, segment,
// segment inputs, bind, concretization analysis, apply, and what the path's
// executor checks per segment -- in the order that path runs them. One call
// runs it all and returns data (segments, bindings, diagnostics with
// provenance and the nvFuser check each stands for, the verdict); printing
// is the driver's job.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/provenance.h"
#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

struct PipelineOptions {
  Profile profile;
  // --bind S=V: concrete values for symbols, overriding the repro's sizes.
  std::map<std::string, int64_t> binds;
  // Bind from the repro's concrete_inputs (when present) or symbolically.
  bool concrete = true;
  std::string file;    // for diagnostic locations
  bool trace = false;  // record each pass's state in PipelineResult::trace
  // With trace: record the per-segment passes of this segment only (-1: of
  // every segment). A segment's trace walks the whole fusion (its binding
  // list, the concretized copy), so tracing them all is O(segments x fusion).
  int trace_segment = -1;
  // Threads (0: defaultThreads(), support/parallel.h). With two or more and
  // no trace, a fusion of parallel_min_exprs exprs or more is segmented on a
  // second thread while the first binds and concretizes it (whole-first
  // paths: in chunks of its exprs, one per thread), and per-segment paths
  // bind and concretize its segments in chunks, one per thread within a
  // memory budget (lanes.cpp); the result and the diagnostics, in their
  // order, are the same either way.
  unsigned threads = 0;
  size_t parallel_min_exprs = 8192;
};

// Pass names, the same everywhere (trace headings, --print-after,
// dot --stage, report steps).
inline constexpr const char* kPassNames[] = {"sharding", "bind",    "concretize",
                                             "apply",    "segment", "segment-inputs"};

struct PassTrace {
  std::string pass;   // one of kPassNames
  std::string scope;  // "whole fusion" or "segment N"
  std::string text;   // printed state after the pass
};

enum class Verdict : uint8_t { Clean, Findings, NotDecided };
std::string_view verdictName(Verdict v);  // "clean", "findings", "not-decided"

// The verdict over a stretch of nvFuser's history on one path (point_walk.h).
struct VerdictInterval {
  uint32_t from = 0, to = 0;             // positions on main, inclusive
  std::vector<const nv::Change*> start;  // the changes at `from`
  Verdict verdict = Verdict::Clean;
  std::set<std::string> codes;  // codes of the errors and open questions
  std::string first;            // "FC0301 segment 2 (...) cannot evaluate extent i0"
  std::string path;             // the profile's path at `from`: "C++ FusionExecutorCache"
  bool exists = true;           // the path existed there
  std::string missing;          // why not
  bool sameVerdict(const VerdictInterval& o) const {
    return exists == o.exists && verdict == o.verdict && codes == o.codes;
  }
};

struct PipelineResult {
  SegmentedFusion segmented;
  std::vector<Diagnostic> diagnostics;
  std::vector<PassTrace> trace;
  std::vector<UnboundExtent> unbound;  // the provenance behind each FC0301
  Profile profile;
  InputRewrite input_rewrite = InputRewrite::KeepReductions;
  bool whole_first = false;          // the path concretizes the complete fusion before segmenting
  bool stopped_in_sharding = false;  // nvFuser stops in the sharding passes: no segment runs
  bool opaque_open = false;          // an opaque op the pipeline cannot follow stopped it: no pass ran
  // The fusion the passes ran, when it is not the input: a copy without the
  // exprs no output depends on (ir/live_exprs.h), and with the sets the
  // sharding passes added and the meshes they propagated. The segments and
  // the evaluator refer to fusion(); the diagnostics' places and every expr
  // id printed are the repro's (userExprId).
  std::shared_ptr<const Fusion> ran;
  std::shared_ptr<ScalarEval> whole;   // the complete fusion's binding
  bool overlapped = false;             // segmented on a second thread (PipelineOptions::threads)
  bool segments_in_chunks = false;     // segments bound and concretized in chunks, one per thread
  bool concretized_in_chunks = false;  // the whole fusion concretized in chunks, one per thread
  // What the verdict rests on.
  std::vector<std::string> checked;         // what was replayed
  std::vector<std::string> approximations;  // what was not replayed exactly
  std::vector<std::string> notes;           // the assumptions the profile made
  // A repro dated by its print style only (Profile::printed_range): the verdict over that range.
  std::vector<VerdictInterval> printed_intervals;
  bool failed() const;      // an error
  Verdict verdict() const;  // by the first finding in nvFuser's run order
  // The fusion the segments refer to: `ran`, else `input`.
  const Fusion& fusion(const Fusion& input) const { return ran ? *ran : input; }
};

// "nvFuser 2024-06-30 (4e7365d18), C++, MultiDeviceExecutor (segment, then
// ...), 4 segments, 1 error" -- the profile, the order, and the verdict.
std::string verdictSummary(const PipelineResult& r);

// Runs the pipeline on a verified fusion. The result's evaluator (`whole`)
// refers to `f` (or to `ran`): keep `f` alive and in place (not moved)
// while using it.
PipelineResult runPipeline(const Fusion& f, const PipelineOptions& opts);

// Per-rank local sizes of the non-Reduction logical axes of `t`, from the
// complete fusion's binding (nullopt where unknown).
std::vector<std::optional<int64_t>> localShape(const Fusion& f, ScalarEval& whole, TensorId t,
                                               DidBindingRule did);

}  // namespace fc
