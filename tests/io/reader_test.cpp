// Reader tests: the seed repro read into the IR, every diagnostic code the
// reader emits with its JSON pointer and line:col, forward references,
// limits (depth, size, int64 range).
#include "io/reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "io/scalar_expr.h"
#include "io_test_util.h"

namespace fc {
namespace {

using testing::readText;

std::vector<std::string> axisNumbers(const Fusion& f, const std::vector<AxisId>& d) {
  std::vector<std::string> out;
  for (AxisId a : d) out.push_back(std::to_string(f.axes[a].number));
  return out;
}

TEST(Reader, SeedFixture) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(testing::fixturePath("fixtures/seed/matmul_allreduce_bias.json"), sink, src);
  ASSERT_TRUE(f.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
  EXPECT_TRUE(sink.all().empty());
  EXPECT_EQ(f->name, "matmul_allreduce_bias");
  // Format /2: the point and the path the repro records.
  EXPECT_FALSE(f->era.has_value());
  ASSERT_TRUE(f->nvfuser.has_value());
  EXPECT_EQ(f->nvfuser->point, "2024-06");
  ASSERT_TRUE(f->origin.has_value());
  EXPECT_EQ(f->origin->kind, "cpp-test");
  EXPECT_EQ(f->origin->frontend, "cpp");
  EXPECT_EQ(f->origin->executor, "mde-fec");
  ASSERT_EQ(f->provenance.size(), 4u);
  EXPECT_EQ(f->provenance[0].first, "source");
  EXPECT_EQ(f->provenance[0].second, "https://github.com/NVIDIA/Fuser/issues/2481");

  // Mesh {0 1}
  ASSERT_EQ(f->meshes.size(), 1u);
  EXPECT_EQ(f->meshes[0].shape, std::vector<int64_t>{2});
  EXPECT_EQ(f->meshes[0].devices, (std::vector<int64_t>{0, 1}));

  // Tensors T0..T9 in order.
  ASSERT_EQ(f->tensors.size(), 10u);
  for (TensorId t = 0; t < 10; ++t) EXPECT_EQ(f->tensorName(t), "T" + std::to_string(t));
  const Tensor& t0 = f->tensors[0];
  EXPECT_EQ(t0.dtype, DType::Half);
  EXPECT_EQ(t0.memory, MemoryType::Global);
  EXPECT_EQ(t0.mesh, 0u);
  ASSERT_EQ(t0.logical.size(), 3u);
  const Axis& a0 = f->axes[t0.logical[0]];
  EXPECT_EQ(a0.number, 0u);
  EXPECT_EQ(a0.parallel, ParallelType::DIDx);
  EXPECT_EQ(a0.iter, IterType::Iteration);
  EXPECT_EQ(a0.owner, 0u);
  EXPECT_EQ(f->scalarName(a0.extent), "i0");
  EXPECT_EQ(f->scalars[a0.extent].kind, ScalarKind::Symbol);

  // T3 = permute(T0): root [7 8 9], logical [7 9 8] sharing the root's axes.
  const Tensor& t3 = f->tensors[3];
  EXPECT_EQ(t3.memory, MemoryType::Local);
  EXPECT_EQ(axisNumbers(*f, t3.root), (std::vector<std::string>{"7", "8", "9"}));
  EXPECT_EQ(axisNumbers(*f, t3.logical), (std::vector<std::string>{"7", "9", "8"}));
  EXPECT_EQ(t3.logical[0], t3.root[0]);
  EXPECT_EQ(t3.logical[1], t3.root[2]);
  EXPECT_EQ(t3.logical[2], t3.root[1]);
  for (AxisId a : t3.root) EXPECT_EQ(f->axes[a].owner, 3u);

  // T4 carries {i0} on its DIDx axis and rS13{i2}; T5 carries rS14{i0}.
  const Tensor& t4 = f->tensors[4];
  ASSERT_EQ(t4.logical.size(), 4u);
  EXPECT_EQ(f->axes[t4.logical[0]].parallel, ParallelType::DIDx);
  EXPECT_EQ(f->scalarName(f->axes[t4.logical[0]].extent), "i0");
  EXPECT_EQ(f->axes[t4.logical[3]].number, 13u);
  EXPECT_EQ(f->axes[t4.logical[3]].iter, IterType::Reduction);
  EXPECT_EQ(f->scalarName(f->axes[t4.logical[3]].extent), "i2");
  const Axis& r14 = f->axes[f->tensors[5].logical[0]];
  EXPECT_EQ(r14.number, 14u);
  EXPECT_EQ(r14.iter, IterType::Reduction);
  EXPECT_EQ(f->scalarName(r14.extent), "i0");
  // T6's broadcast axis has the constant extent 1.
  const Axis& b17 = f->axes[f->tensors[6].logical[0]];
  EXPECT_EQ(b17.iter, IterType::Broadcast);
  ASSERT_EQ(f->scalars[b17.extent].kind, ScalarKind::Constant);
  EXPECT_EQ(f->scalars[b17.extent].value.i, 1);

  // Exprs.
  ASSERT_EQ(f->exprs.size(), 7u);
  EXPECT_EQ(f->exprs[0].op, OpKind::Permute);
  EXPECT_EQ(f->exprs[0].attrs.dims, (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(f->exprs[1].op, OpKind::Matmul);
  ASSERT_EQ(f->exprs[1].inputs.size(), 2u);
  EXPECT_EQ(f->exprs[1].inputs[0], ValueRef::tensor(3));
  EXPECT_EQ(f->exprs[1].inputs[1], ValueRef::tensor(1));
  EXPECT_EQ(f->exprs[2].op, OpKind::Sum);
  EXPECT_EQ(f->exprs[3].op, OpKind::Broadcast);
  EXPECT_EQ(f->exprs[3].attrs.flags, (std::vector<bool>{true, false}));
  EXPECT_EQ(f->exprs[4].op, OpKind::Cast);
  ASSERT_TRUE(f->exprs[4].attrs.dtype.has_value());
  EXPECT_EQ(*f->exprs[4].attrs.dtype, DType::Float);
  EXPECT_EQ(f->exprs[6].op, OpKind::Add);
  EXPECT_EQ(f->tensors[9].definition, 6u);
  EXPECT_EQ(f->tensors[0].definition, kNone);
  EXPECT_EQ(std::vector<ExprId>(f->uses(4).begin(), f->uses(4).end()), std::vector<ExprId>{2});

  // Inputs / outputs / concrete inputs.
  EXPECT_EQ(f->inputs,
            (std::vector<ValueRef>{ValueRef::tensor(0), ValueRef::tensor(1), ValueRef::tensor(2)}));
  EXPECT_EQ(f->outputs, std::vector<TensorId>{9});
  ASSERT_EQ(f->concrete_inputs.size(), 3u);
  EXPECT_EQ(f->concrete_inputs[0].value, ValueRef::tensor(0));
  EXPECT_EQ(f->concrete_inputs[0].shape, (std::vector<int64_t>{1, 64, 128}));
  EXPECT_EQ(f->concrete_inputs[1].shape, (std::vector<int64_t>{1, 64, 64}));
  EXPECT_EQ(f->concrete_inputs[2].shape, (std::vector<int64_t>{64}));
  ASSERT_TRUE(f->seed.has_value());
  EXPECT_EQ(*f->seed, 0u);

  // Declared scalars keep their declaration index.
  auto i3 = f->findScalar("i3");
  ASSERT_TRUE(i3.has_value());
  EXPECT_EQ(f->scalars[*i3].decl, 2u);
}

// A minimal valid document with `extra` spliced in before the closing brace.
std::string doc(const std::string& extra, const std::string& tensors = "[]", const std::string& exprs = "[]",
                const std::string& inputs = "[]", const std::string& outputs = "[]") {
  return "{\n\"format\": \"fusecheck.fusion/1\",\n\"tensors\": " + tensors + ",\n\"exprs\": " + exprs +
         ",\n\"inputs\": " + inputs + ",\n\"outputs\": " + outputs + extra + "\n}\n";
}

struct ErrorCase {
  const char* name;
  std::string text;
  const char* code;
  const char* pointer;  // nullptr: not checked
  // The diagnostic's line:col is where `anchor` first occurs in the text
  // (computed, not hard-coded); "<END>" is the end of the text.
  std::string anchor;
};

LineCol expectedPosition(const ErrorCase& c) {
  SourceText src("x", c.text);
  size_t off = c.anchor == "<END>" ? c.text.size() : c.text.find(c.anchor);
  EXPECT_NE(off, std::string::npos) << c.name << ": anchor not in text";
  return src.lineCol(off);
}

class ReaderErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ReaderErrors, CodePointerAndPosition) {
  const ErrorCase& c = GetParam();
  auto r = readText(c.text);
  EXPECT_FALSE(r.fusion.has_value());
  ASSERT_FALSE(r.sink.all().empty()) << c.name;
  const Diagnostic& d = r.sink.all()[0];
  EXPECT_EQ(diagCodeInfo(d.code).id, c.code) << c.name << ": " << d.message;
  if (c.pointer) {
    EXPECT_EQ(d.loc.pointer, c.pointer) << c.name << ": " << d.message;
  }
  EXPECT_EQ(d.loc.file, "test.json");
  LineCol want = expectedPosition(c);
  EXPECT_EQ(d.loc.line, want.line) << c.name << ": " << d.message;
  EXPECT_EQ(d.loc.col, want.col) << c.name << ": " << d.message;
}

const std::string kT0 = R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}]}])";
const std::string kSet = R"([{"op": "set", "inputs": ["T0"], "outputs": ["T0"]}])";

