// The op rules on their own (ir/verifier_ops.h): a fusion, an expr and the
// folded scalar constants in, findings out through a Reporter, with no
// other verifier state.
#include "ir/verifier_ops.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "diag/diagnostic.h"
#include "io/place_pointer.h"
#include "ir/fusion.h"
#include "ir/verifier_report.h"

namespace fc {
namespace {

using verify::checkOp;
using verify::SinkReporter;
using verify::SpeculativeReporter;

// T2 = add(T0, T1) over [4, 3] Float tensors; `out` is T2's dtype.
struct AddFusion {
  Fusion f;
  ExprId add = kNone;
  TensorId out = kNone;
};

AddFusion makeAdd(DType out) {
  AddFusion a;
  Fusion& f = a.f;
  const ScalarId four = f.addConstInt(4), three = f.addConstInt(3);
  uint32_t number = 0;
  auto tensor = [&](const char* name, DType dt) {
    return f.addTensor(name, dt, MemoryType::Global,
                       {f.addAxis(number++, IterType::Iteration, ParallelType::Serial, four),
                        f.addAxis(number++, IterType::Iteration, ParallelType::Serial, three)});
  };
  const TensorId t0 = tensor("T0", DType::Float), t1 = tensor("T1", DType::Float);
  a.out = tensor("T2", out);
  a.add = f.addExpr(OpKind::Add, {ValueRef::tensor(t0), ValueRef::tensor(t1)}, {a.out});
  return a;
}

// No folded constants: every scalar unknown.
std::vector<std::optional<int64_t>> noConstants(const Fusion& f) {
  return std::vector<std::optional<int64_t>>(f.scalars.size());
}

TEST(VerifierOps, ACleanExprReportsNothing) {
  AddFusion a = makeAdd(DType::Float);
  DiagnosticSink sink;
  SinkReporter r(sink, "x.json");
  checkOp(a.f, a.add, noConstants(a.f), r);
  EXPECT_TRUE(sink.all().empty());
  EXPECT_EQ(r.found(), 0u);
}

TEST(VerifierOps, AWrongOutputDTypeIsOneLocatedFinding) {
  AddFusion a = makeAdd(DType::Int);
  DiagnosticSink sink;
  SinkReporter r(sink, "x.json");
  checkOp(a.f, a.add, noConstants(a.f), r);
  ASSERT_EQ(sink.all().size(), 1u);
  const Diagnostic& d = sink.all()[0];
  EXPECT_EQ(d.code, DiagCode::DTypeMismatch);
  EXPECT_EQ(d.loc.file, "x.json");
  EXPECT_EQ(d.loc.place, Place::tensor(a.out).key(PlaceField::Dtype));
  EXPECT_EQ(jsonPointer(d.loc.place), "/tensors/" + std::to_string(a.out) + "/dtype");
  EXPECT_EQ(r.found(), 1u);
}

TEST(VerifierOps, ASpeculativeReporterOnlyCounts) {
  AddFusion a = makeAdd(DType::Int);
  SpeculativeReporter r;
  checkOp(a.f, a.add, noConstants(a.f), r);
  EXPECT_EQ(r.found(), 1u);
}

// squeeze reads the folded extents: an axis of constant extent 3 cannot be
// squeezed; an extent that is not known to be a constant can.
TEST(VerifierOps, SqueezeReadsTheFoldedConstants) {
  Fusion f;
  const ScalarId n = f.addSymbol("n"), m = f.addSymbol("m");
  const TensorId in = f.addTensor("T0", DType::Float, MemoryType::Global,
                                  {f.addAxis(0, IterType::Iteration, ParallelType::Serial, n),
                                   f.addAxis(1, IterType::Iteration, ParallelType::Serial, m)});
  const TensorId out = f.addTensor("T1", DType::Float, MemoryType::Global,
                                   {f.addAxis(2, IterType::Iteration, ParallelType::Serial, m)});
  Attrs attrs;
  attrs.dims = {0};
  const ExprId sq = f.addExpr(OpKind::Squeeze, {ValueRef::tensor(in)}, {out}, attrs);
  std::vector<std::optional<int64_t>> constants = noConstants(f);
  {
    DiagnosticSink sink;
    SinkReporter r(sink, "");
    checkOp(f, sq, constants, r);
    EXPECT_TRUE(sink.all().empty());
  }
  constants[n] = 3;
  DiagnosticSink sink;
  SinkReporter r(sink, "");
  checkOp(f, sq, constants, r);
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].code, DiagCode::ExtentMismatch);
  EXPECT_EQ(jsonPointer(sink.all()[0].loc.place), "/exprs/" + std::to_string(sq) + "/dims/0");
}

}  // namespace
}  // namespace fc
