// Exporter to nvFuser's printed Python layout (see export_python.h).
#include "io/export_python.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "io/export_common.h"
#include "io/packed_fp4.h"
#include "io/scalar_expr.h"
#include "ir/rng_like.h"

namespace fc {
namespace {

std::string torchDType(DType t) { return "torch." + std::string(dtypeTorchName(t)); }

std::string pyFloat(double v) {
  return doubleLiteral(v, "float(\"nan\")", "float(\"inf\")", "float(\"-inf\")");
}

std::string pyConst(const ConstValue& v) {
  switch (v.kind) {
    case ConstValue::Kind::Bool: return v.i ? "True" : "False";
    case ConstValue::Kind::Int: return std::to_string(v.i);
    case ConstValue::Kind::Float: return pyFloat(v.f);
  }
  return "None";
}

std::string pyDType(DType t) { return "DataType." + std::string(dtypeName(t)); }

template <typename T, typename F>
std::string list(const std::vector<T>& v, F f) {
  return joined(v, f, "[", "]");
}

std::string tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  if (v.size() == 1) s += ",";
  return s + ")";
}

class Exporter : ExporterBase {
 public:
  Exporter(const Fusion& f, DiagnosticSink& sink) : ExporterBase(f, sink) {}

  std::optional<std::string> run() {
    body_.clear();
    // Script names: the repro's tensor names when they are identifiers, else T<k>.
    for (TensorId t = 0; t < f_.tensors.size(); ++t) {
      std::string n(f_.tensorName(t));
      tname_.push_back(isIdentifier(n) ? n : "T" + std::to_string(t));
    }
    written_.assign(f_.tensors.size(), 0);
    for (const ValueRef& v : f_.inputs) {
      if (v.isTensor())
        defineTensor(v.id);
      else
        defineScalarInput(v.id);
    }
    for (ExprId e : definitionOrder(f_)) {
      expr(e);
      for (TensorId t : f_.exprs[e].outputs) written_[t] = 1;
    }
    for (TensorId t : f_.outputs) line("fd.add_output(" + tname_[t] + ")");
    if (failed_) return std::nullopt;

    // The definition keeps the repro's name when it is an identifier (import uses it as the name).
    const std::string fn =
        isIdentifier(f_.name) && f_.name != "multidevice_schedule" ? f_.name : "nvfuser_fusion_id0";
    std::string s =
        "# Exported by fusecheck.\nimport torch\nfrom nvfuser import FusionDefinition, DataType\n";
    std::string sched = schedule();
    if (!sched.empty()) s += "import nvfuser\n";
    s += "\ndef " + fn + "(fd : FusionDefinition) -> None :\n" + body_;
    if (!sched.empty()) s += "\ndef multidevice_schedule(fd : FusionDefinition) -> None :\n" + sched;
    s += "\nwith FusionDefinition() as fd:\n    " + fn + "(fd)\n";
    if (!sched.empty()) s += "    multidevice_schedule(fd)\n";
    s += inputs();
    if (failed_) return std::nullopt;
    return s;
  }

 private:
  static bool isIdentifier(const std::string& n) {
    if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
    for (char c : n)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return n != "fd" && n != "inputs" && n != "torch" && n != "nvfuser" && n != "DataType" && n != "None" &&
           n != "True" && n != "False";
  }

  void line(const std::string& l) { body_ += "    " + l + "\n"; }