std::string tensorWithAxis(const std::string& axis_fields) {
  return R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, )" + axis_fields + "}]}]";
}

std::vector<ErrorCase> errorCases() {
  return {
      {"syntax", doc(",\n\"seed\": 1 2"), "FC0002", "/seed", "2\n}"},
      {"trailing", doc("") + "@", "FC0002", "", "@"},
      {"missing_comma", doc(",\n\"name\": \"a\"\n\"era\": \"head\""), "FC0002", "/name", "\"era\""},
      {"truncated", "{\"format\": \"fusecheck.fusion/1\",\n\"tensors\": [", "FC0003", "/tensors/0", "<END>"},
      {"truncated_string", "{\"format\": \"fusecheck.fu", "FC0003", "/format", "<END>"},
      {"empty", "  \n", "FC0003", "", "<END>"},
      {"too_deep", std::string(1024, '[') + "{\"a\": [[[[", "FC0004", nullptr, "{"},
      {"format", "{\"format\": \"fusecheck.fusion/9\"}", "FC0010", "/format", "\"fusecheck.fusion/9\""},
      {"format_missing", "{\"tensors\": []}", "FC0010", "", "{"},
      {"unknown_key", doc(",\n\"colour\": 1"), "FC0011", "/colour", "1\n}"},
      {"unknown_axis_key", doc("", tensorWithAxis(R"("extent": 4, "size": 3)")), "FC0011",
       "/tensors/0/logical/0/size", "3}"},
      {"wrong_type", doc(",\n\"name\": 5"), "FC0012", "/name", "5\n}"},
      {"wrong_type_root", "[1]", "FC0012", "", "["},
      {"wrong_type_int", doc(",\n\"seed\": 1.5"), "FC0012", "/seed", "1.5"},
      {"wrong_type_domain", doc("", R"([{"name": "T0", "dtype": "Float", "logical": {}}])"), "FC0012",
       "/tensors/0/logical", "{}"},
      {"missing_key", "{\"format\": \"fusecheck.fusion/1\", \"tensors\": [], \"exprs\": [], \"inputs\": []}",
       "FC0013", "", "{"},
      {"missing_extent", doc("", tensorWithAxis(R"("parallel": "TIDx")")), "FC0013", "/tensors/0/logical/0",
       "{\"id\": 0"},
      {"duplicate_key", doc(",\n\"seed\": 1,\n\"seed\": 2"), "FC0014", "/seed", "\"seed\": 2"},
      {"bad_expr", doc("", tensorWithAxis(R"("extent": "4 +* 2")")), "FC0015", "/tensors/0/logical/0/extent",
       "\"4 +*"},
      {"expr_too_deep",
       doc("", tensorWithAxis("\"extent\": \"" + std::string(300, '(') + "1" + std::string(300, ')') + "\"")),
       "FC0015", "/tensors/0/logical/0/extent", "\"(("},
      {"bad_scalar_name", doc(",\n\"scalars\": [{\"name\": \"max\"}]"), "FC0015", "/scalars/0/name",
       "\"max\""},
      {"bad_dtype", doc("", R"([{"name": "T0", "dtype": "float32", "logical": []}])"), "FC0016",
       "/tensors/0/dtype", "\"float32\""},
      {"bad_era", doc(",\n\"era\": \"2023\""), "FC0016", "/era", "\"2023\""},
      {"bad_transform", doc("", R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}],
                   "transforms": [{"op": "swizzle", "in": 0}]}])"),
       "FC0016", "/tensors/0/transforms/0/op", "\"swizzle\""},
      {"unknown_op", doc("", kT0, R"([{"op": "frobnicate", "outputs": ["T0"]}])"), "FC0017", "/exprs/0/op",
       "\"frobnicate\""},
      {"unknown_iter", doc("", tensorWithAxis(R"("iter": "Loop", "extent": 4)")), "FC0018",
       "/tensors/0/logical/0/iter", "\"Loop\""},
      {"unknown_parallel", doc("", tensorWithAxis(R"("parallel": "DIDw", "extent": 4)")), "FC0019",
       "/tensors/0/logical/0/parallel", "\"DIDw\""},
      {"invalid_utf8", doc(",\n\"name\": \"a\xff\""), "FC0020", "", "\xff"},
      {"int64_overflow", doc("", tensorWithAxis(R"("extent": 9223372036854775808)")), "FC0021",
       "/tensors/0/logical/0/extent", "9223372036854775808"},
      {"int64_overflow_string", doc("", tensorWithAxis(R"("extent": "9223372036854775808")")), "FC0021",
       "/tensors/0/logical/0/extent", "\"9223372036854775808"},
      {"negative_seed", doc(",\n\"seed\": -1"), "FC0021", "/seed", "-1"},
      {"dangling_tensor", doc("", "[]", "[]", "[]", "[\"T7\"]"), "FC0101", "/outputs/0", "\"T7\""},
      {"dangling_operand", doc("", kT0, R"([{"op": "add", "inputs": ["T0", "x"], "outputs": ["T0"]}])"),
       "FC0101", "/exprs/0/inputs/1", "\"x\""},
      {"dangling_scalar", doc("", tensorWithAxis(R"("extent": "2 * n")")), "FC0102",
       "/tensors/0/logical/0/extent", "\"2 * n\""},
      {"dangling_forward",
       doc(",\n\"segmentation\": {\"segments\": [{\"exprs\": [0]}], \"forward\": [{\"segment\": 0, "
           "\"symbol\": "
           "\"i9\"}]}",
           kT0, kSet),
       "FC0102", "/segmentation/forward/0/symbol", "\"i9\""},
      {"scalar_cycle",
       doc(",\n\"scalars\": [{\"name\": \"a\", \"value\": \"b + 1\"}, {\"name\": \"b\", \"value\": \"a * "
           "2\"}]"),
       "FC0105", "/scalars/0/value", "\"b + 1\""},
      {"size_cycle", doc("", tensorWithAxis(R"("extent": "size(T0, 0) + 1")")), "FC0105", nullptr, "{"},
      {"dangling_mesh", doc("", R"([{"name": "T0", "dtype": "Float", "mesh": 3, "logical": []}])"), "FC0110",
       "/tensors/0/mesh", "3,"},
      {"dangling_axis",
       doc("", R"([{"name": "T0", "dtype": "Float", "root": [{"id": 0, "extent": 4}], "logical": [1]}])"),
       "FC0111", "/tensors/0/logical/0", "1]"},
      {"dangling_split_axis",
       doc("", R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}],
                   "transforms": [{"op": "split", "in": 5, "factor": 2, "outer": {"id": 1, "extent": 2},
                                   "inner": {"id": 2, "extent": 2}}]}])"),
       "FC0111", "/tensors/0/transforms/0/in", "5,"},
      {"dangling_expr", doc(",\n\"segmentation\": {\"segments\": [{\"exprs\": [0, 4]}]}", kT0, kSet),
       "FC0112", "/segmentation/segments/0/exprs/1", "4]"},
      {"attr_not_allowed",
       doc("", kT0, R"([{"op": "neg", "inputs": ["T0"], "outputs": ["T0"], "dims": [0]}])"), "FC0208",
       "/exprs/0/dims", "[0]"},
  };
}

