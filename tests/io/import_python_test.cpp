// Tests of the Python-repro importer and the Python exporter: every script under
// fixtures/import/ imports cleanly, verifies, matches its golden print, and survives
// import -> export -> import unchanged; malformed scripts give located FC06xx diagnostics.
#include "io/import_python.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/export_python.h"
#include "io/import_detect.h"
#include "io/python/frontend_ops.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/printer.h"
#include "ir/uncomputed_scalar.h"
#include "ir/verifier.h"

namespace fc {
namespace {

std::string slurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> importFixtures() {
  std::vector<std::string> r;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import"))
    if (e.path().extension() == ".py") r.push_back(e.path().string());
  std::sort(r.begin(), r.end());
  return r;
}

struct Imported {
  std::optional<Fusion> fusion;
  DiagnosticSink sink;
};

Imported importText(const std::string& text, const std::string& path = "test.py") {
  Imported r;
  r.fusion = importPython(SourceText(path, text), r.sink);
  return r;
}

std::string describe(const DiagnosticSink& s) {
  std::string out;
  for (const Diagnostic& d : s.all())
    out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
           std::string(diagCodeInfo(d.code).id) + ": " + d.message + "\n";
  return out;
}

// A canonical text of everything the importers and exporters must preserve: both prints
// (names, axes, extents, ops, meshes, order) plus concrete inputs.
std::string canonical(const Fusion& f) {
  std::string s = printFusionMath(f, PrintStyle::Y2024) + printFusionMath(f, PrintStyle::Head);
  for (const ConcreteInput& ci : f.concrete_inputs) {
    s += "input " + std::string(ci.value.isTensor() ? f.tensorName(ci.value.id) : f.scalarName(ci.value.id)) +
         " [";
    for (int64_t v : ci.shape) s += std::to_string(v) + ",";
    s += "] [";
    for (int64_t v : ci.strides) s += std::to_string(v) + ",";
    s += "]";
    if (ci.scalar) s += " = " + std::to_string(ci.scalar->i) + "/" + std::to_string(ci.scalar->f);
    s += "\n";
  }
  for (const Tensor& t : f.tensors) {
    s += std::string(f.names.str(t.name)) + " alloc=" + std::to_string(t.allocation.size()) + " contig=";
    for (const auto& c : t.contiguity) s += !c ? "n" : *c ? "t" : "f";
    s += " transforms=" + std::to_string(t.transforms.size()) + "\n";
  }
  return s;
}

// An op of ops.def with an elementwise call form reaches the Python importer by its row alone:
// fd.ops.<python name> resolves to that op kind, whether or not the frontend table lists it.
TEST(ImportPython, EveryElementwiseOpsDefRowResolves) {
  int checked = 0;
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(static_cast<OpKind>(k));
    if (info.python_name.empty() ||
        (info.form != OpForm::Unary && info.form != OpForm::Binary && info.form != OpForm::Where))
      continue;
    const py::FrontendOp* op = py::findFrontendOp(info.python_name);
    ASSERT_NE(op, nullptr) << info.python_name;
    EXPECT_EQ(py::frontendOpKind(*op), info.kind) << info.python_name;
    ++checked;
  }
  EXPECT_GE(checked, 30);
  EXPECT_EQ(py::findFrontendOp("no_such_op"), nullptr);
}

// Python complex numbers: imaginary literals, complex(), Python's complex arithmetic and abs();
// a complex scalar is ComplexDouble, and a Float tensor with it is ComplexFloat.
TEST(ImportPython, ComplexNumbersAreComplexDoubleScalars) {
  Imported r = importText(
      "from nvfuser import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    a = fd.define_scalar(complex(1, 2j))\n"
      "    b = fd.define_scalar(-(3 - 4j) * 1j)\n"
      "    c = fd.define_scalar(abs(3 + 4j))\n"
      "    fd.add_output(fd.ops.mul(fd.ops.add(t0, a), b))\n"
      "    fd.add_output(fd.ops.mul(t0, c))\n"
      "    e = fd.ops.cast(fd.define_scalar(complex(1, 2)), dtype=DataType.ComplexFloat)\n"
      "    fd.add_output(fd.ops.mul(t0, e))\n");
  ASSERT_TRUE(r.fusion) << describe(r.sink);
  const Fusion& f = *r.fusion;
  std::vector<std::pair<double, double>> complexes;
  for (const Scalar& sc : f.scalars)
    if (sc.kind == ScalarKind::Constant && sc.dtype == DType::ComplexDouble)
      complexes.emplace_back(sc.value.f, sc.value.im);
  EXPECT_EQ(complexes, (std::vector<std::pair<double, double>>{{-1.0, 0.0}, {-4.0, -3.0}, {1.0, 2.0}}));
  ASSERT_EQ(f.outputs.size(), 3u);
  EXPECT_EQ(f.tensors[f.outputs[0]].dtype, DType::ComplexFloat);
  EXPECT_EQ(f.tensors[f.outputs[1]].dtype, DType::Float);  // abs(3 + 4j) is the float 5.0
  EXPECT_EQ(f.tensors[f.outputs[2]].dtype, DType::ComplexFloat);
  // The cast of the constant is the constant of the target dtype, its imaginary part kept.
  bool cast_kept = false;
  for (const Scalar& sc : f.scalars)
    cast_kept |= sc.kind == ScalarKind::Constant && sc.dtype == DType::ComplexFloat && sc.value.f == 1.0 &&
                 sc.value.im == 2.0;
  EXPECT_TRUE(cast_kept);
}

TEST(ImportPython, AtLeastFifteenFixtures) { EXPECT_GE(importFixtures().size(), 15u); }

TEST(ImportPython, FixturesImportVerifyRoundTripAndMatchGoldens) {
  for (const std::string& path : importFixtures()) {
    SCOPED_TRACE(path);
    Imported a = importText(slurpFile(path), path);
    ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
    EXPECT_TRUE(a.sink.all().empty()) << describe(a.sink);
    DiagnosticSink vs;
    EXPECT_TRUE(verifyFusion(*a.fusion, vs)) << describe(vs);
    EXPECT_FALSE(a.fusion->outputs.empty());
    EXPECT_EQ(a.fusion->concrete_inputs.size(), a.fusion->inputs.size());

    // Golden print of the imported graph.
    std::string stem = std::filesystem::path(path).stem().string();
    std::string golden_path = std::string(FC_SOURCE_DIR) + "/tests/golden/import/" + stem + ".print.txt";
    std::string got = printFusionMath(*a.fusion, PrintStyle::Head);
    if (std::getenv("FC_UPDATE_GOLDEN")) std::ofstream(golden_path, std::ios::binary) << got;
    EXPECT_EQ(got, slurpFile(golden_path));

    // Golden of the imported repro JSON; it reads back and re-writes byte-identically.
    std::string json = writeFusion(*a.fusion);
    std::string json_path = std::string(FC_SOURCE_DIR) + "/tests/golden/import/" + stem + ".json";
    if (std::getenv("FC_UPDATE_GOLDEN")) std::ofstream(json_path, std::ios::binary) << json;
    EXPECT_EQ(json, slurpFile(json_path));
    DiagnosticSink rs;
    auto back = readFusion(SourceText(json_path, json), rs);
    ASSERT_TRUE(back.has_value()) << describe(rs);
    EXPECT_EQ(writeFusion(*back), json);
    EXPECT_EQ(canonical(*back), canonical(*a.fusion));

    // import -> export -> import gives the same graph; a second export is identical.
    DiagnosticSink es;
    auto py = exportPython(*a.fusion, es);
    ASSERT_TRUE(py.has_value()) << describe(es);
    Imported b = importText(*py, "exported.py");
    ASSERT_TRUE(b.fusion.has_value()) << describe(b.sink) << *py;
    EXPECT_TRUE(b.sink.all().empty()) << describe(b.sink);
    EXPECT_EQ(canonical(*a.fusion), canonical(*b.fusion)) << *py;
    DiagnosticSink es2;
    auto py2 = exportPython(*b.fusion, es2);
    ASSERT_TRUE(py2.has_value());
    EXPECT_EQ(*py, *py2);
  }
}

TEST(ImportPython, FormatDetection) {
  for (const std::string& path : importFixtures())
    EXPECT_EQ(detectImportFormat(slurpFile(path)), ImportFormat::NvfuserPython) << path;
  std::string dir = std::string(FC_SOURCE_DIR) + "/fixtures/import/";
  EXPECT_EQ(detectImportFormat(slurpFile(dir + "seed_issue_2481.ir.txt")), ImportFormat::NvfuserIr);
  EXPECT_EQ(detectImportFormat(slurpFile(dir + "seed_segmented_fusion.txt")), ImportFormat::NvfuserSegments);
  EXPECT_EQ(parseImportFormat("nvfuser-segments"), ImportFormat::NvfuserSegments);
  EXPECT_FALSE(parseImportFormat("python").has_value());
  DiagnosticSink s;
  auto f = importFusion(SourceText("x", slurpFile(dir + "seed_segmented_fusion.txt")), s);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->segmentation.has_value());
  // An explicit --from wins over detection.
  DiagnosticSink s2;
  EXPECT_FALSE(importFusion(SourceText("x", slurpFile(dir + "seed_issue_2481.ir.txt")), s2,
                            ImportFormat::NvfuserPython)
                   .has_value());
}

