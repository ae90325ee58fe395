// The canonical writer (see writer.h; docs/format.md "Canonical form").
// Keys are written in the order of docs/format.md, IR defaults are omitted,
// one axis object / expr / transform per line. Scalars are written as the
// scalar-expression text the reader parses back to the same nodes
// (io/scalar_expr.h); integers beyond 2^53 and non-finite floats become
// strings. Each axis is defined (as an object) where it first appears in
// the order root, logical, allocation, loop, transforms and referred to by
// its id afterwards. O(size of the fusion) time; output is deterministic.
#include "io/writer.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "io/scalar_expr.h"
#include "support/escape.h"
#include "support/internal_error.h"

namespace fc {
namespace {

constexpr int64_t kMaxExactJsonInt = int64_t{1} << 53;

class Writer {
 public:
  explicit Writer(const Fusion& f) : f_(f) {}

  std::string run() {
    out_.reserve(4096 + f_.axes.size() * 64 + f_.exprs.size() * 96);
    out_ += "{\n";
    field(1, "format");
    // Format /2 adds "origin" and "nvfuser"; a fusion without them is written
    // as /1, which every fusecheck reads.
    str(f_.origin || f_.nvfuser || f_.source ? "fusecheck.fusion/2" : "fusecheck.fusion/1");
    if (!f_.name.empty()) {
      next(1, "name");
      str(f_.name);
    }
    if (f_.era) {
      next(1, "era");
      str(eraName(*f_.era));
    }
    if (f_.origin) {
      stringFields("origin", {{"kind", &f_.origin->kind},
                              {"frontend", &f_.origin->frontend},
                              {"executor", &f_.origin->executor},
                              {"detail", &f_.origin->detail},
                              {"printed_from", &f_.origin->printed_from},
                              {"printed_before", &f_.origin->printed_before}});
      writeKeywords(f_.origin->keywords);
    }
    if (f_.nvfuser)
      stringFields("nvfuser", {{"point", &f_.nvfuser->point},
                               {"version", &f_.nvfuser->version},
                               {"commit", &f_.nvfuser->commit}});
    if (f_.source) writeSource(*f_.source);
    if (!f_.provenance.empty()) {
      next(1, "provenance");
      out_ += "{\n";
      for (size_t i = 0; i < f_.provenance.size(); ++i) {
        if (i) out_ += ",\n";
        indent(2);
        str(f_.provenance[i].first);
        out_ += ": ";
        str(f_.provenance[i].second);
      }
      out_ += '\n';
      indent(1);
      out_ += '}';
    }
    linesField(1, "meshes", f_.meshes, [&](const Mesh& m) {
      out_ += "{\"shape\": ";
      ints(m.shape);
      out_ += ", \"devices\": ";
      ints(m.devices);
      out_ += '}';
    });
    writeScalars();
    next(1, "tensors");
    writeTensors();
    next(1, "exprs");
    lines(f_.exprs.size(), [&](size_t i) { writeExpr(f_.exprs[i]); });
    next(1, "inputs");
    row(f_.inputs.size(), [&](size_t i) { valueRef(f_.inputs[i]); });
    next(1, "outputs");
    row(f_.outputs.size(), [&](size_t i) { tensorName(f_.outputs[i]); });
    linesField(1, "concrete_inputs", f_.concrete_inputs, [&](const ConcreteInput& c) {
      out_ += "{\"input\": ";
      valueRef(c.value);
      member(!c.shape.empty(), "shape", [&] { ints(c.shape); });
      member(!c.strides.empty(), "strides", [&] { ints(c.strides); });
      member(c.scalar.has_value(), "value", [&] { constant(*c.scalar); });
      if (c.range) {
        out_ += ", \"range\": [";
        number(c.range->first);
        out_ += ", ";
        number(c.range->second);
        out_ += ']';
      }
      member(c.fill.has_value(), "fill", [&] { number(*c.fill); });
      out_ += '}';
    });
    if (f_.seed) {
      next(1, "seed");
      out_ += std::to_string(*f_.seed);
    }
    if (f_.tolerance.rtol || f_.tolerance.atol) {
      next(1, "tolerance");
      out_ += '{';
      bool first = true;
      for (auto [k, v] : {std::pair{"rtol", f_.tolerance.rtol}, std::pair{"atol", f_.tolerance.atol}}) {
        if (!v) continue;
        if (!first) out_ += ", ";
        first = false;
        str(k);
        out_ += ": ";
        ConstValue c;
        c.kind = ConstValue::Kind::Float;
        c.f = *v;
        constant(c);
      }
      out_ += '}';
    }
    if (f_.segmentation) writeSegmentation(*f_.segmentation);
    out_ += "\n}\n";
    return std::move(out_);
  }