INSTANTIATE_TEST_SUITE_P(All, ReaderErrors, ::testing::ValuesIn(errorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) {
                           return std::string(i.param.name);
                         });

// A tensor produced twice (the verifier's FC0106) is defined by its first
// producer, on one thread and on several (the reader's finish runs in chunks).
TEST(Reader, FirstProducerDefinesATensor) {
  for (unsigned threads : {1u, 3u, 8u}) {
    DiagnosticSink sink;
    SourceText src;
    ReadOptions o;
    o.threads = threads;
    o.parallel_min_bytes = 0;
    auto f = readFusionFile(testing::fixturePath("fixtures/invalid/two_definitions.json"), sink, src, o);
    ASSERT_TRUE(f.has_value());
    TensorId t9 = kNone;
    for (TensorId t = 0; t < f->tensors.size(); ++t)
      if (f->tensorName(t) == "T9") t9 = t;
    ASSERT_NE(t9, kNone);
    EXPECT_EQ(f->tensors[t9].definition, 6u) << threads << " threads";
    EXPECT_EQ(f->exprs[7].outputs[0], t9);
  }
}

TEST(Reader, ForwardReferencesResolve) {
  // exprs before tensors, tensors before scalars, size() of a later tensor.
  std::string text = R"J({
    "format": "fusecheck.fusion/1",
    "exprs": [{"op": "mul", "inputs": ["T0", "k"], "outputs": ["T1"]}],
    "outputs": ["T1"],
    "tensors": [
      {"name": "T1", "dtype": "Float", "logical": [{"id": 1, "extent": "size(T0, 0)"}]},
      {"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": "n"}]}
    ],
    "inputs": ["T0", "k"],
    "scalars": [{"name": "n"}, {"name": "k", "dtype": "Double"}, {"name": "m", "value": "ceilDiv(n, 4)"}]
  })J";
  auto r = readText(text);
  ASSERT_TRUE(r.fusion.has_value()) << r.sink.all()[0].message;
  const Fusion& f = *r.fusion;
  EXPECT_EQ(f.exprs[0].inputs[0], ValueRef::tensor(1));
  auto k = f.findScalar("k");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(f.exprs[0].inputs[1], ValueRef::scalar(*k));
  EXPECT_EQ(f.scalars[*k].kind, ScalarKind::Input);
  EXPECT_EQ(f.scalars[*k].dtype, DType::Double);
  EXPECT_EQ(f.outputs[0], 0u);
  EXPECT_EQ(f.tensors[0].definition, 0u);
  const Scalar& sz = f.scalars[f.axes[f.tensors[0].logical[0]].extent];
  EXPECT_EQ(sz.op, ScalarOp::Size);
  EXPECT_EQ(sz.size_of, 1u);
  EXPECT_EQ(f.scalarName(f.axes[f.tensors[1].logical[0]].extent), "n");
  auto m = f.findScalar("m");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(f.scalars[*m].kind, ScalarKind::Derived);
  EXPECT_EQ(f.scalars[*m].op, ScalarOp::CeilDiv);
  EXPECT_EQ(f.scalars[*m].decl, 2u);
  EXPECT_EQ(printScalarDefinition(f, *m), "ceilDiv(n, 4)");
}