TEST(ImportPython, SeedScriptGivesTheIssueGraph) {
  Imported a =
      importText(slurpFile(std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_matmul_allreduce_bias.py"));
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  const Fusion& f = *a.fusion;
  std::string p = printFusionMath(f, PrintStyle::Y2024);
  // Axis numbers follow nvFuser's creation order, as in issue #2481 (extent names differ:
  // nvFuser's counter also numbers other values).
  // The schedule meshes the inputs and T5 and parallelizes T3 and T4: the others get their meshes
  // from nvFuser's sharding passes, not from the import.
  EXPECT_NE(p.find("T4_l[ ideviceIdx.x10{i0}, iS11{i2}, iS12{i5}, rS13{i1} ]\n"), std::string::npos) << p;
  EXPECT_NE(p.find("T5_l[ rS14{i0}, iS15{i2}, iS16{i5} ] (DeviceMesh{0 1})\n"), std::string::npos) << p;
  EXPECT_NE(p.find("T0_g[ ideviceIdx.x0{i0}, iS1{i1}, iS2{i2} ] (DeviceMesh{0 1})"), std::string::npos) << p;
  EXPECT_NE(p.find("T3_l[ ideviceIdx.x7{i0}, iS9{i2}, iS8{i1} ]"), std::string::npos) << p;
  ASSERT_EQ(f.concrete_inputs.size(), 3u);
  EXPECT_EQ(f.concrete_inputs[0].shape, (std::vector<int64_t>{1, 64, 128}));
  EXPECT_EQ(f.tensors[*f.findTensor("T9")].memory, MemoryType::Global);
  EXPECT_EQ(f.tensors[*f.findTensor("T7")].memory, MemoryType::Local);
  EXPECT_EQ(f.name, "nvfuser_fusion_id0");
}

TEST(ImportPython, ExpandedAndSizeZeroInputs) {
  Imported a = importText(
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1, 0], contiguity=[None, True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(sizes=[4, 1, 3], strides=[3, 3, 1], dtype=DataType.Half)\n"
      "    T2 = fd.ops.relu(T0)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T1)\n");
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  std::string t0 = tensorToString(*a.fusion, 0, PrintStyle::Y2024);
  EXPECT_EQ(t0, "T0_g[ bS0{1 ex i0}, iS1{i1}, iS2{0} ]");
  EXPECT_EQ(tensorToString(*a.fusion, 1, PrintStyle::Head), "T1_g___half[iS3{i2}, bS4{1}, iS5{i3}]");
}

TEST(ImportPython, StrideOrderBecomesAllocation) {
  Imported a = importText(
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float, "
      "stride_order=[0, 1])\n"
      "    fd.add_output(T0)\n");
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  const Tensor& t = a.fusion->tensors[0];
  ASSERT_EQ(t.allocation.size(), 2u);
  EXPECT_EQ(t.allocation[0], t.logical[1]);  // dim 1 is outermost
  // nvFuser's define_tensor takes contiguity in allocation order: it is stored as given.
  EXPECT_EQ(t.contiguity, (std::vector<std::optional<bool>>{false, true}));
}

void expectDiag(const std::string& text, DiagCode code, int line, int col, const std::string& needle) {
  Imported a = importText(text);
  EXPECT_FALSE(a.fusion.has_value());
  ASSERT_FALSE(a.sink.all().empty());
  const Diagnostic& d = a.sink.all().front();
  EXPECT_EQ(d.code, code) << describe(a.sink);
  EXPECT_EQ(d.loc.line, line) << describe(a.sink);
  EXPECT_EQ(d.loc.col, col) << describe(a.sink);
  EXPECT_TRUE(d.loc.pointer.empty());
  EXPECT_NE(d.message.find(needle), std::string::npos) << d.message;
}

const char* kHead = "def f(fd : FusionDefinition) -> None :\n";

TEST(ImportPython, Diagnostics) {
  std::string h = kHead;
  expectDiag(h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float\n", DiagCode::ImportSyntax, 2,
             26,
             "'('");  // unclosed bracket is reported at end of file or at the bracket
  expectDiag(
      h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    T1 = fd.ops._matmul_nn(T0, T0)\n",
      DiagCode::ImportUnsupported, 3, 10, "fd.ops._matmul_nn");
  expectDiag(h + "    T1 = fd.ops.neg(T7)\n", DiagCode::ImportUnresolved, 2, 21, "T7");
  expectDiag(h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float, is_cpu=True)\n",
             DiagCode::ImportUnsupported, 2, 61, "is_cpu");
  expectDiag(
      h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    T1 = fd.ops.sum(T0, dims=[3])\n",
      DiagCode::ImportUnsupported, 3, 10, "dim out of range");
  expectDiag(
      h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    T1 = fd.ops.neg(T0, flavor=1)\n",
      DiagCode::ImportUnsupported, 3, 25, "flavor");
  expectDiag(h + "    x = 'unterminated\n", DiagCode::ImportSyntax, 2, 9, "unterminated");
  expectDiag(
      h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    fd.add_output(T0)\n"
          "inputs = [\n    torch.testing.make_tensor((2, 3), dtype=torch.float32, device='cuda:0'),\n]\n",
      DiagCode::BadConcreteInput, 5, 5, "rank");
  expectDiag("import torch\n", DiagCode::ImportSyntax, 1, 1, "no `def");
  expectDiag(h + "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    T1 = fd.ops.ad(T0, T0)\n",
             DiagCode::ImportUnresolved, 3, 10, "is not an nvFuser op (did you mean add");
  expectDiag(h + "    for t in [T0]:\n        fd.add_output(t)\n", DiagCode::ImportUnresolved, 2, 15,
             "`T0` is not defined");
}

// nvFuser's composites record the exprs nvFuser builds (io/python/composite_ops.cpp).
TEST(ImportPython, CompositesRecordNvFusersExprs) {
  auto ops = [](const Fusion& f) {
    std::vector<OpKind> r;
    for (const Expr& e : f.exprs) r.push_back(e.op);
    return r;
  };
  // truediv: the Int tensor cast to Float, the Int scalar input kept; a Float output.
  Imported a = importText(std::string(kHead) +
                          "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Int)\n"
                          "    S1 = fd.define_scalar(None, dtype=DataType.Int)\n"
                          "    T2 = fd.ops.truediv(T0, S1)\n    fd.add_output(T2)\n");
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  EXPECT_EQ(ops(*a.fusion), (std::vector<OpKind>{OpKind::Cast, OpKind::Div}));
  EXPECT_EQ(a.fusion->tensors[a.fusion->outputs[0]].dtype, DType::Float);
  EXPECT_TRUE(a.fusion->exprs[1].inputs[1].isScalar());
  // truediv of two integer scalars is a Float value fusecheck does not compute, used by a mul.
  Imported b = importText(std::string(kHead) +
                          "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
                          "    S1 = fd.define_scalar(None, dtype=DataType.Int)\n"
                          "    S2 = fd.ops.truediv(S1, S1)\n"
                          "    T3 = fd.ops.mul(T0, S2)\n    fd.add_output(T3)\n");
  ASSERT_TRUE(b.fusion.has_value()) << describe(b.sink);
  ASSERT_EQ(ops(*b.fusion), (std::vector<OpKind>{OpKind::Mul}));
  const ValueRef s2 = b.fusion->exprs[0].inputs[1];
  ASSERT_TRUE(s2.isScalar());
  EXPECT_EQ(b.fusion->scalars[s2.id].dtype, DType::Float);
  EXPECT_TRUE(uncomputedScalarCall(*b.fusion, s2.id).has_value());
  // bitwise_and of two Bools is logical_and; sign is two comparisons, two wheres and a cast back.
  Imported c = importText(std::string(kHead) +
                          "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Bool)\n"
                          "    T1 = fd.define_tensor(shape=[-1], dtype=DataType.Half)\n"
                          "    fd.add_output(fd.ops.bitwise_and(T0, T0))\n"
                          "    fd.add_output(fd.ops.sign(T1))\n");
  ASSERT_TRUE(c.fusion.has_value()) << describe(c.sink);
  EXPECT_EQ(ops(*c.fusion), (std::vector<OpKind>{OpKind::LogicalAnd, OpKind::Gt, OpKind::Lt, OpKind::Where,
                                                 OpKind::Where, OpKind::Cast}));
  EXPECT_EQ(c.fusion->tensors[c.fusion->outputs[1]].dtype, DType::Half);
  // A constant shift folds logical_right_shift's mask: 2^3 - 1 shifted by 64 - 3 for Int.
  Imported d = importText(std::string(kHead) +
                          "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Int)\n"
                          "    fd.add_output(fd.ops.logical_right_shift(T0, 3))\n");
  ASSERT_TRUE(d.fusion.has_value()) << describe(d.sink);
  EXPECT_EQ(ops(*d.fusion),
            (std::vector<OpKind>{OpKind::RightShift, OpKind::SignBit, OpKind::BitwiseXor, OpKind::Where}));
  const ValueRef mask = d.fusion->exprs[2].inputs[0];
  ASSERT_TRUE(mask.isScalar());
  EXPECT_EQ(d.fusion->scalars[mask.id].value.i, static_cast<int64_t>(uint64_t{7} << 61));
}

TEST(ImportPython, LowerRankOperandsAreBroadcast) {
  Imported a = importText(std::string(kHead) +
                          "    T0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)\n"
                          "    T1 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
                          "    T2 = fd.ops.add(T0, T1)\n    fd.add_output(T2)\n");
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  ASSERT_EQ(a.fusion->exprs.size(), 2u);
  EXPECT_EQ(a.fusion->exprs[0].op, OpKind::Broadcast);
  EXPECT_EQ(a.fusion->exprs[0].attrs.flags, (std::vector<bool>{true, false}));
}

TEST(ImportPython, DeepNestingAndGarbageDoNotCrash) {
  std::string deep =
      std::string(kHead) + "    x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n";
  Imported a = importText(deep);
  EXPECT_FALSE(a.fusion.has_value());
  ASSERT_FALSE(a.sink.all().empty());
  EXPECT_EQ(a.sink.all().front().code, DiagCode::ImportSyntax);
  std::string neg = std::string(kHead) + "    x = " + std::string(100000, '-') + "1\n";
  EXPECT_FALSE(importText(neg).fusion.has_value());
  for (const char* junk : {"\xff\xfe", "def", "def f(fd):\n    T0 = fd.ops.", "))))", "inputs = [1, 2,", "\\",
                           "def f(fd):\n    T0, = fd.define_tensor(shape=[-1])\n"}) {
    Imported j = importText(junk);
    EXPECT_FALSE(j.fusion.has_value()) << junk;
  }
}

// A block copied out of a function starts indented; the text may go on less indented (a pasted
// diff, a method followed by module code). This looped forever popping the indentation stack.
TEST(ImportPython, AnIndentedStartFollowedByLessIndentedLinesEnds) {
  for (const char* text : {"        x = 1\n    y = 2\nz = 3\n",
                           "    fd.sched.f(x)\n \n+    a = 1\n+\n@m\ndef g(m):\n  pass\n"}) {
    Imported a = importText(text);
    EXPECT_FALSE(a.fusion.has_value()) << text;
    EXPECT_FALSE(a.sink.all().empty()) << text;
  }
}

TEST(ImportPython, NotesOnSkippedStatements) {
  Imported a =
      importText(std::string(kHead) +
                 "    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n    fd.add_output(T0)\n"
                 "with FusionDefinition() as fd:\n    f(fd)\n"
                 "out = fd.execute([torch.randn(3)])[0] if True else None\n"
                 "torch.manual_seed(0)\nprint(f\"{out = }\")\nassert out is not None\n");
  ASSERT_TRUE(a.fusion.has_value()) << describe(a.sink);
  EXPECT_EQ(a.fusion->concrete_inputs.size(), 1u);
  ASSERT_EQ(a.sink.all().size(), 3u) << describe(a.sink);
  for (const Diagnostic& d : a.sink.all()) EXPECT_EQ(d.severity, Severity::Note);
  EXPECT_EQ(a.sink.all()[0].loc.line, 7);
  EXPECT_EQ(a.sink.all()[1].loc.line, 8);
  EXPECT_EQ(a.sink.all()[2].loc.line, 9);
}

TEST(ExportPython, ReportsWhatTheLayoutCannotSay) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  ScalarId n = f.addSymbol("n");  // a symbol that is no input and no input extent
  TensorId t0 = f.addTensor("T0", DType::Float, MemoryType::Global,
                            {f.addAxis(0, IterType::Iteration, ParallelType::Serial, i0)});
  TensorId t1 = f.addTensor("T1", DType::Float, MemoryType::Global,
                            {f.addAxis(1, IterType::Iteration, ParallelType::Serial, n)});
  Attrs a;
  a.shape = {n};
  f.addExpr(OpKind::Reshape, {ValueRef::tensor(t0)}, {t1}, a);
  f.inputs = {ValueRef::tensor(t0)};
  f.outputs = {t1};
  DiagnosticSink s;
  EXPECT_FALSE(exportPython(f, s).has_value());
  ASSERT_EQ(s.all().size(), 1u);
  EXPECT_NE(s.all()[0].message.find("`n`"), std::string::npos);
  // The input extent itself is expressible through fd.ops.size.
  f.exprs[0].attrs.shape = {i0};
  DiagnosticSink s2;
  auto py = exportPython(f, s2);
  ASSERT_TRUE(py.has_value());
  EXPECT_NE(py->find("S0 = fd.ops.size(T0, dim=0)"), std::string::npos) << *py;
  EXPECT_NE(py->find("T1 = fd.ops.reshape(T0, new_shape=[S0])"), std::string::npos) << *py;
}

}  // namespace
}  // namespace fc
