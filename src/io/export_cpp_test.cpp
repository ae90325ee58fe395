// C++ GoogleTest exporter (see export_cpp_test.h).
#include "io/export_cpp_test.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "io/export_common.h"
#include "io/packed_fp4.h"
#include "ir/rng_like.h"

namespace fc {
namespace {

std::string cppDT(DType t) { return "DataType::" + std::string(dtypeName(t)); }

std::string atenDT(DType t) { return "at::" + std::string(dtypeAtenName(t)); }

std::string cppDouble(double v) {
  return doubleLiteral(v, "std::numeric_limits<double>::quiet_NaN()",
                       "std::numeric_limits<double>::infinity()", "-std::numeric_limits<double>::infinity()");
}

template <typename T, typename F>
std::string braced(const std::vector<T>& v, F f) {
  return joined(v, f, "{", "}");
}

std::string ints(const std::vector<int64_t>& v) {
  return braced(v, [](int64_t x) { return std::to_string(x); });
}

class CppExporter : ExporterBase {
 public:
  CppExporter(const Fusion& f, DiagnosticSink& sink) : ExporterBase(f, sink) {}

  std::optional<std::string> run() {
    for (TensorId t = 0; t < f_.tensors.size(); ++t) {
      int64_t n = f_.tensorNumber(t);
      tv_.push_back("tv" + std::to_string(n >= 0 ? n : static_cast<int64_t>(t)));
    }
    bool multi = false;
    for (const Tensor& t : f_.tensors)
      if (t.mesh != kNone) multi = true;
    // FusecheckRepro + the repro name in CamelCase (nvfuser_fusion_id0 -> NvfuserFusionId0).
    std::string test_name = "FusecheckRepro";
    bool upper = true;
    for (char c : f_.name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) {
        upper = true;
        continue;
      }
      test_name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
    line("auto fusion = std::make_unique<Fusion>();");
    line("FusionGuard fg(fusion.get());");
    blank();
    for (const ValueRef& v : f_.inputs) {
      if (v.isTensor())
        input(v.id);
      else {
        std::string n = "s" + std::to_string(next_scalar_++);
        line("Val* " + n + " = IrBuilder::create<Val>(" + cppDT(f_.scalars[v.id].dtype) + ");");
        line("fusion->addInput(" + n + ");");
        sname_[v.id] = n;
      }
    }
    blank();
    written_.assign(f_.tensors.size(), 0);
    for (const ValueRef& v : f_.inputs)
      if (v.isTensor()) written_[v.id] = 1;
    for (ExprId e : definitionOrder(f_)) {
      expr(e);
      for (TensorId t : f_.exprs[e].outputs) written_[t] = 1;
    }
    for (TensorId t : f_.outputs) line("fusion->addOutput(" + tv_[t] + ");");
    if (multi) schedule();
    blank();
    inputs();
    if (failed_) return std::nullopt;
    std::string s = "// Exported by fusecheck";
    if (!f_.name.empty()) s += " from repro `" + f_.name + "`";
    s += ".\n";
    s += "TEST_F(" + std::string(multi ? "MultiDeviceTest" : "NVFuserTest") + ", " + test_name + ") {\n";
    s += body_ + "}\n";
    return s;
  }

 private:
  void line(const std::string& l) { body_ += "  " + l + "\n"; }
  void blank() {
    if (body_.size() >= 2 && body_.compare(body_.size() - 2, 2, "\n\n") != 0) body_ += "\n";
  }