  void defineTensor(TensorId t) {
    const Tensor& tv = f_.tensors[t];
    std::vector<int64_t> shape;
    std::vector<std::string> contig;
    std::vector<AxisId> logical;
    for (AxisId a : tv.logical)
      if (f_.axes[a].iter != IterType::Reduction) logical.push_back(a);
    // contiguity is stored aligned with allocation (or logical), and nvFuser's define_tensor takes
    // it in allocation order too (getContiguityVec, python/python_common/python_utils.cpp:207-223
    // @4a3e6b9a4).
    const auto& alloc = tv.allocationDomain();
    for (AxisId a : logical) {
      const Axis& ax = f_.axes[a];
      auto cv = constInt(ax.expanded != kNone ? ax.expanded : ax.extent);
      if (ax.iter == IterType::Broadcast && ax.expanded == kNone)
        shape.push_back(1);
      else
        shape.push_back(cv ? *cv : -1);
    }
    bool alloc_order = tv.allocation.size() == logical.size();
    for (AxisId a : alloc_order ? tv.allocation : logical) {
      std::optional<bool> c =
          f_.axes[a].iter == IterType::Broadcast ? std::nullopt : std::optional<bool>(true);
      if (!tv.contiguity.empty())
        for (size_t i = 0; i < alloc.size() && i < tv.contiguity.size(); ++i)
          if (alloc[i] == a) c = tv.contiguity[i];
      contig.push_back(!c ? "None" : *c ? "True" : "False");
    }
    std::string s = tname_[t] +
                    " = fd.define_tensor(shape=" + list(shape, [](int64_t v) { return std::to_string(v); }) +
                    ", contiguity=" + list(contig, [](const std::string& v) { return v; }) +
                    ", dtype=" + pyDType(tv.dtype) + ", is_cpu=False";
    std::vector<int64_t> order = strideOrderOf(f_, t);
    if (!order.empty()) s += ", stride_order=" + list(order, [](int64_t v) { return std::to_string(v); });
    line(s + ")");
    written_[t] = 1;
    // Symbolic extents of this input can be named in later shapes through fd.ops.size.
    for (size_t d = 0; d < logical.size(); ++d) {
      const Axis& ax = f_.axes[logical[d]];
      ScalarId e = ax.expanded != kNone ? ax.expanded : ax.extent;
      if (e < f_.scalars.size() && f_.scalars[e].kind == ScalarKind::Symbol && !extent_of_.count(e))
        extent_of_[e] = {t, d};
    }
  }

  void defineScalarInput(ScalarId s) {
    std::string n = "S" + std::to_string(next_scalar_++);
    line(n + " = fd.define_scalar(None, dtype=" + pyDType(f_.scalars[s].dtype) + ")");
    sname_[s] = n;
  }

  // A scalar as a Python operand: a literal, a defined name, or a new `S<k> = fd.ops...` line.
  std::string scalar(ScalarId s, int depth = 0) {
    if (s >= f_.scalars.size()) {
      fail("scalar id out of range");
      return "None";
    }
    if (depth > 200) {
      fail("a scalar expression is nested too deeply for the Python exporter");
      return "None";
    }
    auto it = sname_.find(s);
    if (it != sname_.end()) return it->second;
    const Scalar& sc = f_.scalars[s];
    std::string def;
    if (sc.kind == ScalarKind::Constant) {
      // A literal reads back as Int, Double or Bool (Index where it sizes something); a constant
      // of another dtype is defined with it.
      if (isLiteralDType(sc, DType::Index)) return pyConst(sc.value);
      const std::string value = isComplex(sc.dtype)
                                    ? "complex(" + pyFloat(sc.value.f) + ", " + pyFloat(sc.value.im) + ")"
                                    : pyConst(sc.value);
      def = "fd.define_scalar(" + value + ", dtype=" + pyDType(sc.dtype) + ")";
    } else if (sc.kind == ScalarKind::Derived) {
      if (sc.op == ScalarOp::Size) {
        def = "fd.ops.size(" + (sc.size_of < tname_.size() ? tname_[sc.size_of] : "None") +
              ", dim=" + std::to_string(sc.size_dim) + ")";
      } else {
        std::string a = scalar(sc.lhs, depth + 1);
        std::string b = sc.op == ScalarOp::Neg ? "" : scalar(sc.rhs, depth + 1);
        const char* fn = nullptr;
        switch (sc.op) {
          case ScalarOp::Add: fn = "add"; break;
          case ScalarOp::Sub: fn = "sub"; break;
          case ScalarOp::Mul: fn = "mul"; break;
          case ScalarOp::Div: fn = "div"; break;
          case ScalarOp::Max: fn = "maximum"; break;
          case ScalarOp::Min: fn = "minimum"; break;
          case ScalarOp::Neg: fn = "neg"; break;
          default:
            fail("scalar op `" + std::string(scalarOpName(sc.op)) + "` has no fd.ops form");
            return "None";
        }
        def = "fd.ops." + std::string(fn) + "(" + a + (b.empty() ? "" : ", " + b) + ")";
      }
    } else {
      auto e = extent_of_.find(s);
      if (e == extent_of_.end()) {
        fail("symbol `" + std::string(f_.scalarName(s)) +
             "` is used as a value but is neither a scalar input nor an extent of an input tensor");
        return "None";
      }
      def = "fd.ops.size(" + tname_[e->second.first] + ", dim=" + std::to_string(e->second.second) + ")";
    }
    std::string n = "S" + std::to_string(next_scalar_++);
    line(n + " = " + def);
    sname_[s] = n;
    return n;
  }

