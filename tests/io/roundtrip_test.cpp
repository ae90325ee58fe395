// Writer tests: load -> save -> load gives the same graph (compared field by
// field, not through the writer) and the second save is byte-identical, for
// every fixture in fixtures/valid and fixtures/seed; non-finite and big
// constants are written as strings; escaping; named scalars created after
// loading are declared.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "io/reader.h"
#include "io/scalar_expr.h"
#include "io/writer.h"
#include "io_test_util.h"

namespace fc {
namespace {

using testing::readText;

// Structural equality of two fusions, by names and axis numbers (ids may
// legitimately differ: the reader numbers nodes in document order).
class GraphCompare {
 public:
  GraphCompare(const Fusion& a, const Fusion& b) : a_(a), b_(b) {}

  void run() {
    EXPECT_EQ(a_.name, b_.name);
    EXPECT_EQ(a_.era, b_.era);
    ASSERT_EQ(a_.origin.has_value(), b_.origin.has_value());
    if (a_.origin) {
      EXPECT_EQ(a_.origin->kind, b_.origin->kind);
      EXPECT_EQ(a_.origin->frontend, b_.origin->frontend);
      EXPECT_EQ(a_.origin->executor, b_.origin->executor);
      EXPECT_EQ(a_.origin->detail, b_.origin->detail);
      ASSERT_EQ(a_.origin->keywords.size(), b_.origin->keywords.size());
      for (size_t i = 0; i < a_.origin->keywords.size(); ++i) {
        EXPECT_EQ(a_.origin->keywords[i].call, b_.origin->keywords[i].call);
        EXPECT_EQ(a_.origin->keywords[i].keyword, b_.origin->keywords[i].keyword);
        EXPECT_EQ(a_.origin->keywords[i].at.line, b_.origin->keywords[i].at.line);
        EXPECT_EQ(a_.origin->keywords[i].at.col, b_.origin->keywords[i].at.col);
      }
    }
    ASSERT_EQ(a_.nvfuser.has_value(), b_.nvfuser.has_value());
    if (a_.nvfuser) {
      EXPECT_EQ(a_.nvfuser->point, b_.nvfuser->point);
      EXPECT_EQ(a_.nvfuser->version, b_.nvfuser->version);
      EXPECT_EQ(a_.nvfuser->commit, b_.nvfuser->commit);
    }
    EXPECT_EQ(a_.provenance, b_.provenance);
    ASSERT_EQ(a_.meshes.size(), b_.meshes.size());
    for (size_t i = 0; i < a_.meshes.size(); ++i) {
      EXPECT_EQ(a_.meshes[i].shape, b_.meshes[i].shape);
      EXPECT_EQ(a_.meshes[i].devices, b_.meshes[i].devices);
    }
    EXPECT_EQ(named(a_), named(b_));
    ASSERT_EQ(a_.tensors.size(), b_.tensors.size());
    for (TensorId t = 0; t < a_.tensors.size(); ++t) tensor(a_.tensors[t], b_.tensors[t]);
    ASSERT_EQ(a_.exprs.size(), b_.exprs.size());
    for (ExprId e = 0; e < a_.exprs.size(); ++e) expr(a_.exprs[e], b_.exprs[e]);
    ASSERT_EQ(a_.inputs.size(), b_.inputs.size());
    for (size_t i = 0; i < a_.inputs.size(); ++i) EXPECT_EQ(ref(a_, a_.inputs[i]), ref(b_, b_.inputs[i]));
    ASSERT_EQ(a_.outputs.size(), b_.outputs.size());
    for (size_t i = 0; i < a_.outputs.size(); ++i)
      EXPECT_EQ(a_.tensorName(a_.outputs[i]), b_.tensorName(b_.outputs[i]));
    ASSERT_EQ(a_.concrete_inputs.size(), b_.concrete_inputs.size());
    for (size_t i = 0; i < a_.concrete_inputs.size(); ++i) {
      const auto &x = a_.concrete_inputs[i], &y = b_.concrete_inputs[i];
      EXPECT_EQ(ref(a_, x.value), ref(b_, y.value));
      EXPECT_EQ(x.shape, y.shape);
      EXPECT_EQ(x.strides, y.strides);
      EXPECT_EQ(x.scalar.has_value(), y.scalar.has_value());
      if (x.scalar && y.scalar) {
        EXPECT_EQ(printConstValue(*x.scalar), printConstValue(*y.scalar));
      }
    }
    EXPECT_EQ(a_.seed, b_.seed);
    EXPECT_EQ(a_.tolerance.rtol, b_.tolerance.rtol);
    EXPECT_EQ(a_.tolerance.atol, b_.tolerance.atol);
    ASSERT_EQ(a_.segmentation.has_value(), b_.segmentation.has_value());
    if (a_.segmentation) {
      const auto &x = *a_.segmentation, &y = *b_.segmentation;
      ASSERT_EQ(x.segments.size(), y.segments.size());
      for (size_t i = 0; i < x.segments.size(); ++i) {
        EXPECT_EQ(x.segments[i].exprs, y.segments[i].exprs);
        EXPECT_EQ(x.segments[i].scheduler, y.segments[i].scheduler);
      }
      EXPECT_EQ(x.input_rewrite, y.input_rewrite);
      ASSERT_EQ(x.forward.size(), y.forward.size());
      for (size_t i = 0; i < x.forward.size(); ++i) {
        EXPECT_EQ(x.forward[i].segment, y.forward[i].segment);
        EXPECT_EQ(a_.scalarName(x.forward[i].symbol), b_.scalarName(y.forward[i].symbol));
      }
      EXPECT_EQ(x.applied_fixes, y.applied_fixes);
    }
  }