  void input(TensorId t) {
    const Tensor& tv = f_.tensors[t];
    std::vector<AxisId> logical;
    for (AxisId a : tv.logical)
      if (f_.axes[a].iter != IterType::Reduction) logical.push_back(a);
    std::vector<int64_t> shape;
    std::vector<std::string> contig;
    std::vector<bool> expanded;
    bool any_expanded = false;
    const auto& alloc = tv.allocationDomain();
    for (AxisId a : logical) {
      const Axis& ax = f_.axes[a];
      bool bcast = ax.iter == IterType::Broadcast;
      auto c = constInt(ax.expanded != kNone ? ax.expanded : ax.extent);
      shape.push_back(bcast && ax.expanded == kNone ? 1 : c ? *c : -1);
      expanded.push_back(ax.expanded != kNone);
      any_expanded |= ax.expanded != kNone;
    }
    // Contiguity in allocation order, as TensorViewBuilder takes it with a stride order
    // (the TensorDomain TensorViewBuilder::build makes, csrc/ir/internal_base_nodes.cpp:1154-1186
    // @ 81c4b22fd).
    const std::vector<int64_t> order = strideOrderOf(f_, t);
    for (AxisId a : order.empty() ? logical : tv.allocation) {
      std::optional<bool> cg =
          f_.axes[a].iter == IterType::Broadcast ? std::nullopt : std::optional<bool>(true);
      if (!tv.contiguity.empty())
        for (size_t i = 0; i < alloc.size() && i < tv.contiguity.size(); ++i)
          if (alloc[i] == a) cg = tv.contiguity[i];
      contig.push_back(!cg ? "std::nullopt" : *cg ? "true" : "false");
    }
    std::string b = "TensorView* " + tv_[t] + " = TensorViewBuilder()\n      .shape(" + ints(shape) +
                    ")\n      .contiguity(" + braced(contig, [](const std::string& x) { return x; }) +
                    ")\n      .dtype(" + cppDT(tv.dtype) + ")";
    if (any_expanded)
      b += "\n      .expanded(" + braced(expanded, [](bool x) { return std::string(x ? "true" : "false"); }) +
           ")";
    if (!order.empty()) b += "\n      .strideOrder(" + ints(order) + ")";
    line(b + "\n      .build();");
    line("fusion->addInput(" + tv_[t] + ");");
    for (size_t d = 0; d < logical.size(); ++d) {
      const Axis& ax = f_.axes[logical[d]];
      ScalarId e = ax.expanded != kNone ? ax.expanded : ax.extent;
      if (e < f_.scalars.size() && f_.scalars[e].kind == ScalarKind::Symbol && !extent_of_.count(e))
        extent_of_[e] = tv_[t] + "->getLogicalDomain().at(" + std::to_string(d) + ")->" +
                        (ax.expanded != kNone ? "expandedExtent()" : "extent()");
    }
  }

  std::string scalar(ScalarId s, int depth = 0) {
    if (s >= f_.scalars.size() || depth > 200) {
      fail("a scalar cannot be exported to C++");
      return "nullptr";
    }
    auto it = sname_.find(s);
    if (it != sname_.end()) return it->second;
    const Scalar& sc = f_.scalars[s];
    switch (sc.kind) {
      case ScalarKind::Constant:
        switch (sc.value.kind) {
          case ConstValue::Kind::Bool:
            return std::string("IrBuilder::create<Val>(") + (sc.value.i ? "true" : "false") + ")";
          case ConstValue::Kind::Int:
            return "IrBuilder::create<Val>(" + std::to_string(sc.value.i) + "L, " + cppDT(sc.dtype) + ")";
          case ConstValue::Kind::Float:
            if (isComplex(sc.dtype))
              return "IrBuilder::create<Val>(std::complex<double>(" + cppDouble(sc.value.f) + ", " +
                     cppDouble(sc.value.im) + "), " + cppDT(sc.dtype) + ")";
            return "IrBuilder::create<Val>(" + cppDouble(sc.value.f) + ", " + cppDT(sc.dtype) + ")";
        }
        break;
      case ScalarKind::Derived: {
        if (sc.op == ScalarOp::Size) {
          if (sc.size_of >= tv_.size()) break;
          return "size(" + tv_[sc.size_of] + ", " + std::to_string(sc.size_dim) + ")";
        }
        std::string a = scalar(sc.lhs, depth + 1);
        if (sc.op == ScalarOp::Neg) return "neg(" + a + ")";
        std::string b = scalar(sc.rhs, depth + 1);
        const char* fn = nullptr;
        switch (sc.op) {
          case ScalarOp::Add: fn = "add"; break;
          case ScalarOp::Sub: fn = "sub"; break;
          case ScalarOp::Mul: fn = "mul"; break;
          case ScalarOp::Div: fn = "div"; break;
          case ScalarOp::Mod: fn = "mod"; break;
          case ScalarOp::CeilDiv: fn = "ceilDiv"; break;
          case ScalarOp::Max: fn = "maximum"; break;
          case ScalarOp::Min: fn = "minimum"; break;
          default: break;
        }
        if (!fn) break;
        return std::string(fn) + "(" + a + ", " + b + ")";
      }
      default: {
        auto e = extent_of_.find(s);
        if (e != extent_of_.end()) return e->second;
        fail("symbol `" + std::string(f_.scalarName(s)) +
             "` is used as a value but is neither a scalar input nor an extent of an input tensor");
        return "nullptr";
      }
    }
    fail("a scalar expression cannot be exported to C++");
    return "nullptr";
  }

