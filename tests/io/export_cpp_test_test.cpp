// Tests of the C++ GoogleTest exporter (src/io/export_cpp_test.cpp): the seed exports to an
// nvFuser-style test with the fusion, the sharding and the inputs; every import fixture
// exports to balanced C++; what C++ cannot name is reported.
#include "io/export_cpp_test.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "io/import_cpp_test.h"
#include "io/import_python.h"

namespace fc {
namespace {

std::string slurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<Fusion> importFixture(const std::string& path) {
  DiagnosticSink s;
  return importPython(SourceText(path, slurpFile(path)), s);
}

TEST(ExportCppTest, SeedBecomesAnNvFuserStyleTest) {
  auto f = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_matmul_allreduce_bias.py");
  ASSERT_TRUE(f.has_value());
  DiagnosticSink s;
  auto c = exportCppTest(*f, s);
  ASSERT_TRUE(c.has_value());
  for (const char* needle : {
           "TEST_F(MultiDeviceTest, FusecheckReproNvfuserFusionId0) {",
           "auto fusion = std::make_unique<Fusion>();",
           "FusionGuard fg(fusion.get());",
           "      .dtype(DataType::Half)",
           "TensorView* tv3 = permute(tv0, {0, 2, 1});",
           "TensorView* tv4 = matmul(tv3, tv1);",
           "TensorView* tv5 = sum(tv4, {0}, /*keep_dim=*/false);",
           "TensorView* tv6 = broadcast(tv2, {true, false});",
           "TensorView* tv7 = castOp(DataType::Float, tv5);",
           "TensorView* tv9 = add(tv7, tv8);",
           "fusion->addOutput(tv9);",
           "DeviceMesh mesh0({0, 1});",
           "tv0->setDeviceMesh(mesh0);",
           "tv4->axis(0)->parallelize(ParallelType::DIDx);",
           "at::Tensor t0 = at::randn({1, 64, 128}, at::TensorOptions().dtype(at::kHalf).device(at::kCUDA, "
           "0));",
           "auto outputs = executor_cache.runFusionWithInputs({t0, t1, t2});",
           "testValidate(executor_cache.fusion(), outputs, {t0, t1, t2}, __LINE__, __FILE__);",
       })
    EXPECT_NE(c->find(needle), std::string::npos) << needle << "\n" << *c;
}

TEST(ExportCppTest, EveryFixtureExportsBalancedCode) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import")) {
    if (e.path().extension() != ".py") continue;
    SCOPED_TRACE(e.path().string());
    auto f = importFixture(e.path().string());
    ASSERT_TRUE(f.has_value());
    DiagnosticSink s;
    auto c = exportCppTest(*f, s);
    ASSERT_TRUE(c.has_value()) << (s.all().empty() ? "" : s.all()[0].message);
    int paren = 0, brace = 0;
    for (char ch : *c) {
      paren += ch == '(' ? 1 : ch == ')' ? -1 : 0;
      brace += ch == '{' ? 1 : ch == '}' ? -1 : 0;
      ASSERT_GE(paren, 0);
      ASSERT_GE(brace, 0);
    }
    EXPECT_EQ(paren, 0);
    EXPECT_EQ(brace, 0);
    EXPECT_EQ(c->find("nullptr"), std::string::npos) << *c;  // every value was named
    ++n;
  }
  EXPECT_GE(n, 15);
}

// Packed FP4 inputs go out as at::kFloat4_e2m1fn_x2 tensors and a stride order as the builder's
// strideOrder; the C++ importer reads both back to the same allocation and concrete inputs.
TEST(ExportCppTest, PackedFp4AndStrideOrderReadBack) {
  auto f = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/import/fp4_packed_strided_input.py");
  ASSERT_TRUE(f.has_value());
  DiagnosticSink s;
  auto c = exportCppTest(*f, s);
  ASSERT_TRUE(c.has_value()) << (s.all().empty() ? "" : s.all()[0].message);
  EXPECT_NE(c->find(".strideOrder({2, 0, 1})"), std::string::npos) << *c;
  EXPECT_NE(c->find("at::empty({16384}, at::TensorOptions().dtype(at::kFloat4_e2m1fn_x2)"), std::string::npos)
      << *c;
  DiagnosticSink rs;
  auto back = importCppTest(MappedText(SourceText("exported.cpp", *c)), rs);
  ASSERT_TRUE(back.has_value()) << *c;
  ASSERT_EQ(back->tensors.size(), f->tensors.size());
  for (size_t t = 0; t < f->tensors.size(); ++t)
    EXPECT_EQ(back->tensors[t].allocation.size(), f->tensors[t].allocation.size()) << t;
  ASSERT_EQ(back->concrete_inputs.size(), f->concrete_inputs.size());
  for (size_t i = 0; i < f->concrete_inputs.size(); ++i) {
    EXPECT_EQ(back->concrete_inputs[i].shape, f->concrete_inputs[i].shape) << i;
    EXPECT_EQ(back->concrete_inputs[i].strides, f->concrete_inputs[i].strides) << i;
  }
}

