// runPipeline segments a large fusion on a second thread while the first
// binds and concretizes it (pipeline/pipeline.cpp,
// docs/performance.md). Whatever the thread count, the result must be the
// one-thread result: the same diagnostics in the same order, the same
// segments, unbound records, whole-fusion binding and step counts. Each case
// runs the pipeline on one thread and with the overlap forced (two threads,
// no size threshold), in every era.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/binding_steps.h"
#include "diag/render.h"
#include "diag/source.h"
#include "io/place_pointer.h"
#include "io/reader.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "profile_util.h"
#include "support/phase_times.h"
#include "support/step_counters.h"
#include "synth.h"

namespace fc {
namespace {

std::string describe(const PipelineResult& r) {
  std::string out;
  for (const Segment& s : r.segmented.segments) {
    out += std::to_string(s.id) + " " + s.scheduler + " " + std::to_string(static_cast<int>(s.kind)) + " :";
    for (ExprId e : s.exprs) out += " " + std::to_string(e);
    out += " in";
    for (const ValueRef& v : s.inputs) out += " " + std::to_string(v.id);
    out += " -- " + s.reason + "\n";
  }
  out += "edges " + std::to_string(r.segmented.edges.size()) + " forward " +
         std::to_string(r.segmented.forward.size()) + "\n";
  for (const UnboundExtent& u : r.unbound)
    out += "unbound " + std::to_string(u.segment) + " " + std::to_string(u.symbol) + " hops " +
           std::to_string(u.hops.size()) + "\n";
  return out;
}

std::string bindings(const Fusion& f, const PipelineResult& r) {
  std::string out;
  for (ScalarId s = 0; s < f.scalars.size(); ++s) {
    if (!r.whole->isKnown(s)) continue;
    auto v = r.whole->value(s);
    out += std::to_string(s) + "=" + (v ? std::to_string(*v) : "?") + " ";
  }
  return out;
}

struct Run {
  PipelineResult result;
  steps::Counters counters;
  uint64_t exact_map_steps = 0;
};

Run run(const Fusion& f, const std::string& era, unsigned threads) {
  PipelineOptions o;
  o.profile = test::eraProfile(f, era);
  o.threads = threads;
  o.parallel_min_exprs = 0;
  steps::reset();
  steps::exact_map_steps = 0;
  Run r{runPipeline(f, o), {}};
  r.counters = steps::counters;
  r.exact_map_steps = steps::exact_map_steps;
  return r;
}

struct Parallel {
  bool overlapped = false;      // in the last era
  size_t chunked_eras = 0;      // eras whose segments were bound in chunks
  size_t concretized_eras = 0;  // eras whose whole fusion was concretized in chunks
};

Parallel expectSameOnAnyThreadCount(const Fusion& f, const std::string& what) {
  Parallel par;
  for (const std::string era : {"2024-06", "2024-07", "head"}) {
    SCOPED_TRACE(what + " era " + std::string(era));
    Run one = run(f, era, 1);
    EXPECT_FALSE(one.result.overlapped);
    EXPECT_FALSE(one.result.segments_in_chunks);
    Run two = run(f, era, 3);
    par.overlapped = two.result.overlapped;
    par.chunked_eras += two.result.segments_in_chunks;
    par.concretized_eras += two.result.concretized_in_chunks;
    EXPECT_EQ(spelledJson(two.result.diagnostics), spelledJson(one.result.diagnostics));
    EXPECT_EQ(describe(two.result), describe(one.result));
    EXPECT_EQ(bindings(f, two.result), bindings(f, one.result));
    EXPECT_EQ(two.result.failed(), one.result.failed());
    // Segments (or the whole fusion) in chunks evaluate every scalar of the
    // whole fusion first, and each of the 3 lanes has an evaluator and
    // scratch of its own.
    if (!two.result.segments_in_chunks && !two.result.concretized_in_chunks) {
      EXPECT_EQ(two.counters.eval_steps, one.counters.eval_steps);
      EXPECT_EQ(two.counters.eval_slots, one.counters.eval_slots);
      EXPECT_EQ(two.counters.scratch_inits, one.counters.scratch_inits);
    } else {
      EXPECT_LE(two.counters.eval_slots, 3 * one.counters.eval_slots);
      EXPECT_LE(two.counters.scratch_inits, 3 * one.counters.scratch_inits);
    }
    EXPECT_EQ(two.exact_map_steps, one.exact_map_steps);
    EXPECT_EQ(two.counters.dedup_compares, one.counters.dedup_compares);
  }
  return par;
}

TEST(PipelineParallel, EveryFixtureGivesTheOneThreadResult) {
  size_t ran = 0, failing = 0, chunked = 0, concretized = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    DiagnosticSink sink;
    SourceText src;
    auto f = readFusionFile(e.path().string(), sink, src);
    if (!f || !verifyFusion(*f, sink)) continue;
    f->rebuildUses();
    ++ran;
    PipelineOptions o;
    o.profile = defaultProfile(*f);
    if (runPipeline(*f, o).failed()) ++failing;
    Parallel par = expectSameOnAnyThreadCount(*f, e.path().string());
    EXPECT_TRUE(par.overlapped);
    chunked += par.chunked_eras;
    concretized += par.concretized_eras;
  }
  EXPECT_GT(ran, 25u);
  EXPECT_GT(chunked, 10u);      // the multi-device fixtures in the 2024 eras
  EXPECT_GT(concretized, 30u);  // every fixture in head, the single-device ones in every era
  EXPECT_GT(failing, 5u);       // the seed and the issue cases: diagnostics from both threads' passes
}

// Diagnostics from both threads: the whole-fusion binding (a --bind that
// contradicts the mesh, FC0306) and the segmenter (a resharding expr that
// cannot be lowered, FC0307) must come in the one-thread order.
TEST(PipelineParallel, DiagnosticsOfBothThreadsKeepTheirOrder) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(std::string(FC_SOURCE_DIR) + "/fixtures/analysis/unlowerable_resharding.json", sink,
                          src);
  ASSERT_TRUE(f && verifyFusion(*f, sink));
  f->rebuildUses();
  std::string first;
  for (unsigned threads : {1u, 2u}) {
    PipelineOptions o;
    o.threads = threads;
    o.parallel_min_exprs = 0;
    o.binds["i0"] = -1;
    PipelineResult r = runPipeline(*f, o);
    EXPECT_EQ(r.overlapped, threads == 2);
    ASSERT_EQ(r.diagnostics.size(), 2u);
    EXPECT_EQ(r.diagnostics[0].code, DiagCode::DidMeshMismatch);
    EXPECT_EQ(r.diagnostics[1].code, DiagCode::UnlowerableResharding);
    if (threads == 1)
      first = spelledJson(r.diagnostics);
    else
      EXPECT_EQ(spelledJson(r.diagnostics), first);
  }
}