TEST(Reader, ExtentAtInt64Limits) {
  auto r = readText(doc("", R"([{"name": "T0", "dtype": "Float", "logical": [
      {"id": 0, "extent": "9223372036854775807"}, {"id": 1, "extent": -9223372036854775808},
      {"id": 2, "extent": "9223372036854775808 - 1"}]}])"));
  // 2^63 does not fit even as the left operand of a subtraction.
  EXPECT_FALSE(r.fusion.has_value());
  ASSERT_FALSE(r.sink.all().empty());
  EXPECT_EQ(diagCodeInfo(r.sink.all()[0].code).id, "FC0021");
  EXPECT_EQ(r.sink.all()[0].loc.pointer, "/tensors/0/logical/2/extent");

  auto ok = readText(doc("", R"([{"name": "T0", "dtype": "Float", "logical": [
      {"id": 0, "extent": "9223372036854775807"}, {"id": 1, "extent": -9223372036854775808}]}])"));
  ASSERT_TRUE(ok.fusion.has_value());
  const Fusion& f = *ok.fusion;
  EXPECT_EQ(f.scalars[f.axes[0].extent].value.i, INT64_MAX);
  EXPECT_EQ(f.scalars[f.axes[1].extent].value.i, INT64_MIN);
}

TEST(Reader, DeepNestingDoesNotCrash) {
  std::string deep(100000, '[');
  auto r = readText(deep);
  EXPECT_FALSE(r.fusion.has_value());
  ASSERT_EQ(r.sink.all().size(), 1u);
  EXPECT_EQ(diagCodeInfo(r.sink.all()[0].code).id, "FC0004");
  // Balanced, and inside a key the reader skips.
  std::string balanced = doc(",\n\"name\": " + std::string(100000, '[') + std::string(100000, ']'));
  auto r2 = readText(balanced);
  EXPECT_FALSE(r2.fusion.has_value());
  ASSERT_FALSE(r2.sink.all().empty());
  EXPECT_EQ(diagCodeInfo(r2.sink.all()[0].code).id, "FC0004");
  // Deeply nested scalar expression strings stop at the parser's limit.
  std::string minus(100000, '-');
  auto r3 = readText(
      doc("", R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": ")" + minus + "1\"}]}]"));
  EXPECT_FALSE(r3.fusion.has_value());
  ASSERT_FALSE(r3.sink.all().empty());
  EXPECT_EQ(diagCodeInfo(r3.sink.all()[0].code).id, "FC0015");
}

