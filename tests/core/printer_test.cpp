// Tests of the nvFuser-style printer (src/ir/printer.cpp): axis, tensor and expr forms in both
// print styles, and golden prints of the seed repro (nvFuser issue #2481) whose 2024-style lines
// must match the issue text verbatim.
#include "ir/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/fusion.h"

namespace fc {
namespace {

// FC_UPDATE_GOLDEN=1 rewrites the golden files from the current output (for review in git diff).
void maybeUpdate(const std::string& path, const std::string& text) {
  if (std::getenv("FC_UPDATE_GOLDEN") == nullptr) return;
  std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The seed fusion of fixtures/seed/matmul_allreduce_bias.json, built with the fusion.h builders
// (exprs in the fixture's order: T3 .. T9).
Fusion buildSeed() {
  Fusion f;
  MeshId m = f.addMesh({2}, {0, 1});
  ScalarId i0 = f.addSymbol("i0"), i2 = f.addSymbol("i2"), i3 = f.addSymbol("i3");
  ScalarId i4 = f.addSymbol("i4"), i5 = f.addSymbol("i5"), i6 = f.addSymbol("i6");
  ScalarId i7 = f.addSymbol("i7");
  ScalarId one = f.addConstInt(1);
  auto I = IterType::Iteration;
  auto S = ParallelType::Serial;
  auto D = ParallelType::DIDx;
  auto G = MemoryType::Global;
  auto L = MemoryType::Local;
  TensorId t0 = f.addTensor("T0", DType::Half, G,
                            {f.addAxis(0, I, D, i0), f.addAxis(1, I, S, i2), f.addAxis(2, I, S, i3)}, m);
  TensorId t1 = f.addTensor("T1", DType::Half, G,
                            {f.addAxis(3, I, D, i4), f.addAxis(4, I, S, i5), f.addAxis(5, I, S, i6)}, m);
  TensorId t2 = f.addTensor("T2", DType::Half, G, {f.addAxis(6, I, S, i7)}, m);
  AxisId a7 = f.addAxis(7, I, D, i0), a8 = f.addAxis(8, I, S, i2), a9 = f.addAxis(9, I, S, i3);
  TensorId t3 = f.addTensor("T3", DType::Half, L, {a7, a9, a8}, m);
  f.tensors[t3].root = {a7, a8, a9};
  TensorId t4 = f.addTensor("T4", DType::Half, G,
                            {f.addAxis(10, I, D, i0), f.addAxis(11, I, S, i3), f.addAxis(12, I, S, i6),
                             f.addAxis(13, IterType::Reduction, S, i2)},
                            m);
  TensorId t5 = f.addTensor(
      "T5", DType::Half, G,
      {f.addAxis(14, IterType::Reduction, S, i0), f.addAxis(15, I, S, i3), f.addAxis(16, I, S, i6)}, m);
  TensorId t6 = f.addTensor("T6", DType::Half, L,
                            {f.addAxis(17, IterType::Broadcast, S, one), f.addAxis(18, I, S, i7)}, m);
  TensorId t7 = f.addTensor("T7", DType::Float, L, {f.addAxis(19, I, S, i3), f.addAxis(20, I, S, i6)}, m);
  TensorId t8 = f.addTensor("T8", DType::Float, L,
                            {f.addAxis(21, IterType::Broadcast, S, one), f.addAxis(22, I, S, i7)}, m);
  TensorId t9 = f.addTensor("T9", DType::Float, G, {f.addAxis(23, I, S, i3), f.addAxis(24, I, S, i6)}, m);
  auto T = [](TensorId t) { return ValueRef::tensor(t); };
  Attrs perm;
  perm.dims = {0, 2, 1};
  f.addExpr(OpKind::Permute, {T(t0)}, {t3}, perm);
  f.addExpr(OpKind::Matmul, {T(t3), T(t1)}, {t4});
  Attrs sum;
  sum.dims = {0};
  f.addExpr(OpKind::Sum, {T(t4)}, {t5}, sum);
  Attrs bc;
  bc.flags = {true, false};
  f.addExpr(OpKind::Broadcast, {T(t2)}, {t6}, bc);
  Attrs cast;
  cast.dtype = DType::Float;
  f.addExpr(OpKind::Cast, {T(t5)}, {t7}, cast);
  f.addExpr(OpKind::Cast, {T(t6)}, {t8}, cast);
  f.addExpr(OpKind::Add, {T(t7), T(t8)}, {t9});
  f.inputs = {T(t0), T(t1), T(t2)};
  f.outputs = {t9};
  return f;
}

TEST(Printer, AxisForms) {
  Fusion f;
  ScalarId i2 = f.addSymbol("i2");
  ScalarId four = f.addConstInt(4);
  ScalarId cd = f.addDerived(ScalarOp::CeilDiv, i2, four);
  AxisId a = f.addAxis(10, IterType::Iteration, ParallelType::DIDx, f.addSymbol("i0"));
  EXPECT_EQ(axisToString(f, a), "ideviceIdx.x10{i0}");
  AxisId b = f.addAxis(5, IterType::Broadcast, ParallelType::Serial, f.addConstInt(1), i2);
  EXPECT_EQ(axisToString(f, b), "bS5{1 ex i2}");
  AxisId c = f.addAxis(12, IterType::Iteration, ParallelType::Serial, f.addConstInt(2304));
  f.axes[c].rfactor = true;
  EXPECT_EQ(axisToString(f, c), "iS12{2304}rf");
  AxisId d = f.addAxis(3, IterType::Symbolic, ParallelType::Serial, cd);
  EXPECT_EQ(axisToString(f, d), "?S3{( ceilDiv(i2, 4) )}");
  ScalarId nested =
      f.addDerived(ScalarOp::CeilDiv, f.addDerived(ScalarOp::Mul, f.addSymbol("i0b"), i2), four);
  EXPECT_EQ(scalarToString(f, nested), "( ceilDiv(( i0b * i2 ), 4) )");
  AxisId r = f.addAxis(14, IterType::Reduction, ParallelType::Stream, i2);
  EXPECT_EQ(axisToString(f, r), "rstreamIdx14{i2}");
}

TEST(Printer, ScalarConstants) {
  Fusion f;
  EXPECT_EQ(scalarToString(f, f.addConstFloat(0.0, DType::Float)), "float(0)");
  EXPECT_EQ(scalarToString(f, f.addConstFloat(2.5, DType::Double)), "double(2.5)");
  EXPECT_EQ(scalarToString(f, f.addConstFloat(-INFINITY, DType::Half)), "__half(-inf)");
  EXPECT_EQ(scalarToString(f, f.addConstBool(true)), "true");
  EXPECT_EQ(scalarToString(f, f.addConstInt(-7, DType::Int)), "-7");
  ScalarId deep = f.addSymbol("i0");
  for (int i = 0; i < 2000; ++i) deep = f.addDerived(ScalarOp::Neg, deep);  // no stack overflow
  EXPECT_EQ(scalarToString(f, deep).substr(0, 4), "( -(");
}

TEST(Printer, TensorStyles) {
  Fusion f = buildSeed();
  TensorId t4 = *f.findTensor("T4");
  EXPECT_EQ(tensorToString(f, t4, PrintStyle::Y2024),
            "T4_g[ ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2} ] (DeviceMesh{0 1})");
  EXPECT_EQ(tensorToString(f, t4, PrintStyle::Head),
            "T4_g___half[ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2}] (DeviceMesh{0 1})");
  TensorId t7 = *f.findTensor("T7");
  EXPECT_EQ(tensorToString(f, t7, PrintStyle::Head), "T7_l_float[iS19{i3}, iS20{i6}] (DeviceMesh{0 1})");
  TensorId s = f.addTensor("T10", DType::Double, MemoryType::Local, {});
  EXPECT_EQ(tensorToString(f, s, PrintStyle::Y2024), "T10_l[ ]");
  EXPECT_EQ(tensorToString(f, s, PrintStyle::Head), "T10_l_double[]");
  // The loop domain is printed, not the logical one.
  ScalarId i3 = *f.findScalar("i3");
  AxisId o = f.addAxis(30, IterType::Iteration, ParallelType::DIDx, f.addConstInt(2));
  AxisId in = f.addAxis(31, IterType::Iteration, ParallelType::Serial,
                        f.addDerived(ScalarOp::CeilDiv, i3, f.addConstInt(2)));
  f.tensors[t7].loop = {o, in, f.tensors[t7].logical[1]};
  EXPECT_EQ(tensorToString(f, t7, PrintStyle::Y2024),
            "T7_l[ ideviceIdx.x30{2}, iS31{( ceilDiv(i3, 2) )}, iS20{i6} ] (DeviceMesh{0 1})");
}

TEST(Printer, SeedExprForms) {
  Fusion f = buildSeed();
  EXPECT_EQ(exprToString(f, 4, PrintStyle::Y2024),
            "T7_l[ iS19{i3}, iS20{i6} ] (DeviceMesh{0 1})\n"
            "   = __half2float(T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1}));\n");
  EXPECT_EQ(exprToString(f, 6, PrintStyle::Y2024),
            "T9_g[ iS23{i3}, iS24{i6} ] (DeviceMesh{0 1})\n"
            "   = T7_l[ iS19{i3}, iS20{i6} ] (DeviceMesh{0 1})\n"
            "   + T8_l[ bS21{1}, iS22{i7} ] (DeviceMesh{0 1});\n");
  EXPECT_EQ(exprToString(f, 2, PrintStyle::Y2024),
            "T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1})\n"
            "   = reduction( T4_g[ ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2} ] (DeviceMesh{0 1}), "
            "op = add, initial value = __half(0), allreduce = false )\n");
  EXPECT_EQ(exprToString(f, 3, PrintStyle::Y2024),
            "T6_l[ bS17{1}, iS18{i7} ] (DeviceMesh{0 1})\n"
            "   = broadcast( T2_g[ iS6{i7} ] (DeviceMesh{0 1}) )\n");
  EXPECT_EQ(exprToString(f, 3, PrintStyle::Head),
            "T6_l___half[bS17{1}, iS18{i7}] (DeviceMesh{0 1})\n"
            "   = broadcast( T2_g___half[iS6{i7}] (DeviceMesh{0 1}), flags = {true, false} )\n");
  EXPECT_EQ(exprToString(f, 0, PrintStyle::Y2024),
            "T3_l[ ideviceIdx.x7{i0}, iS9{i3}, iS8{i2} ] (DeviceMesh{0 1})\n"
            "   = Set.Permute( T0_g[ ideviceIdx.x0{i0}, iS1{i2}, iS2{i3} ] (DeviceMesh{0 1}), "
            "cache_op=Streaming )\n");
  EXPECT_EQ(exprToString(f, 1, PrintStyle::Y2024),
            "T4_g[ ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2} ] (DeviceMesh{0 1})\n"
            "   = matmul(T3_l[ ideviceIdx.x7{i0}, iS9{i3}, iS8{i2} ] (DeviceMesh{0 1}),\n"
            "            T1_g[ ideviceIdx.x3{i4}, iS4{i5}, iS5{i6} ] (DeviceMesh{0 1}))\n");
}

TEST(Printer, OtherOpForms) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0"), i1 = f.addSymbol("i1");
  auto I = IterType::Iteration;
  auto S = ParallelType::Serial;
  auto G = MemoryType::Global;
  TensorId a = f.addTensor("T0", DType::Float, G, {f.addAxis(0, I, S, i0), f.addAxis(1, I, S, i1)});
  TensorId b = f.addTensor("T1", DType::Float, G, {f.addAxis(2, I, S, i0), f.addAxis(3, I, S, i1)});
  TensorId c = f.addTensor("T2", DType::Float, G, {f.addAxis(4, I, S, i0), f.addAxis(5, I, S, i1)});
  auto T = [](TensorId t) { return ValueRef::tensor(t); };
  ExprId ex = f.addExpr(OpKind::Exp, {T(a)}, {b});
  EXPECT_EQ(exprToString(f, ex, PrintStyle::Y2024),
            "T1_g[ iS2{i0}, iS3{i1} ]\n   = expf(T0_g[ iS0{i0}, iS1{i1} ]);\n");
  f.tensors[b].dtype = DType::Double;
  EXPECT_EQ(exprToString(f, ex, PrintStyle::Y2024),
            "T1_g[ iS2{i0}, iS3{i1} ]\n   = exp(T0_g[ iS0{i0}, iS1{i1} ]);\n");
  ExprId ng = f.addExpr(OpKind::Neg, {T(a)}, {c});
  EXPECT_EQ(exprToString(f, ng, PrintStyle::Y2024),
            "T2_g[ iS4{i0}, iS5{i1} ]\n   = -T0_g[ iS0{i0}, iS1{i1} ];\n");
  ExprId mx = f.addExpr(OpKind::Maximum, {T(a), ValueRef::scalar(f.addConstFloat(0.5, DType::Double))}, {c});
  EXPECT_EQ(exprToString(f, mx, PrintStyle::Y2024),
            "T2_g[ iS4{i0}, iS5{i1} ]\n   = fmax(T0_g[ iS0{i0}, iS1{i1} ]\n  , double(0.5));\n");
  EXPECT_EQ(exprToString(f, mx, PrintStyle::Head),
            "T2_g_float[iS4{i0}, iS5{i1}]\n   = max(T0_g_float[iS0{i0}, iS1{i1}]\n  , double(0.5));\n");
  ExprId lt = f.addExpr(OpKind::Lt, {T(a), T(b)}, {c});
  EXPECT_NE(exprToString(f, lt, PrintStyle::Y2024).find("\n   < T1_g"), std::string::npos);
  ExprId wh = f.addExpr(OpKind::Where, {T(a), T(b), T(c)}, {c});
  EXPECT_NE(exprToString(f, wh, PrintStyle::Y2024).find("= where(T0_g[ iS0{i0}, iS1{i1} ]\n  , T1_g"),
            std::string::npos);
  Attrs mx_attrs;
  mx_attrs.dims = {1};
  TensorId r =
      f.addTensor("T3", DType::Float, G, {f.addAxis(6, I, S, i0), f.addAxis(7, IterType::Reduction, S, i1)});
  ExprId red = f.addExpr(OpKind::Max, {T(a)}, {r}, mx_attrs);
  EXPECT_NE(exprToString(f, red, PrintStyle::Y2024).find("op = fmax, initial value = float(-inf)"),
            std::string::npos);
  EXPECT_NE(exprToString(f, red, PrintStyle::Head).find("op = max, initial value = float(-inf)"),
            std::string::npos);
  Attrs pad;
  pad.pad = {f.addConstInt(1), f.addConstInt(2)};
  ExprId pd = f.addExpr(OpKind::Pad, {T(a)}, {c}, pad);
  EXPECT_NE(exprToString(f, pd, PrintStyle::Y2024).find("= pad( T0_g[ iS0{i0}, iS1{i1} ], {0, 0, 1, 2} )"),
            std::string::npos);
  Attrs cat;
  cat.dim = 1;
  ExprId ct = f.addExpr(OpKind::Cat, {T(a), T(b)}, {c}, cat);
  EXPECT_NE(exprToString(f, ct, PrintStyle::Y2024).find("= cat( T0_g[ iS0{i0}, iS1{i1} ], T1_g"),
            std::string::npos);
  EXPECT_NE(exprToString(f, ct, PrintStyle::Y2024).find("], 1 )\n"), std::string::npos);
  Attrs fl;
  fl.shape = {i0, f.addConstInt(4)};
  fl.value = f.addConstFloat(1.0, DType::Float);
  ExprId full = f.addExpr(OpKind::Full, {}, {c}, fl);
  EXPECT_NE(exprToString(f, full, PrintStyle::Y2024).find("= full({i0, 4}, float(1));\n"), std::string::npos);
  Attrs ex_attrs;
  ex_attrs.shape = {i0, i1};
  ExprId exp = f.addExpr(OpKind::Expand, {T(a)}, {c}, ex_attrs);
  EXPECT_EQ(exprToString(f, exp, PrintStyle::Y2024),
            "T2_g[ iS4{i0}, iS5{i1} ] = expand( T0_g[ iS0{i0}, iS1{i1} ], {i0, i1} )\n");
  EXPECT_EQ(exprToString(f, exp, PrintStyle::Head),
            "T2_g_float[iS4{i0}, iS5{i1}] = expand( T0_g_float[iS0{i0}, iS1{i1}] )\n");
  ExprId rs = f.addExpr(OpKind::Reshape, {T(a)}, {c});
  EXPECT_NE(exprToString(f, rs, PrintStyle::Y2024).find("] = view( T0_g"), std::string::npos);
  EXPECT_NE(exprToString(f, rs, PrintStyle::Head).find("] = reshape( T0_g"), std::string::npos);
  Attrs cast;
  cast.dtype = DType::BFloat16;
  f.tensors[c].dtype = DType::BFloat16;
  ExprId cs = f.addExpr(OpKind::Cast, {T(a)}, {c}, cast);
  EXPECT_NE(exprToString(f, cs, PrintStyle::Y2024).find("= __float2bfloat(T0_g"), std::string::npos);
}

TEST(Printer, SeedGolden2024) {
  Fusion f = buildSeed();
  std::string got = printFusionMath(f, PrintStyle::Y2024);
  const std::string path = std::string(FC_SOURCE_DIR) + "/tests/golden/seed.print.2024.txt";
  maybeUpdate(path, got);
  std::string want = readFile(path);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(got, want);
  // Lines of nvFuser issue #2481 (shared/seed), after its paste typos, verbatim.
  for (const char* line : {
           "T4_g[ ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2} ] (DeviceMesh{0 1})",
           "matmul(T3_l[ ideviceIdx.x7{i0}, iS9{i3}, iS8{i2} ] (DeviceMesh{0 1}),",
           "T1_g[ ideviceIdx.x3{i4}, iS4{i5}, iS5{i6} ] (DeviceMesh{0 1}))",
           "T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1})",
           "T7_l[ iS19{i3}, iS20{i6} ] (DeviceMesh{0 1})\n   = __half2float(T5_g[ rS14{i0}, iS15{i3}, "
           "iS16{i6} ] "
           "(DeviceMesh{0 1}));",
           "T6_l[ bS17{1}, iS18{i7} ] (DeviceMesh{0 1})\n   = broadcast( T2_g[ iS6{i7} ] (DeviceMesh{0 1}) )",
           "T8_l[ bS21{1}, iS22{i7} ] (DeviceMesh{0 1})\n   = __half2float(T6_l[ bS17{1}, iS18{i7} ] "
           "(DeviceMesh{0 1}));",
           "T9_g[ iS23{i3}, iS24{i6} ] (DeviceMesh{0 1})\n   = T7_l[ iS19{i3}, iS20{i6} ] (DeviceMesh{0 1})\n"
           "   + T8_l[ bS21{1}, iS22{i7} ] (DeviceMesh{0 1});",
       })
    EXPECT_NE(got.find(line), std::string::npos) << line;
  // nvFuser's StmtSort order: T7's cast comes before T6's broadcast (depth-first from T9).
  EXPECT_LT(got.find("T7_l[ iS19{i3}, iS20{i6} ] (DeviceMesh{0 1})\n"), got.find("T6_l[ bS17{1}"));
}

TEST(Printer, SeedGoldenHead) {
  Fusion f = buildSeed();
  const std::string path = std::string(FC_SOURCE_DIR) + "/tests/golden/seed.print.head.txt";
  std::string got = printFusionMath(f, PrintStyle::Head);
  maybeUpdate(path, got);
  std::string want = readFile(path);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(got, want);
}

TEST(Printer, MalformedIdsDoNotCrash) {
  Fusion f;
  f.addTensor("T0", DType::Float, MemoryType::Global, {42});
  f.addExpr(OpKind::Add, {ValueRef::tensor(7), ValueRef::scalar(99)}, {0});
  f.outputs = {0};
  std::string s = printFusionMath(f, PrintStyle::Y2024);
  EXPECT_NE(s.find("<invalid-axis>"), std::string::npos);
  EXPECT_NE(s.find("<invalid-tensor>"), std::string::npos);
}

}  // namespace
}  // namespace fc
