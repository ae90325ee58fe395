// The verifier's checks run first in chunks on several threads for a
// large fusion (ir/verifier_chunks.cpp), and again in the sequential order
// when a chunk finds anything (ir/verifier.cpp). For any thread count the
// diagnostics must be the sequential ones, in the same order, with the
// same suppression of follow-on findings. Each case verifies the same fusion
// with threads = 1 and with 2, 3 and 7 threads, the size threshold lowered
// to 0 so that small fusions take the chunked path too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "diag/render.h"
#include "io/place_pointer.h"
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
    EXPECT_EQ(spelledJson(sn.all()), spelledJson(s1.all()));
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
  // The checks before them were clean and the exprs are in id order: the
  // topological order is built for the rerun only.
  EXPECT_TRUE(st.checks_in_chunks);
  EXPECT_FALSE(st.chunks_rerun);
  EXPECT_TRUE(st.order_built);
}

// Findings in every group of checks that run on two threads before the op
// checks when the chunks found something (ir/verifier.cpp,
// runChecksInTwoGroups): a dangling axis
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
  EXPECT_TRUE(st.checks_in_chunks);
  EXPECT_TRUE(st.chunks_rerun);
  EXPECT_TRUE(st.checks_in_groups);
  EXPECT_TRUE(st.scalars_rerun);
}

// A clean fusion is checked in chunks once: no groups, and exprs in id
// order need no topological order at all.
TEST(VerifierParallel, CleanFusionsAreCheckedInChunksOnce) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  o.sharded = true;
  VerifyStats st = expectSameOnAnyThreadCount(synth::transformer(o), "tensor-parallel");
  EXPECT_TRUE(st.checks_in_chunks);
  EXPECT_FALSE(st.chunks_rerun);
  EXPECT_FALSE(st.checks_in_groups);
  EXPECT_FALSE(st.order_built);
}

// One finding of each kind that a chunk of the checks before the op checks
// detects on its own (a shared slot claimed twice, or a check of one
// element), planted in a clean fusion one at a time: the chunks must see
// it, so that the checks run again and report it as on one thread.
TEST(VerifierParallel, EachChunkFindingMakesTheChecksRunAgain) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  const Fusion clean = synth::transformer(o);
  const size_t mid_t = clean.tensors.size() / 2, mid_e = clean.exprs.size() / 2;
  const std::vector<std::pair<std::string, std::function<void(Fusion&)>>> plants = {
      {"an axis in two tensors", [&](Fusion& f) { f.tensors[mid_t].logical[0] = f.tensors[2].logical[0]; }},
      {"a tensor name twice", [&](Fusion& f) { f.tensors[mid_t].name = f.tensors[mid_t + 1].name; }},
      {"an axis number twice", [&](Fusion& f) { f.axes[f.axes.size() - 1].number = f.axes[5].number; }},
      {"a tensor produced twice", [&](Fusion& f) { f.exprs[mid_e].outputs = f.exprs[mid_e - 40].outputs; }},
      {"a fusion input listed twice", [&](Fusion& f) { f.inputs.push_back(f.inputs.front()); }},
      {"a fusion input produced",
       [&](Fusion& f) { f.inputs.push_back(ValueRef::tensor(f.exprs[mid_e].outputs[0])); }},
      {"a negative constant extent",
       [&](Fusion& f) { f.axes[f.tensors[mid_t].logical[0]].extent = f.addConstInt(-4); }},
      {"an axis twice in one domain",
       [&](Fusion& f) {
         Tensor& t = f.tensors[mid_t];
         t.logical.push_back(t.logical[0]);
       }},
      {"a dangling expr input",
       [&](Fusion& f) {
         f.exprs[mid_e].inputs[0] = ValueRef::tensor(static_cast<TensorId>(f.tensors.size()));
       }},
      {"a use of an undefined tensor",
       [&](Fusion& f) {
         const Tensor& like = f.tensors[f.exprs[mid_e].outputs[0]];
         std::vector<AxisId> axes;
         for (AxisId a : like.logical) {
           const Axis& ax = f.axes[a];
           axes.push_back(
               f.addAxis(static_cast<uint32_t>(f.axes.size() + 100000), ax.iter, ax.parallel, ax.extent));
         }
         f.exprs[mid_e].inputs[0] =
             ValueRef::tensor(f.addTensor("T_undefined", like.dtype, like.memory, axes));
       }},
      {"a fusion output nothing produces",
       [&](Fusion& f) {
         std::vector<AxisId> axes{f.addAxis(static_cast<uint32_t>(f.axes.size() + 100000),
                                            IterType::Iteration, ParallelType::Serial, f.addConstInt(3))};
         f.outputs.push_back(f.addTensor("T_lonely", DType::Float, MemoryType::Global, axes));
       }},
  };
  for (const auto& [what, plant] : plants) {
    Fusion f = clean;
    plant(f);
    ASSERT_TRUE(verifiedOnOneThread(f).hasErrors()) << what;
    VerifyStats st = expectSameOnAnyThreadCount(f, what);
    EXPECT_TRUE(st.checks_in_chunks) << what;
    EXPECT_TRUE(st.chunks_rerun) << what;
    EXPECT_TRUE(st.checks_in_groups) << what;
  }
}