  std::string operand(const ValueRef& v) { return v.isTensor() ? tname_[v.id] : scalar(v.id); }

  std::string scalars(const std::vector<ScalarId>& v) {
    std::vector<std::string> parts;
    for (ScalarId s : v) parts.push_back(scalar(s));
    return list(parts, [](const std::string& x) { return x; });
  }

  static std::string ints(const std::vector<int64_t>& v) {
    return list(v, [](int64_t x) { return std::to_string(x); });
  }

  void expr(ExprId id) {
    const Expr& e = f_.exprs[id];
    const OpInfo& info = opInfo(e.op);
    std::vector<std::string> outs;
    for (TensorId t : e.outputs) outs.push_back(tname_[t]);
    auto in = [&](size_t i) { return i < e.inputs.size() ? operand(e.inputs[i]) : std::string("None"); };
    std::string call;
    const std::string op = "fd.ops." + std::string(info.python_name);
    const Attrs& a = e.attrs;
    auto b = [](bool v) { return std::string(v ? "True" : "False"); };
    switch (info.form) {
      case OpForm::Opaque:
        // No frontend call builds an op fusecheck knows only by name.
        fail("expr " + std::to_string(id) + " is the opaque op `" + a.name +
                 "`, which fusecheck has no rule for: the Python export cannot write it (the JSON and the "
                 "printed IR keep it)",
             Place::expr(id));
        return;
      case OpForm::Set:
      case OpForm::SegmentSet:
      case OpForm::Unary:
        call = op + "(" + in(0);
        if (a.approximate_tanh) call += ", approximate='tanh'";
        call += ")";
        break;
      case OpForm::Cast:
        call =
            op + "(" + in(0) + ", dtype=" + pyDType(a.dtype.value_or(f_.tensors[e.outputs[0]].dtype)) + ")";
        break;
      case OpForm::Binary: call = op + "(" + in(0) + ", " + in(1) + ")"; break;
      case OpForm::Where: call = op + "(" + in(0) + ", " + in(1) + ", " + in(2) + ")"; break;
      case OpForm::Broadcast:
        call = op + "(" + in(0) + ", is_broadcast_dim=" +
               list(a.flags, [](bool v) { return std::string(v ? "True" : "False"); }) + ")";
        break;
      case OpForm::BroadcastInDim:
        call = op + "(" + in(0) + ", shape=" + scalars(a.shape) + ", broadcast_dims=" + ints(a.dims) + ")";
        break;
      case OpForm::Expand: call = op + "(" + in(0) + ", shape=" + scalars(a.shape) + ")"; break;
      case OpForm::Squeeze:
        call = op + "(" + in(0) + ", dims=" + ints(a.dims) + ", squeeze_expanded=False)";
        break;
      case OpForm::Permute: call = op + "(" + in(0) + ", dims=" + ints(a.dims) + ")"; break;
      case OpForm::Reshape:
        // A static reshape keeps its form (the legacy frontend's until #1043): new_shape alone
        // would make it dynamic over symbolic extents.
        call = op + "(" + in(0) +
               (a.original_shape.empty() ? "" : ", original_shape=" + ints(a.original_shape)) +
               ", new_shape=" + scalars(a.shape) + ")";
        break;
      case OpForm::Slice: {
        std::vector<ScalarId> st, en, sp;
        std::vector<AxisId> ax;
        if (!e.inputs.empty() && e.inputs[0].isTensor())
          for (AxisId x : f_.tensors[e.inputs[0].id].logical)
            if (f_.axes[x].iter != IterType::Reduction) ax.push_back(x);
        std::vector<std::string> sts, ens, sps;
        for (size_t i = 0; i < a.ranges.size(); ++i) {
          const SliceRange& r = a.ranges[i];
          sts.push_back(r.start != kNone ? scalar(r.start) : "0");
          ens.push_back(r.stop != kNone ? scalar(r.stop)
                        : i < ax.size() ? scalar(f_.axes[ax[i]].extent)
                                        : "None");
          sps.push_back(r.step != kNone ? scalar(r.step) : "1");
        }
        auto id = [](const std::string& x) { return x; };
        call = op + "(" + in(0) + ", start_indices=" + list(sts, id) + ", end_indices=" + list(ens, id) +
               ", strides=" + list(sps, id) + ")";
        break;
      }
      case OpForm::Pad:
        call = op + "(" + in(0) + ", pad_widths=" + scalars(a.pad) +
               (a.value != kNone ? ", value=" + scalar(a.value) : std::string()) + ")";
        break;
      case OpForm::Cat: {
        std::vector<std::string> ts;
        for (size_t i = 0; i < e.inputs.size(); ++i) ts.push_back(in(i));
        call = op + "(" + list(ts, [](const std::string& x) { return x; }) +
               ", dim=" + std::to_string(a.dim) + ", manual_padding=False)";
        break;
      }
      case OpForm::Reduction:
      case OpForm::Mean:
      case OpForm::Var:
      case OpForm::VarMean:
        call = op + "(" + in(0) + ", dims=" + ints(a.dims);
        if (opAccepts(e.op, Attr::Correction)) call += ", correction=" + std::to_string(a.correction);
        call += ", keepdim=" + b(a.keepdim);
        if (info.form == OpForm::Reduction)
          call += ", dtype=" + (a.dtype ? pyDType(*a.dtype) : std::string("DataType.Null"));
        call += ")";
        break;
      case OpForm::Welford: call = op + "(" + in(0) + ", dims=" + ints(a.dims) + ")"; break;
      case OpForm::Iota: {
        DType dt = a.dtype.value_or(f_.tensors[e.outputs[0]].dtype);
        call = op + "(" + (a.shape.empty() ? std::string("None") : scalar(a.shape[0])) +
               (a.start != kNone ? ", start=" + scalar(a.start) : std::string()) +
               (a.step != kNone ? ", step=" + scalar(a.step) : std::string()) + ", dtype=" + pyDType(dt) +
               ")";
        break;
      }
      case OpForm::Full: {
        DType dt = a.dtype.value_or(f_.tensors[e.outputs[0]].dtype);
        if (opAccepts(e.op, Attr::Value))
          call = op + "(shape=" + scalars(a.shape) + ", fill_value=" + scalar(a.value) +
                 ", dtype=" + pyDType(dt) + ")";
        else
          call = op + "(shape=" + scalars(a.shape) + ", dtype=" + pyDType(dt) + ")";
        break;
      }
      case OpForm::Rng: {
        DType dt = a.dtype.value_or(f_.tensors[e.outputs[0]].dtype);
        if (auto name = likeCallName(e)) {
          // Both frontends take the operand alone (the legacy seeded record drops its seed:
          // opaque_ops.cpp).
          auto like = rngLikeOperand(f_, e, written_);
          if (!like || e.inputs.size() > 2) {
            fail("expr " + std::to_string(id) + " (" + std::string(info.name) +
                     " shaped like a tensor) has " +
                     (like ? "a seed, which fd.ops." + std::string(*name) + " cannot pass on"
                           : std::string("no tensor written before it with its sizes and IterTypes")) +
                     ": the Python export cannot write it (the JSON and the C++ export keep it)",
                 Place::expr(id));
            return;
          }
          call = "fd.ops." + std::string(*name) + "(" + tname_[*like] + ")";
          break;
        }
        call = op + "(" + in(0) + ", " + in(1) + ", shape=" + scalars(a.shape);
        if (e.inputs.size() > 2) call += ", rng_seed=" + in(2);
        if (e.inputs.size() > 3) call += ", rng_offset=" + in(3);
        call += ", dtype=" + pyDType(dt) + ")";
        break;
      }
      case OpForm::Matmul:
      case OpForm::Linear:
        call = op + "(" + in(0) + ", " + in(1);
        if (e.inputs.size() > 2) call += ", bias=" + in(2);
        call += ")";
        break;
    }
    std::string lhs;
    for (size_t i = 0; i < outs.size(); ++i) lhs += (i ? ", " : "") + outs[i];
    line(lhs + " = " + call);
  }

