// What the pipeline's steps share while one runPipeline call runs: the
// fusion, the options and profile, the result being built, the diagnostics
// of the whole-fusion steps and the complete fusion's evaluator. Internal to
// src/pipeline/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/binding.h"
#include "diag/diagnostic.h"
#include "passes/concretize.h"
#include "pipeline/pipeline.h"
#include "support/epoch_marks.h"

namespace fc::pipeline_detail {

// Where the per-segment steps of one thread write: diagnostics, unbound
// records, and the evaluator and scratch they reuse from segment to segment.
struct Lane {
  DiagnosticSink* sink;
  std::vector<UnboundExtent>* unbound;
  std::optional<ScalarEval> ev;  // one for every segment view, reset between them
  EpochMarks* scratch;
};

struct Ctx {
  const Fusion& f;  // the fusion the sharding passes left
  const PipelineOptions& opts;
  const Profile& p;
  PipelineResult& r;
  DiagnosticSink sink;
  ScalarEval& whole;
  EpochMarks concretize_scratch;  // reused by every view's analyzeConcretization
  // concrete_inputs by value (first and last description of each), built
  // once: searching the list per input was O(inputs x concrete inputs).
  std::vector<const ConcreteInput*> ci_first_tensor, ci_last_tensor;
  std::map<ScalarId, const ConcreteInput*> ci_last_scalar;

  Ctx(const Fusion& fu, const PipelineOptions& o, PipelineResult& res)
      : f(fu), opts(o), p(o.profile), r(res), whole(*(res.whole = std::make_shared<ScalarEval>(fu))) {}

  void trace(const char* pass, std::string scope, std::string text) {
    if (opts.trace) r.trace.push_back({pass, std::move(scope), std::move(text)});
  }
  Location exprLoc(ExprId e) const { return Location::at(opts.file, Place::expr(e)); }
  Location axisLoc(TensorId t, size_t pos) const {
    return Location::at(opts.file, Place::tensor(t).at(PlaceField::Logical, pos));
  }

  // trace.cpp
  std::string bindingsText(ScalarEval& ev, bool only_named = true);
  void apply(const std::string& scope, const std::vector<ExprId>& exprs, ScalarEval& ev);
  void traceConcretize(const std::string& scope, const ConcretizationInfo& info, bool per_segment);
  void traceSegments(const std::vector<std::string>& segmenter_trace);

  // binding_inputs.cpp
  BindRequest wholeRequest();
  std::optional<std::vector<int64_t>> runtimeSizes(TensorId t, const std::vector<AxisId>& dom);

  // unbound_report.cpp
  void reportUnbound(const ConcretizationInfo& info, int seg_idx, const Segment* seg,
                     const std::vector<BoundInput>& inputs, InputRewrite rw, bool rewrite_from_repro,
                     DiagnosticSink& sink, std::vector<UnboundExtent>& unbound);

  // segment_checks.cpp: what the path's executor does with one compute segment.
  void segmentPasses(const Segment& seg, Lane& lane);
};

// lanes.cpp: runs segmentPasses on every compute segment, on one thread or
// in lanes (chunks of consecutive segments), merged in segment order.
void runSegmentLanes(Ctx& c);

}  // namespace fc::pipeline_detail
