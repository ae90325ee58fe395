// Exact-map propagation in bindView: a known extent reaches every extent
// exact-mapped to it, however the view's exprs are ordered.
#include "analysis/binding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/binding_steps.h"
#include "profile_util.h"

namespace fc {
namespace {

// T0 -> set -> T1 -> set -> ... -> Tn, one fresh symbolic extent per tensor.
Fusion setChain(size_t n) {
  Fusion f;
  for (size_t k = 0; k <= n; ++k) {
    ScalarId s = f.addSymbol("i" + std::to_string(k));
    AxisId a = f.addAxis(static_cast<uint32_t>(k), IterType::Iteration, ParallelType::Serial, s);
    f.addTensor("T" + std::to_string(k), DType::Float, MemoryType::Local, {a});
  }
  for (size_t k = 0; k < n; ++k)
    f.addExpr(OpKind::Set, {ValueRef::tensor(static_cast<TensorId>(k))}, {static_cast<TensorId>(k + 1)});
  f.inputs.push_back(ValueRef::tensor(0));
  f.outputs.push_back(static_cast<TensorId>(n));
  return f;
}

// Binds T0's extent to 5 through the view's exprs in `order`; returns how
// many extents of the chain end up known with the value 5.
size_t boundExtents(const Fusion& f, const std::vector<ExprId>& order, ScalarEval& ev, DiagnosticSink& sink) {
  BindRequest req;
  req.did = DidBindingRule::MeshSizeLocalOne;
  req.tensors.push_back(BoundInput{0, f.tensors[0].logical, std::vector<int64_t>{5}, false});
  req.exprs = order;
  bindView(f, req, ev, sink);
  size_t n = 0;
  for (const Tensor& t : f.tensors)
    if (ev.value(f.axes[t.logical[0]].extent) == std::optional<int64_t>(5)) ++n;
  return n;
}

TEST(ExactMap, ForwardChainIsBoundInOneRound) {
  Fusion f = setChain(200);
  std::vector<ExprId> order;
  for (ExprId e = 0; e < f.exprs.size(); ++e) order.push_back(e);
  ScalarEval ev(f);
  DiagnosticSink sink;
  EXPECT_EQ(boundExtents(f, order, ev, sink), 201u);
  EXPECT_FALSE(sink.hasErrors());
}

// Listed backwards, each round of a sweep over the pairs could only copy the
// value one hop further: the sweeps were capped at 64 rounds and left the
// last 136 extents of this chain unbound (T65..T200). The worklist follows
// the chain to its end.
TEST(ExactMap, BackwardsChainLongerThan64IsBoundToItsEnd) {
  Fusion f = setChain(200);
  std::vector<ExprId> order;
  for (ExprId e = static_cast<ExprId>(f.exprs.size()); e-- > 0;) order.push_back(e);
  ScalarEval ev(f);
  DiagnosticSink sink;
  EXPECT_EQ(boundExtents(f, order, ev, sink), 201u);
  EXPECT_FALSE(sink.hasErrors());
  // Provenance: each extent was copied from its producer, through the expr
  // that relates them.
  const Origin& o = ev.origin(f.axes[f.tensors[200].logical[0]].extent);
  EXPECT_EQ(o.kind, Origin::Kind::ExactMap);
  EXPECT_EQ(o.via_expr, 199u);
  EXPECT_EQ(o.via_axis, f.tensors[199].logical[0]);
}

// Complexity (as tests/perf, from step counts): round-by-round sweeps over
// all pairs would be quadratic on the backwards chain without a cap (and
// wrong with one); the worklist visits each pair a bounded number of times.
TEST(ExactMap, BackwardsChainStepsAreLinear) {
  auto steps = [](size_t n) {
    Fusion f = setChain(n);
    std::vector<ExprId> order;
    for (ExprId e = static_cast<ExprId>(f.exprs.size()); e-- > 0;) order.push_back(e);
    ScalarEval ev(f);
    DiagnosticSink sink;
    steps::exact_map_steps = 0;
    EXPECT_EQ(boundExtents(f, order, ev, sink), n + 1);
    return steps::exact_map_steps;
  };
  uint64_t small = steps(500), big = steps(2000);
  ASSERT_GT(small, 0u);
  EXPECT_LE(static_cast<double>(big) / static_cast<double>(small), 4.0 * 1.3) << small << " -> " << big;
}

// A derived extent becomes known when its operands do, and then its own
// pairs propagate: T1's extent is i0 + 0; i0 is bound only by the second
// pair (T0 -> T3), after the first pair (T1 -> T2) was visited.
TEST(ExactMap, DerivedExtentWakesItsPairs) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  ScalarId zero = f.addConstInt(0);
  ScalarId d = f.addDerived(ScalarOp::Add, i0, zero);
  ScalarId i2 = f.addSymbol("i2");
  ScalarId i5 = f.addSymbol("i5");
  AxisId a0 = f.addAxis(0, IterType::Iteration, ParallelType::Serial, i5);
  AxisId a1 = f.addAxis(1, IterType::Iteration, ParallelType::Serial, d);
  AxisId a2 = f.addAxis(2, IterType::Iteration, ParallelType::Serial, i2);
  AxisId a3 = f.addAxis(3, IterType::Iteration, ParallelType::Serial, i0);
  f.addTensor("T0", DType::Float, MemoryType::Local, {a0});
  f.addTensor("T1", DType::Float, MemoryType::Local, {a1});
  f.addTensor("T2", DType::Float, MemoryType::Local, {a2});
  f.addTensor("T3", DType::Float, MemoryType::Local, {a3});
  f.addExpr(OpKind::Set, {ValueRef::tensor(1)}, {2});  // T1 -> T2: d ~ i2
  f.addExpr(OpKind::Set, {ValueRef::tensor(0)}, {3});  // T0 -> T3: i5 ~ i0
  f.inputs.push_back(ValueRef::tensor(0));
  BindRequest req;
  req.did = DidBindingRule::MeshSizeLocalOne;
  req.tensors.push_back(BoundInput{0, {a0}, std::vector<int64_t>{7}, false});
  req.exprs = {0, 1};
  ScalarEval ev(f);
  DiagnosticSink sink;
  bindView(f, req, ev, sink);
  EXPECT_EQ(ev.value(i0), std::optional<int64_t>(7));
  EXPECT_EQ(ev.value(d), std::optional<int64_t>(7));
  EXPECT_EQ(ev.value(i2), std::optional<int64_t>(7));
  EXPECT_EQ(ev.origin(i2).via_expr, 0u);
  EXPECT_FALSE(sink.hasErrors());
}

}  // namespace
}  // namespace fc
