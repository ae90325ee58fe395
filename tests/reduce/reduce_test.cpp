// The minimizer as a library: ddmin, the candidate transforms, and the
// acceptance cases of issue 9 (the padded seed keeps its FC0301 on i0 with
// at most the seed's 7 exprs; the planted Half cancellation reduces to at
// most 5 exprs; the results export to nvFuser's Python layout), plus the
// stop reasons and the improvement callback.
#include "reduce/reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "driver/mismatch_property.h"
#include "io/export_python.h"
#include "io/import_python.h"
#include "io/writer.h"
#include "profile_util.h"
#include "reduce/candidates.h"
#include "reduce/ddmin.h"
#include "reduce/property.h"
#include "reduce_test_util.h"

namespace fc {
namespace {

using reducetest::kCancellation;
using reducetest::kSeed;
using reducetest::kSeedPadded;
using reducetest::loadFusion;
using reducetest::sourcePath;

// The seed's path (the C++ MultiDeviceExecutor with a FusionExecutorCache
// per segment) at 2024-06 or 2024-07.
PipelineOptions seedPath(const std::string& point) {
  PipelineOptions o;
  o.profile = test::profileFor(loadFusion(sourcePath(kSeed)), point, "cpp", "mde-fec");
  return o;
}
PipelineOptions era2024_06() { return seedPath("2024-06"); }

bool reportsUnboundI0(const Fusion& f) {
  PipelineResult r = runPipeline(f, era2024_06());
  for (const Diagnostic& d : r.diagnostics)
    if (d.code == DiagCode::UnboundExtent && d.message.find("cannot evaluate extent i0") != std::string::npos)
      return true;
  return false;
}

bool hasOp(const Fusion& f, OpKind op) {
  return std::any_of(f.exprs.begin(), f.exprs.end(), [&](const Expr& e) { return e.op == op; });
}

TEST(Ddmin, FindsTheTwoUnitsThatMatter) {
  int calls = 0;
  auto test = [&](const std::vector<size_t>& keep) {
    ++calls;
    return std::count(keep.begin(), keep.end(), 17u) && std::count(keep.begin(), keep.end(), 83u);
  };
  std::vector<size_t> kept = ddmin(100, test, [] { return false; });
  EXPECT_EQ(kept, (std::vector<size_t>{17, 83}));
  EXPECT_LT(calls, 100);
}

TEST(Ddmin, EmptyWhenNothingMatters) {
  EXPECT_TRUE(ddmin(
                  50, [](const std::vector<size_t>&) { return true; }, [] { return false; })
                  .empty());
}

TEST(Ddmin, StopsWhenAsked) {
  int calls = 0;
  auto kept = ddmin(
      64, [&](const std::vector<size_t>& keep) { return ++calls, keep.size() > 3; },
      [&] { return calls >= 3; });
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(kept.empty());
}

TEST(Candidates, DroppedProducerOutputBecomesAFreshInputWithItsLocalSizes) {
  Fusion f = loadFusion(sourcePath(kSeed));
  Shrink s;
  s.drop_expr.assign(f.exprs.size(), 0);
  s.drop_expr[0] = 1;  // permute T0 -> T3
  auto g = applyShrink(f, s, localShapesOf(f, era2024_06().profile));
  ASSERT_TRUE(g.has_value());
  DiagnosticSink sink;
  ASSERT_TRUE(verifyFusion(*g, sink)) << sink.all()[0].message;
  EXPECT_EQ(g->exprs.size(), 6u);
  auto t3 = g->findTensor("T3");
  ASSERT_TRUE(t3.has_value());
  EXPECT_TRUE(g->isInput(*t3));
  auto t0 = g->findTensor("T0");  // unused now; the inputs phase may drop it
  ASSERT_TRUE(t0.has_value());
  EXPECT_TRUE(g->isInput(*t0));
  EXPECT_TRUE(g->uses(*t0).empty());
  EXPECT_TRUE(g->tensors[*t3].root.empty());
  EXPECT_EQ(g->tensors[*t3].dtype, DType::Half);
  bool described = false;
  for (const ConcreteInput& c : g->concrete_inputs)
    if (c.value == ValueRef::tensor(*t3)) {
      described = true;
      EXPECT_EQ(c.shape, (std::vector<int64_t>{1, 128, 64}));  // [i0 (DIDx, local 1), i3, i2]
    }
  EXPECT_TRUE(described);
  EXPECT_TRUE(reportsUnboundI0(*g));
}

// A reduced repro keeps pointing into the user's file: each kept tensor and expr keeps the
// position of its definition through the renumbering, and the scalars theirs through compaction.
TEST(Candidates, SourcePositionsFollowTheKeptNodes) {
  Fusion f = loadFusion(sourcePath(kSeed));
  SourcePositions p;
  p.file = "seed.py";
  for (TensorId t = 0; t < f.tensors.size(); ++t) p.tensors.push_back({static_cast<int>(100 + t), 5});
  for (ExprId e = 0; e < f.exprs.size(); ++e) p.exprs.push_back({static_cast<int>(200 + e), 7});
  for (ScalarId c = 0; c < f.scalars.size(); ++c) p.scalars.push_back({static_cast<int>(300 + c), 9});
  f.source = p;
  Shrink s;
  s.drop_expr.assign(f.exprs.size(), 0);
  s.drop_expr[0] = 1;  // permute T0 -> T3: T0 goes, every tensor after it moves down
  auto g = applyShrink(f, s, localShapesOf(f, era2024_06().profile));
  ASSERT_TRUE(g.has_value());
  ASSERT_TRUE(g->source.has_value());
  EXPECT_EQ(g->source->file, "seed.py");
  for (TensorId t = 0; t < g->tensors.size(); ++t) {
    auto orig = f.findTensor(g->tensorName(t));
    ASSERT_TRUE(orig.has_value());
    EXPECT_EQ(g->source->tensors.at(t).line, static_cast<int>(100 + *orig)) << g->tensorName(t);
  }
  for (ExprId e = 0; e < g->exprs.size(); ++e) {
    TensorId out = g->exprs[e].outputs.at(0);
    auto orig = f.findTensor(g->tensorName(out));
    ASSERT_TRUE(orig.has_value());
    EXPECT_EQ(g->source->exprs.at(e).line, static_cast<int>(200 + f.tensors[*orig].definition));
  }
  for (ScalarId c = 0; c < g->scalars.size(); ++c) {
    if (g->scalarName(c).empty()) continue;
    auto orig = f.findScalar(g->scalarName(c));
    ASSERT_TRUE(orig.has_value());
    EXPECT_EQ(g->source->scalars.at(c).line, static_cast<int>(300 + *orig)) << g->scalarName(c);
  }
}

TEST(Candidates, DroppedConsumerPromotesItsOperandsToOutputs) {
  Fusion f = loadFusion(sourcePath(kSeed));
  Shrink s;
  s.drop_expr.assign(f.exprs.size(), 0);
  s.drop_expr[6] = 1;  // add T7 + T8 -> T9
  auto g = applyShrink(f, s, {});
  ASSERT_TRUE(g.has_value());
  std::vector<std::string> outs;
  for (TensorId t : g->outputs) outs.emplace_back(g->tensorName(t));
  EXPECT_EQ(outs, (std::vector<std::string>{"T7", "T8"}));
}

TEST(Candidates, DroppedOutputsTakeTheirDeadProducersAlong) {
  Fusion f = loadFusion(sourcePath(kSeedPadded));
  ASSERT_EQ(f.exprs.size(), 207u);
  Shrink s;
  s.drop_output.assign(f.outputs.size(), 1);
  for (size_t i = 0; i < f.outputs.size(); ++i)
    if (f.tensorName(f.outputs[i]) == "T9") s.drop_output[i] = 0;
  auto g = applyShrink(f, s, {});
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->exprs.size(), 7u);
  EXPECT_EQ(g->outputs.size(), 1u);
  // the padding inputs stay until the inputs phase drops them; their symbols with them
  s.drop_input.assign(f.inputs.size(), 1);
  auto h = applyShrink(f, s, {});
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->inputs.size(), 3u);
  EXPECT_FALSE(h->findScalar("j0").has_value());
  EXPECT_EQ(h->concrete_inputs.size(), 3u);
}

