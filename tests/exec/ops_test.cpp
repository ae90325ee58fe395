// One case per op kind of ir/ops.def, each checked on both references
// (Exact and Faithful) against hand-computed values; a last test asserts
// that every op kind has a case.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/op_eval.h"
#include "exec/reference.h"
#include "exec_test_util.h"
#include "support/internal_error.h"

namespace fc::exec {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

struct In {
  DType dtype = DType::Float;
  Shape shape;
  std::vector<double> data;
  bool scalar = false;  // a constant scalar operand: data[0]
};
In T(DType d, Shape s, std::vector<double> v) { return In{d, std::move(s), std::move(v), false}; }
In S(double v, DType d = DType::Double) { return In{d, {}, {v}, true}; }

struct Out {
  DType dtype = DType::Float;
  Shape shape;
  std::vector<double> exact;
  std::vector<double> faithful;  // empty: roundTo(dtype, exact) element-wise
};

struct Case {
  std::string name;
  OpKind op;
  std::vector<In> inputs;
  std::function<Attrs(Fusion&)> attrs;
  std::vector<Out> outs;
};

Attrs none(Fusion&) { return {}; }

std::vector<ScalarId> ints(Fusion& f, std::vector<int64_t> v) {
  std::vector<ScalarId> r;
  for (int64_t x : v) r.push_back(f.addConstInt(x));
  return r;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  auto unary = [&](std::string n, OpKind op, std::vector<double> x, std::vector<double> y,
                   DType od = DType::Double, std::vector<double> faithful = {}) {
    c.push_back({n,
                 op,
                 {T(DType::Double, {static_cast<int64_t>(x.size())}, x)},
                 none,
                 {{od, {static_cast<int64_t>(y.size())}, y, faithful}}});
  };
  // Data movement and casts.
  c.push_back(
      {"set", OpKind::Set, {T(DType::Half, {3}, {1.5, -2, 3})}, none, {{DType::Half, {3}, {1.5, -2, 3}}}});
  c.push_back({"segment_set",
               OpKind::SegmentSet,
               {T(DType::Float, {2}, {0.25, 7})},
               none,
               {{DType::Float, {2}, {0.25, 7}}}});
  c.push_back({"cast_to_half",
               OpKind::Cast,
               {T(DType::Double, {3}, {1.0 / 3.0, 70000, -2.5})},
               [](Fusion&) {
                 Attrs a;
                 a.dtype = DType::Half;
                 return a;
               },
               {{DType::Half, {3}, {1.0 / 3.0, 70000, -2.5}, {0.333251953125, kInf, -2.5}}}});
  c.push_back({"cast_to_int",
               OpKind::Cast,
               {T(DType::Float, {2}, {2.75, -2.75})},
               [](Fusion&) {
                 Attrs a;
                 a.dtype = DType::Int;
                 return a;
               },
               {{DType::Int, {2}, {2, -2}}}});
  // Unary math (fp64 inputs, Half outputs where rounding shows).
  unary("neg", OpKind::Neg, {1, -2}, {-1, 2});
  unary("abs", OpKind::Abs, {-1.5, 2}, {1.5, 2});
  unary("exp", OpKind::Exp, {0, 1}, {1, 2.718281828459045}, DType::Half, {1, 2.71875});
  unary("log", OpKind::Log, {1, 10}, {0, 2.302585092994046}, DType::Half, {0, 2.302734375});
  unary("sqrt", OpKind::Sqrt, {4, 2}, {2, 1.4142135623730951}, DType::Half, {2, 1.4140625});
  unary("rsqrt", OpKind::Rsqrt, {4, 0.25}, {0.5, 2});
  unary("tanh", OpKind::Tanh, {0, 0.5}, {0, 0.46211715726000974});
  unary("sigmoid", OpKind::Sigmoid, {0, 2}, {0.5, 0.8807970779778823}, DType::BFloat16, {0.5, 0.87890625});
  unary("relu", OpKind::Relu, {-1, 0, 2}, {0, 0, 2});
  unary("gelu", OpKind::Gelu, {1, -1}, {0.8413447460685429, -0.15865525393145707});
  c.push_back({"gelu_tanh",
               OpKind::Gelu,
               {T(DType::Double, {1}, {1})},
               [](Fusion&) {
                 Attrs a;
                 a.approximate_tanh = true;
                 return a;
               },
               {{DType::Double, {1}, {0.8411919906082768}}}});
  unary("silu", OpKind::Silu, {1, 0}, {0.7310585786300049, 0});
  unary("reciprocal", OpKind::Reciprocal, {4, -0.5}, {0.25, -2});
  unary("sin", OpKind::Sin, {0, M_PI / 2}, {0, 1});
  unary("cos", OpKind::Cos, {0, M_PI}, {1, -1});
  unary("erf", OpKind::Erf, {0, 0.5}, {0, 0.5204998778130465});
  unary("floor", OpKind::Floor, {-1.5, 2.5}, {-2, 2});
  unary("ceil", OpKind::Ceil, {-1.5, 2.5}, {-1, 3});
  c.push_back(
      {"logical_not", OpKind::LogicalNot, {T(DType::Bool, {2}, {1, 0})}, none, {{DType::Bool, {2}, {0, 1}}}});
  // Binary math.
  c.push_back({"add_broadcast",
               OpKind::Add,
               {T(DType::Float, {2, -2}, {1, 2}), T(DType::Float, {-2, 3}, {10, 20, 30})},
               none,
               {{DType::Float, {2, 3}, {11, 21, 31, 12, 22, 32}}}});
  c.push_back({"sub_scalar",
               OpKind::Sub,
               {T(DType::Float, {2}, {5, 7}), S(2.5)},
               none,
               {{DType::Float, {2}, {2.5, 4.5}}}});
  c.push_back({"mul_half",
               OpKind::Mul,
               {T(DType::Double, {2}, {0.1, 3}), T(DType::Double, {2}, {3, 3})},
               none,
               {{DType::Half, {2}, {0.30000000000000004, 9}, {0.300048828125, 9}}}});
  c.push_back({"div_float",
               OpKind::Div,
               {T(DType::Float, {2}, {1, -1}), T(DType::Float, {2}, {4, 0})},
               none,
               {{DType::Float, {2}, {0.25, -kInf}}}});
  c.push_back({"div_int_truncates",
               OpKind::Div,
               {T(DType::Int, {2}, {7, -7}), S(2, DType::Int)},
               none,
               {{DType::Int, {2}, {3, -3}}}});
  c.push_back({"pow",
               OpKind::Pow,
               {T(DType::Double, {2}, {2, 9}), T(DType::Double, {2}, {10, 0.5})},
               none,
               {{DType::Double, {2}, {1024, 3}}}});
  c.push_back({"maximum",
               OpKind::Maximum,
               {T(DType::Float, {3}, {1, kNaN, 3}), T(DType::Float, {3}, {2, 1, -1})},
               none,
               {{DType::Float, {3}, {2, kNaN, 3}}}});
  c.push_back({"minimum",
               OpKind::Minimum,
               {T(DType::Float, {3}, {1, kNaN, 3}), T(DType::Float, {3}, {2, 1, -1})},
               none,
               {{DType::Float, {3}, {1, kNaN, -1}}}});
  auto cmp = [&](std::string n, OpKind op, std::vector<double> y) {
    c.push_back({n,
                 op,
                 {T(DType::Float, {3}, {1, 2, 3}), T(DType::Float, {3}, {2, 2, 2})},
                 none,
                 {{DType::Bool, {3}, y}}});
  };
  cmp("eq", OpKind::Eq, {0, 1, 0});
  cmp("ne", OpKind::Ne, {1, 0, 1});
  cmp("lt", OpKind::Lt, {1, 0, 0});
  cmp("le", OpKind::Le, {1, 1, 0});
  cmp("gt", OpKind::Gt, {0, 0, 1});
  cmp("ge", OpKind::Ge, {0, 1, 1});
  c.push_back({"logical_and",
               OpKind::LogicalAnd,
               {T(DType::Bool, {4}, {1, 1, 0, 0}), T(DType::Bool, {4}, {1, 0, 1, 0})},
               none,
               {{DType::Bool, {4}, {1, 0, 0, 0}}}});
  c.push_back({"logical_or",
               OpKind::LogicalOr,
               {T(DType::Bool, {4}, {1, 1, 0, 0}), T(DType::Bool, {4}, {1, 0, 1, 0})},
               none,
               {{DType::Bool, {4}, {1, 1, 1, 0}}}});
  c.push_back({"where",
               OpKind::Where,
               {T(DType::Bool, {2}, {1, 0}), T(DType::Float, {2}, {1, 2}), S(9)},
               none,
               {{DType::Float, {2}, {1, 9}}}});
  // Shape ops.
  c.push_back({"broadcast",
               OpKind::Broadcast,
               {T(DType::Float, {3}, {1, 2, 3})},
               [](Fusion&) {
                 Attrs a;
                 a.flags = {true, false};
                 return a;
               },
               {{DType::Float, {1, 3}, {1, 2, 3}}}});
  c.push_back({"broadcast_in_dim",
               OpKind::BroadcastInDim,
               {T(DType::Float, {3}, {1, 2, 3})},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {2, 3});
                 a.dims = {1};
                 return a;
               },
               {{DType::Float, {2, 3}, {1, 2, 3, 1, 2, 3}}}});
  c.push_back({"expand",
               OpKind::Expand,
               {T(DType::Float, {-2, 3}, {1, 2, 3})},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {2, -1});
                 return a;
               },
               {{DType::Float, {2, 3}, {1, 2, 3, 1, 2, 3}}}});
  c.push_back({"squeeze",
               OpKind::Squeeze,
               {T(DType::Float, {1, 3}, {1, 2, 3})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 return a;
               },
               {{DType::Float, {3}, {1, 2, 3}}}});
  c.push_back({"permute",
               OpKind::Permute,
               {T(DType::Float, {2, 3}, {0, 1, 2, 3, 4, 5})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {1, 0};
                 return a;
               },
               {{DType::Float, {3, 2}, {0, 3, 1, 4, 2, 5}}}});
  c.push_back({"reshape",
               OpKind::Reshape,
               {T(DType::Float, {2, 3}, {0, 1, 2, 3, 4, 5})},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {3, -1});
                 return a;
               },
               {{DType::Float, {3, 2}, {0, 1, 2, 3, 4, 5}}}});
  c.push_back({"slice",
               OpKind::Slice,
               {T(DType::Float, {5}, {0, 1, 2, 3, 4})},
               [](Fusion& f) {
                 Attrs a;
                 a.ranges = {{f.addConstInt(1), f.addConstInt(-1), f.addConstInt(2)}};
                 return a;
               },
               {{DType::Float, {2}, {1, 3}}}});
  c.push_back({"pad",
               OpKind::Pad,
               {T(DType::Float, {1, 2}, {1, 2})},
               [](Fusion& f) {
                 Attrs a;
                 a.pad = ints(f, {1, 2, 1, 0});  // inner: lo 1 hi 2; outer: lo 1 hi 0
                 a.value = f.addConstFloat(0.5);
                 return a;
               },
               {{DType::Float, {2, 5}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 2, 0.5, 0.5}}}});
  c.push_back({"cat",
               OpKind::Cat,
               {T(DType::Float, {2, 1}, {1, 2}), T(DType::Float, {2, 2}, {3, 4, 5, 6})},
               [](Fusion&) {
                 Attrs a;
                 a.dim = -1;
                 return a;
               },
               {{DType::Float, {2, 3}, {1, 3, 4, 2, 5, 6}}}});
  // Reductions.
  c.push_back({"sum",
               OpKind::Sum,
               {T(DType::Half, {2, 3}, {1024, 0.5, 0.25, 1, 2, 3})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {1};
                 return a;
               },
               {{DType::Half, {2}, {1024.75, 6}, {1025, 6}}}});
  c.push_back({"sum_keepdim",
               OpKind::Sum,
               {T(DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 a.keepdim = true;
                 return a;
               },
               {{DType::Float, {1, 3}, {5, 7, 9}}}});
  c.push_back({"max",
               OpKind::Max,
               {T(DType::Float, {2, 2}, {1, 5, 3, 2})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 return a;
               },
               {{DType::Float, {2}, {3, 5}}}});
  c.push_back({"min",
               OpKind::Min,
               {T(DType::Float, {2, 2}, {1, 5, 3, 2})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {-1};
                 return a;
               },
               {{DType::Float, {2}, {1, 2}}}});
  c.push_back({"prod",
               OpKind::Prod,
               {T(DType::Float, {3}, {2, 3, 4})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 return a;
               },
               {{DType::Float, {}, {24}}}});
  c.push_back({"mean",
               OpKind::Mean,
               {T(DType::Float, {2, 2}, {1, 2, 3, 4})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0, 1};
                 a.keepdim = true;
                 return a;
               },
               {{DType::Float, {1, 1}, {2.5}}}});
  c.push_back({"var",
               OpKind::Var,
               {T(DType::Double, {4}, {1, 2, 3, 4})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 a.correction = 1;
                 return a;
               },
               {{DType::Half, {}, {1.6666666666666667}, {1.6669921875}}}});
  c.push_back({"var_mean",
               OpKind::VarMean,
               {T(DType::Float, {4}, {1, 2, 3, 4})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {0};
                 a.correction = 0;
                 return a;
               },
               {{DType::Float, {}, {1.25}}, {DType::Float, {}, {2.5}}}});
  // WelfordRaw: avg, the undivided sum of squared deviations, and the count (Index).
  c.push_back({"welford",
               OpKind::Welford,
               {T(DType::Float, {2, 3}, {1, 2, 3, 4, 6, 8})},
               [](Fusion&) {
                 Attrs a;
                 a.dims = {1};
                 return a;
               },
               {{DType::Float, {2}, {2, 6}}, {DType::Float, {2}, {2, 8}}, {DType::Index, {2}, {3, 3}}}});
  // Factories.
  c.push_back({"full",
               OpKind::Full,
               {},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {2});
                 a.value = f.addConstFloat(0.1);
                 a.dtype = DType::Half;
                 return a;
               },
               {{DType::Half, {2}, {0.1, 0.1}, {0.0999755859375, 0.0999755859375}}}});
  c.push_back({"zeros",
               OpKind::Zeros,
               {},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {2, 1});
                 return a;
               },
               {{DType::Float, {2, 1}, {0, 0}}}});
  c.push_back({"ones",
               OpKind::Ones,
               {},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {3});
                 return a;
               },
               {{DType::Int, {3}, {1, 1, 1}}}});
  c.push_back({"iota",
               OpKind::Iota,
               {},
               [](Fusion& f) {
                 Attrs a;
                 a.shape = ints(f, {4});
                 a.start = f.addConstFloat(1);
                 a.step = f.addConstFloat(0.5);
                 return a;
               },
               {{DType::Float, {4}, {1, 1.5, 2, 2.5}}}});
  // Matmul family (torch semantics).
  c.push_back({"matmul_2d",
               OpKind::Matmul,
               {T(DType::Half, {2, 3}, {1, 2, 3, 4, 5, 6}), T(DType::Half, {3, 2}, {7, 8, 9, 10, 11, 12})},
               none,
               {{DType::Half, {2, 2}, {58, 64, 139, 154}}}});
  c.push_back({"matmul_batch_broadcast",
               OpKind::Matmul,
               {T(DType::Float, {2, 1, 2}, {1, 2, 3, 4}), T(DType::Float, {2, 1}, {10, 1})},
               none,
               {{DType::Float, {2, 1, 1}, {12, 34}}}});
  c.push_back({"matmul_vec_mat",
               OpKind::Matmul,
               {T(DType::Float, {2}, {1, 2}), T(DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6})},
               none,
               {{DType::Float, {3}, {9, 12, 15}}}});
  c.push_back({"matmul_dot",
               OpKind::Matmul,
               {T(DType::Float, {3}, {1, 2, 3}), T(DType::Float, {3}, {4, 5, 6})},
               none,
               {{DType::Float, {}, {32}}}});
  c.push_back({"linear_bias",
               OpKind::Linear,
               {T(DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}), T(DType::Float, {2, 3}, {1, 0, 0, 0, 1, 0}),
                T(DType::Float, {2}, {10, 20})},
               none,
               {{DType::Float, {2, 2}, {11, 22, 14, 25}}}});
  return c;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