  std::string vals(const std::vector<ScalarId>& v) {
    std::vector<std::string> parts;
    for (ScalarId s : v) parts.push_back(scalar(s));
    return "std::vector<Val*>" + braced(parts, [](const std::string& x) { return x; });
  }

  std::string operand(const ValueRef& v) { return v.isTensor() ? tv_[v.id] : scalar(v.id); }

  void expr(ExprId id) {
    const Expr& e = f_.exprs[id];
    const Attrs& a = e.attrs;
    auto in = [&](size_t i) { return i < e.inputs.size() ? operand(e.inputs[i]) : std::string("nullptr"); };
    std::string call;
    const OpInfo& info = opInfo(e.op);
    const std::string fn(info.cpp_name);
    auto args = [&] {
      std::string r;
      for (size_t i = 0; i < e.inputs.size(); ++i) r += (i ? ", " : "") + in(i);
      return r;
    };
    switch (info.form) {
      case OpForm::Opaque:
        // No frontend call builds an op fusecheck knows only by name.
        fail("expr " + std::to_string(id) + " is the opaque op `" + a.name +
                 "`, which fusecheck has no rule for: the C++ test export cannot write it (the JSON and the "
                 "printed IR keep it)",
             Place::expr(id));
        return;
      case OpForm::Set:
      case OpForm::SegmentSet:
      case OpForm::Binary:
      case OpForm::Where:
      case OpForm::Matmul:
      case OpForm::Linear: call = fn + "(" + args() + ")"; break;
      case OpForm::Unary: call = (a.approximate_tanh ? "tanh_" + fn : fn) + "(" + in(0) + ")"; break;
      case OpForm::Cast:
        call = fn + "(" + cppDT(a.dtype.value_or(f_.tensors[e.outputs[0]].dtype)) + ", " + in(0) + ")";
        break;
      case OpForm::Broadcast:
        call = fn + "(" + in(0) + ", " +
               braced(a.flags, [](bool x) { return std::string(x ? "true" : "false"); }) + ")";
        break;
      case OpForm::BroadcastInDim: {
        // nvFuser's C++ API has no broadcast_in_dim: broadcast the new axes, then expand.
        std::vector<bool> flags(a.shape.size(), true);
        for (int64_t d : a.dims)
          if (d >= 0 && static_cast<size_t>(d) < flags.size()) flags[static_cast<size_t>(d)] = false;
        std::string b = fn + "(" + in(0) + ", " +
                        braced(flags, [](bool x) { return std::string(x ? "true" : "false"); }) + ")";
        call = "expand(" + b + ", " + vals(a.shape) + ")";
        break;
      }
      case OpForm::Reshape:
        if (!a.original_shape.empty()) {  // reshape(x, original_sizes, new_sizes): every size a constant
          std::vector<int64_t> sizes;
          for (ScalarId s : a.shape)
            if (auto c = constIntOf(f_, s)) sizes.push_back(*c);
          if (sizes.size() == a.shape.size()) {
            call = fn + "(" + in(0) + ", std::vector<int64_t>" + ints(a.original_shape) +
                   ", std::vector<int64_t>" + ints(sizes) + ")";
            break;
          }
        }
        call = fn + "(" + in(0) + ", " + vals(a.shape) + ")";
        break;
      case OpForm::Expand: call = fn + "(" + in(0) + ", " + vals(a.shape) + ")"; break;
      case OpForm::Squeeze: call = fn + "(" + in(0) + ", std::vector<int64_t>" + ints(a.dims) + ")"; break;
      case OpForm::Permute: call = fn + "(" + in(0) + ", " + ints(a.dims) + ")"; break;
      case OpForm::Slice: {
        std::vector<std::string> r;
        for (const SliceRange& s : a.ranges)
          r.push_back("Slice{" + (s.start != kNone ? scalar(s.start) : "nullptr") + ", " +
                      (s.stop != kNone ? scalar(s.stop) : "nullptr") + ", " +
                      (s.step != kNone ? scalar(s.step) : "nullptr") + "}");
        call = fn + "(" + in(0) + ", std::vector<Slice>" + braced(r, [](const std::string& x) { return x; }) +
               ")";
        break;
      }
      case OpForm::Pad:
        call = fn + "(" + in(0) + ", " + vals(a.pad) +
               (a.value != kNone ? ", " + scalar(a.value) : std::string()) + ")";
        break;
      case OpForm::Cat: {
        std::vector<std::string> ts;
        for (size_t i = 0; i < e.inputs.size(); ++i) ts.push_back(in(i));
        call = fn + "(" + braced(ts, [](const std::string& x) { return x; }) + ", " + std::to_string(a.dim) +
               ")";
        break;
      }
      case OpForm::Reduction:
        call = fn + "(" + in(0) + ", " + ints(a.dims) + ", /*keep_dim=*/" + (a.keepdim ? "true" : "false") +
               (a.dtype ? ", " + cppDT(*a.dtype) : std::string()) + ")";
        break;
      case OpForm::Mean:
        call =
            fn + "(" + in(0) + ", " + ints(a.dims) + ", /*keep_dim=*/" + (a.keepdim ? "true" : "false") + ")";
        break;
      case OpForm::Var:
        call = fn + "(" + in(0) + ", " + ints(a.dims) + ", /*correction=*/" + std::to_string(a.correction) +
               ", /*keep_dim=*/" + (a.keepdim ? "true" : "false") + ")";
        break;
      case OpForm::VarMean: {
        std::string r = "vm" + std::to_string(id);
        line("auto " + r + " = " + fn + "(" + in(0) + ", " + ints(a.dims) + ", /*correction=*/" +
             std::to_string(a.correction) + ", /*keep_dim=*/" + (a.keepdim ? "true" : "false") + ");");
        line("TensorView* " + tv_[e.outputs[0]] + " = " + r + ".var;");
        if (e.outputs.size() > 1) line("TensorView* " + tv_[e.outputs[1]] + " = " + r + ".mean;");
        return;
      }
      case OpForm::Welford: {
        std::string r = "w" + std::to_string(id);
        line("auto " + r + " = " + fn + "(" + in(0) + ", " + ints(a.dims) + ");");
        const char* field[] = {"avg", "var_sum", "n"};
        for (size_t i = 0; i < e.outputs.size() && i < 3; ++i)
          line("TensorView* " + tv_[e.outputs[i]] + " = " + r + "." + field[i] + ";");
        return;
      }
      case OpForm::Full:
        if (opAccepts(e.op, Attr::Value))
          call = fn + "(" + vals(a.shape) + ", " + scalar(a.value) + ", " +
                 cppDT(a.dtype.value_or(f_.tensors[e.outputs[0]].dtype)) + ")";
        else
          call =
              fn + "(" + vals(a.shape) + ", " + cppDT(a.dtype.value_or(f_.tensors[e.outputs[0]].dtype)) + ")";
        break;
      case OpForm::Rng:
        if (auto name = likeCallName(e)) {
          // rand_like(tv[, seed, offset]) / randn_like (csrc/ops/arith.h @ 81c4b22fd).
          auto like = rngLikeOperand(f_, e, written_);
          if (!like) {
            fail("expr " + std::to_string(id) + " (" + std::string(info.name) +
                     " shaped like a tensor) has no tensor written before it with its sizes and IterTypes: "
                     "the "
                     "C++ export cannot write it (the JSON keeps it)",
                 Place::expr(id));
            return;
          }
          call = std::string(*name) + "(" + tv_[*like];
          if (e.inputs.size() > 3) call += ", " + in(2) + ", " + in(3);
          call += ")";
          break;
        }
        // uniform(shape, low, high, dtype, seed, offset) / normal(shape, mean, std, ...)
        // (csrc/ops/arith.h @ 81c4b22fd).
        call = fn + "(" + vals(a.shape) + ", " + in(0) + ", " + in(1) + ", " +
               cppDT(a.dtype.value_or(f_.tensors[e.outputs[0]].dtype));
        if (e.inputs.size() > 2)
          call += ", " + in(2) + ", " + (e.inputs.size() > 3 ? in(3) : std::string("nullptr"));
        call += ")";
        break;
      case OpForm::Iota: {
        DType dt = a.dtype.value_or(f_.tensors[e.outputs[0]].dtype);
        call = fn + "(" + (a.shape.empty() ? std::string("nullptr") : scalar(a.shape[0])) + ", " +
               (a.start != kNone ? scalar(a.start) : "IrBuilder::create<Val>(0L, " + cppDT(dt) + ")") + ", " +
               (a.step != kNone ? scalar(a.step) : "IrBuilder::create<Val>(1L, " + cppDT(dt) + ")") + ", " +
               cppDT(dt) + ")";
        break;
      }
    }
    line("TensorView* " + tv_[e.outputs[0]] + " = " + call + ";");
  }