TEST(Candidates, NothingLeftIsNoCandidate) {
  Fusion f = loadFusion(sourcePath(kSeed));
  Shrink s;
  s.drop_output.assign(f.outputs.size(), 1);
  EXPECT_FALSE(applyShrink(f, s, {}).has_value());
}

TEST(Candidates, HalvedSizesAndMeshes) {
  Fusion f = loadFusion(sourcePath(kSeed));
  auto g = halveConcreteSizes(f);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->concrete_inputs[0].shape, (std::vector<int64_t>{1, 32, 64}));
  auto m = shrinkMesh(f, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->meshes[0].devices, (std::vector<int64_t>{0}));
  EXPECT_FALSE(shrinkMesh(*m, 0).has_value());
}

// Acceptance 1: the padded seed, --until FC0301. Plain FC0301 slips to a
// smaller cause (an input whose Reduction axis nothing binds); with the
// note "i0 was bound in the whole fusion" the #2481 mechanism stays: a DID
// input binds i0 in the whole fusion, a segment input's Reduction axis
// keeps it, and the segment cannot bind it.
TEST(Reduce, PaddedSeedReducesToTheSeedsExprsAndKeepsFC0301OnI0) {
  Fusion f = loadFusion(sourcePath(kSeedPadded));
  ASSERT_TRUE(reportsUnboundI0(f));
  for (std::string match : {"extent i0", "i0 was bound in the whole fusion"}) {
    uint64_t writes = 0;
    ReduceOptions o;
    o.on_improvement = [&](const Fusion& best, const ReduceStats&) {
      ++writes;
      DiagnosticSink sink;
      EXPECT_TRUE(verifyFusion(best, sink));
    };
    ReduceResult r = reduce(f, diagnosticProperty(DiagCode::UnboundExtent, era2024_06(), match), o);
    EXPECT_EQ(r.stop, StopReason::Fixpoint);
    EXPECT_EQ(r.before.exprs, 207u);
    EXPECT_LE(r.after.exprs, 7u);
    EXPECT_EQ(r.after.exprs, r.best.exprs.size());
    EXPECT_TRUE(reportsUnboundI0(r.best));
    EXPECT_EQ(writes, r.stats.improvements);
    EXPECT_GT(r.stats.improvements, 0u);
    std::cout << "[ reduce ] padded seed, FC0301 matching '" << match << "': exprs " << r.before.exprs
              << " -> " << r.after.exprs << ", tensors " << r.before.tensors << " -> " << r.after.tensors
              << ", segments " << r.before.segments << " -> " << r.after.segments << ", " << r.stats.steps
              << " steps, " << r.stats.property_calls << " property calls, " << r.stats.seconds << " s\n"
              << writeFusion(r.best);
  }
}