// The whole fusion concretized in chunks (whole-first eras): reshapes in
// different chunks get a size no binding gives (FC0303 each), and the
// findings must come in the one-thread order.
TEST(PipelineParallel, ConcretizationFindingsOfEveryChunkKeepTheirOrder) {
  synth::TransformerOptions so;
  so.exprs = 2000;
  Fusion f = synth::transformer(so);
  size_t planted = 0;
  for (size_t at : {f.exprs.size() / 5, f.exprs.size() / 2, 4 * f.exprs.size() / 5}) {
    for (size_t e = at; e < f.exprs.size(); ++e) {
      if (f.exprs[e].op != OpKind::Reshape || f.exprs[e].attrs.shape.empty()) continue;
      f.exprs[e].attrs.shape[0] = f.addSymbol("u" + std::to_string(planted));
      ++planted;
      break;
    }
  }
  ASSERT_EQ(planted, 3u);
  DiagnosticSink vs;
  ASSERT_TRUE(verifyFusion(f, vs)) << spelledJson(vs.all());
  f.rebuildUses();
  std::string first;
  for (unsigned threads : {1u, 3u}) {
    PipelineOptions o;
    o.profile = test::eraProfile(f, "head");
    o.threads = threads;
    o.parallel_min_exprs = 0;
    PipelineResult r = runPipeline(f, o);
    EXPECT_EQ(r.concretized_in_chunks, threads == 3);
    size_t reshapes = 0;
    for (const Diagnostic& d : r.diagnostics) reshapes += d.code == DiagCode::ReshapeUnevaluable;
    EXPECT_EQ(reshapes, 3u);
    std::string text = spelledJson(r.diagnostics) + describe(r);
    if (threads == 1)
      first = text;
    else
      EXPECT_EQ(text, first);
  }
}

TEST(PipelineParallel, SyntheticFusionsGiveTheOneThreadResult) {
  for (bool sharded : {false, true}) {
    synth::TransformerOptions o;
    o.exprs = 2000;
    o.sharded = sharded;
    Fusion f = synth::transformer(o);
    f.rebuildUses();
    Parallel par = expectSameOnAnyThreadCount(f, sharded ? "tensor-parallel" : "transformer");
    EXPECT_TRUE(par.overlapped);
    // 2024-07 binds each segment alone; at 2024-06 the sharding passes stop
    // on the blocks' scalar exprs before any segment runs.
    EXPECT_EQ(par.chunked_eras, sharded ? 1u : 0u);
    EXPECT_EQ(par.concretized_eras, sharded ? 1u : 3u);  // the whole-first eras
  }
}

TEST(PipelineParallel, SmallFusionsAndTracesStayOnOneThread) {
  Fusion f = synth::linearRelu(30);
  f.rebuildUses();
  PipelineOptions o;
  o.threads = 4;
  EXPECT_FALSE(runPipeline(f, o).overlapped);  // below the default threshold
  o.parallel_min_exprs = 0;
  EXPECT_TRUE(runPipeline(f, o).overlapped);
  o.trace = true;  // a trace is one ordered record
  EXPECT_FALSE(runPipeline(f, o).overlapped);
}

// --time-report: the second thread's phases reach the report, marked as
// concurrent, and are left out of the "(not in a phase)" sum.
TEST(PipelineParallel, TimeReportShowsTheSecondThreadsPhases) {
  synth::TransformerOptions so;
  so.exprs = 2000;
  Fusion f = synth::transformer(so);
  f.rebuildUses();
  PhaseTimes times;
  PhaseTimes* prev = PhaseTimes::activate(&times);
  PipelineOptions o;
  o.threads = 2;
  o.parallel_min_exprs = 0;
  PipelineResult r = runPipeline(f, o);
  PhaseTimes::activate(prev);
  ASSERT_TRUE(r.overlapped);
  bool segment = false, bind = false, order = false;
  for (const PhaseTimes::Phase& p : times.phases()) {
    if (p.name == "pipeline: segment") segment = p.concurrent && p.calls == 1;
    if (p.name == "pipeline: bind whole fusion") bind = !p.concurrent && p.calls == 1;
    // The order is walked inside the segmenter, beside its operands.
    if (p.name == "topological order") order = p.concurrent && p.detail && p.calls == 1;
  }
  EXPECT_TRUE(segment);
  EXPECT_TRUE(bind);
  EXPECT_TRUE(order);
  std::string text = times.render(1.0);
  EXPECT_NE(text.find("pipeline: segment (concurrent)"), std::string::npos) << text;
  EXPECT_NE(text.find("not in the sum"), std::string::npos) << text;
}

}  // namespace
}  // namespace fc