  void schedule() {
    blank();
    for (MeshId m = 0; m < f_.meshes.size(); ++m) {
      const Mesh& mesh = f_.meshes[m];
      std::string shape = mesh.shape.size() > 1 ? ", " + ints(mesh.shape) : std::string();
      line("DeviceMesh mesh" + std::to_string(m) + "(" + ints(mesh.devices) + shape + ");");
    }
    for (TensorId t = 0; t < f_.tensors.size(); ++t) {
      const Tensor& tv = f_.tensors[t];
      if (tv.mesh == kNone && !scheduled(f_, tv)) continue;
      if (tv.mesh != kNone) line(tv_[t] + "->setDeviceMesh(mesh" + std::to_string(tv.mesh) + ");");
      std::vector<AxisId> loop = tv.logical;
      for (const AxisTransform& tr : tv.transforms) {
        if (tr.kind != AxisTransform::Kind::Split) {
          fail("merge transforms are not exported to C++");
          continue;
        }
        size_t pos = loop.size();
        for (size_t i = 0; i < loop.size(); ++i)
          if (loop[i] == tr.in) pos = i;
        if (pos == loop.size()) continue;
        line(tv_[t] + "->split(" + std::to_string(pos) + ", " + scalar(tr.factor) + ", /*inner_split=*/" +
             (tr.inner_split ? "true" : "false") + ");");
        loop.erase(loop.begin() + static_cast<std::ptrdiff_t>(pos));
        loop.insert(loop.begin() + static_cast<std::ptrdiff_t>(pos), {tr.out, tr.out2});
      }
      const auto& final_loop = tv.loopDomain();
      for (size_t i = 0; i < final_loop.size(); ++i) {
        ParallelType p = f_.axes[final_loop[i]].parallel;
        if (isDeviceDim(p) || p == ParallelType::Stream)
          line(tv_[t] + "->axis(" + std::to_string(i) +
               ")->parallelize(ParallelType::" + std::string(parallelTypeName(p)) + ");");
      }
      if (!tv.allocation.empty() && !tv.loop.empty() && tv.allocation == tv.loop && tv.loop != tv.logical)
        line(tv_[t] + "->setAllocationDomain(" + tv_[t] + "->getLoopDomain(), true);");
    }
  }