TEST(Reader, MaxBytesIsCheckedBeforeReading) {
  ReadOptions o;
  o.max_bytes = 10;
  auto r = readText(doc(""), o);
  EXPECT_FALSE(r.fusion.has_value());
  ASSERT_EQ(r.sink.all().size(), 1u);
  EXPECT_EQ(diagCodeInfo(r.sink.all()[0].code).id, "FC0005");

  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(testing::fixturePath("fixtures/seed/matmul_allreduce_bias.json"), sink, src, o);
  EXPECT_FALSE(f.has_value());
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(diagCodeInfo(sink.all()[0].code).id, "FC0005");
  EXPECT_TRUE(src.text().empty());  // never read
}

TEST(Reader, UnreadableFile) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile("/nonexistent/dir/x.json", sink, src);
  EXPECT_FALSE(f.has_value());
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(diagCodeInfo(sink.all()[0].code).id, "FC0001");
}

TEST(Reader, SeveralErrorsAreReported) {
  auto r = readText(doc(",\n\"colour\": 1,\n\"era\": \"nope\",\n\"seed\": -1"));
  EXPECT_FALSE(r.fusion.has_value());
  ASSERT_EQ(r.sink.all().size(), 3u);
  EXPECT_EQ(r.sink.all()[0].loc.pointer, "/colour");
  EXPECT_EQ(r.sink.all()[1].loc.pointer, "/era");
  EXPECT_EQ(r.sink.all()[2].loc.pointer, "/seed");
  EXPECT_EQ(diagCodeInfo(r.sink.all()[2].code).id, "FC0021");
}