 private:
  void indent(int n) { out_.append(static_cast<size_t>(n) * 2, ' '); }
  void str(std::string_view s) { appendJsonString(out_, s); }
  void field(int level, std::string_view k) {
    indent(level);
    str(k);
    out_ += ": ";
  }
  void next(int level, std::string_view k) {
    out_ += ",\n";
    field(level, k);
  }
  // `, "k": ` and the value `write` appends, on the same line, when `present`.
  template <class F>
  void member(bool present, std::string_view k, F&& write) {
    if (!present) return;
    out_ += ", \"";
    out_ += k;
    out_ += "\": ";
    write();
  }
  // An array on one line: [a, b, c].
  template <class F>
  void row(size_t n, F&& each) {
    out_ += '[';
    for (size_t i = 0; i < n; ++i) {
      if (i) out_ += ", ";
      each(i);
    }
    out_ += ']';
  }
  template <class T>
  void ints(const std::vector<T>& v) {
    row(v.size(), [&](size_t i) { out_ += std::to_string(v[i]); });
  }
  // An array with one element per line at the given indentation (level 2).
  template <class F>
  void lines(size_t n, F&& each, int level = 2) {
    if (n == 0) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    for (size_t i = 0; i < n; ++i) {
      if (i) out_ += ",\n";
      indent(level);
      each(i);
    }
    out_ += '\n';
    indent(level - 1);
    out_ += ']';
  }

  // `key: [...]` with one element of v per line (each(element) writes it),
  // at the given level; left out when v is empty.
  template <class T, class F>
  void linesField(int level, std::string_view key, const std::vector<T>& v, F&& each) {
    if (v.empty()) return;
    next(level, key);
    lines(
        v.size(), [&](size_t i) { each(v[i]); }, level + 1);
  }

  // A number as a constant: integral values as integers, others as floats.
  void number(double d) {
    ConstValue c;
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= 9007199254740992.0) {
      c.kind = ConstValue::Kind::Int;
      c.i = static_cast<int64_t>(d);
    } else {
      c.kind = ConstValue::Kind::Float;
      c.f = d;
    }
    constant(c);
  }
  void constant(const ConstValue& c) {
    switch (c.kind) {
      case ConstValue::Kind::Bool: out_ += c.i ? "true" : "false"; return;
      case ConstValue::Kind::Int:
        if (c.i > kMaxExactJsonInt || c.i < -kMaxExactJsonInt)
          str(std::to_string(c.i));
        else
          out_ += std::to_string(c.i);
        return;
      case ConstValue::Kind::Float:
        if (std::isfinite(c.f))
          out_ += printConstValue(c);
        else
          str(printConstValue(c));
        return;
    }
  }

  // A scalar in a value position whose integer literals the reader takes as `int_dtype`
  // (docs/format.md, "Dtypes of constants"): a name, a constant, or an expression; a constant of
  // another dtype is written typed (`"Float(2.5)"`).
  void scalar(ScalarId s, DType int_dtype) {
    FC_CHECK(s < f_.scalars.size(), "scalar id out of range in the writer");
    const Scalar& x = f_.scalars[s];
    if (x.name != kNoName) return str(f_.names.str(x.name));
    if (x.kind == ScalarKind::Constant && !needsTypedConstant(f_, s, int_dtype)) return constant(x.value);
    str(printScalarExpr(f_, s, int_dtype));
  }
  void sizeScalar(ScalarId s) { scalar(s, DType::Index); }
  void valueScalar(ScalarId s) { scalar(s, DType::Int); }