// Complex tensors and constants export as at::kComplexFloat and std::complex<double>(re, im) and
// read back with their dtypes and values; a float given a floating dtype keeps that dtype.
TEST(ExportCppTest, ComplexConstantsReadBack) {
  auto f = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/import/complex_dtypes.py");
  ASSERT_TRUE(f.has_value());
  DiagnosticSink s;
  auto c = exportCppTest(*f, s);
  ASSERT_TRUE(c.has_value()) << (s.all().empty() ? "" : s.all()[0].message);
  EXPECT_NE(c->find("IrBuilder::create<Val>(std::complex<double>(3.0, 0.5), DataType::ComplexDouble)"),
            std::string::npos)
      << *c;
  DiagnosticSink rs;
  auto back = importCppTest(MappedText(SourceText("exported.cpp", *c)), rs);
  ASSERT_TRUE(back.has_value()) << *c;
  ASSERT_EQ(back->tensors.size(), f->tensors.size());
  for (size_t t = 0; t < f->tensors.size(); ++t) EXPECT_EQ(back->tensors[t].dtype, f->tensors[t].dtype) << t;
  std::vector<std::tuple<DType, double, double>> want, got;
  for (const Scalar& sc : f->scalars)
    if (sc.kind == ScalarKind::Constant && isComplex(sc.dtype))
      want.emplace_back(sc.dtype, sc.value.f, sc.value.im);
  for (const Scalar& sc : back->scalars)
    if (sc.kind == ScalarKind::Constant && isComplex(sc.dtype))
      got.emplace_back(sc.dtype, sc.value.f, sc.value.im);
  EXPECT_EQ(got, want);
  DiagnosticSink fs;
  auto g = importCppTest(
      MappedText(SourceText("float.cpp",
                            "TEST_F(NVFuserTest, F) {\n  auto fusion = std::make_unique<Fusion>();\n"
                            "  FusionGuard fg(fusion.get());\n  TensorView* tv0 = makeSymbolicTensor(1);\n"
                            "  fusion->addInput(tv0);\n"
                            "  TensorView* tv1 = mul(tv0, IrBuilder::create<Val>(2.5, DataType::Float));\n"
                            "  fusion->addOutput(tv1);\n}\n")),
      fs);
  ASSERT_TRUE(g.has_value()) << (fs.all().empty() ? "" : fs.all()[0].message);
  bool float_const = false;
  for (const Scalar& sc : g->scalars)
    float_const |= sc.kind == ScalarKind::Constant && sc.dtype == DType::Float && sc.value.f == 2.5;
  EXPECT_TRUE(float_const);
}

TEST(ExportCppTest, SingleDeviceAndSplitForms) {
  auto f = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/import/row_parallel_linear_head.py");
  ASSERT_TRUE(f.has_value());
  DiagnosticSink s;
  auto c = exportCppTest(*f, s);
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(c->find("tv0->split(2, IrBuilder::create<Val>(2L, DataType::Index), /*inner_split=*/false);"),
            std::string::npos)
      << *c;
  EXPECT_NE(c->find("tv0->axis(2)->parallelize(ParallelType::DIDx);"), std::string::npos) << *c;
  EXPECT_NE(c->find("tv0->setAllocationDomain(tv0->getLoopDomain(), true);"), std::string::npos) << *c;
  auto g = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/import/reductions.py");
  ASSERT_TRUE(g.has_value());
  auto d = exportCppTest(*g, s);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("TEST_F(NVFuserTest, "), std::string::npos);
  EXPECT_NE(d->find("auto vm7 = variance_mean(tv4, {1}, /*correction=*/1, /*keep_dim=*/false);"),
            std::string::npos)
      << *d;
}

// size(T, d) goes out as nvFuser's size(tv, d), which counts tv's non-Reduction axes as fusecheck
// does; the C++ importer reads it back to the same axis of the sum's output.
TEST(ExportCppTest, SizeOfReducedTensorReadsBack) {
  auto f = importFixture(std::string(FC_SOURCE_DIR) + "/fixtures/scalars/size_of_reduced_tensor.py");
  ASSERT_TRUE(f.has_value());
  DiagnosticSink s;
  auto c = exportCppTest(*f, s);
  ASSERT_TRUE(c.has_value()) << (s.all().empty() ? "" : s.all()[0].message);
  EXPECT_NE(c->find("size(tv1, 0)"), std::string::npos) << *c;
  DiagnosticSink rs;
  auto back = importCppTest(MappedText(SourceText("exported.cpp", *c)), rs);
  ASSERT_TRUE(back.has_value()) << *c;
  // In both fusions size(T1, 0) reads the extent of the input's second axis.
  for (const Fusion* g : {&*f, &*back}) {
    int sizes = 0;
    for (const Scalar& sc : g->scalars) {
      if (sc.kind != ScalarKind::Derived || sc.op != ScalarOp::Size) continue;
      ++sizes;
      AxisId a = g->sizeAxis(sc);
      ASSERT_NE(a, kNone);
      EXPECT_EQ(g->axes[a].extent, g->axes[g->tensors[g->inputs[0].id].logical[1]].extent);
    }
    EXPECT_EQ(sizes, 1);
  }
}

TEST(ExportCppTest, ReportsUnnameableSymbols) {
  Fusion f;
  ScalarId n = f.addSymbol("n");
  TensorId t0 = f.addTensor("T0", DType::Float, MemoryType::Global,
                            {f.addAxis(0, IterType::Iteration, ParallelType::Serial, f.addSymbol("i0"))});
  TensorId t1 = f.addTensor("T1", DType::Float, MemoryType::Global,
                            {f.addAxis(1, IterType::Iteration, ParallelType::Serial, n)});
  Attrs a;
  a.shape = {n};
  f.addExpr(OpKind::Reshape, {ValueRef::tensor(t0)}, {t1}, a);
  f.inputs = {ValueRef::tensor(t0)};
  f.outputs = {t1};
  DiagnosticSink s;
  EXPECT_FALSE(exportCppTest(f, s).has_value());
  ASSERT_EQ(s.all().size(), 1u);
  EXPECT_EQ(s.all()[0].code, DiagCode::ImportUnsupported);
}

}  // namespace
}  // namespace fc
