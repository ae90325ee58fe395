// The verifier's op checks run in chunks on several threads for a large
// fusion (ir/verifier.cpp, checkOps). For any thread count the diagnostics
// must be the sequential ones, in the same order, with the same
// suppression of follow-on findings. Each case verifies the same fusion
// with threads = 1 and with 2, 3 and 7 threads, the size threshold lowered
// to 0 so that small fusions take the chunked path too.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "diag/render.h"
#include "io/reader.h"
#include "io/writer.h"
#include "io_test_util.h"
#include "ir/verifier.h"
#include "synth.h"

namespace fc {
namespace {

// The findings of the one-thread verifier.
DiagnosticSink verifiedOnOneThread(const Fusion& f) {
  DiagnosticSink s;
  VerifyOptions one;
  one.threads = 1;
  verifyFusion(f, s, "", one);
  return s;
}

// Verifies `f` on one thread and in chunks; returns what the 3-thread run did.
VerifyStats expectSameOnAnyThreadCount(const Fusion& f, const std::string& what) {
  SCOPED_TRACE(what);
  VerifyOptions one;
  one.threads = 1;
  DiagnosticSink s1;
  bool ok1 = verifyFusion(f, s1, "x.json", one);
  VerifyStats stats3;
  for (unsigned threads : {2u, 3u, 7u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    VerifyOptions many;
    many.threads = threads;
    many.parallel_min_exprs = 0;
    VerifyStats st;
    many.stats = &st;
    DiagnosticSink sn;
    EXPECT_EQ(verifyFusion(f, sn, "x.json", many), ok1);
    EXPECT_EQ(renderJson(sn.all()), renderJson(s1.all()));
    if (threads == 3) stats3 = st;
  }
  return stats3;
}

TEST(VerifierParallel, EveryFixtureVerifiesTheSameOnAnyThreadCount) {
  size_t read = 0, with_errors = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::fixturePath("fixtures"))) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    auto r = testing::readText(testing::slurp(e.path().string()));
    if (!r.fusion) continue;
    ++read;
    DiagnosticSink s;
    if (!verifyFusion(*r.fusion, s)) ++with_errors;
    expectSameOnAnyThreadCount(*r.fusion, e.path().string());
  }
  EXPECT_GT(read, 50u);
  EXPECT_GT(with_errors, 10u);  // the invalid/ fixtures: op errors among them
}

TEST(VerifierParallel, CleanSyntheticFusionsStayInChunks) {
  for (bool sharded : {false, true}) {
    synth::TransformerOptions o;
    o.exprs = 3000;
    o.sharded = sharded;
    Fusion f = synth::transformer(o);
    VerifyStats st = expectSameOnAnyThreadCount(f, sharded ? "tensor-parallel" : "transformer");
    EXPECT_TRUE(st.ops_in_chunks);
    EXPECT_FALSE(st.ops_rerun);
  }
  // The default threshold keeps small fusions on one thread.
  VerifyStats st;
  VerifyOptions o;
  o.threads = 4;
  o.stats = &st;
  DiagnosticSink s;
  EXPECT_TRUE(verifyFusion(synth::linearRelu(30), s, "", o));
  EXPECT_FALSE(st.ops_in_chunks);
}

// Op errors in different chunks, one of them feeding later ops: the rerun
// on one thread reports them in order and suppresses the follow-on
// findings of consumers, exactly as the sequential verifier does.
TEST(VerifierParallel, OpErrorsAreReportedAsOnOneThread) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  Fusion f = synth::transformer(o);
  size_t changed = 0;
  for (size_t at : {f.exprs.size() / 5, f.exprs.size() / 2, 4 * f.exprs.size() / 5}) {
    // The first elementwise expr from `at` on gets an output of another dtype.
    for (size_t e = at; e < f.exprs.size(); ++e) {
      Expr& x = f.exprs[e];
      if (x.outputs.size() != 1 || opInfo(x.op).category != OpCategory::Binary) continue;
      Tensor& t = f.tensors[x.outputs[0]];
      t.dtype = t.dtype == DType::Float ? DType::Int : DType::Float;
      ++changed;
      break;
    }
  }
  ASSERT_EQ(changed, 3u);
  ASSERT_TRUE(verifiedOnOneThread(f).hasErrors());
  VerifyStats st = expectSameOnAnyThreadCount(f, "three dtype errors");
  EXPECT_TRUE(st.ops_in_chunks);
  EXPECT_TRUE(st.ops_rerun);
}

// Findings in every group of checks that run on two threads before the op
// checks (ir/verifier.cpp, runChecksInTwoGroups): a dangling axis
// (claimAxes), a dangling scalar operand (the speculative scalar checks,
// which must then run again), a float extent (axes group), a dangling expr
// operand and a second definition (exprs group). The order and the
// suppression must be the one-thread verifier's.
TEST(VerifierParallel, FindingsOfBothGroupsComeInTheOneThreadOrder) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  Fusion f = synth::transformer(o);
  const TensorId late = static_cast<TensorId>(f.tensors.size() - 3);
  f.tensors[late].logical.push_back(static_cast<AxisId>(f.axes.size() + 7));
  f.addDerived(ScalarOp::Add, f.axes[0].extent, static_cast<ScalarId>(f.scalars.size() + 1000));
  const ScalarId fl = f.addConstFloat(2.5, DType::Float);
  f.axes[f.tensors[f.tensors.size() / 2].logical[0]].extent = fl;
  Expr& x = f.exprs[f.exprs.size() / 3];
  x.inputs.push_back(ValueRef::tensor(static_cast<TensorId>(f.tensors.size() + 5)));
  f.exprs[2 * f.exprs.size() / 3].outputs = f.exprs[f.exprs.size() / 4].outputs;
  DiagnosticSink s = verifiedOnOneThread(f);
  ASSERT_TRUE(s.hasErrors());
  std::set<DiagCode> codes;
  for (const Diagnostic& d : s.all()) codes.insert(d.code);
  EXPECT_TRUE(codes.count(DiagCode::DanglingAxis));
  EXPECT_TRUE(codes.count(DiagCode::DanglingScalar));
  EXPECT_TRUE(codes.count(DiagCode::BadExtent));
  EXPECT_TRUE(codes.count(DiagCode::DanglingTensor));
  EXPECT_TRUE(codes.count(DiagCode::MultipleDefinitions));
  VerifyStats st = expectSameOnAnyThreadCount(f, "five findings");
  EXPECT_TRUE(st.checks_in_groups);
  EXPECT_TRUE(st.scalars_rerun);
}

TEST(VerifierParallel, CleanFusionsRunTheGroupsOnce) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  o.sharded = true;
  VerifyStats st = expectSameOnAnyThreadCount(synth::transformer(o), "tensor-parallel");
  EXPECT_TRUE(st.checks_in_groups);
  EXPECT_FALSE(st.scalars_rerun);
}

}  // namespace
}  // namespace fc