 private:
  // Named scalars: name, kind, dtype, decl and definition text.
  static std::vector<std::string> named(const Fusion& f) {
    std::vector<std::string> out;
    for (ScalarId s = 0; s < f.scalars.size(); ++s) {
      const Scalar& x = f.scalars[s];
      if (x.name == kNoName) continue;
      out.push_back(std::string(f.names.str(x.name)) + "|" + std::to_string(static_cast<int>(x.kind)) + "|" +
                    std::string(dtypeName(x.dtype)) + "|" + std::to_string(x.decl) + "|" +
                    (x.kind == ScalarKind::Derived || x.kind == ScalarKind::Constant
                         ? printScalarDefinition(f, s)
                         : ""));
    }
    return out;
  }
  // A scalar as a tree: kind, dtype and structure down to names/constants.
  static std::string scalar(const Fusion& f, ScalarId s) {
    if (s == kNone) return "-";
    const Scalar& x = f.scalars[s];
    std::string k = std::to_string(static_cast<int>(x.kind)) + ":" + std::string(dtypeName(x.dtype)) + ":";
    if (x.name != kNoName) return k + std::string(f.names.str(x.name));
    if (x.kind == ScalarKind::Constant)
      return k + std::to_string(static_cast<int>(x.value.kind)) + printConstValue(x.value);
    if (x.op == ScalarOp::Size)
      return k + "size(" + std::string(f.tensorName(x.size_of)) + std::to_string(x.size_dim);
    return k + std::string(scalarOpName(x.op)) + "(" + scalar(f, x.lhs) + "," + scalar(f, x.rhs) + ")";
  }
  static std::string ref(const Fusion& f, ValueRef r) {
    return r.isTensor() ? "T:" + std::string(f.tensorName(r.id)) : "S:" + scalar(f, r.id);
  }
  std::string axis(const Fusion& f, AxisId a) {
    if (a == kNone) return "-";
    const Axis& x = f.axes[a];
    return std::to_string(x.number) + "/" + std::string(iterTypeName(x.iter)) + "/" +
           std::string(parallelTypeName(x.parallel)) + "/" + scalar(f, x.extent) + "/" +
           scalar(f, x.expanded) + "/" + (x.rfactor ? "rf" : "") + "/" + std::string(f.tensorName(x.owner));
  }
  std::vector<std::string> dom(const Fusion& f, const std::vector<AxisId>& d) {
    std::vector<std::string> out;
    for (AxisId a : d) out.push_back(axis(f, a));
    return out;
  }
  void tensor(const Tensor& x, const Tensor& y) {
    EXPECT_EQ(a_.names.str(x.name), b_.names.str(y.name));
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.memory, y.memory);
    EXPECT_EQ(x.mesh, y.mesh);
    EXPECT_EQ(x.mesh_set_at, y.mesh_set_at);
    EXPECT_EQ(dom(a_, x.root), dom(b_, y.root));
    EXPECT_EQ(dom(a_, x.logical), dom(b_, y.logical));
    EXPECT_EQ(dom(a_, x.allocation), dom(b_, y.allocation));
    EXPECT_EQ(dom(a_, x.loop), dom(b_, y.loop));
    EXPECT_EQ(x.contiguity, y.contiguity);
    ASSERT_EQ(x.transforms.size(), y.transforms.size());
    for (size_t i = 0; i < x.transforms.size(); ++i) {
      const auto &p = x.transforms[i], &q = y.transforms[i];
      EXPECT_EQ(p.kind, q.kind);
      EXPECT_EQ(axis(a_, p.in), axis(b_, q.in));
      EXPECT_EQ(axis(a_, p.in2), axis(b_, q.in2));
      EXPECT_EQ(axis(a_, p.out), axis(b_, q.out));
      EXPECT_EQ(axis(a_, p.out2), axis(b_, q.out2));
      EXPECT_EQ(scalar(a_, p.factor), scalar(b_, q.factor));
      EXPECT_EQ(p.inner_split, q.inner_split);
    }
    EXPECT_EQ(x.definition, y.definition);
  }
  void expr(const Expr& x, const Expr& y) {
    EXPECT_EQ(x.op, y.op);
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t i = 0; i < x.inputs.size(); ++i) EXPECT_EQ(ref(a_, x.inputs[i]), ref(b_, y.inputs[i]));
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t i = 0; i < x.outputs.size(); ++i)
      EXPECT_EQ(a_.tensorName(x.outputs[i]), b_.tensorName(y.outputs[i]));
    const Attrs &p = x.attrs, &q = y.attrs;
    EXPECT_EQ(p.dims, q.dims);
    EXPECT_EQ(p.flags, q.flags);
    auto list = [](const Fusion& f, const std::vector<ScalarId>& v) {
      std::vector<std::string> out;
      for (ScalarId s : v) out.push_back(scalar(f, s));
      return out;
    };
    EXPECT_EQ(list(a_, p.shape), list(b_, q.shape));
    EXPECT_EQ(list(a_, p.pad), list(b_, q.pad));
    ASSERT_EQ(p.ranges.size(), q.ranges.size());
    for (size_t i = 0; i < p.ranges.size(); ++i) {
      EXPECT_EQ(scalar(a_, p.ranges[i].start), scalar(b_, q.ranges[i].start));
      EXPECT_EQ(scalar(a_, p.ranges[i].stop), scalar(b_, q.ranges[i].stop));
      EXPECT_EQ(scalar(a_, p.ranges[i].step), scalar(b_, q.ranges[i].step));
    }
    EXPECT_EQ(p.dtype, q.dtype);
    EXPECT_EQ(scalar(a_, p.value), scalar(b_, q.value));
    EXPECT_EQ(scalar(a_, p.start), scalar(b_, q.start));
    EXPECT_EQ(scalar(a_, p.step), scalar(b_, q.step));
    EXPECT_EQ(p.dim, q.dim);
    EXPECT_EQ(p.correction, q.correction);
    EXPECT_EQ(p.keepdim, q.keepdim);
    EXPECT_EQ(p.approximate_tanh, q.approximate_tanh);
  }

  const Fusion& a_;
  const Fusion& b_;
};

