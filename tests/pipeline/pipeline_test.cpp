// The era-faithful pipeline on the seed (#2481) and on the issue-3 fixtures:
// what fails where, with which provenance, and what each fix does.
#include "pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "diag/source.h"
#include "io/place_pointer.h"
#include "io/reader.h"
#include "ir/verifier.h"
#include "passes/segment.h"
#include "profile_util.h"
#include "rewrite/fixes.h"

namespace fc {
namespace {

Fusion load(const std::string& rel) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(std::string(FC_SOURCE_DIR) + "/" + rel, sink, src);
  EXPECT_TRUE(f.has_value()) << rel;
  EXPECT_TRUE(verifyFusion(*f, sink)) << rel;
  f->rebuildUses();
  return std::move(*f);
}

PipelineResult runEra(const Fusion& f, const std::string& era) {
  PipelineOptions o;
  o.profile = test::eraProfile(f, era);
  o.trace = true;
  return runPipeline(f, o);
}

std::vector<std::string> codes(const PipelineResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.emplace_back(diagCodeInfo(d.code).id);
  return out;
}

bool hasNote(const Diagnostic& d, const std::string& text) {
  return std::any_of(d.notes.begin(), d.notes.end(),
                     [&](const Note& n) { return n.message.find(text) != std::string::npos; });
}

const char* kSeed = "fixtures/seed/matmul_allreduce_bias.json";

TEST(Pipeline, SeedSegmentsAsTheMultiDeviceExecutor) {
  Fusion f = load(kSeed);
  PipelineResult r = runEra(f, "2024-06");
  ASSERT_EQ(r.segmented.segments.size(), 3u);
  const auto& s = r.segmented.segments;
  EXPECT_EQ(s[0].kind, SegmentKind::Compute);
  EXPECT_EQ(s[0].exprs, (std::vector<ExprId>{0, 1}));  // permute, matmul
  EXPECT_EQ(s[1].kind, SegmentKind::Communication);
  EXPECT_EQ(s[1].comm, CommKind::Allreduce);
  EXPECT_EQ(s[2].kind, SegmentKind::Compute);
  // nvFuser's statement order: T7 = cast(T5) first, as the issue prints the kernel.
  EXPECT_EQ(s[2].exprs, (std::vector<ExprId>{4, 3, 5, 6}));
  EXPECT_EQ(describeSegment(f, s[2]), "compute: cast, broadcast, add");
  ASSERT_EQ(r.segmented.edges.size(), 2u);
  EXPECT_EQ(f.tensorName(r.segmented.edges[1].tensor), "T5");
}

TEST(Pipeline, SeedFailsIn2024_06WithProvenance) {
  Fusion f = load(kSeed);
  PipelineResult r = runEra(f, "2024-06");
  ASSERT_EQ(codes(r), std::vector<std::string>{"FC0301"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.loc.place, Place::tensor(5).at(PlaceField::Logical, 0));
  EXPECT_EQ(jsonPointer(d.loc.place), "/tensors/5/logical/0");
  EXPECT_EQ(d.message, "segment 2 (compute: cast, broadcast, add) cannot evaluate extent i0");
  EXPECT_TRUE(hasNote(d, "i0 is the extent of Reduction axis rS14 of segment input T5"));
  EXPECT_TRUE(hasNote(d, "T5 enters segment 2 as [rS14{i0}, iS15{i3}, iS16{i6}]"));
  EXPECT_TRUE(hasNote(d, "the rank-2 tensor from segment 1 (Allreduce) binds i3, i6"));
  EXPECT_TRUE(hasNote(d, "T0 axis 0 (DIDx) = DeviceMesh{0 1}.size() = 2; T0 does not enter segment 2"));
  EXPECT_TRUE(hasNote(d, "no value in segment 2 depends on i0"));
  EXPECT_TRUE(hasNote(d, "Could not evaluate dynamic extent: i0"));
  // The fix is what nvFuser does from #2487; the last note names the check.
  auto fix = std::find_if(d.notes.begin(), d.notes.end(),
                          [](const Note& n) { return n.kind == "fix[strip-reduction-axes]"; });
  ASSERT_NE(fix, d.notes.end());
  EXPECT_NE(fix->message.find("[iS15{i3}, iS16{i6}] (what nvFuser does from #2487 (4afbdf52f, 2024-07-01)); "
                              "obligation holds"),
            std::string::npos);
  EXPECT_NE(d.notes.back().message.find("raises at csrc/dynamic_transform.cpp:"), std::string::npos);

  ASSERT_EQ(r.unbound.size(), 1u);
  const UnboundExtent& u = r.unbound[0];
  EXPECT_EQ(u.segment, 2);
  EXPECT_EQ(f.scalarName(u.symbol), "i0");
  ASSERT_EQ(u.hops.size(), 4u);  // T0 -> T3 -> T4 -> T5
  EXPECT_EQ(f.tensorName(u.hops.front().tensor), "T0");
  EXPECT_EQ(f.tensorName(u.hops.back().tensor), "T5");
  EXPECT_EQ(u.hops[3].segment, 1u);  // the sum ran as segment 1 (Allreduce)
  EXPECT_EQ(u.whole_origin.kind, Origin::Kind::DidMesh);
  EXPECT_EQ(u.whole_value, 2);
  EXPECT_FALSE(u.needed);
  EXPECT_TRUE(u.strip_applies);
  // Forwarding i0 is not what nvFuser does on this path at any later point.
  EXPECT_FALSE(u.forward_applies);
}

TEST(Pipeline, SeedIsCleanFrom2024_07On) {
  Fusion f = load(kSeed);
  for (const std::string& e : {"2024-07", "head"}) {
    PipelineResult r = runEra(f, e);
    EXPECT_TRUE(codes(r).empty()) << e;
    EXPECT_EQ(r.input_rewrite, InputRewrite::StripReductions);
  }
  // The seed's own path (the MultiDeviceExecutor with a FusionExecutorCache
  // per segment) concretizes per segment at every point; FusionExecutorCache
  // alone concretizes the whole fusion first.
  EXPECT_FALSE(runEra(f, "2024-07").whole_first);
  EXPECT_FALSE(runEra(f, "head").whole_first);
  PipelineOptions o;
  o.profile = test::profileFor(f, "head", "cpp", "fec");
  PipelineResult fec = runPipeline(f, o);
  EXPECT_TRUE(fec.whole_first);
  EXPECT_TRUE(codes(fec).empty());
}

TEST(Pipeline, TraceUsesThePassNames) {
  Fusion f = load(kSeed);
  PipelineResult r = runEra(f, "2024-07");
  std::vector<std::string> seen;
  for (const auto& t : r.trace) {
    EXPECT_TRUE(std::find(std::begin(kPassNames), std::end(kPassNames), t.pass) != std::end(kPassNames))
        << t.pass;
    seen.push_back(t.pass);
  }
  for (const char* p : kPassNames) EXPECT_NE(std::find(seen.begin(), seen.end(), p), seen.end()) << p;
  // The segment trace shows merges made and refused with their reasons.
  auto seg =
      std::find_if(r.trace.begin(), r.trace.end(), [](const PassTrace& t) { return t.pass == "segment"; });
  ASSERT_NE(seg, r.trace.end());
  EXPECT_NE(seg->text.find("refuse merge"), std::string::npos);
  EXPECT_NE(seg->text.find("is resharding and runs alone"), std::string::npos);
  EXPECT_NE(seg->text.find("merge g"), std::string::npos);
}

TEST(Fixes, StripReductionAxesRepairsTheSeed) {
  Fusion f = load(kSeed);
  PipelineResult before = runEra(f, "2024-06");
  FixResult fr = applyFixes(f, before, FixKind::Auto, "seed.json");
  ASSERT_TRUE(fr.changed);
  EXPECT_TRUE(fr.refusals.empty());
  ASSERT_TRUE(fr.fixed.segmentation.has_value());
  EXPECT_EQ(fr.fixed.segmentation->input_rewrite, InputRewrite::StripReductions);
  EXPECT_EQ(fr.fixed.segmentation->segments.size(), 3u);
  // The complete fusion is untouched: T5 still is a sum's output with rS14.
  EXPECT_EQ(fr.fixed.tensors.size(), f.tensors.size());
  EXPECT_EQ(fr.fixed.axes[fr.fixed.tensors[5].logical[0]].iter, IterType::Reduction);
  PipelineResult after = runEra(fr.fixed, "2024-06");
  EXPECT_TRUE(codes(after).empty());
  EXPECT_TRUE(after.segmented.explicit_segmentation);
}

TEST(Fixes, MeanAcrossEdgeRefusesStripAndForwardsTheExtent) {
  Fusion f = load("fixtures/analysis/mean_across_edge.json");
  // On the MultiDeviceExecutor at 2024-06-30 the segmenter forwards i0 (used
  // as a value) as a segment input, and the executor has no buffer for it.
  PipelineResult before = runEra(f, "2024-06");
  ASSERT_EQ(codes(before), std::vector<std::string>{"FC0310"});
  ASSERT_EQ(before.unbound.size(), 1u);
  EXPECT_TRUE(before.unbound[0].needed);  // sum / i0 uses i0 as a value
  EXPECT_FALSE(before.unbound[0].strip_applies);
  // Stripping does not address a missing segment input: nothing to strip.
  FixResult strip = applyFixes(f, before, FixKind::StripReductionAxes, "m.json");
  EXPECT_FALSE(strip.changed);
  FixResult fwd = applyFixes(f, before, FixKind::Auto, "m.json");
  ASSERT_TRUE(fwd.changed);
  ASSERT_EQ(fwd.fixed.segmentation->forward.size(), 1u);
  EXPECT_TRUE(codes(runEra(fwd.fixed, "2024-06")).empty());
}

TEST(Pipeline, EdgeHazardIsNotAnUnboundExtent) {
  Fusion f = load("fixtures/analysis/two_sums_edge_hazard.json");
  // No segment transposes: the transpose scheduler's hazards do not apply,
  // and the whole fusion is concretized first, so nothing is unbound.
  EXPECT_TRUE(codes(runEra(f, "2024-06")).empty());
  EXPECT_TRUE(codes(runEra(f, "2024-01-31")).empty());
  EXPECT_TRUE(codes(runEra(f, "2024-07")).empty());
  EXPECT_TRUE(codes(runEra(f, "head")).empty());
}

TEST(Pipeline, ControlsStayClean) {
  for (const char* rel :
       {"fixtures/analysis/control_constant_extents.json", "fixtures/analysis/control_t0_feeds_consumer.json",
        "fixtures/analysis/control_allgather_edge.json"}) {
    Fusion f = load(rel);
    for (const std::string e : {"2024-06", "2024-07", "head"})
      EXPECT_TRUE(codes(runEra(f, e)).empty()) << rel << " " << e;
  }
}

TEST(Segmenter, NeverMergesAcrossAResharding) {
  // A = exp(y) feeds B = add(A, G) directly and through a scatter S, a relu
  // T and an allgather G. Merging A and B would form a cycle through the
  // communications, so they stay apart and every edge goes forward in run
  // order.
  Fusion f;
  MeshId m = f.addMesh({2}, {0, 1});
  ScalarId i0 = f.addSymbol("i0"), i1 = f.addSymbol("i1");
  auto t = [&](const char* n, bool sharded) {
    AxisId a = f.addAxis(static_cast<uint32_t>(f.axes.size()), IterType::Iteration,
                         sharded ? ParallelType::DIDx : ParallelType::Serial, i0);
    AxisId b = f.addAxis(static_cast<uint32_t>(f.axes.size()), IterType::Iteration, ParallelType::Serial, i1);
    return f.addTensor(n, DType::Float, MemoryType::Global, {a, b}, m);
  };
  TensorId y = t("T0", false), a = t("T1", false), s = t("T2", true), tt = t("T3", true), g = t("T4", false),
           b = t("T5", false);
  f.addExpr(OpKind::Exp, {ValueRef::tensor(y)}, {a});
  f.addExpr(OpKind::Set, {ValueRef::tensor(a)}, {s});
  f.addExpr(OpKind::Relu, {ValueRef::tensor(s)}, {tt});
  f.addExpr(OpKind::Set, {ValueRef::tensor(tt)}, {g});
  f.addExpr(OpKind::Add, {ValueRef::tensor(a), ValueRef::tensor(g)}, {b});
  f.inputs = {ValueRef::tensor(y)};
  f.outputs = {b};
  f.rebuildUses();
  DiagnosticSink sink;
  ASSERT_TRUE(verifyFusion(f, sink));
  SegmentOptions so;
  so.lowering = test::eraProfile(f, "2024-06").lowering;
  so.trace = true;
  SegmentPassResult sp = segmentFusion(f, so, sink);
  EXPECT_FALSE(sink.hasErrors());
  const auto& segs = sp.segmented.segments;
  ASSERT_EQ(segs.size(), 5u);
  EXPECT_EQ(segs[1].comm, CommKind::Scatter);
  EXPECT_EQ(segs[3].comm, CommKind::Allgather);
  EXPECT_NE(sp.segmented.producerOf(a), sp.segmented.producerOf(b));
  for (const SegmentEdge& e : sp.segmented.edges) EXPECT_LT(e.from, e.to);
  bool refused = std::any_of(sp.trace.begin(), sp.trace.end(), [](const std::string& l) {
    return l.find("refuse merge g0+g4") != std::string::npos && l.find("cycle") != std::string::npos;
  });
  EXPECT_TRUE(refused);
}

}  // namespace
}  // namespace fc