class OpCaseTest : public ::testing::TestWithParam<Case> {};

void runCase(const Case& k, Flavour flavour) {
  Fusion f;
  std::vector<ValueRef> operands;
  RunInputs in;
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const In& x = k.inputs[i];
    if (x.scalar) {
      operands.push_back(ValueRef::scalar(x.dtype == DType::Double
                                              ? f.addConstFloat(x.data[0])
                                              : f.addConstInt(static_cast<int64_t>(x.data[0]), x.dtype)));
      continue;
    }
    TensorId t = addTensor(f, "T" + std::to_string(i), x.dtype, x.shape);
    f.inputs.push_back(ValueRef::tensor(t));
    operands.push_back(ValueRef::tensor(t));
    InputValue iv;
    iv.dtype = x.dtype;
    std::vector<int64_t> sizes = x.shape;  // -2: a Broadcast axis of size 1
    for (auto& n : sizes)
      if (n == -2) n = 1;
    iv.global = HostTensor(x.dtype, sizes);
    ASSERT_EQ(iv.global.numel(), static_cast<int64_t>(x.data.size())) << k.name;
    for (size_t j = 0; j < x.data.size(); ++j) iv.global[j] = x.data[j];
    iv.local.push_back(iv.global);
    in.values.push_back(std::move(iv));
  }
  std::vector<TensorId> outs;
  for (size_t i = 0; i < k.outs.size(); ++i)
    outs.push_back(addTensor(f, "T" + std::to_string(10 + i), k.outs[i].dtype, k.outs[i].shape));
  f.addExpr(k.op, operands, outs, k.attrs(f));
  for (TensorId t : outs) f.outputs.push_back(t);
  ScalarValues sv(f);
  ReferenceResult r = runReference(f, in, sv, flavour, nullptr);
  for (size_t i = 0; i < k.outs.size(); ++i) {
    const Out& o = k.outs[i];
    ASSERT_TRUE(r.values[outs[i]].has_value());
    const HostTensor& got = *r.values[outs[i]];
    EXPECT_EQ(got.shape(), o.shape) << k.name;
    ASSERT_EQ(got.numel(), static_cast<int64_t>(o.exact.size())) << k.name;
    for (size_t j = 0; j < o.exact.size(); ++j) {
      double want = o.exact[j];
      if (flavour == Flavour::Faithful)
        want = o.faithful.empty() ? roundTo(o.dtype, o.exact[j]) : o.faithful[j];
      EXPECT_TRUE(same(got[j], want)) << k.name << (flavour == Flavour::Exact ? " exact" : " faithful")
                                      << " [" << j << "]: got " << got[j] << ", want " << want;
    }
  }
}