std::vector<std::string> fixtureFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"fixtures/valid", "fixtures/seed"}) {
    std::filesystem::path p = testing::fixturePath(dir);
    if (!std::filesystem::exists(p)) continue;
    for (const auto& e : std::filesystem::directory_iterator(p)) {
      std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && name.find(".expect.") == std::string::npos)
        out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, SameGraphAndByteIdenticalSecondSave) {
  DiagnosticSink sink;
  SourceText src;
  auto f1 = readFusionFile(GetParam(), sink, src);
  ASSERT_TRUE(f1.has_value()) << GetParam() << ": " << (sink.all().empty() ? "" : sink.all()[0].message);
  std::string s1 = writeFusion(*f1);
  auto r2 = readText(s1);
  ASSERT_TRUE(r2.fusion.has_value()) << s1 << "\n"
                                     << r2.sink.all()[0].message << " at " << r2.sink.all()[0].loc.pointer;
  GraphCompare(*f1, *r2.fusion).run();
  std::string s2 = writeFusion(*r2.fusion);
  EXPECT_EQ(s1, s2);
  auto r3 = readText(s2);
  ASSERT_TRUE(r3.fusion.has_value());
  GraphCompare(*r2.fusion, *r3.fusion).run();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RoundTrip, ::testing::ValuesIn(fixtureFiles()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = std::filesystem::path(i.param).stem().string();
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return std::filesystem::path(i.param).parent_path().filename().string() + "_" + n;
                         });

TEST(RoundTripSet, FixtureSetIsNotEmpty) {
  // Guards against the parameterized test silently running on nothing.
  auto files = fixtureFiles();
  EXPECT_GE(files.size(), 7u);
}