  void tensorName(TensorId t) {
    FC_CHECK(t < f_.tensors.size(), "tensor id out of range in the writer");
    str(f_.tensorName(t));
  }

  void valueRef(const ValueRef& r) {
    if (r.isTensor())
      tensorName(r.id);
    else
      valueScalar(r.id);
  }

  // `key: {"k": "v", ...}` on one line, the fields with an empty value left out.
  void stringFields(std::string_view key,
                    std::initializer_list<std::pair<const char*, const std::string*>> fields) {
    next(1, key);
    out_ += "{";
    bool first = true;
    for (auto [k, v] : fields) {
      if (v->empty()) continue;
      out_ += first ? "" : ", ";
      first = false;
      str(k);
      out_ += ": ";
      str(*v);
    }
    out_ += "}";
  }

  // Inside "origin" (just closed): "keywords", one {"call", "keyword", "at"} per use, one a line.
  void writeKeywords(const std::vector<KeywordUse>& ks) {
    if (ks.empty()) return;
    out_.pop_back();  // the origin's '}'
    out_ += ", \"keywords\": [";
    for (size_t i = 0; i < ks.size(); ++i) {
      out_ += i ? ",\n" : "\n";
      indent(2);
      out_ += "{\"call\": ";
      str(ks[i].call);
      out_ += ", \"keyword\": ";
      str(ks[i].keyword);
      if (ks[i].at.line > 0) {
        out_ += ", \"at\": \"" + std::to_string(ks[i].at.line) + ':' + std::to_string(ks[i].at.col) + '"';
      }
      out_ += '}';
    }
    out_ += "\n";
    indent(1);
    out_ += "]}";
  }

  // The scalars "scalars" lists: declared scalars in declaration order, then
  // named scalars created after loading (by fixes or importers) in id order.
  std::vector<ScalarId> namedScalars() const {
    std::vector<ScalarId> named;
    for (ScalarId s = 0; s < f_.scalars.size(); ++s)
      if (f_.scalars[s].name != kNoName) named.push_back(s);
    std::stable_sort(named.begin(), named.end(), [&](ScalarId a, ScalarId b) {
      return f_.scalars[a].decl < f_.scalars[b].decl;  // kNone (max) sorts last
    });
    return named;
  }

  // "source": the file, then "line:col" (or null) per tensor and expr in id
  // order and per scalar in the order of "scalars"; trailing nulls left out.
  void writeSource(const SourcePositions& p) {
    next(1, "source");
    out_ += "{\"file\": ";
    str(p.file);
    auto list = [&](const char* key, size_t n, auto&& at) {
      while (n > 0 && at(n - 1).line <= 0) --n;
      if (n == 0) return;
      out_ += ",\n";
      indent(2);
      str(key);
      out_ += ": ";
      row(n, [&](size_t i) {
        LineCol lc = at(i);
        if (lc.line <= 0) {
          out_ += "null";
          return;
        }
        out_ += '"';
        out_ += std::to_string(lc.line);
        out_ += ':';
        out_ += std::to_string(lc.col);
        out_ += '"';
      });
    };
    auto of = [](const std::vector<LineCol>& v, size_t i) { return i < v.size() ? v[i] : LineCol{}; };
    list("tensors", std::min(p.tensors.size(), f_.tensors.size()),
         [&](size_t i) { return of(p.tensors, i); });
    std::vector<ScalarId> named = namedScalars();
    list("scalars", named.size(), [&](size_t i) { return of(p.scalars, named[i]); });
    list("exprs", std::min(p.exprs.size(), f_.exprs.size()), [&](size_t i) { return of(p.exprs, i); });
    out_ += '}';
  }

