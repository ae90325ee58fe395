// The random fusion generator, the differential checks and validated fixes
// (src/difftest, src/driver/difftest.h, src/rewrite/fixes.h).
#include "driver/difftest.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "difftest/random_fusion.h"
#include "driver/run.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "profile_util.h"
#include "rewrite/fixes.h"

namespace fc {
namespace {

Fusion load(const std::string& rel) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(std::string(FC_SOURCE_DIR) + "/" + rel, sink, src);
  EXPECT_TRUE(f.has_value()) << rel;
  return f ? *f : Fusion{};
}

PipelineResult pipeline(const Fusion& f, const std::string& e) {
  PipelineOptions po;
  po.profile = test::eraProfile(f, e);
  return runPipeline(f, po);
}

TEST(RandomFusion, DeterministicPerSeed) {
  for (uint64_t s : {0ull, 1ull, 77ull, 123456789ull}) {
    std::string a = writeFusion(difftest::randomFusion({s, 12}));
    std::string b = writeFusion(difftest::randomFusion({s, 12}));
    EXPECT_EQ(a, b) << "seed " << s;
  }
  EXPECT_NE(writeFusion(difftest::randomFusion({1, 12})), writeFusion(difftest::randomFusion({2, 12})));
}

TEST(RandomFusion, WellFormedAndVaried) {
  size_t sharded = 0, matmuls = 0, reshapes = 0, reductions = 0, value_uses = 0;
  for (uint64_t s = 0; s < 300; ++s) {
    Fusion f = difftest::randomFusion({s, 12});
    DiagnosticSink sink;
    ASSERT_TRUE(verifyFusion(f, sink)) << "seed " << s << ": " << sink.all().front().message;
    sharded += !f.meshes.empty();
    for (const Expr& e : f.exprs) {
      matmuls += e.op == OpKind::Matmul || e.op == OpKind::Linear;
      reshapes += e.op == OpKind::Reshape;
      reductions += e.op == OpKind::Sum || e.op == OpKind::Mean || e.op == OpKind::Max;
      value_uses += std::any_of(e.inputs.begin(), e.inputs.end(), [&](const ValueRef& v) {
        return v.isScalar() && f.scalars[v.id].kind != ScalarKind::Constant;
      });
    }
  }
  EXPECT_GT(sharded, 100u);
  EXPECT_GT(matmuls, 100u);
  EXPECT_GT(reshapes, 100u);
  EXPECT_GT(reductions, 200u);
  EXPECT_GT(value_uses, 50u);
}

TEST(DiffTest, SeedCaseIsExplainedAndFixed) {
  Fusion f = load("fixtures/seed/matmul_allreduce_bias.json");
  difftest::CheckResult r = difftest::checkFusion(f, {"2024-06", "2024-07", "head"});
  for (const auto& x : r.findings) ADD_FAILURE() << x.check << " " << x.era << ": " << x.message;
  EXPECT_EQ(r.eras[0].explained, 1u);
  EXPECT_EQ(r.eras[0].fixed, 1u);
  EXPECT_EQ(r.eras[1].run, 1u);
  EXPECT_EQ(r.eras[2].run, 1u);
}

TEST(DiffTest, BatchIsDeterministicAndClean) {
  difftest::FuzzOptions o;
  o.seed = 1000;
  o.count = 60;
  difftest::FuzzReport a = difftest::runFuzz(o), b = difftest::runFuzz(o);
  EXPECT_EQ(a.fusions, 60u);
  EXPECT_EQ(difftest::renderFuzzJson(a, {}).substr(0, 0), "");
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(a.eras[k].run, b.eras[k].run);
    EXPECT_EQ(a.eras[k].explained, b.eras[k].explained);
    EXPECT_EQ(a.eras[k].not_decided, b.eras[k].not_decided);
    EXPECT_EQ(a.eras[k].run + a.eras[k].explained + a.eras[k].unexplained + a.eras[k].not_decided +
                  a.eras[k].no_path,
              60u);
  }
  EXPECT_EQ(a.findings_total, b.findings_total);
  for (const auto& x : a.findings) ADD_FAILURE() << "seed " << x.seed << " " << x.check << ": " << x.message;
}

