// The segment lanes: the per-segment steps of every compute segment, on one
// thread or, for a large fusion on a per-segment path, in chunks of
// consecutive segments, one per thread, each lane with its own evaluator,
// scratch, diagnostics and unbound records, appended in chunk order (the
// one-thread order). The whole-fusion evaluator is shared, read-only: every
// scalar is evaluated first, so that reading it writes nothing.
#include <algorithm>

#include "analysis/binding_steps.h"
#include "pipeline/context.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/step_counters.h"

namespace fc::pipeline_detail {
namespace {

unsigned pipelineThreads(const PipelineOptions& opts) {
  return threadsFor(opts.threads != 0 ? opts.threads : defaultThreads());
}

// How many lanes bind and concretize the segments (1: no chunks): only on
// paths that bind each segment alone, for a fusion large enough that a
// thread pays, and within a memory budget. Each lane's evaluator and scratch
// hold ~45 bytes per scalar and 4 per axis (~33 MB on the 1M-expr
// tensor-parallel repro): sixteen lanes raised its peak RSS from 1.7 to 2.2
// GB, past the 2 GiB target. The lanes beyond the first get kLaneBudget
// together: 8 lanes there, whose evaluators fit in what the reader has freed
// by then (peak RSS 1.63-1.67 GiB on the device host).
size_t segmentLanes(const Ctx& c) {
  const Fusion& f = c.f;
  if (c.p.order == ConcretizeOrder::WholeFirst || c.r.segmented.segments.size() < 2) return 1;
  if (c.opts.trace || f.exprs.size() < c.opts.parallel_min_exprs || pipelineThreads(c.opts) < 2) return 1;
  constexpr size_t kLaneBudget = size_t{256} << 20;
  const size_t per_lane =
      f.scalars.size() * (sizeof(uint8_t) + sizeof(std::optional<int64_t>) + sizeof(Origin)) +
      4 * f.axes.size() + 1;
  const size_t threads = pipelineThreads(c.opts);
  return std::min({threads, c.r.segmented.segments.size(), 1 + kLaneBudget / per_lane});
}

}  // namespace

void runSegmentLanes(Ctx& c) {
  const std::vector<Segment>& segments = c.r.segmented.segments;
  const size_t w = segmentLanes(c);
  if (w <= 1) {
    PhaseScope phase("pipeline: segments");
    Lane lane{&c.sink, &c.r.unbound, std::nullopt, &c.concretize_scratch};
    for (const Segment& seg : segments) c.segmentPasses(seg, lane);
    return;
  }
  PhaseScope phase("pipeline: segments, in chunks");
  PhaseTimes* times = PhaseTimes::activate(nullptr);  // per-segment phases are not timed per thread
  c.whole.evaluateAll();
  const size_t n = segments.size();
  std::vector<DiagnosticSink> sinks(w);
  std::vector<std::vector<UnboundExtent>> unbound(w);
  std::vector<EpochMarks> scratch(w);
  std::vector<steps::Counters> counters(w);
  std::vector<uint64_t> exact_steps(w, 0);
  try {
    parallelFor(w, [&](size_t k) {
      Lane lane{&sinks[k], &unbound[k], std::nullopt, &scratch[k]};
      for (size_t i = n * k / w; i < n * (k + 1) / w; ++i) c.segmentPasses(segments[i], lane);
      if (k > 0) {  // task 0 counts on this thread already
        counters[k] = steps::counters;
        exact_steps[k] = steps::exact_map_steps;
      }
    });
  } catch (...) {
    PhaseTimes::activate(times);
    throw;
  }
  PhaseTimes::activate(times);
  for (size_t k = 0; k < w; ++k) {
    c.sink.append(std::move(sinks[k]));
    for (UnboundExtent& u : unbound[k]) c.r.unbound.push_back(std::move(u));
    steps::counters += counters[k];
    steps::exact_map_steps += exact_steps[k];
  }
  c.r.segments_in_chunks = true;
}

}  // namespace fc::pipeline_detail