  std::string schedule() {
    std::string s;
    bool any = false;
    for (const Tensor& t : f_.tensors)
      if (t.mesh != kNone || scheduled(f_, t)) any = true;
    if (!any) return s;
    auto add = [&](const std::string& l) { s += "    " + l + "\n"; };
    for (MeshId m = 0; m < f_.meshes.size(); ++m) {
      const Mesh& mesh = f_.meshes[m];
      std::string devs;
      if (mesh.shape.size() == 2 && mesh.shape[1] > 0) {
        devs = "[";
        for (int64_t r = 0; r < mesh.shape[0]; ++r) {
          std::vector<int64_t> row;
          for (int64_t c = 0; c < mesh.shape[1]; ++c) {
            size_t i = static_cast<size_t>(r * mesh.shape[1] + c);
            row.push_back(i < mesh.devices.size() ? mesh.devices[i] : 0);
          }
          devs += (r ? ", " : "") + ints(row);
        }
        devs += "]";
      } else {
        devs = ints(mesh.devices);
      }
      add("mesh" + std::to_string(m) + " = nvfuser.DeviceMesh(" + devs + ")");
    }
    for (TensorId t = 0; t < f_.tensors.size(); ++t) {
      const Tensor& tv = f_.tensors[t];
      if (tv.mesh == kNone && !scheduled(f_, tv)) continue;
      if (tv.mesh != kNone)
        add("fd.sched._set_device_mesh(" + tname_[t] + ", mesh" + std::to_string(tv.mesh) + ")");
      // Replay the splits that made the loop domain, then the parallelizations.
      std::vector<AxisId> loop = tv.logical;
      for (const AxisTransform& tr : tv.transforms) {
        if (tr.kind != AxisTransform::Kind::Split) {
          fail("merge transforms have no multidevice_schedule form in the exporter");
          continue;
        }
        size_t pos = loop.size();
        for (size_t i = 0; i < loop.size(); ++i)
          if (loop[i] == tr.in) pos = i;
        if (pos == loop.size()) continue;
        auto fac = constInt(tr.factor);
        if (!fac) {
          fail("a split with a symbolic factor has no multidevice_schedule form");
          continue;
        }
        add("fd.sched.split(" + tname_[t] + ", " + std::to_string(pos) + ", " + std::to_string(*fac) + ", " +
            (tr.inner_split ? "True" : "False") + ")");
        loop.erase(loop.begin() + static_cast<std::ptrdiff_t>(pos));
        loop.insert(loop.begin() + static_cast<std::ptrdiff_t>(pos), {tr.out, tr.out2});
      }
      const auto& final_loop = tv.loopDomain();
      for (size_t i = 0; i < final_loop.size(); ++i) {
        ParallelType p = f_.axes[final_loop[i]].parallel;
        const char* name = nullptr;
        switch (p) {
          case ParallelType::DIDx: name = "mesh_x"; break;
          case ParallelType::DIDy: name = "mesh_y"; break;
          case ParallelType::DIDz: name = "mesh_z"; break;
          case ParallelType::Stream: name = "stream"; break;
          default: break;
        }
        if (name)
          add("fd.sched.parallelize(" + tname_[t] + ", " + std::to_string(i) + ", nvfuser.ParallelType." +
              name + ")");
      }
      if (!tv.allocation.empty() && !tv.loop.empty() && tv.allocation == tv.loop && tv.loop != tv.logical)
        add("fd.sched.set_allocation_as_loop(" + tname_[t] + ")");
    }
    return s;
  }

