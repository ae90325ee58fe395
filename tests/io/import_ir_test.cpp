// Tests of the printed-IR importer (src/io/import_ir.cpp): the printer's output in both styles
// reads back to the same print for every fixture, the seed goldens and the repaired issue paste
// import with the facts nvFuser's print leaves out inferred, and malformed text gives located
// FC06xx diagnostics without crashing.
#include "io/import_ir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/import_python.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace fc {
namespace {

std::string slurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string describe(const DiagnosticSink& s) {
  std::string out;
  for (const Diagnostic& d : s.all())
    out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
           std::string(diagCodeInfo(d.code).id) + ": " + d.message + "\n";
  return out;
}

// The errors and warnings of a sink; notes (FC0604: skipped prose, inferred facts) are left out.
std::string problems(const DiagnosticSink& s) {
  DiagnosticSink p;
  for (const Diagnostic& d : s.all())
    if (d.severity != Severity::Note) p.all().push_back(d);
  return describe(p);
}

std::optional<Fusion> ir(const std::string& text, DiagnosticSink& sink) {
  return importIr(SourceText("test.txt", text), sink);
}

TEST(ImportIr, PrinterOutputRoundTripsForEveryFixture) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import")) {
    if (e.path().extension() != ".py") continue;
    SCOPED_TRACE(e.path().string());
    DiagnosticSink ps;
    auto f = importPython(SourceText(e.path().string(), slurpFile(e.path().string())), ps);
    ASSERT_TRUE(f.has_value()) << describe(ps);
    for (PrintStyle st : {PrintStyle::Y2024, PrintStyle::Head}) {
      std::string p1 = printFusionMath(*f, st);
      DiagnosticSink s;
      auto g = ir(p1, s);
      ASSERT_TRUE(g.has_value()) << describe(s) << p1;
      EXPECT_TRUE(s.all().empty()) << describe(s);
      EXPECT_EQ(printFusionMath(*g, st), p1);
      EXPECT_EQ(g->inputs.size(), f->inputs.size());
      EXPECT_EQ(g->outputs.size(), f->outputs.size());
      for (size_t i = 0; i < g->exprs.size() && i < f->exprs.size(); ++i) {
        // Attributes the print leaves implicit are recovered (dims, flags, pad, ...).
        const Expr* fe = nullptr;
        for (const Expr& x : f->exprs)
          if (f->tensorName(x.outputs[0]) == g->tensorName(g->exprs[i].outputs[0])) fe = &x;
        ASSERT_NE(fe, nullptr);
        // broadcast_in_dim prints (and reads back) as nvFuser's broadcast; other ops keep their dims.
        if (g->exprs[i].op == fe->op) EXPECT_EQ(g->exprs[i].attrs.dims, fe->attrs.dims);
      }
    }
    ++n;
  }
  EXPECT_GE(n, 15);
}

TEST(ImportIr, SeedGoldensReadBack) {
  for (const char* name : {"seed.print.2024.txt", "seed.print.head.txt"}) {
    std::string text = slurpFile(std::string(FC_SOURCE_DIR) + "/tests/golden/" + name);
    DiagnosticSink s;
    auto f = ir(text, s);
    ASSERT_TRUE(f.has_value()) << describe(s);
    EXPECT_TRUE(s.all().empty()) << describe(s);
    EXPECT_EQ(printFusionMath(*f, std::string(name).find("head") != std::string::npos ? PrintStyle::Head
                                                                                      : PrintStyle::Y2024),
              text);
    DiagnosticSink vs;
    EXPECT_TRUE(verifyFusion(*f, vs)) << describe(vs);
    const Expr& permute = f->exprs[f->tensors[*f->findTensor("T3")].definition];
    EXPECT_EQ(permute.op, OpKind::Permute);
    EXPECT_EQ(permute.attrs.dims, (std::vector<int64_t>{0, 2, 1}));
    const Expr& sum = f->exprs[f->tensors[*f->findTensor("T5")].definition];
    EXPECT_EQ(sum.op, OpKind::Sum);
    EXPECT_EQ(sum.attrs.dims, (std::vector<int64_t>{0}));
    const Expr& bc = f->exprs[f->tensors[*f->findTensor("T6")].definition];
    EXPECT_EQ(bc.attrs.flags, (std::vector<bool>{true, false}));
  }
}