  void writeScalars() {
    std::vector<ScalarId> named = namedScalars();
    linesField(1, "scalars", named, [&](ScalarId id) {
      const Scalar& x = f_.scalars[id];
      out_ += "{\"name\": ";
      str(f_.names.str(x.name));
      member(x.dtype != DType::Index, "dtype", [&] { str(dtypeName(x.dtype)); });
      if (x.kind == ScalarKind::Constant) {
        out_ += ", \"value\": ";
        constant(x.value);
      } else if (x.kind == ScalarKind::Derived) {
        out_ += ", \"value\": ";
        str(printScalarDefinition(f_, id));
      }
      out_ += '}';
    });
  }

  void writeTensors() {
    defined_.assign(f_.axes.size(), 0);
    lines(f_.tensors.size(), [&](size_t i) { writeTensor(static_cast<TensorId>(i)); });
  }

  void writeTensor(TensorId id) {
    const Tensor& t = f_.tensors[id];
    out_ += "{\"name\": ";
    str(f_.names.str(t.name));
    out_ += ", \"dtype\": ";
    str(dtypeName(t.dtype));
    member(t.memory != MemoryType::Local, "memory", [&] { str(memoryTypeName(t.memory)); });
    member(t.mesh != kNone, "mesh", [&] { out_ += std::to_string(t.mesh); });
    member(t.mesh_set_at != kMeshSetAfterDefinition, "mesh_set_at",
           [&] { out_ += std::to_string(t.mesh_set_at); });
    touched_.clear();
    domain("root", t.root);
    domain("logical", t.logical, /*always=*/true);
    domain("allocation", t.allocation);
    if (!t.contiguity.empty()) {
      out_ += ",\n";
      indent(3);
      out_ += "\"contiguity\": ";
      row(t.contiguity.size(), [&](size_t i) {
        out_ += !t.contiguity[i] ? "null" : *t.contiguity[i] ? "true" : "false";
      });
    }
    domain("loop", t.loop);
    if (!t.transforms.empty()) {
      out_ += ",\n";
      indent(3);
      out_ += "\"transforms\": ";
      lines(
          t.transforms.size(),
          [&](size_t i) {
            const AxisTransform& tr = t.transforms[i];
            if (tr.kind == AxisTransform::Kind::Split) {
              out_ += "{\"op\": \"split\", \"in\": ";
              axisEntry(tr.in);
              out_ += ", \"factor\": ";
              sizeScalar(tr.factor);
              if (!tr.inner_split) out_ += ", \"inner_split\": false";
              out_ += ", \"outer\": ";
              axisEntry(tr.out);
              out_ += ", \"inner\": ";
              axisEntry(tr.out2);
            } else {
              out_ += "{\"op\": \"merge\", \"outer\": ";
              axisEntry(tr.in);
              out_ += ", \"inner\": ";
              axisEntry(tr.in2);
              out_ += ", \"out\": ";
              axisEntry(tr.out);
            }
            out_ += '}';
          },
          4);
    }
    for (AxisId a : touched_) defined_[a] = 0;  // axes shared across tensors are redefined per tensor
    out_ += '}';
  }

  void domain(std::string_view key, const std::vector<AxisId>& d, bool always = false) {
    if (d.empty() && !always) return;
    out_ += ",\n";
    indent(3);
    str(key);
    out_ += ": ";
    bool all_refs = true;
    for (AxisId a : d)
      if (a >= defined_.size() || !defined_[a]) all_refs = false;
    if (all_refs) {
      row(d.size(), [&](size_t i) { out_ += std::to_string(f_.axes[d[i]].number); });
      return;
    }
    lines(
        d.size(), [&](size_t i) { axisEntry(d[i]); }, 4);
  }

  // An axis object the first time an axis appears in this tensor, its id
  // afterwards.
  void axisEntry(AxisId a) {
    FC_CHECK(a < f_.axes.size(), "axis id out of range in the writer");
    const Axis& x = f_.axes[a];
    if (defined_[a]) {
      out_ += std::to_string(x.number);
      return;
    }
    defined_[a] = 1;
    touched_.push_back(a);
    out_ += "{\"id\": ";
    out_ += std::to_string(x.number);
    member(x.iter != IterType::Iteration, "iter", [&] { str(iterTypeName(x.iter)); });
    member(x.parallel != ParallelType::Serial, "parallel", [&] { str(parallelTypeName(x.parallel)); });
    out_ += ", \"extent\": ";
    sizeScalar(x.extent);
    member(x.expanded != kNone, "expanded", [&] { sizeScalar(x.expanded); });
    if (x.rfactor) out_ += ", \"rfactor\": true";
    out_ += '}';
  }