  std::string inputs() {
    if (f_.inputs.empty()) return "\ninputs = [\n]\nfd.execute(inputs)\n";
    std::vector<const ConcreteInput*> by_input(f_.inputs.size(), nullptr);
    for (const ConcreteInput& ci : f_.concrete_inputs)
      for (size_t i = 0; i < f_.inputs.size(); ++i)
        if (f_.inputs[i] == ci.value) by_input[i] = &ci;
    for (const ConcreteInput* ci : by_input)
      if (!ci)
        return "\n# The repro records no concrete inputs for every fusion input; add `inputs = [...]`.\n";
    std::string s = "\ninputs = [\n";
    for (size_t i = 0; i < f_.inputs.size(); ++i) {
      const ConcreteInput& ci = *by_input[i];
      if (f_.inputs[i].isScalar()) {
        s += "    " + (ci.scalar ? pyConst(*ci.scalar) : std::string("None")) + ",\n";
        continue;
      }
      DType dt = f_.tensors[f_.inputs[i].id].dtype;
      // FP4 goes in packed, two values a byte (torch.float4_e2m1fn_x2, which make_tensor does not
      // generate): the tensor that nvFuser binds back to these sizes and strides (packed_fp4.h).
      if (dt == DType::Float4_e2m1fn) {
        std::optional<SizesAndStrides> p = packFp4(f_, f_.inputs[i].id, {ci.shape, ci.strides});
        if (p && p->strides.empty()) {
          s += "    torch.empty(" + tuple(p->sizes) + ", dtype=" + torchDType(dt) + ", device='cuda:0'),\n";
          continue;
        }
        if (p) {
          s += "    torch.empty(" + tuple({stridedSpan(p->sizes, p->strides)}) + ", dtype=" + torchDType(dt) +
               ", device='cuda:0').as_strided(" + tuple(p->sizes) + ", " + tuple(p->strides) + "),\n";
          continue;
        }
        fail("input " + std::to_string(i) + " (" + tname_[f_.inputs[i].id] +
                 ", Float4_e2m1fn) has an odd innermost size or an odd stride to halve: no packed "
                 "torch.float4_e2m1fn_x2 tensor binds to it, so the Python export cannot write it",
             Place::concreteInput(static_cast<size_t>(&ci - f_.concrete_inputs.data())));
        continue;
      }
      // A fill or range the repro records goes back as the constructor that gives it
      // (torch_values.cpp reads each back to the same record).
      auto num = [](double x) { return pyFloat(x); };
      if (ci.strides.empty() && ci.fill) {
        s += "    torch.full(" + tuple(ci.shape) + ", " + num(*ci.fill) + ", dtype=" + torchDType(dt) +
             ", device='cuda:0'),\n";
      } else if (ci.strides.empty() && ci.range) {
        s += "    torch.testing.make_tensor(" + tuple(ci.shape) + ", dtype=" + torchDType(dt) +
             ", device='cuda:0', low=" + num(ci.range->first) + ", high=" + num(ci.range->second) + "),\n";
      } else if (ci.strides.empty()) {
        s += "    torch.testing.make_tensor(" + tuple(ci.shape) + ", dtype=" + torchDType(dt) +
             ", device='cuda:0'),\n";
      } else {
        const int64_t span = stridedSpan(ci.shape, ci.strides);
        std::string gen =
            isFloatingPoint(dt) || isComplex(dt)
                ? "torch.randn(" + tuple({span})
                : "torch.randint(0, " + std::string(dt == DType::Bool ? "2" : "10") + ", " + tuple({span});
        s += "    " + gen + ", dtype=" + torchDType(dt) + ", device='cuda:0').as_strided(" + tuple(ci.shape) +
             ", " + tuple(ci.strides) + "),\n";
      }
    }
    return s + "]\nfd.execute(inputs)\n";
  }

  std::vector<std::string> tname_;
  std::vector<uint8_t> written_;  // per tensor: defined by the script so far
  std::unordered_map<ScalarId, std::pair<TensorId, size_t>> extent_of_;
};

}  // namespace

std::optional<std::string> exportPython(const Fusion& f, DiagnosticSink& sink) {
  return Exporter(f, sink).run();
}

}  // namespace fc