TEST_P(OpCaseTest, Exact) { runCase(GetParam(), Flavour::Exact); }
TEST_P(OpCaseTest, Faithful) { runCase(GetParam(), Flavour::Faithful); }

INSTANTIATE_TEST_SUITE_P(AllOps, OpCaseTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(Ops, EveryOpKindHasACase) {
  std::set<OpKind> covered;
  for (const Case& c : cases()) covered.insert(c.op);
  // Ops fusecheck imports and checks but does not execute (FC0909) have none.
  for (int i = 0; i < numOpKinds(); ++i)
    if (isExecuted(static_cast<OpKind>(i)))
      EXPECT_TRUE(covered.count(static_cast<OpKind>(i)))
          << opName(static_cast<OpKind>(i)) << " has no test case";
}

// A unary op without arithmetic is never computed as some other value: the evaluator stops on
// the internal channel (`run` refuses NotExecuted ops before that, FC0909).
TEST(Ops, AUnaryOpWithoutArithmeticIsAnInternalErrorNotAValue) {
  ASSERT_FALSE(isExecuted(OpKind::Acos));
  EXPECT_THROW(exec::unaryOpValue(OpKind::Acos, 0.5, false), InternalError);
  EXPECT_DOUBLE_EQ(exec::unaryOpValue(OpKind::Neg, 0.5, false), -0.5);
}

TEST(Ops, ExactAndFaithfulDiffer) {
  // exp(1) in Half: the exact reference keeps fp64, the faithful one rounds.
  Case k{"exp",
         OpKind::Exp,
         {T(DType::Double, {1}, {1})},
         none,
         {{DType::Half, {1}, {2.718281828459045}, {2.71875}}}};
  runCase(k, Flavour::Exact);
  runCase(k, Flavour::Faithful);
}

TEST(Ops, ShapeErrorsAreDiagnosed) {
  Case k{"bad_squeeze",
         OpKind::Squeeze,
         {T(DType::Float, {2, 3}, {0, 1, 2, 3, 4, 5})},
         [](Fusion&) {
           Attrs a;
           a.dims = {0};
           return a;
         },
         {{DType::Float, {3}, {0, 0, 0}}}};
  try {
    runCase(k, Flavour::Exact);
    FAIL() << "expected an ExecError";
  } catch (const ExecError& e) {
    EXPECT_EQ(e.code, DiagCode::EvaluationFailed);
    EXPECT_EQ(e.where, Place::expr(0));
    EXPECT_NE(e.message.find("size 2, not 1"), std::string::npos) << e.message;
  }
  Case d{"int_div_zero",
         OpKind::Div,
         {T(DType::Int, {1}, {1}), S(0, DType::Int)},
         none,
         {{DType::Int, {1}, {0}}}};
  EXPECT_THROW(runCase(d, Flavour::Exact), ExecError);
  Case m{"matmul_mismatch",
         OpKind::Matmul,
         {T(DType::Float, {2, 3}, {0, 0, 0, 0, 0, 0}), T(DType::Float, {2, 2}, {0, 0, 0, 0})},
         none,
         {{DType::Float, {2, 2}, {0, 0, 0, 0}}}};
  EXPECT_THROW(runCase(m, Flavour::Exact), ExecError);
}

TEST(Ops, IntegerBeyond2To53IsAnErrorNotARoundedValue) {
  Case k{"big_mul",
         OpKind::Mul,
         {T(DType::Int, {1}, {4294967296.0}), T(DType::Int, {1}, {4294967297.0})},
         none,
         {{DType::Int, {1}, {0}}}};
  EXPECT_THROW(runCase(k, Flavour::Exact), ExecError);
}

TEST(Ops, BudgetRefusesBeforeAllocating) {
  MemoryBudget b(100);
  EXPECT_THROW(HostTensor(DType::Float, {4, 4}, &b), BudgetExceeded);  // 128 bytes
  EXPECT_EQ(b.used(), 0u);
  {
    HostTensor ok(DType::Float, {2, 4}, &b);
    EXPECT_EQ(b.used(), 64u);
  }
  EXPECT_EQ(b.used(), 0u);
  EXPECT_THROW(HostTensor(DType::Float, {INT64_MAX / 2, 4}, &b), BudgetExceeded);  // overflow
}

// A copy holds as much as its source: it is charged for its elements, before they are copied,
// and released with it.
TEST(Ops, BudgetChargesCopies) {
  MemoryBudget b(100);
  HostTensor a(DType::Float, {2, 4}, &b);
  EXPECT_EQ(b.used(), 64u);
  EXPECT_THROW(HostTensor{a}, BudgetExceeded);  // 64 + 64 > 100
  EXPECT_EQ(b.used(), 64u);
  {
    HostTensor small(DType::Float, {2}, &b);
    HostTensor copy = small;
    EXPECT_EQ(b.used(), 96u);
  }
  EXPECT_EQ(b.used(), 64u);
}

}  // namespace
}  // namespace fc::exec