TEST(ImportIr, RepairedIssuePasteImportsWithInferredFacts) {
  std::string text = slurpFile(std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_issue_2481.ir.txt");
  DiagnosticSink s;
  auto f = ir(text, s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  EXPECT_EQ(problems(s), "");  // the fixture's prose lines give notes only
  DiagnosticSink vs;
  EXPECT_TRUE(verifyFusion(*f, vs)) << describe(vs);
  // Inputs: the tensors the paste uses but never defines; output: the one nothing uses.
  ASSERT_EQ(f->inputs.size(), 3u);
  EXPECT_EQ(f->tensorName(f->inputs[0].id), "T3");
  EXPECT_EQ(f->tensorName(f->inputs[1].id), "T1");
  EXPECT_EQ(f->tensorName(f->inputs[2].id), "T2");
  ASSERT_EQ(f->outputs.size(), 1u);
  EXPECT_EQ(f->tensorName(f->outputs[0]), "T9");
  // Dtypes inferred from __half2float and pushed back through the reduction and the matmul.
  EXPECT_EQ(f->tensors[*f->findTensor("T4")].dtype, DType::Half);
  EXPECT_EQ(f->tensors[*f->findTensor("T1")].dtype, DType::Half);
  EXPECT_EQ(f->tensors[*f->findTensor("T2")].dtype, DType::Half);
  EXPECT_EQ(f->tensors[*f->findTensor("T9")].dtype, DType::Float);
  std::string p = printFusionMath(*f, PrintStyle::Y2024);
  EXPECT_NE(p.find("T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1})"), std::string::npos);
  EXPECT_NE(p.find("T4_g[ ideviceIdx.x10{i0}, iS11{i3}, iS12{i6}, rS13{i2} ] (DeviceMesh{0 1})"),
            std::string::npos);
}

TEST(ImportIr, MarkdownEatenUnderscoresAndMissingDtypes) {
  DiagnosticSink s;
  auto f =
      ir("T1_l[ iS2{i0} ] = half2float(T0_g[ iS0{i0} ]);\nT2_g[ iS3{i0} ] = T1_l[ iS2{i0} ] * T9_g[ iS9{i0} "
         "];\n",
         s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  EXPECT_EQ(f->tensors[*f->findTensor("T0")].dtype, DType::Half);
  EXPECT_EQ(f->tensors[*f->findTensor("T1")].dtype, DType::Float);
  // T9 is only a float operand of a float mul: inferred backward, no warning.
  EXPECT_EQ(f->tensors[*f->findTensor("T9")].dtype, DType::Float);
  DiagnosticSink s2;
  auto g = ir("T1_l[ iS2{i0} ] = view( T0_g[ iS0{i0} ] )\n", s2);
  ASSERT_TRUE(g.has_value());
  ASSERT_EQ(s2.all().size(), 2u) << describe(s2);  // neither dtype can be inferred
  EXPECT_EQ(s2.all()[0].severity, Severity::Warning);
  EXPECT_NE(s2.all()[0].message.find("dtype"), std::string::npos);
}

// A cast to an integer of constant arithmetic is computed as C++ computes it: integer operands
// divide as integers (7 / 2 is 3), the rest in double, truncated toward zero at the cast; a
// scalar statement's name stands for its value.
TEST(ImportIr, ConstantFloatingCastsAreComputed) {
  DiagnosticSink s;
  auto f =
      ir("i5 = (int64_t)(double(1.5) * ( 7 / 2 ));\n"
         "T1_l[ iS2{( i0 + ( (int64_t)(( double(-2.5) * ( (double)(3) ) )) ) )} ] = pad( T0_g[ iS0{i0} ], "
         "{0, i5} )\n",
         s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  const Fusion& g = *f;
  const Tensor& t1 = g.tensors[*g.findTensor("T1")];
  const Scalar& ext = g.scalars[g.axes[t1.logical[0]].extent];
  ASSERT_EQ(ext.kind, ScalarKind::Derived);
  EXPECT_EQ(g.scalars[ext.rhs].kind, ScalarKind::Constant);
  EXPECT_EQ(g.scalars[ext.rhs].value.i, -7);  // -7.5 truncates toward zero
  const Expr& pad = g.exprs[0];
  ASSERT_EQ(pad.attrs.pad.size(), 2u);
  EXPECT_EQ(g.scalars[pad.attrs.pad[1]].kind, ScalarKind::Constant);
  EXPECT_EQ(g.scalars[pad.attrs.pad[1]].value.i, 4);  // 1.5 * 3
}

TEST(ImportIr, SeveralDumpsInOneFile) {
  std::string a = slurpFile(std::string(FC_SOURCE_DIR) + "/tests/golden/seed.print.2024.txt");
  DiagnosticSink s;
  auto f = ir(a + "\nsome log text in between\n" + a, s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  EXPECT_EQ(f->exprs.size(), 7u);
  EXPECT_EQ(printFusionMath(*f, PrintStyle::Y2024), a);
}

void expectDiag(const std::string& text, DiagCode code, int line, int col, const std::string& needle) {
  DiagnosticSink s;
  auto f = ir(text, s);
  EXPECT_FALSE(f.has_value());
  auto first = std::find_if(s.all().begin(), s.all().end(),
                            [](const Diagnostic& x) { return x.severity != Severity::Note; });
  ASSERT_NE(first, s.all().end()) << describe(s);
  const Diagnostic& d = *first;
  EXPECT_EQ(d.code, code) << describe(s);
  EXPECT_EQ(d.loc.line, line) << describe(s);
  EXPECT_EQ(d.loc.col, col) << describe(s);
  EXPECT_NE(d.message.find(needle), std::string::npos) << d.message;
}

TEST(ImportIr, Diagnostics) {
  expectDiag("T1_l[ iS2{i0} ]\n   = reduction( T0_g[ iS0{i0} ], op = xor )\n", DiagCode::ImportUnsupported, 2,
             39, "unsupported reduction op `xor`");
  expectDiag("T1_l[ iS2{i0}, xS3{i1} ] = relu(T0_g[ iS0{i0} ]);\n", DiagCode::ImportSyntax, 1, 16, "axis");
  expectDiag("T1_l[ iS2{i0} ] = relu(T0_g[ iS0{i0} ]);\nT2_l[ iS3{i0} ] = relu(T0_g[ iS7{i0} ]);\n",
             DiagCode::ImportUnresolved, 2, 24, "T0 is printed again");
  expectDiag("T1_l[ iS2{i0} ] = relu(T0_g[ iS0{i0} ]);\nT1_l[ iS2{i0} ] = abs(T0_g[ iS0{i0} ]);\n",
             DiagCode::ImportUnresolved, 2, 1, "defined twice");
  expectDiag("T1_l[ gS2{i0} ] = relu(T0_g[ iS0{i0} ]);\n", DiagCode::ImportUnsupported, 1, 7, "Gather");
  expectDiag("no tensors here\n", DiagCode::ImportSyntax, 1, 1, "no tensor print such as");
  expectDiag("T1_l[ iS2{i0} ] = relu(T0_g[ iS0{i0} ]\n", DiagCode::ImportSyntax, 2, 1, "')'");
}

TEST(ImportIr, DeepAndGarbageInputsDoNotCrash) {
  std::string deep = "T1_l[ iS2{" + std::string(100000, '(') + "i0" + std::string(100000, ')') +
                     "} ] = relu(T0_g[ iS0{i0} ]);";
  DiagnosticSink s;
  EXPECT_FALSE(ir(deep, s).has_value());
  EXPECT_EQ(s.all().front().code, DiagCode::ImportSyntax);
  for (const char* junk :
       {"T", "T0_", "T0_g", "T0_g[", "T0_g[ iS", "T0_g[ iS0{", "T0_g[ iS0{i0} ] =", "T0_g[ ] = (",
        "T0_g[ ] (DeviceMesh{{{{0}}}})", "T0_g[ iS0{99999999999999999999} ]", "T0_g_xx[ ]"}) {
    DiagnosticSink j;
    (void)ir(junk, j);  // must not crash; diagnostics or a trivial fusion are both fine
  }
}

}  // namespace
}  // namespace fc
