// Complexity tests: the analysis must not be
// quadratic in exprs, segments or symbols on any synthetic shape. Each test
// runs a pass at size n and 4n and asserts, from the step counters of
// support/step_counters.h (never from timings), that the work grows by at
// most 4 x a small slack. A quadratic pass grows by ~16 and fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "analysis/scalar_eval.h"
#include "driver/analysis_commands.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "profile_util.h"
#include "support/atomic_file.h"
#include "support/step_counters.h"
#include "synth.h"

namespace fc {
namespace {

uint64_t total(const steps::Counters& c) {
  return c.eval_steps + c.eval_resets + c.eval_slots + c.free_symbol_steps + c.scratch_inits +
         c.dedup_compares + c.binding_steps;
}

// On one thread unless `threads` says otherwise: the counts then do not
// depend on the machine (the chunked per-segment passes give each thread an
// evaluator and scratch of its own, and evaluate the whole fusion first).
steps::Counters pipelineSteps(const Fusion& f, std::optional<std::string> era = std::nullopt,
                              size_t* errors = nullptr, unsigned threads = 1) {
  DiagnosticSink sink;
  EXPECT_TRUE(verifyFusion(f, sink)) << (sink.all().empty() ? "" : sink.all()[0].message);
  PipelineOptions o;
  o.profile = era ? test::eraProfile(f, *era) : defaultProfile(f);
  // The synthetic blocks compute divisors with scalar exprs, which the
  // 2024-06 sharding passes reject before any segment runs: turned off here,
  // to reach the per-segment failures whose count these tests measure.
  if (era) o.profile.rejects_scalar_exprs = false;
  o.threads = threads;
  if (threads > 1) o.parallel_min_exprs = 0;
  steps::reset();
  PipelineResult r = runPipeline(f, o);
  EXPECT_GT(r.segmented.segments.size(), 0u);
  if (errors) *errors = r.diagnostics.size();
  return steps::counters;
}

// `tracks`: the counted work must grow with the input (false where it is
// legitimately constant, e.g. chained adds share their extent symbols).
void expectLinear(const steps::Counters& small, const steps::Counters& big, double factor, const char* what,
                  bool tracks = true) {
  ASSERT_GT(total(small), 0u) << what;
  double ratio = static_cast<double>(total(big)) / static_cast<double>(total(small));
  EXPECT_LE(ratio, factor * 1.3) << what << ": steps " << total(small) << " -> " << total(big)
                                 << " (eval_slots " << small.eval_slots << " -> " << big.eval_slots
                                 << ", eval_steps " << small.eval_steps << " -> " << big.eval_steps
                                 << ", scratch_inits " << small.scratch_inits << " -> " << big.scratch_inits
                                 << ")";
  if (tracks) {
    EXPECT_GE(ratio, factor / 1.3) << what << ": counters do not track the work";
  }
}

TEST(StepCounts, TransformerPipelineIsLinear) {
  auto a = pipelineSteps(synth::transformer({2000, 3, false}));
  auto b = pipelineSteps(synth::transformer({8000, 3, false}));
  expectLinear(a, b, 4.0, "transformer");
}

// Many compute segments (2024-07 multi-device: each segment bound and
// concretized alone): per-segment work must not scale with the whole fusion.
TEST(StepCounts, ShardedPipelineIsLinearInSegments) {
  Fusion small = synth::transformer({2000, 3, true});
  Fusion big = synth::transformer({8000, 3, true});
  auto a = pipelineSteps(small);
  auto b = pipelineSteps(big);
  expectLinear(a, b, 4.0, "tp transformer");
}

// The bug's own era on a large tensor-parallel repro: thousands of errors,
// from which the pipeline drops duplicates. Comparing each diagnostic with
// every kept one was quadratic (22k errors at 1M exprs).
TEST(StepCounts, FailingShardedPipelineIsLinearInDiagnostics) {
  size_t small_errors = 0, big_errors = 0;
  auto a = pipelineSteps(synth::transformer({4000, 3, true}), "2024-06", &small_errors);
  auto b = pipelineSteps(synth::transformer({16000, 3, true}), "2024-06", &big_errors);
  ASSERT_GE(small_errors, 50u);
  EXPECT_GE(big_errors, 3 * small_errors);
  expectLinear(a, b, 4.0, "failing tp transformer");
  EXPECT_LE(b.dedup_compares, 2 * big_errors) << "duplicate removal compares more than a hash lookup";
}

// The legacy Python frontend's binding before schedule() (2024-07-31, Python MultiDeviceExecutor)
// looks up the sizes the repro gives each sharded input: a scan of every concrete input per
// input was quadratic (5 minutes at 1M exprs).
TEST(StepCounts, PythonPreScheduleBindingIsLinear) {
  auto steps = [](const Fusion& f) {
    DiagnosticSink sink;
    EXPECT_TRUE(verifyFusion(f, sink));
    PipelineOptions o;
    o.profile = test::profileFor(f, "2024-07-31", "python", "mde");
    EXPECT_TRUE(o.profile.pre_schedule_binding);
    o.threads = 1;
    steps::reset();
    runPipeline(f, o);
    return steps::counters;
  };
  Fusion small = synth::transformer({2000, 3, true});
  Fusion big = synth::transformer({8000, 3, true});
  ASSERT_GT(small.concrete_inputs.size(), 10u);
  auto a = steps(small);
  auto b = steps(big);
  EXPECT_GT(a.binding_steps, small.concrete_inputs.size());
  EXPECT_LE(b.binding_steps, 5 * a.binding_steps) << a.binding_steps << " -> " << b.binding_steps;
  expectLinear(a, b, 4.0, "python 2024-07 tp transformer");
}

// The same in chunks on 4 threads (a fixed count: the per-thread work is
// counted too), at sizes where the 4 lanes' evaluators and scratch are
// dwarfed by the segments' work.
TEST(StepCounts, FailingShardedPipelineInChunksIsLinear) {
  size_t small_errors = 0, big_errors = 0;
  auto a = pipelineSteps(synth::transformer({4000, 3, true}), "2024-06", &small_errors, 4);
  auto b = pipelineSteps(synth::transformer({16000, 3, true}), "2024-06", &big_errors, 4);
  ASSERT_GE(small_errors, 50u);
  EXPECT_GE(big_errors, 3 * small_errors);
  expectLinear(a, b, 4.0, "failing tp transformer, 4 threads");
}

// `fusecheck segment` lists segments from the pipeline's result; it ran the
// traced pipeline, which copies and verifies the whole fusion per segment
// (over 10 minutes on a 100k-expr repro). Only --trace may pay for that.
TEST(StepCounts, SegmentCommandDoesNotTraceUnlessAsked) {
  Fusion f = synth::transformer({2000, 3, true});
  std::string path = (std::filesystem::temp_directory_path() / "fc_step_segment.json").string();
  ASSERT_EQ(writeFileAtomic(path, writeFusion(f)), "");
  driver::SegmentArgs a;
  a.file = path;
  std::ostringstream out, err;
  steps::reset();
  // Without an origin the path at head is assumed; its multi-device
  // segmentation is approximate or not decided (exit 5), never a failure.
  const int rc = driver::segment(a, out, err);
  EXPECT_TRUE(rc == 0 || rc == 5) << rc << " " << err.str();
  EXPECT_EQ(steps::counters.trace_elements, 0u);
  EXPECT_NE(out.str().find("segment 0:"), std::string::npos);
  a.flags.trace = true;
  std::ostringstream out2, err2;
  steps::reset();
  const int rc2 = driver::segment(a, out2, err2);
  EXPECT_EQ(rc2, rc) << err2.str();
  EXPECT_GT(steps::counters.trace_elements, 0u);  // the counter sees the traced walk
  std::filesystem::remove(path);
}

// `concretize --segment N` traces that segment only: linear, where tracing
// every segment walks the whole fusion once per segment.
TEST(StepCounts, TracingOneSegmentIsLinear) {
  auto run = [](uint32_t exprs, int only, std::vector<std::string>* scopes) {
    Fusion f = synth::transformer({exprs, 3, true});
    DiagnosticSink sink;
    EXPECT_TRUE(verifyFusion(f, sink));
    PipelineOptions o;
    o.profile = test::eraProfile(f, "2024-07");
    o.trace = true;
    o.trace_segment = only;
    steps::reset();
    PipelineResult r = runPipeline(f, o);
    for (const PassTrace& t : r.trace) scopes->push_back(t.scope);
    return steps::counters;
  };
  std::vector<std::string> small_scopes, big_scopes, all_scopes;
  auto a = run(2000, 3, &small_scopes);
  auto b = run(8000, 3, &big_scopes);
  expectLinear(a, b, 4.0, "trace one segment");
  EXPECT_GT(b.trace_elements, 0u);
  for (const std::string& s : big_scopes) EXPECT_TRUE(s == "whole fusion" || s == "segment 3") << s;
  EXPECT_NE(std::find(big_scopes.begin(), big_scopes.end(), "segment 3"), big_scopes.end());
  auto all = run(2000, -1, &all_scopes);
  EXPECT_GT(all_scopes.size(), 4 * small_scopes.size());
  EXPECT_GT(all.trace_elements, 10 * a.trace_elements);
}

TEST(StepCounts, PublicCasesAreLinear) {
  expectLinear(pipelineSteps(synth::linearRelu(100)), pipelineSteps(synth::linearRelu(400)), 4.0,
               "linear-relu");
  expectLinear(pipelineSteps(synth::chainedAdds(500)), pipelineSteps(synth::chainedAdds(2000)), 4.0, "adds",
               false);
}

// A deep, shared expression (x1 = x0 + x0, x2 = x1 + x1, ...): freeSymbols
// and evaluation visit each node once, not once per path or per ancestor.
TEST(StepCounts, DeepScalarExpressionsAreLinear) {
  auto run = [](uint32_t depth) {
    Fusion f;
    ScalarId a = f.addSymbol("a");
    ScalarId x = a;
    for (uint32_t i = 0; i < depth; ++i) x = f.addDerived(ScalarOp::Add, x, i % 2 ? x : a);
    steps::reset();
    auto syms = ScalarEval::freeSymbols(f, x);
    EXPECT_EQ(syms, std::vector<ScalarId>{a});
    ScalarEval ev(f);
    EXPECT_FALSE(ev.isKnown(x));
    ev.bind(a, 1, Origin{Origin::Kind::UserBind});
    EXPECT_TRUE(ev.isKnown(x));
    return steps::counters;
  };
  expectLinear(run(5000), run(20000), 4.0, "deep scalar");
}

// reset() forgets everything, in time proportional to what was touched.
TEST(ScalarEvalReset, ForgetsBindingsAndMemo) {
  Fusion f;
  ScalarId a = f.addSymbol("a");
  ScalarId b = f.addSymbol("b");
  ScalarId s = f.addDerived(ScalarOp::Mul, a, b);
  ScalarEval ev(f);
  ev.bind(a, 3, Origin{Origin::Kind::UserBind});
  ev.bind(b, 5, Origin{Origin::Kind::UserBind});
  ASSERT_EQ(ev.value(s), 15);
  steps::reset();
  ev.reset();
  EXPECT_LE(steps::counters.eval_resets, 3u);
  EXPECT_FALSE(ev.isKnown(a));
  EXPECT_FALSE(ev.isKnown(s));
  EXPECT_EQ(ev.origin(a).kind, Origin::Kind::None);
  ev.bind(a, 2, Origin{Origin::Kind::UserBind});  // no conflict with the forgotten 3
  ev.bind(b, 7, Origin{Origin::Kind::UserBind});
  EXPECT_EQ(ev.value(s), 14);
}

}  // namespace
}  // namespace fc
