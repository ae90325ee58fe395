// The exprs nvFuser's passes see (src/ir/live_exprs.h): the walk back from the outputs, the copy
// without the others, the repro's ids through that copy, and the pipeline run on it.
#include "ir/live_exprs.h"

#include <gtest/gtest.h>

#include <string>

#include "fixture_load.h"
#include "ir/topo_order.h"
#include "pipeline/pipeline.h"
#include "profile_util.h"

namespace fc {
namespace {

const char* kSeed = "fixtures/seed/matmul_allreduce_bias.json";
const char* kUnusedCast = "fixtures/analysis/seed_with_unused_cast.json";  // expr 3 reaches no output

TEST(LiveExprs, EveryExprOfTheSeedIsLiveAndTheWalkIsTopoOrder) {
  Fusion f = test::loadVerified(kSeed);
  LiveExprs w = liveExprs(f);
  EXPECT_TRUE(w.dead.empty());
  EXPECT_FALSE(hasDeadExprs(f));
  EXPECT_EQ(w.order, topoOrder(f));
}

TEST(LiveExprs, AnUnusedCastIsLeftOutAndTheOtherIdsMapBack) {
  Fusion f = test::loadVerified(kUnusedCast);
  LiveExprs w = liveExprs(f);
  ASSERT_EQ(w.dead, (std::vector<ExprId>{3}));
  EXPECT_TRUE(hasDeadExprs(f));
  EXPECT_EQ(w.order.size(), 7u);
  auto g = withoutExprs(f, w.dead);
  ASSERT_EQ(g->exprs.size(), 7u);
  for (ExprId e = 0; e < 7; ++e) {
    const ExprId user = e < 3 ? e : e + 1;
    EXPECT_EQ(userExprId(*g, e), user);
    EXPECT_EQ(exprOfUserId(*g, user), std::optional<ExprId>(e));
    EXPECT_EQ(g->exprs[e].op, f.exprs[user].op);
    for (TensorId t : g->exprs[e].outputs) EXPECT_EQ(g->tensors[t].definition, e);
  }
  EXPECT_EQ(exprOfUserId(*g, 3), std::nullopt);  // left out
  EXPECT_EQ(exprOfUserId(*g, 8), std::nullopt);  // no such expr
  // T10, only the cast touched it: in no expr, not among Fusion::allTvs().
  const TensorId t10 = *g->findTensor("T10");
  EXPECT_EQ(g->tensors[t10].definition, kNone);
  std::vector<uint8_t> used = usedTensors(*g);
  EXPECT_EQ(used[t10], 0);
  EXPECT_EQ(used[*g->findTensor("T5")], 1);
  EXPECT_EQ(usedTensors(f)[t10], 1);
  EXPECT_TRUE(liveExprs(*g).dead.empty());
  EXPECT_FALSE(hasDeadExprs(*g));
  // The repro's own ids are unchanged.
  EXPECT_EQ(userExprId(f, 3), 3u);
  EXPECT_EQ(exprOfUserId(f, 3), std::optional<ExprId>(3));
}

TEST(LiveExprs, AChainThatEndsInNoOutputIsDeadAsAWhole) {
  Fusion f = test::loadVerified(kSeed);
  // T9 stops being the output: add, both casts, the broadcast and the sum before them reach
  // nothing; T5 (the sum) becomes the output instead, so permute, matmul and sum stay.
  f.outputs = {*f.findTensor("T5")};
  EXPECT_TRUE(hasDeadExprs(f));
  EXPECT_EQ(liveExprs(f).dead, (std::vector<ExprId>{3, 4, 5, 6}));
  f.outputs.push_back(*f.findTensor("T8"));  // the bias's cast: broadcast and that cast live again
  EXPECT_EQ(liveExprs(f).dead, (std::vector<ExprId>{4, 6}));
}

TEST(LiveExprs, ExprsAddedToTheCopyAreNumberedAfterTheRepros) {
  Fusion f = test::loadVerified(kUnusedCast);
  auto g = withoutExprs(f, liveExprs(f).dead);
  Fusion h = *g;  // as the sharding passes copy it, then append
  const TensorId t9 = *h.findTensor("T9");
  const TensorId extra =
      h.addTensor("T11", h.tensors[t9].dtype, MemoryType::Global, h.tensors[t9].logical, h.tensors[t9].mesh);
  const ExprId added = h.addExpr(OpKind::Set, {ValueRef::tensor(t9)}, {extra});
  EXPECT_EQ(added, 7u);
  EXPECT_EQ(userExprId(h, added), 8u);  // the repro has exprs 0 .. 7
  EXPECT_EQ(exprOfUserId(h, 8), std::optional<ExprId>(added));
}

TEST(LiveExprs, ThePipelineNotesTheUnusedExprAndSpeaksInTheReprosIds) {
  Fusion f = test::loadVerified(kUnusedCast);
  PipelineOptions o;
  o.profile = test::eraProfile(f, "2024-06");
  PipelineResult r = runPipeline(f, o);
  ASSERT_GE(r.diagnostics.size(), 2u);
  const Diagnostic& note = r.diagnostics[0];
  EXPECT_EQ(note.code, DiagCode::DeadExpr);
  EXPECT_EQ(note.severity, Severity::Note);
  EXPECT_EQ(note.loc.place, Place::expr(3));
  EXPECT_NE(note.message.find("expr 3 (cast) reaches no fusion output"), std::string::npos) << note.message;
  EXPECT_EQ(r.diagnostics[1].code, DiagCode::UnboundExtent);
  EXPECT_EQ(r.verdict(), Verdict::Findings);
  // The segments are the seed's; they name exprs of the fusion that ran, which maps to the repro's.
  const Fusion& ran = r.fusion(f);
  EXPECT_EQ(ran.exprs.size(), 7u);
  ASSERT_EQ(r.segmented.segments.size(), 3u);
  std::vector<ExprId> last;
  for (ExprId e : r.segmented.segments[2].exprs) last.push_back(userExprId(ran, e));
  EXPECT_EQ(last, (std::vector<ExprId>{5, 4, 6, 7}));
}

TEST(LiveExprs, AReproWithItsOwnSegmentationIsTakenAsItIs) {
  Fusion f = test::loadVerified(kUnusedCast);
  Segmentation s;
  s.segments.push_back(SegmentSpec{{0, 1, 2, 3, 4, 5, 6, 7}});
  f.segmentation = s;
  PipelineOptions o;
  o.profile = test::eraProfile(f, "2024-06");
  PipelineResult r = runPipeline(f, o);
  for (const Diagnostic& d : r.diagnostics) EXPECT_NE(d.code, DiagCode::DeadExpr) << d.message;
  EXPECT_EQ(r.fusion(f).exprs.size(), f.exprs.size());
}

}  // namespace
}  // namespace fc
