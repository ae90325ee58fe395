// Source positions of imported repros: each importer records where the fusion's tensors and exprs
// are in the user's text, pointers into the fusion resolve to those places, and the JSON the
// writer makes of the fusion keeps them.
#include "io/source_map.h"

#include <gtest/gtest.h>

#include <string>

#include "io/import_detect.h"
#include "io/reader.h"
#include "io/writer.h"

namespace fc {
namespace {

struct Mapped {
  SourceText src;
  std::optional<Fusion> f;
  DiagnosticSink sink;
};

std::unique_ptr<Mapped> import(const std::string& name, const std::string& text) {
  auto m = std::make_unique<Mapped>();
  m->src = SourceText(name, text);
  m->f = importFusion(m->src, m->sink);
  return m;
}

// line:col of `pointer` through the fusion's positions, "" when it does not resolve.
std::string at(const Fusion& f, const std::string& pointer) {
  LineCol lc = positionOf(pointer, f);
  if (lc.line <= 0) return "";
  return std::to_string(lc.line) + ":" + std::to_string(lc.col);
}
std::string at(const Mapped& m, const std::string& pointer) { return at(*m.f, pointer); }

TEST(SourceMap, PythonCallsLocateTheirTensorsExprsAndScalars) {
  auto m = import("r.py",
                  "def f(fd : FusionDefinition) -> None :\n"
                  "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
                  "    S1 = fd.define_scalar(None, dtype=DataType.Double)\n"
                  "    T2 = fd.ops.mul(T0, S1)\n"
                  "    fd.add_output(T2)\n");
  ASSERT_TRUE(m->f.has_value());
  EXPECT_EQ(at(*m, "/tensors/0"), "2:10");
  EXPECT_EQ(at(*m, "/tensors/1/logical/0"), "4:10");  // T2 is tensor 1
  EXPECT_EQ(at(*m, "/exprs/0/inputs/1"), "4:10");
  EXPECT_EQ(at(*m, "/inputs/1"), "3:10");  // the scalar input
  EXPECT_EQ(at(*m, "/outputs/0"), "4:10");
  EXPECT_EQ(at(*m, "/outputs/1"), "");
  EXPECT_EQ(at(*m, "/meshes/0"), "");
  EXPECT_EQ(at(*m, "/tensors/x"), "");
}

TEST(SourceMap, PrintedIrLocatesTheFirstPrintAndTheExprLine) {
  auto m = import("r.txt",
                  "Inputs:\n"
                  "  T0_g[ iS0{i0} ], float\n"
                  "Outputs:\n"
                  "  T1_g[ iS1{i0} ], float\n"
                  "\n"
                  "%kernel_math {\n"
                  "T1_g[ iS1{i0} ]\n"
                  "   = relu(T0_g[ iS0{i0} ]);\n"
                  "}\n");
  ASSERT_TRUE(m->f.has_value());
  EXPECT_EQ(at(*m, "/tensors/0"), "2:3");
  EXPECT_EQ(at(*m, "/tensors/1"), "4:3");
  EXPECT_EQ(at(*m, "/exprs/0"), "7:1");
}

TEST(SourceMap, CppTestStatementsLocateWhatTheyBuild) {
  auto m = import("t.cpp",
                  "TEST_F(NVFuserTest, Map) {\n"
                  "  Fusion fusion;\n"
                  "  FusionGuard fg(&fusion);\n"
                  "  auto tv0 = makeSymbolicTensor(2);\n"
                  "  fusion.addInput(tv0);\n"
                  "    auto tv1 = sum(tv0, {1});\n"
                  "  fusion.addOutput(tv1);\n"
                  "}\n");
  ASSERT_TRUE(m->f.has_value()) << (m->sink.all().empty() ? "" : m->sink.all()[0].message);
  EXPECT_EQ(at(*m, "/tensors/0"), "4:3");
  EXPECT_EQ(at(*m, "/tensors/1"), "6:5");
  EXPECT_EQ(at(*m, "/exprs/0"), "6:5");
}

TEST(SourceMap, APastedBlockLocatesInTheUsersFile) {
  auto m = import("issue.md",
                  "The fusion below fails:\n"
                  "\n"
                  "```python\n"
                  "def f(fd : FusionDefinition) -> None :\n"
                  "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
                  "    T1 = fd.ops.relu(T0)\n"
                  "    fd.add_output(T1)\n"
                  "```\n");
  ASSERT_TRUE(m->f.has_value()) << (m->sink.all().empty() ? "" : m->sink.all()[0].message);
  EXPECT_EQ(at(*m, "/tensors/0"), "5:10");
  EXPECT_EQ(at(*m, "/exprs/0"), "6:10");
}

TEST(SourceMap, DiagnosticsWithALineKeepIt) {
  auto m = import("r.py",
                  "def f(fd : FusionDefinition) -> None :\n"
                  "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
                  "    fd.add_output(T0)\n");
  ASSERT_TRUE(m->f.has_value());
  std::vector<Diagnostic> d(2);
  d[0].loc = Location{"", "/tensors/0", 0, 0};
  d[1].loc = Location{"", "/tensors/0", 5, 7};
  EXPECT_TRUE(fillSourcePositions(d, *m->f));
  EXPECT_EQ(d[0].loc.line, 2);
  EXPECT_EQ(d[0].loc.col, 10);
  EXPECT_EQ(d[0].loc.file, "r.py");
  EXPECT_EQ(d[1].loc.line, 5);
  EXPECT_EQ(d[1].loc.col, 7);
}

// The JSON `import -o` writes keeps the positions: read back, its pointers resolve to the same
// places in the user's file, and a second save is the same text.
TEST(SourceMap, TheWrittenJsonKeepsThePositions) {
  auto m = import("r.py",
                  "def f(fd : FusionDefinition) -> None :\n"
                  "    S0 = fd.define_scalar(None, dtype=DataType.Double)\n"
                  "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
                  "    T2 = fd.ops.mul(T1, S0)\n"
                  "    fd.add_output(T2)\n");
  ASSERT_TRUE(m->f.has_value());
  ASSERT_TRUE(m->f->source.has_value());
  EXPECT_EQ(m->f->source->file, "r.py");
  std::string json = writeFusion(*m->f);
  EXPECT_NE(json.find("\"source\": {\"file\": \"r.py\""), std::string::npos) << json;
  DiagnosticSink sink;
  auto back = readFusion(SourceText("r.json", json), sink);
  ASSERT_TRUE(back.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
  for (const char* p : {"/tensors/0", "/tensors/1", "/exprs/0", "/inputs/0", "/inputs/1", "/outputs/0"})
    EXPECT_EQ(at(*back, p), at(*m, p)) << p;
  EXPECT_EQ(at(*back, "/inputs/0"), "2:10");  // the scalar, through "scalars" order
  EXPECT_EQ(writeFusion(*back), json);
  std::vector<Diagnostic> d(1);
  d[0].loc = Location{"r.json", "/exprs/0/outputs/0", 0, 0};
  EXPECT_TRUE(fillSourcePositions(d, *back));
  EXPECT_EQ(d[0].loc.file, "r.py");
  EXPECT_EQ(d[0].loc.line, 4);
  EXPECT_EQ(d[0].loc.col, 10);
}

// A "source" that names nodes the repro does not have, or is no line:col, is a located error.
TEST(SourceMap, TheReaderChecksSourcePositions) {
  auto read = [](const std::string& source) {
    std::string json = R"({"format": "fusecheck.fusion/2", "source": )" + source + R"(,
      "tensors": [{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}]}],
      "exprs": [], "inputs": ["T0"], "outputs": ["T0"]})";
    DiagnosticSink sink;
    auto f = readFusion(SourceText("s.json", json), sink);
    return sink.all().empty() ? std::string("ok") : sink.all()[0].message + " @" + sink.all()[0].loc.pointer;
  };
  EXPECT_EQ(read(R"({"file": "r.py", "tensors": ["3:5"]})"), "ok");
  EXPECT_EQ(read(R"({"file": "r.py", "tensors": ["3:5", null]})"),
            "\"source\" has positions for 2 tensors; the repro has 1 @/source/tensors/1");
  EXPECT_EQ(read(R"({"file": "r.py", "tensors": ["3"]})"),
            "expected \"line:col\" (two numbers from 1) or null, found \"3\" @/source/tensors/0");
  EXPECT_EQ(read(R"({"file": "r.py", "exprs": ["0:1"]})"),
            "expected \"line:col\" (two numbers from 1) or null, found \"0:1\" @/source/exprs/0");
  EXPECT_EQ(read(R"({"tensors": []})"), "missing required key \"file\" @/source");
}

}  // namespace
}  // namespace fc