// The concrete inputs are checked in chunks too: each finding planted in
// a clean fusion is reported as on one thread.
TEST(VerifierParallel, ConcreteInputFindingsAsOnOneThread) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  const Fusion clean = synth::transformer(o);
  ASSERT_GT(clean.concrete_inputs.size(), 10u);
  const size_t mid = clean.concrete_inputs.size() / 2;
  const std::vector<std::pair<std::string, std::function<void(Fusion&)>>> plants = {
      {"described twice", [&](Fusion& f) { f.concrete_inputs.push_back(f.concrete_inputs[mid]); }},
      {"one size too many", [&](Fusion& f) { f.concrete_inputs[mid].shape.push_back(2); }},
      {"a negative size", [&](Fusion& f) { f.concrete_inputs[mid].shape[0] = -3; }},
      {"sizes that overflow",
       [&](Fusion& f) {
         for (int64_t& d : f.concrete_inputs[mid].shape) d = int64_t{1} << 40;
       }},
      {"strides of another rank", [&](Fusion& f) { f.concrete_inputs[mid].strides = {1, 1, 1, 1, 1, 1, 1}; }},
      {"not a fusion input",
       [&](Fusion& f) { f.concrete_inputs[mid].value = ValueRef::tensor(f.exprs[5].outputs[0]); }},
  };
  for (const auto& [what, plant] : plants) {
    Fusion f = clean;
    plant(f);
    ASSERT_TRUE(verifiedOnOneThread(f).hasErrors()) << what;
    expectSameOnAnyThreadCount(f, what);
  }
}

// Exprs listed out of topological order: the chunks stay clean, the
// order is built, and a cycle among them is a finding of the chunks,
// reported as on one thread.
TEST(VerifierParallel, ExprsOutOfIdOrderAreOrderedAndCyclesFound) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  Fusion f = synth::transformer(o);
  std::reverse(f.exprs.begin(), f.exprs.end());
  ASSERT_FALSE(verifiedOnOneThread(f).hasErrors());
  VerifyStats st = expectSameOnAnyThreadCount(f, "reversed");
  EXPECT_TRUE(st.checks_in_chunks);
  EXPECT_FALSE(st.chunks_rerun);
  EXPECT_TRUE(st.order_built);
  // A consumer's output fed back into its producer closes a cycle.
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    Expr& x = f.exprs[e];
    if (x.inputs.empty() || !x.inputs[0].isTensor() || x.outputs.size() != 1) continue;
    const TensorId in = x.inputs[0].id;
    auto producer = std::find_if(f.exprs.begin(), f.exprs.end(), [&](const Expr& p) {
      return std::find(p.outputs.begin(), p.outputs.end(), in) != p.outputs.end();
    });
    if (producer == f.exprs.end() || producer->inputs.empty() || !producer->inputs[0].isTensor()) continue;
    if (f.tensors[producer->inputs[0].id].dtype != f.tensors[x.outputs[0]].dtype) continue;
    producer->inputs[0] = ValueRef::tensor(x.outputs[0]);
    break;
  }
  DiagnosticSink one = verifiedOnOneThread(f);
  ASSERT_TRUE(one.hasErrors());
  EXPECT_EQ(one.all().front().code, DiagCode::Cycle);
  VerifyStats cyclic = expectSameOnAnyThreadCount(f, "reversed, with a cycle");
  EXPECT_TRUE(cyclic.chunks_rerun);
}

}  // namespace
}  // namespace fc