TEST(Reader, ConstantsAndLiterals) {
  auto r =
      readText(doc(R"(,
    "concrete_inputs": [{"input": "s", "value": "-inf"}, {"input": "u", "value": "9007199254740993"}],
    "tolerance": {"rtol": 0.5, "atol": "inf"})",
                   R"([{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}]}])",
                   R"([{"op": "full", "outputs": ["T0"], "shape": [4], "value": "nan", "dtype": "Float"}])",
                   R"(["s", "u"])", R"(["T0"])") +
               "");
  // s and u are not declared: the dangling names are reported.
  EXPECT_FALSE(r.fusion.has_value());
  auto r2 = readText(R"({"format": "fusecheck.fusion/1",
    "scalars": [{"name": "s", "dtype": "Double"}, {"name": "u", "dtype": "Int"}],
    "tensors": [{"name": "T0", "dtype": "Float", "logical": [{"id": 0, "extent": 4}]}],
    "exprs": [{"op": "full", "outputs": ["T0"], "shape": [4], "value": "nan", "dtype": "Float"}],
    "inputs": ["s", "u"], "outputs": ["T0"],
    "concrete_inputs": [{"input": "s", "value": "-inf"}, {"input": "u", "value": "9007199254740993"}],
    "tolerance": {"rtol": 0.5, "atol": "inf"}})");
  ASSERT_TRUE(r2.fusion.has_value()) << r2.sink.all()[0].message;
  const Fusion& f = *r2.fusion;
  ASSERT_TRUE(f.concrete_inputs[0].scalar.has_value());
  EXPECT_TRUE(std::isinf(f.concrete_inputs[0].scalar->f));
  EXPECT_LT(f.concrete_inputs[0].scalar->f, 0);
  EXPECT_EQ(f.concrete_inputs[1].scalar->i, 9007199254740993);
  EXPECT_TRUE(std::isnan(f.scalars[f.exprs[0].attrs.value].value.f));
  EXPECT_EQ(*f.tolerance.rtol, 0.5);
  EXPECT_TRUE(std::isinf(*f.tolerance.atol));
}

}  // namespace
}  // namespace fc