TEST(Writer, NonFiniteAndBigConstantsAreStrings) {
  Fusion f;
  ScalarId big = f.addConstInt(INT64_MAX);
  ScalarId n53 = f.addConstInt(int64_t{1} << 53);
  ScalarId n53p = f.addConstInt((int64_t{1} << 53) + 1);
  TensorId t = f.addTensor("T0", DType::Float, MemoryType::Global,
                           {f.addAxis(0, IterType::Iteration, ParallelType::Serial, big),
                            f.addAxis(1, IterType::Iteration, ParallelType::Serial, n53),
                            f.addAxis(2, IterType::Iteration, ParallelType::Serial, n53p)});
  Attrs a;
  a.value = f.addConstFloat(-std::numeric_limits<double>::infinity());
  a.shape = {big, n53, n53p};
  f.addExpr(OpKind::Full, {}, {t}, a);
  f.outputs = {t};
  Attrs b;
  b.value = f.addConstFloat(std::nan(""));
  TensorId t1 = f.addTensor("T1", DType::Float, MemoryType::Global, {});
  f.addExpr(OpKind::Full, {}, {t1}, b);
  std::string s = writeFusion(f);
  EXPECT_NE(s.find("\"extent\": \"9223372036854775807\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"extent\": 9007199254740992}"), std::string::npos) << s;
  EXPECT_NE(s.find("\"extent\": \"9007199254740993\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"value\": \"-inf\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"value\": \"nan\""), std::string::npos) << s;
  auto r = readText(s);
  ASSERT_TRUE(r.fusion.has_value()) << s;
  const Fusion& g = *r.fusion;
  EXPECT_EQ(g.scalars[g.axes[0].extent].value.i, INT64_MAX);
  EXPECT_EQ(g.scalars[g.axes[2].extent].value.i, (int64_t{1} << 53) + 1);
  EXPECT_TRUE(std::isinf(g.scalars[g.exprs[0].attrs.value].value.f));
  EXPECT_TRUE(std::isnan(g.scalars[g.exprs[1].attrs.value].value.f));
  EXPECT_EQ(writeFusion(g), s);
}

TEST(Writer, EscapesStringsAndKeepsUtf8) {
  Fusion f;
  f.name = "quote\" backslash\\ tab\t nl\n bell\x07 é ✓";
  f.provenance.emplace_back("k/~", "v\x1f");
  std::string s = writeFusion(f);
  EXPECT_NE(s.find(R"("quote\" backslash\\ tab\t nl\n bell\u0007 é ✓")"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("k/~": "v\u001f")"), std::string::npos) << s;
  auto r = readText(s);
  ASSERT_TRUE(r.fusion.has_value()) << s;
  EXPECT_EQ(r.fusion->name, f.name);
  EXPECT_EQ(r.fusion->provenance, f.provenance);
}

TEST(Writer, DeclaresNamedScalarsCreatedAfterLoading) {
  Fusion f;
  ScalarId i0 = f.addSymbol("i0");
  ScalarId four = f.addConstInt(4);
  ScalarId q = f.addDerived(ScalarOp::CeilDiv, i0, four);
  f.scalars[q].name = f.names.intern("q");
  TensorId t = f.addTensor("T0", DType::Float, MemoryType::Global,
                           {f.addAxis(3, IterType::Iteration, ParallelType::Serial, q)});
  f.inputs = {ValueRef::tensor(t)};
  f.outputs = {t};
  std::string s = writeFusion(f);
  EXPECT_NE(s.find(R"J({"name": "q", "value": "ceilDiv(i0, 4)"})J"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("extent": "q")"), std::string::npos) << s;
  auto r = readText(s);
  ASSERT_TRUE(r.fusion.has_value()) << s;
  EXPECT_EQ(writeFusion(*r.fusion), s);
}

TEST(Writer, SplitDefinesAxesWhereTheyFirstAppear) {
  auto r = readText(
      R"J({"format": "fusecheck.fusion/1", "scalars": [{"name": "i0"}], "meshes": [{"shape": [2], "devices": [0, 1]}],
    "tensors": [{"name": "T0", "dtype": "Float", "mesh": 0, "memory": "global",
      "transforms": [{"op": "split", "in": 0, "factor": 2, "inner_split": false, "outer": 1, "inner": 2}],
      "loop": [{"id": 1, "parallel": "DIDx", "extent": 2}, {"id": 2, "extent": "ceilDiv(i0, 2)"}],
      "logical": [{"id": 0, "extent": "i0"}]}],
    "exprs": [], "inputs": ["T0"], "outputs": ["T0"]})J");
  ASSERT_TRUE(r.fusion.has_value()) << r.sink.all()[0].message << " " << r.sink.all()[0].loc.pointer;
  const Fusion& f = *r.fusion;
  const Tensor& t = f.tensors[0];
  ASSERT_EQ(t.transforms.size(), 1u);
  EXPECT_EQ(t.transforms[0].in, t.logical[0]);
  EXPECT_EQ(t.transforms[0].out, t.loop[0]);
  EXPECT_EQ(t.transforms[0].out2, t.loop[1]);
  EXPECT_FALSE(t.transforms[0].inner_split);
  std::string s = writeFusion(f);
  EXPECT_NE(s.find(R"({"op": "split", "in": 0, "factor": 2, "inner_split": false, "outer": 1, "inner": 2})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"id": 1, "parallel": "DIDx", "extent": 2})"), std::string::npos) << s;
}

}  // namespace
}  // namespace fc
