// The era-faithful pipeline (DESIGN §2): segment -> segment inputs -> bind
// -> concretization analysis -> apply, in the order the chosen era runs
// them. One call runs it all and returns data (segments, bindings,
// diagnostics with provenance); printing is the driver's job.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/provenance.h"
#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

struct PipelineOptions {
  Era era = Era::E2024_06;
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
  // eras: in chunks of its exprs, one per thread), and the 2024 multi-device
  // eras bind and concretize its segments in chunks, one per thread within a
  // memory budget (segmentLanes in pipeline.cpp); the result and the
  // diagnostics, in their order, are the same either way.
  unsigned threads = 0;
  size_t parallel_min_exprs = 8192;
};

// Pass names, the same everywhere (trace headings, --print-after,
// dot --stage, report steps).
inline constexpr const char* kPassNames[] = {"bind", "concretize", "apply", "segment", "segment-inputs"};

struct PassTrace {
  std::string pass;   // one of kPassNames
  std::string scope;  // "whole fusion" or "segment N"
  std::string text;   // printed state after the pass
};

struct PipelineResult {
  SegmentedFusion segmented;
  std::vector<Diagnostic> diagnostics;
  std::vector<PassTrace> trace;
  std::vector<UnboundExtent> unbound;  // the provenance behind each FC0301
  Era era = Era::E2024_06;
  InputRewrite input_rewrite = InputRewrite::KeepReductions;
  bool whole_first = false;            // the era concretizes the whole fusion before segmenting
  std::shared_ptr<ScalarEval> whole;   // the complete fusion's binding
  bool overlapped = false;             // segmented on a second thread (PipelineOptions::threads)
  bool segments_in_chunks = false;     // segments bound and concretized in chunks, one per thread
  bool concretized_in_chunks = false;  // the whole fusion concretized in chunks, one per thread
  bool failed() const;
};

// Runs the pipeline on a verified fusion. The result's evaluator (`whole`)
// refers to `f`: keep `f` alive and in place (not moved) while using it.
PipelineResult runPipeline(const Fusion& f, const PipelineOptions& opts);

// Per-rank local sizes of the non-Reduction logical axes of `t`, from the
// complete fusion's binding (nullopt where unknown).
std::vector<std::optional<int64_t>> localShape(const Fusion& f, ScalarEval& whole, TensorId t, Era era);

// The message nvFuser of `era` raises for an unbound extent `sym`.
std::string nvfuserUnboundMessage(Era era, const std::string& sym);

}  // namespace fc
