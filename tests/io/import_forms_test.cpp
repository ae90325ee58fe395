// Tests of the non-Python import forms on their fixtures (fixtures/import): printed IR of each era
// and quirk (*.ir.txt), segmented dumps (*.segments.txt and the seed's dump), GitHub pastes (*.md)
// and C++ tests (*.cpp). Each is detected as its form, imports, verifies and matches its golden
// head-style print tests/golden/import/<file>.print.txt (FC_UPDATE_GOLDEN=1 rewrites them for
// review); the import records where the repro came from. The diagnostics of each (notes included)
// are pinned by the fixture's .expect.json sidecar.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/error_report.h"
#include "io/import_detect.h"
#include "io/import_ir.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace fc {
namespace {

namespace fs = std::filesystem;

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

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The fixtures of the non-Python forms, with the form each must be detected as.
std::vector<std::pair<std::string, ImportFormat>> formFixtures() {
  std::vector<std::pair<std::string, ImportFormat>> out;
  for (const auto& e : fs::directory_iterator(std::string(FC_SOURCE_DIR) + "/fixtures/import")) {
    std::string n = e.path().filename().string();
    if (endsWith(n, ".expect.json")) continue;
    if (endsWith(n, ".ir.txt")) out.emplace_back(e.path().string(), ImportFormat::NvfuserIr);
    if (endsWith(n, ".segments.txt") || n == "seed_segmented_fusion.txt")
      out.emplace_back(e.path().string(), ImportFormat::NvfuserSegments);
    if (endsWith(n, ".cpp")) out.emplace_back(e.path().string(), ImportFormat::NvfuserCppTest);
    if (endsWith(n, ".md")) out.emplace_back(e.path().string(), ImportFormat::Paste);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string provenance(const Fusion& f, const std::string& key) {
  for (const auto& [k, v] : f.provenance)
    if (k == key) return v;
  return "";
}

TEST(ImportForms, EveryFormHasFixtures) {
  int ir = 0, seg = 0, cpp = 0, paste = 0;
  for (const auto& [path, fmt] : formFixtures()) {
    ir += fmt == ImportFormat::NvfuserIr;
    seg += fmt == ImportFormat::NvfuserSegments;
    cpp += fmt == ImportFormat::NvfuserCppTest;
    paste += fmt == ImportFormat::Paste;
  }
  EXPECT_GE(ir, 6);
  EXPECT_GE(seg, 2);
  EXPECT_GE(cpp, 3);
  EXPECT_GE(paste, 3);
}

TEST(ImportForms, FixturesDetectImportVerifyAndMatchGoldens) {
  for (const auto& [path, fmt] : formFixtures()) {
    SCOPED_TRACE(path);
    std::string text = slurpFile(path);
    // A diff is a paste (its new side is then read as a C++ test); an issue page copied as
    // rendered text, without code fences, is printed IR with prose around it.
    ImportFormat want = fmt;
    if (text.rfind("diff --git", 0) == 0) want = ImportFormat::Paste;
    if (fmt == ImportFormat::Paste && text.find("```") == std::string::npos) want = ImportFormat::NvfuserIr;
    EXPECT_EQ(importFormatName(detectImportFormat(text)), importFormatName(want));
    // Commands that take a repro directly recognize every form on its own evidence.
    auto rec = recognizeImportFormat(text);
    ASSERT_TRUE(rec.has_value());
    EXPECT_EQ(importFormatName(*rec), importFormatName(want));
    DiagnosticSink s;
    SourceText src(path, text);
    auto f = importFusion(src, s);
    ASSERT_TRUE(f.has_value()) << describe(s);
    EXPECT_EQ(s.errorCount(), 0u) << describe(s);
    f->rebuildUses();
    DiagnosticSink vs;
    EXPECT_TRUE(verifyFusion(*f, vs)) << describe(vs);
    EXPECT_FALSE(provenance(*f, "imported_from").empty());
    std::string name = fs::path(path).filename().string();
    std::string golden_path = std::string(FC_SOURCE_DIR) + "/tests/golden/import/" + name + ".print.txt";
    std::string got = printFusionMath(*f, PrintStyle::Head);
    if (std::getenv("FC_UPDATE_GOLDEN")) std::ofstream(golden_path, std::ios::binary) << got;
    EXPECT_EQ(got, slurpFile(golden_path));
  }
}

TEST(ImportForms, RecognitionNeedsEvidence) {
  EXPECT_FALSE(recognizeImportFormat("{\"format\": \"fusecheck.fusion/1\", \"note\": \"T0_g[ iS0{i0} ]\"}"));
  EXPECT_FALSE(recognizeImportFormat("just some prose, no repro\n"));
  EXPECT_FALSE(recognizeImportFormat(""));
  EXPECT_EQ(recognizeImportFormat("T3_l___half[ iS12{16} ]"), ImportFormat::NvfuserIr);
  EXPECT_EQ(recognizeImportFormat("x = T0_g_float[iS0{i0}]"), ImportFormat::NvfuserIr);
  EXPECT_FALSE(recognizeImportFormat("AT0_g[ ]"));
}

TEST(ImportForms, ErrorReportsGoToTheIrReaderNotToJsonOrPython) {
  // An error report is recognized (the IR reader then says what it lacks), wherever its first
  // line sits, and a traceback's quoted `fd.execute(` does not make it a script.
  EXPECT_EQ(recognizeImportFormat("frame #3: nvfuser::FusionExecutorCache::runFusionWithInputs\n"),
            ImportFormat::NvfuserIr);
  const std::string tb =
      "nvfuser.version() = '0.2.9'\nTraceback (most recent call last):\n  File \"r.py\", line 9\n"
      "    fd.execute(inputs)\nRuntimeError: oops\n";
  EXPECT_EQ(recognizeImportFormat(tb), ImportFormat::NvfuserIr);
  EXPECT_EQ(detectImportFormat(tb), ImportFormat::NvfuserIr);
  // A script that runs its definition and prints a traceback stays Python.
  EXPECT_EQ(detectImportFormat("with FusionDefinition() as fd:\n    pass\nfd.execute(inputs)\n" + tb),
            ImportFormat::NvfuserPython);
  auto rep = findErrorReport(tb);
  ASSERT_TRUE(rep.has_value());
  EXPECT_EQ(rep->line, "RuntimeError: oops");
  EXPECT_EQ(tb.substr(rep->offset, 12), "RuntimeError");
  EXPECT_FALSE(findErrorReport("T0_g[ iS0{i0} ]\n"));
}

TEST(ImportForms, LogWithTwoDumpsListsAndPicks) {
  std::string path = std::string(FC_SOURCE_DIR) + "/fixtures/import/ir_log_two_dumps.ir.txt";
  SourceText src(path, slurpFile(path));
  MappedText text(src);
  std::vector<IrDumpInfo> dumps = listIrDumps(text);
  ASSERT_EQ(dumps.size(), 2u);
  EXPECT_EQ(dumps[0].kind, "symbolic");
  EXPECT_EQ(dumps[1].kind, "concretized");
  EXPECT_EQ(dumps[0].label, "Fusion before concretization:");
  EXPECT_EQ(dumps[1].label, "Concretized Fusion:");
  EXPECT_EQ(dumps[1].first_line, 17);
  // The default is the first symbolic dump, said in a note; --dump picks the other.
  DiagnosticSink s;
  auto f = importIr(src, s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  ASSERT_FALSE(s.all().empty());
  EXPECT_NE(s.all()[0].message.find("the first symbolic one"), std::string::npos) << describe(s);
  EXPECT_EQ(f->axes[f->tensors[*f->findTensor("T2")].logical[0]].iter, IterType::Symbolic);
  for (const char* which : {"2", "last", "after-concretization"}) {
    DiagnosticSink s2;
    auto g = importIr(src, s2, IrImportOptions{which});
    ASSERT_TRUE(g.has_value()) << which << describe(s2);
    EXPECT_EQ(g->axes[g->tensors[*g->findTensor("T2")].logical[0]].iter, IterType::Iteration) << which;
  }
  DiagnosticSink s3;
  EXPECT_FALSE(importIr(src, s3, IrImportOptions{"7"}).has_value());
  EXPECT_TRUE(s3.hasErrors());
}

// The invalid fixtures of the C++ and paste forms (the fixture runner reads .json, .py and .txt
// repros only): each gives one located error that says what is missing or names the construct.
TEST(ImportForms, InvalidFixturesGiveOneLocatedError) {
  struct Case {
    const char* file;
    DiagCode code;
    int line, col;
    const char* needle;
  };
  const Case cases[] = {
      {"cpp_no_fusion.cpp", DiagCode::ImportSyntax, 1, 1, "the test builds no tensor"},
      {"cpp_unknown_function.cpp", DiagCode::ImportUnsupported, 6, 14, "`myProjectSpecificOp(...)`"},
      {"cpp_mesh_without_device_count.cpp", DiagCode::ImportSyntax, 7, 15,
       "DeviceMesh::createForNumDevices(...) takes the device count"},
      {"cpp_axis_without_index.cpp", DiagCode::ImportSyntax, 7, 6,
       "T0->axis(...) takes one axis index, got 0"},
      {"cpp_merge_without_axis.cpp", DiagCode::ImportSyntax, 7, 6, "merge(...) takes the axis to merge"},
      {"cpp_stride_order_not_a_permutation.cpp", DiagCode::ImportSyntax, 9, 38,
       "stride_order is not a valid permutation of 0..2"},
      {"cpp_take_along_axis_rank.cpp", DiagCode::ImportUnsupported, 8, 14,
       "takeAlongAxis: the operand and the index differ in rank"},
      {"cpp_cut_inside_fusion.cpp", DiagCode::ImportSyntax, 8, 1,
       "expected an expression, found the end of the text"},
      {"paste_no_repro.md", DiagCode::ImportSyntax, 1, 1, "no code block of the paste holds a repro"},
      {"cpp_getparam_without_instantiation.cpp", DiagCode::ImportUnsupported, 6, 19,
       "the dtype of makeContigConcreteTensor is built from GetParam(...), which the import cannot follow"},
      {"cpp_getparam_inside_generator.cpp", DiagCode::ImportUnsupported, 13, 6,
       "the factor of split is built from GetParam(...), which the import cannot follow"},
      {"cpp_mesh_shape_mismatch.cpp", DiagCode::ImportSyntax, 5, 18,
       "a device mesh of 6 devices cannot be viewed in the shape [2, 2] given with it"},
      {"cpp_int_from_float_beyond_int64.cpp", DiagCode::NumberOutOfRange, 6, 27,
       "`const int64_t kGroups`: 1e+30 does not fit in a 64-bit integer (C++ leaves the conversion "
       "undefined)"},
      {"cpp_static_cast_beyond_int64.cpp", DiagCode::NumberOutOfRange, 6, 47,
       "`static_cast<int64_t>`: 3e+19 does not fit in a 64-bit integer"},
      {"cpp_welford_with_initial_values.cpp", DiagCode::ImportUnsupported, 12, 12,
       "WelfordRaw(...) with initial values (init_avg, init_var, init_N) is not modelled"},
      {"cpp_size_dim_past_reductions.cpp", DiagCode::ImportSyntax, 9, 12,
       "size(T1, 1): dim out of range: T1 has 1 non-Reduction axis"},
      {"cpp_layer_norm_shape_rank.cpp", DiagCode::ImportSyntax, 9, 13,
       "layer_norm: the normalized shape has 3 dims but the input has rank 2"},
      {"cpp_reorder_parallelized_thread_axis.cpp", DiagCode::ImportSyntax, 10, 3,
       "reorderParallelizedToFront(...): nvFuser throws on the loop axis parallelized on TIDx (it expects "
       "only "
       "Stream and DID axes)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    std::string path = std::string(FC_SOURCE_DIR) + "/fixtures/invalid-import/" + c.file;
    SourceText src(path, slurpFile(path));
    DiagnosticSink s;
    EXPECT_FALSE(importFusion(src, s).has_value());
    ASSERT_EQ(s.errorCount(), 1u) << describe(s);
    for (const Diagnostic& d : s.all()) {
      if (d.severity != Severity::Error) continue;
      EXPECT_EQ(d.code, c.code) << describe(s);
      EXPECT_EQ(d.loc.file, path);
      EXPECT_EQ(d.loc.line, c.line) << describe(s);
      EXPECT_EQ(d.loc.col, c.col) << describe(s);
      EXPECT_NE(d.message.find(c.needle), std::string::npos) << d.message;
    }
  }
}

// An op without a shape rule is kept as the print gives it: its name, its operands (keyed ones too)
// and its outputs; the JSON and the head-style print read back to the same fusion.
TEST(ImportForms, OpaqueOpRoundTrips) {
  std::string path = std::string(FC_SOURCE_DIR) + "/fixtures/import/ir_opaque_ops.ir.txt";
  SourceText src(path, slurpFile(path));
  DiagnosticSink s;
  auto f = importFusion(src, s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  ASSERT_EQ(f->exprs.size(), 2u);
  const Expr& x = f->exprs[0];
  EXPECT_EQ(x.op, OpKind::Opaque);
  EXPECT_EQ(x.attrs.name, "sdpa");
  EXPECT_EQ(x.inputs.size(), 5u);  // three tensors, dropout_p and is_causal
  EXPECT_EQ(x.outputs.size(), 3u);
  ASSERT_EQ(s.all().size(), 1u) << describe(s);
  EXPECT_NE(s.all()[0].message.find("op `sdpa` has no shape rule in fusecheck"), std::string::npos);
  const std::string json = writeFusion(*f);
  DiagnosticSink rs;
  auto back = readFusion(SourceText("back.json", json), rs);
  ASSERT_TRUE(back.has_value()) << describe(rs);
  EXPECT_EQ(writeFusion(*back), json);
  DiagnosticSink ps;
  auto printed = importIr(SourceText("printed.txt", printFusionMath(*f, PrintStyle::Head)), ps);
  ASSERT_TRUE(printed.has_value()) << describe(ps);
  EXPECT_EQ(printed->exprs[0].attrs.name, "sdpa");
  EXPECT_EQ(printFusionMath(*printed, PrintStyle::Head), printFusionMath(*f, PrintStyle::Head));
  // A JSON opaque expr without its name is refused.
  std::string nameless = json;
  nameless.erase(nameless.find(", \"name\": \"sdpa\""), std::string(", \"name\": \"sdpa\"").size());
  DiagnosticSink ns;
  auto g = readFusion(SourceText("nameless.json", nameless), ns);
  ASSERT_TRUE(g.has_value()) << describe(ns);
  g->rebuildUses();
  DiagnosticSink vs;
  EXPECT_FALSE(verifyFusion(*g, vs));
  EXPECT_NE(describe(vs).find("expr 0 (opaque) has no \"name\""), std::string::npos) << describe(vs);
}

// Source maps: a diagnostic of a block read out of a quoted paste points into the paste.
TEST(ImportForms, PasteDiagnosticsPointIntoThePaste) {
  std::string text =
      "Some prose.\n\n> ```\n> T1_l[ iS2{i0} ]\n>    = reduction( T0_g[ iS0{i0} ], op = xor );\n> ```\n";
  SourceText src("paste.md", text);
  DiagnosticSink s;
  EXPECT_FALSE(importFusion(src, s).has_value());
  const Diagnostic* e = nullptr;
  for (const Diagnostic& d : s.all())
    if (d.severity == Severity::Error && !e) e = &d;
  ASSERT_NE(e, nullptr) << describe(s);
  EXPECT_EQ(e->loc.file, "paste.md");
  EXPECT_EQ(e->loc.line, 5) << describe(s);
  EXPECT_EQ(e->loc.col, 41) << describe(s);  // `xor`, counted from the `> ` marker
  // A note is located the same way: an op without a rule, imported as opaque.
  std::string opaque = "Some prose.\n\n> ```\n> T1_l[ iS2{i0} ]\n>    = topk(T0_g[ iS0{i0} ]);\n> ```\n";
  DiagnosticSink s2;
  EXPECT_TRUE(importFusion(SourceText("paste.md", opaque), s2).has_value()) << describe(s2);
  const Diagnostic* n = nullptr;
  for (const Diagnostic& d : s2.all())
    if (d.message.find("op `topk` has no shape rule") != std::string::npos) n = &d;
  ASSERT_NE(n, nullptr) << describe(s2);
  EXPECT_EQ(n->loc.line, 5) << describe(s2);
  EXPECT_EQ(n->loc.col, 8) << describe(s2);  // `topk` after the `> ` marker and `   = `
}

}  // namespace
}  // namespace fc

namespace fc {
namespace {

// Executor parameters as designated initializers, flat and nested, set the path as assignments do.
TEST(ImportForms, DesignatedExecutorParams) {
  const std::string body =
      "TEST_F(MultiDeviceTest, P) {\n"
      "  auto fusion = std::make_unique<Fusion>();\n"
      "  FusionGuard fg(fusion.get());\n"
      "  TensorView* a = makeContigTensor(2);\n"
      "  fusion->addInput(a);\n"
      "  fusion->addOutput(neg(a));\n"
      "  PARAMS\n"
      "  MultiDeviceExecutor runtime(std::move(fusion), *communicator_, params);\n"
      "}\n";
  struct Case {
    const char* params;
    const char* executor;
  };
  const Case cases[] = {
      {"MultiDeviceExecutorParams params{.executor = {.use_fusion_executor_cache = true}};", "mde-fec"},
      {"hir::HostIrExecutorParams params{.use_fusion_executor_cache = true, .cache_fusion_executor = false};",
       "mde-fec"},
      {"MultiDeviceExecutorParams params{.executor = {.use_fusion_executor_cache = false}};", "mde"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.params);
    std::string text = body;
    text.replace(text.find("PARAMS"), 6, c.params);
    DiagnosticSink s;
    auto f = importFusion(SourceText("t.cpp", text), s);
    ASSERT_TRUE(f.has_value()) << describe(s);
    ASSERT_TRUE(f->origin.has_value());
    EXPECT_EQ(f->origin->executor, c.executor) << f->origin->detail;
  }
}

// A C++ test that meshes its input before building ops on it: the import records when, so that
// the op builders of a later nvFuser can give the ops' outputs that mesh; JSON keeps it.
TEST(ImportForms, CppTestRecordsWhenItSetAMesh) {
  std::string path = std::string(FC_SOURCE_DIR) + "/fixtures/nvfuser/cpp_mesh_before_ops_reduce_scatter.cpp";
  DiagnosticSink s;
  SourceText src(path, slurpFile(path));
  auto f = importFusion(src, s);
  ASSERT_TRUE(f.has_value()) << describe(s);
  const Tensor& x = f->tensors[*f->findTensor("T0")];
  EXPECT_NE(x.mesh, kNone);
  EXPECT_EQ(x.mesh_set_at, 0u);
  EXPECT_EQ(f->tensors[*f->findTensor("T1")].mesh, kNone);
  // The test parallelizes the sum's output before building the product on it.
  EXPECT_EQ(f->tensors[*f->findTensor("T1")].mesh_set_at, 1u);
  std::string json = writeFusion(*f);
  EXPECT_NE(json.find("\"mesh_set_at\": 0"), std::string::npos) << json;
  DiagnosticSink s2;
  auto back = readFusion(SourceText("x.json", json), s2);
  ASSERT_TRUE(back.has_value()) << describe(s2);
  EXPECT_EQ(back->tensors[*back->findTensor("T0")].mesh_set_at, 0u);
  EXPECT_EQ(back->tensors[*back->findTensor("T1")].mesh_set_at, 1u);
}

// The forms a C++ test builds a 2-D mesh with: createForShape lays the devices 0..n-1 out row-major,
// DeviceMesh(devices, shape) views the given ones; shardTensor divides each axis by the size of its
// own mesh axis (DIDx the innermost).
TEST(ImportForms, CppTwoDimensionalMeshes) {
  for (const char* mesh_expr :
       {"DeviceMesh::createForShape({2, 3})", "DeviceMesh({0, 1, 2, 3, 4, 5}, {2, 3})",
        "DeviceMesh({{0, 1, 2, 3, 4, 5}, {2, 3}})"}) {
    SCOPED_TRACE(mesh_expr);
    const std::string text = std::string(
                                 "TEST_F(MultiDeviceTest, T) {\n"
                                 "  auto fusion = std::make_unique<Fusion>();\n"
                                 "  FusionGuard fg(fusion.get());\n"
                                 "  auto mesh = ") +
                             mesh_expr +
                             ";\n"
                             "  TensorView* in = makeContigTensor(2);\n"
                             "  fusion->addInput(in);\n"
                             "  fusion->addOutput(set(in));\n"
                             "  in->setDeviceMesh(mesh);\n"
                             "  in->axis(0)->parallelize(ParallelType::DIDy);\n"
                             "  in->axis(1)->parallelize(ParallelType::DIDx);\n"
                             "  at::Tensor whole = at::randn({2 * 5, 3 * 7});\n"
                             "  FusionExecutorCache executor_cache(std::move(fusion));\n"
                             "  executor_cache.runFusionWithInputs({shardTensor(whole, in)});\n"
                             "}\n";
    DiagnosticSink s;
    auto f = importFusion(SourceText("t.cpp", text), s);
    ASSERT_TRUE(f.has_value()) << describe(s);
    const Tensor& in = f->tensors[*f->findTensor("T0")];
    ASSERT_NE(in.mesh, kNone);
    EXPECT_EQ(f->meshes[in.mesh].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(f->meshes[in.mesh].devices, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
    ASSERT_EQ(f->concrete_inputs.size(), 1u);
    EXPECT_EQ(f->concrete_inputs[0].shape, (std::vector<int64_t>{5, 7}));
  }
}

}  // namespace
}  // namespace fc