// Validated fixes: the obligation of strip-reduction-axes on the seed holds
// (i0 only sizes rS14), and fails where i0 is used as a value.
TEST(ValidatedFix, SeedObligationHolds) {
  Fusion f = load("fixtures/seed/matmul_allreduce_bias.json");
  PipelineResult pr = pipeline(f, "2024-06");
  FixResult fr = applyFixes(f, pr, FixKind::Auto, "seed.json");
  ASSERT_TRUE(fr.changed);
  ASSERT_EQ(fr.obligations.size(), 1u);
  EXPECT_TRUE(fr.obligations[0].holds);
  EXPECT_EQ(fr.obligations[0].segment, 2u);
  EXPECT_EQ(fr.obligations[0].tensor, "T5");
  EXPECT_NE(
      fr.obligations[0].discharge.find("no scalar operand, attribute or axis extent of segment 2 uses i0"),
      std::string::npos)
      << fr.obligations[0].discharge;
  EXPECT_TRUE(fr.refusals.empty());
}

TEST(ValidatedFix, ValueUseRefusesStrip) {
  Fusion f = load("fixtures/analysis/mean_across_edge.json");
  PipelineResult pr = pipeline(f, "2024-06");
  // On the MultiDeviceExecutor at 2024-06-30 the failure is the executor's
  // missing buffer for i0 (FC0310), which stripping Reduction axes does not
  // address: nothing to strip.
  FixResult fr = applyFixes(f, pr, FixKind::StripReductionAxes, "mean.json");
  EXPECT_FALSE(fr.changed);
  std::vector<Obligation> obl = stripObligations(f, pr.segmented);
  ASSERT_EQ(obl.size(), 1u);
  EXPECT_FALSE(obl[0].holds);  // i0 is used as a value
  // Auto forwards i0 instead, and the repaired program computes the reference.
  FixResult fa = applyFixes(f, pr, FixKind::Auto, "mean.json");
  EXPECT_TRUE(fa.changed);
  EXPECT_TRUE(fa.refusals.empty());
  RunOptions ro;
  ro.profile = test::eraProfile(f, "2024-06");
  ro.against = &f;
  RunResult r = runFusion(fa.fixed, ro);
  EXPECT_TRUE(r.passed);
}

// A fill value computed from i0 (i0 * 0.5, Double): the pipeline must see the
// use (it skipped floating fill values before), so the strip is refused.
TEST(ValidatedFix, FloatingFillValueUsesTheSymbol) {
  Fusion f = load("fixtures/fuzz/strip_refused_fill_value.json");
  PipelineResult pr = pipeline(f, "2024-06");
  ASSERT_EQ(pr.unbound.size(), 1u);
  EXPECT_TRUE(pr.unbound[0].needed);
  EXPECT_FALSE(pr.unbound[0].strip_applies);
  std::vector<Obligation> obl = stripObligations(f, pr.segmented);
  ASSERT_EQ(obl.size(), 1u);
  EXPECT_FALSE(obl[0].holds);
  ASSERT_FALSE(obl[0].uses.empty());
  EXPECT_NE(obl[0].uses[0].find("(full): value"), std::string::npos) << obl[0].uses[0];
  FixResult fr = applyFixes(f, pr, FixKind::StripReductionAxes, "fill.json");
  EXPECT_FALSE(fr.changed);
  FixResult fa = applyFixes(f, pr, FixKind::Auto, "fill.json");
  ASSERT_TRUE(fa.changed);
  EXPECT_FALSE(pipeline(fa.fixed, "2024-06").failed());
}

// Stripping where the era already runs changes no value (the fuzzer's
// "strip" check), on a fusion with a Reduction axis on a segment edge.
TEST(ValidatedFix, WithStrippedInputsComputesTheSameValues) {
  Fusion f = load("fixtures/seed/matmul_allreduce_bias.json");
  PipelineResult pr = pipeline(f, "2024-06");
  auto s = withStrippedInputs(f, pr);
  ASSERT_TRUE(s.has_value());
  RunOptions ro;
  ro.profile = test::eraProfile(f, "2024-06");
  ro.against = &f;
  EXPECT_TRUE(runFusion(*s, ro).passed);
}

}  // namespace
}  // namespace fc