  void scalarList(const std::vector<ScalarId>& v) {
    row(v.size(), [&](size_t i) { sizeScalar(v[i]); });
  }

  void writeExpr(const Expr& e) {
    out_ += "{\"op\": ";
    str(opName(e.op));
    member(!e.attrs.name.empty(), "name", [&] { str(e.attrs.name); });
    member(!e.inputs.empty(), "inputs",
           [&] { row(e.inputs.size(), [&](size_t i) { valueRef(e.inputs[i]); }); });
    out_ += ", \"outputs\": ";
    row(e.outputs.size(), [&](size_t i) { tensorName(e.outputs[i]); });
    const Attrs& a = e.attrs;
    member(a.dtype.has_value(), "dtype", [&] { str(dtypeName(*a.dtype)); });
    if (a.approximate_tanh) out_ += ", \"approximate\": \"tanh\"";
    member(!a.flags.empty(), "flags",
           [&] { row(a.flags.size(), [&](size_t i) { out_ += a.flags[i] ? "true" : "false"; }); });
    member(!a.shape.empty(), "shape", [&] { scalarList(a.shape); });
    member(!a.dims.empty(), "dims", [&] { ints(a.dims); });
    member(!a.original_shape.empty(), "original_shape", [&] { ints(a.original_shape); });
    if (!a.ranges.empty()) {
      out_ += ", \"ranges\": ";
      row(a.ranges.size(), [&](size_t i) {
        out_ += "{\"start\": ";
        sizeScalar(a.ranges[i].start);
        out_ += ", \"stop\": ";
        sizeScalar(a.ranges[i].stop);
        member(a.ranges[i].step != kNone, "step", [&] { sizeScalar(a.ranges[i].step); });
        out_ += '}';
      });
    }
    member(!a.pad.empty(), "pad", [&] { scalarList(a.pad); });
    member(a.value != kNone, "value", [&] { valueScalar(a.value); });
    member(a.dim != 0, "dim", [&] { out_ += std::to_string(a.dim); });
    if (a.keepdim) out_ += ", \"keepdim\": true";
    member(a.correction != 1, "correction", [&] { out_ += std::to_string(a.correction); });
    member(a.start != kNone, "start", [&] { valueScalar(a.start); });
    member(a.step != kNone, "step", [&] { valueScalar(a.step); });
    out_ += '}';
  }

  void writeSegmentation(const Segmentation& s) {
    next(1, "segmentation");
    out_ += "{\n";
    field(2, "segments");
    lines(
        s.segments.size(),
        [&](size_t i) {
          out_ += "{\"exprs\": ";
          ints(s.segments[i].exprs);
          member(!s.segments[i].scheduler.empty(), "scheduler", [&] { str(s.segments[i].scheduler); });
          out_ += '}';
        },
        3);
    if (s.input_rewrite) {
      next(2, "input_rewrite");
      str(inputRewriteName(*s.input_rewrite));
    }
    linesField(2, "forward", s.forward, [&](const auto& f) {
      out_ += "{\"segment\": ";
      out_ += std::to_string(f.segment);
      out_ += ", \"symbol\": ";
      sizeScalar(f.symbol);
      out_ += '}';
    });
    if (!s.applied_fixes.empty()) {
      next(2, "applied_fixes");
      row(s.applied_fixes.size(), [&](size_t i) { str(s.applied_fixes[i]); });
    }
    out_ += '\n';
    indent(1);
    out_ += '}';
  }

  const Fusion& f_;
  std::string out_;
  std::vector<uint8_t> defined_;
  std::vector<AxisId> touched_;
};

}  // namespace

std::string writeFusion(const Fusion& f) { return Writer(f).run(); }

}  // namespace fc