// Acceptance 2: the planted Half cancellation, --mismatch.
TEST(Reduce, PlantedCancellationReducesToAtMostFiveExprs) {
  Fusion f = loadFusion(sourcePath(kCancellation));
  ASSERT_GE(f.exprs.size(), 30u);
  RunOptions ro;
  ASSERT_TRUE(hasNumericsMismatch(runFusion(f, ro)));
  ReduceResult r = reduce(f, mismatchProperty(ro));
  EXPECT_EQ(r.stop, StopReason::Fixpoint);
  EXPECT_LE(r.after.exprs, 5u);
  RunResult run = runFusion(r.best, ro);
  EXPECT_TRUE(hasNumericsMismatch(run));
  EXPECT_TRUE(hasOp(r.best, OpKind::Sub)) << "the cancellation is the bug";
  std::cout << "[ reduce ] cancellation: exprs " << r.before.exprs << " -> " << r.after.exprs << ", "
            << r.stats.steps << " steps, " << r.stats.property_calls << " property calls, " << r.stats.seconds
            << " s\n"
            << writeFusion(r.best);
}

// Acceptance 3: both results export to nvFuser's Python layout and import
// back to the same graph size.
TEST(Reduce, ResultsExportToNvfuserPython) {
  ReduceOptions o;
  o.max_steps = 2000;
  std::vector<ReduceResult> results;
  results.push_back(reduce(loadFusion(sourcePath(kSeedPadded)),
                           diagnosticProperty(DiagCode::UnboundExtent, era2024_06()), o));
  results.push_back(reduce(loadFusion(sourcePath(kCancellation)), mismatchProperty(RunOptions{}), o));
  for (const ReduceResult& r : results) {
    DiagnosticSink sink;
    auto py = exportPython(r.best, sink);
    ASSERT_TRUE(py.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
    EXPECT_NE(py->find("(fd : FusionDefinition) -> None :"), std::string::npos) << *py;
    EXPECT_NE(py->find("with FusionDefinition() as fd:"), std::string::npos) << *py;
    EXPECT_NE(py->find("fd.add_output("), std::string::npos);
    auto back = importPython(SourceText("reduced.py", *py), sink);
    ASSERT_TRUE(back.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message) << "\n" << *py;
    EXPECT_EQ(back->exprs.size(), r.best.exprs.size());
    EXPECT_EQ(back->outputs.size(), r.best.outputs.size());
  }
}

TEST(Reduce, MaxStepsStops) {
  ReduceOptions o;
  o.max_steps = 5;
  ReduceResult r = reduce(loadFusion(sourcePath(kSeedPadded)),
                          diagnosticProperty(DiagCode::UnboundExtent, era2024_06()), o);
  EXPECT_EQ(r.stop, StopReason::MaxSteps);
  EXPECT_EQ(r.stats.steps, 5u);
  EXPECT_TRUE(reportsUnboundI0(r.best));
}

TEST(Reduce, TimeLimitStops) {
  ReduceOptions o;
  o.time_limit_s = 1e-9;
  ReduceResult r = reduce(loadFusion(sourcePath(kSeedPadded)),
                          diagnosticProperty(DiagCode::UnboundExtent, era2024_06()), o);
  EXPECT_EQ(r.stop, StopReason::TimeLimit);
  EXPECT_EQ(r.stats.steps, 0u);
}

// SIGINT sets the flag; here the property sets it itself on its 6th call.
TEST(Reduce, InterruptStopsAndDistrustsTheCutShortVerdict) {
  std::atomic<bool> stop{false};
  int calls = 0;
  ReduceProperty inner = diagnosticProperty(DiagCode::UnboundExtent, era2024_06());
  ReduceProperty p = [&](const Fusion& f) {
    if (++calls == 6) {
      stop = true;
      return true;  // must not be trusted: the call was interrupted
    }
    return inner(f);
  };
  ReduceOptions o;
  o.interrupt = &stop;
  uint64_t improvements_at_stop = 0;
  o.on_improvement = [&](const Fusion&, const ReduceStats& s) { improvements_at_stop = s.improvements; };
  ReduceResult r = reduce(loadFusion(sourcePath(kSeedPadded)), p, o);
  EXPECT_EQ(r.stop, StopReason::Interrupted);
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(r.stats.improvements, improvements_at_stop);
  EXPECT_TRUE(reportsUnboundI0(r.best));
}

TEST(Reduce, InputWithoutThePropertyIsNotInteresting) {
  PipelineOptions o;
  o = seedPath("2024-07");  // fixed by PR #2487
  ReduceResult r = reduce(loadFusion(sourcePath(kSeed)), diagnosticProperty(DiagCode::UnboundExtent, o));
  EXPECT_EQ(r.stop, StopReason::NotInteresting);
  EXPECT_EQ(r.stats.steps, 0u);
}

TEST(Reduce, ThePropertyOnlySeesVerifiedCandidates) {
  int calls = 0;
  ReduceProperty p = [&](const Fusion& f) {
    ++calls;
    DiagnosticSink sink;
    EXPECT_TRUE(verifyFusion(f, sink)) << (sink.all().empty() ? "" : sink.all()[0].message);
    return hasOp(f, OpKind::Matmul);
  };
  ReduceResult r = reduce(loadFusion(sourcePath(kSeedPadded)), p);
  EXPECT_EQ(r.stop, StopReason::Fixpoint);
  EXPECT_EQ(r.best.exprs.size(), 1u);
  EXPECT_EQ(r.best.exprs[0].op, OpKind::Matmul);
  EXPECT_EQ(static_cast<uint64_t>(calls), r.stats.property_calls);
}

}  // namespace
}  // namespace fc
