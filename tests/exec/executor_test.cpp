// The segmented executor on the seed repro (nvFuser #2481) with a hand-built
// segmentation: matmul segment, Allreduce, bias-add segment.
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "exec/exec_error.h"
#include "exec/reference.h"
#include "exec/segmented_executor.h"
#include "io/reader.h"

namespace fc::exec {
namespace {

Fusion loadSeed() {
  DiagnosticSink sink;
  SourceText src;
  auto f =
      readFusionFile(std::string(FC_SOURCE_DIR) + "/fixtures/seed/matmul_allreduce_bias.json", sink, src);
  EXPECT_TRUE(f.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
  return std::move(*f);
}

Segment seg(uint32_t id, SegmentKind k, CommKind c, std::vector<ExprId> exprs) {
  Segment s;
  s.id = id;
  s.kind = k;
  s.comm = c;
  s.exprs = std::move(exprs);
  return s;
}

SegmentedFusion seedSegments(const Fusion& f, bool allreduce = true) {
  SegmentedFusion sf;
  sf.fusion = &f;
  sf.segments.push_back(seg(0, SegmentKind::Compute, CommKind::None, {0, 1}));
  if (allreduce)
    sf.segments.push_back(seg(1, SegmentKind::Communication, CommKind::Allreduce, {2}));
  else
    sf.segments.push_back(
        seg(1, SegmentKind::Compute, CommKind::None, {2}));  // a wrong rewrite: local sum only
  sf.segments.push_back(seg(2, SegmentKind::Compute, CommKind::None, {3, 4, 5, 6}));
  return sf;
}

struct SeedRun {
  RunInputs in;
  ReferenceResult faithful, exact;
  SegmentedRun run;
  HostTensor out;
  std::optional<int64_t> replica_bad;
};

SeedRun runSeed(const Fusion& f, const SegmentedFusion& sf, std::optional<uint32_t> stop_at = {}) {
  SeedRun r;
  World w(f);
  ScalarValues sv(f), sv2(f), sv3(f);
  r.in = generateInputs(f, w, sv, 0, 8, nullptr);
  r.faithful = runReference(f, r.in, sv, Flavour::Faithful, nullptr);
  bindInputs(f, w, r.in, sv2);
  r.exact = runReference(f, r.in, sv2, Flavour::Exact, nullptr);
  bindInputs(f, w, r.in, sv3);
  r.run = runSegmented(sf, w, r.in, sv3, nullptr, stop_at);
  TensorId t9 = f.outputs[0];
  if (stop_at) return r;
  std::vector<const HostTensor*> shards;
  for (int64_t rank : w.ranksOf(t9)) shards.push_back(&*r.run.local[t9][rank]);
  r.out = assemble(shards, shardDims(f, t9), &f.meshes[0], nullptr, &r.replica_bad);
  return r;
}

TEST(Executor, SeedMatchesTheFaithfulReferenceBitForBit) {
  Fusion f = loadSeed();
  SegmentedFusion sf = seedSegments(f);
  SeedRun r = runSeed(f, sf);
  TensorId t9 = f.outputs[0];
  ASSERT_EQ(r.out.shape(), (Shape{128, 64}));
  EXPECT_FALSE(r.replica_bad.has_value());
  const HostTensor& ref = *r.faithful.values[t9];
  ASSERT_EQ(ref.shape(), r.out.shape());
  // Two ranks: the ring adds two Half partials and rounds once, as the
  // faithful reference does.
  for (int64_t i = 0; i < ref.numel(); ++i) ASSERT_EQ(r.out[i], ref[i]) << i;
  for (const SegmentRun& s : r.run.segments) EXPECT_EQ(s.status, "ran");
  EXPECT_EQ(r.run.segments[1].summary, "Allreduce T4 -> T5 over 2 ranks");
  // Per-rank shapes: the DID axis is 1 locally.
  TensorId t4 = *f.findTensor("T4");
  EXPECT_EQ(r.run.local[t4][0]->shape(), (Shape{1, 128, 64}));
  // Against the exact reference it is within the magnitude-aware tolerance.
  TolerancePolicy p{
      DType::Float, r.exact.path_dtype[t9], r.exact.path_reduction[t9], r.exact.path_hops[t9], {}, {}};
  EXPECT_EQ(p.path_dtype, DType::Half);
  EXPECT_EQ(p.reduction_size, 64);  // matmul K
  EXPECT_EQ(p.collective_hops, 1);  // the Allreduce over 2 ranks
  Comparison c = compareTensors("T9", r.out, *r.exact.values[t9], p);
  EXPECT_TRUE(c.passed()) << c.mismatches << " max abs " << c.max_abs;
  EXPECT_GT(c.max_abs, 0.0);  // Half rounding is visible against fp64
}

TEST(Executor, ASingleRankSumInsteadOfTheAllreduceIsCaught) {
  Fusion f = loadSeed();
  SegmentedFusion sf = seedSegments(f, /*allreduce=*/false);
  SeedRun r = runSeed(f, sf);
  TensorId t9 = f.outputs[0];
  // Each rank only has its own partial: the replicas disagree and differ
  // from the reference.
  EXPECT_TRUE(r.replica_bad.has_value());
  TolerancePolicy p{
      DType::Float, r.exact.path_dtype[t9], r.exact.path_reduction[t9], r.exact.path_hops[t9], {}, {}};
  Comparison c = compareTensors("T9", r.out, *r.exact.values[t9], p);
  EXPECT_FALSE(c.passed());
  EXPECT_GT(c.mismatches, 1000);
}

TEST(Executor, StopsAtTheFailingSegment) {
  Fusion f = loadSeed();
  SegmentedFusion sf = seedSegments(f);
  SeedRun r = runSeed(f, sf, 2u);
  ASSERT_EQ(r.run.segments.size(), 3u);
  EXPECT_EQ(r.run.segments[0].status, "ran");
  EXPECT_EQ(r.run.segments[1].status, "ran");
  EXPECT_EQ(r.run.segments[2].status, "failed");
  TensorId t5 = *f.findTensor("T5"), t9 = f.outputs[0];
  EXPECT_TRUE(r.run.local[t5][0].has_value());
  EXPECT_FALSE(r.run.local[t9][0].has_value());
}

TEST(Executor, AConsumerBeforeItsProducerIsAnError) {
  Fusion f = loadSeed();
  SegmentedFusion sf;
  sf.fusion = &f;
  sf.segments.push_back(seg(0, SegmentKind::Compute, CommKind::None, {3, 4, 5, 6}));  // needs T5
  World w(f);
  ScalarValues sv(f);
  RunInputs in = generateInputs(f, w, sv, 0, 8, nullptr);
  try {
    runSegmented(sf, w, in, sv, nullptr, std::nullopt);
    FAIL() << "expected an ExecError";
  } catch (const ExecError& e) {
    EXPECT_EQ(e.code, DiagCode::ExecutionFailed);
    EXPECT_NE(e.message.find("T5"), std::string::npos) << e.message;
  }
}

TEST(Executor, BudgetIsEnforced) {
  Fusion f = loadSeed();
  SegmentedFusion sf = seedSegments(f);
  World w(f);
  ScalarValues sv(f);
  MemoryBudget b(64 * 1024);  // the reference alone needs more
  RunInputs in = generateInputs(f, w, sv, 0, 8, nullptr);
  EXPECT_THROW(runReference(f, in, sv, Flavour::Exact, &b), BudgetExceeded);
}

}  // namespace
}  // namespace fc::exec