  void inputs() {
    std::vector<const ConcreteInput*> by_input(f_.inputs.size(), nullptr);
    for (const ConcreteInput& ci : f_.concrete_inputs)
      for (size_t i = 0; i < f_.inputs.size(); ++i)
        if (f_.inputs[i] == ci.value) by_input[i] = &ci;
    for (const ConcreteInput* ci : by_input)
      if (!ci) {
        line("// The repro records no concrete inputs for every fusion input: add them and run");
        line("// FusionExecutorCache(std::move(fusion)).runFusionWithInputs(...).");
        return;
      }
    std::vector<std::string> names;
    for (size_t i = 0; i < f_.inputs.size(); ++i) {
      const ConcreteInput& ci = *by_input[i];
      if (f_.inputs[i].isScalar()) {
        std::string lit = !ci.scalar                                   ? "0"
                          : ci.scalar->kind == ConstValue::Kind::Float ? cppDouble(ci.scalar->f)
                          : ci.scalar->kind == ConstValue::Kind::Bool  ? (ci.scalar->i ? "true" : "false")
                                                                       : std::to_string(ci.scalar->i) + "L";
        names.push_back(lit);
        continue;
      }
      DType dt = f_.tensors[f_.inputs[i].id].dtype;
      std::string n = "t" + std::to_string(i);
      std::string opts = "at::TensorOptions().dtype(" + atenDT(dt) + ").device(at::kCUDA, 0)";
      std::string gen;
      std::vector<int64_t> shape = ci.shape, strides = ci.strides;
      if (dt == DType::Float4_e2m1fn) {
        // Packed, two values a byte: the tensor that nvFuser binds back to these sizes and strides
        // (packed_fp4.h); at::randn / at::randint do not generate it.
        std::optional<SizesAndStrides> p = packFp4(f_, f_.inputs[i].id, {shape, strides});
        if (!p) {
          fail("input " + std::to_string(i) + " (" + tv_[f_.inputs[i].id] +
                   ", Float4_e2m1fn) has an odd innermost size or an odd stride to halve: no packed "
                   "at::kFloat4_e2m1fn_x2 tensor binds to it, so the C++ test export cannot write it",
               Place::concreteInput(static_cast<size_t>(&ci - f_.concrete_inputs.data())));
          continue;
        }
        shape = std::move(p->sizes);
        strides = std::move(p->strides);
      }
      std::vector<int64_t> base = shape;
      if (!strides.empty()) base = {stridedSpan(shape, strides)};
      gen = dt == DType::Float4_e2m1fn ? "at::empty(" + ints(base) + ", " + opts + ")"
            : isFloatingPoint(dt) || isComplex(dt)
                ? "at::randn(" + ints(base) + ", " + opts + ")"
                : "at::randint(0, " + std::string(dt == DType::Bool ? "2" : "10") + ", " + ints(base) + ", " +
                      opts + ")";
      if (!strides.empty()) gen += ".as_strided(" + ints(shape) + ", " + ints(strides) + ")";
      line("at::Tensor " + n + " = " + gen + ";");
      names.push_back(n);
    }
    std::string args = braced(names, [](const std::string& x) { return x; });
    blank();
    line("FusionExecutorCache executor_cache(std::move(fusion));");
    line("auto outputs = executor_cache.runFusionWithInputs(" + args + ");");
    line("testValidate(executor_cache.fusion(), outputs, " + args + ", __LINE__, __FILE__);");
  }

  std::vector<std::string> tv_;
  std::vector<uint8_t> written_;  // per tensor: defined by the test so far
  std::unordered_map<ScalarId, std::string> extent_of_;
};

}  // namespace

std::optional<std::string> exportCppTest(const Fusion& f, DiagnosticSink& sink) {
  return CppExporter(f, sink).run();
}

}  // namespace fc
