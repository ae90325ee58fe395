// The FusionDefinition surface of both frontends (see interpreter.h): define_tensor (its three
// overloads and the 2023 spellings symbolic_sizes= / contiguous=), define_scalar /
// define_constant, define_vector, add_output (alias and stride-order forms), from_pytorch,
// execute / validate (their inputs become the concrete inputs), fd.sched's multi-device calls,
// DeviceMesh, and the methods of tensors (legacy Tensor, direct TensorView).
//
// Facts from nvFuser: define_tensor's contiguity is in allocation (stride) order
// (getContiguityVec, python/python_common/python_utils.cpp:207-223 @4a3e6b9a4); the sizes /
// strides overload and from_pytorch derive contiguity and stride order with
// computeTensorDescriptor (python_utils.cpp:29-107) and sizes with getTensorViewBuilderSizes
// (size 1 a broadcast, other sizes symbolic unless static_sizes, python_utils.cpp:225-245).
#include <algorithm>

#include "io/import_builder.h"
#include "io/python/bind.h"
#include "io/python/interpreter.h"
#include "support/checked.h"
#include "support/suggest.h"

namespace fc::py {
namespace {

// nvFuser's computeTensorDescriptor: contiguity in allocation order and the stride order.
void tensorDescriptor(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      std::vector<std::optional<bool>>& contig, std::vector<int64_t>& order) {
  struct Dim {
    size_t index;
    int64_t size, stride;
    std::optional<bool> contiguity;
    int64_t order = -1;
    bool broadcast() const { return stride == 0 || size == 1; }
  };
  std::vector<Dim> dims, zero;
  for (size_t i = 0; i < sizes.size(); ++i)
    (strides[i] != 0 ? dims : zero).push_back(Dim{i, sizes[i], strides[i], {}});
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& l, const Dim& r) { return l.stride > r.stride; });
  for (const Dim& d : zero) dims.insert(dims.begin() + static_cast<long>(std::min(d.index, dims.size())), d);
  auto n = static_cast<int64_t>(sizes.size());
  for (int64_t i = 0; i < n;) {
    dims[static_cast<size_t>(i)].order = n - 1 - i;
    if (!dims[static_cast<size_t>(i)].broadcast()) {
      int64_t l = i++;
      int64_t expected = 1;
      for (; i < n; ++i) {
        dims[static_cast<size_t>(i)].order = n - 1 - i;
        if (!dims[static_cast<size_t>(i)].broadcast()) {
          expected = dims[static_cast<size_t>(i)].stride * dims[static_cast<size_t>(i)].size;
          break;
        }
      }
      dims[static_cast<size_t>(l)].contiguity = dims[static_cast<size_t>(l)].stride == expected;
    } else {
      ++i;
    }
  }
  order.assign(sizes.size(), -1);
  contig.clear();
  for (const Dim& d : dims) {
    order[d.index] = d.order;
    contig.push_back(d.contiguity);
  }
}

}  // namespace

Ref Interpreter::newFusionDefinition(uint32_t off, Frontend fe, const Ref& instance) {
  auto rec = std::make_shared<FusionRecorder>();
  rec->off = off;
  rec->frontend = fe != Frontend::Unknown ? fe : imported_;
  if (pre_repo_import_) rec->markPreRepo("`from torch._C._nvfuser import ...`", *pre_repo_import_);
  recs_.push_back(rec);
  if (instance) {
    instance->rec = rec;
    return instance;
  }
  Ref fd = mk(VK::FusionDef);
  fd->rec = rec;
  return fd;
}

Ref Interpreter::fdAttr(const Ref& fd, const std::shared_ptr<FusionRecorder>& rec, const std::string& name,
                        uint32_t off) {
  if (name == "ops" || name == "sched" || name == "Ops") {
    Ref m = mkModule(name == "sched" ? "fd.sched" : "fd.ops");
    m->rec = rec;
    return m;
  }
  static const std::vector<std::string> methods = {"define_tensor",
                                                   "define_scalar",
                                                   "define_constant",
                                                   "define_vector",
                                                   "add_output",
                                                   "add_input",
                                                   "from_pytorch",
                                                   "execute",
                                                   "validate",
                                                   "manual_execute",
                                                   "fusion",
                                                   "print_ir",
                                                   "last_repro_script",
                                                   "repro_script_for",
                                                   "definition",
                                                   "schedule",
                                                   "multidevice_schedule",
                                                   "id",
                                                   "fusion_ir",
                                                   "user_schedule_ir",
                                                   "last_cuda_code",
                                                   "print_math",
                                                   "__enter__",
                                                   "__exit__",
                                                   "_setup_definition",
                                                   "_finalize_definition"};
  if (std::find(methods.begin(), methods.end(), name) != methods.end()) return mkBuiltin("fd." + name, fd);
  fail("`FusionDefinition." + name + "` is not part of nvFuser's frontends" + didYouMean(name, methods), off,
       DiagCode::ImportUnresolved);
}

void Interpreter::refuseUnentered(const FusionRecorder& rec, const std::string& name, const Args& args) {
  const bool direct = rec.frontend == Frontend::Direct;
  Diagnostic* d =
      report(Severity::Error, DiagCode::FrontendRejects,
             "nvFuser refuses `FusionDefinition." + name +
                 "(...)` here: the FusionDefinition was never entered (no `with FusionDefinition() "
                 "as fd:` around it, and it is no definition() method)",
             args.off);
  if (direct) {
    d->note(
        "nvfuser_direct's FusionDefinition has no fusion until `with` enters it (__init__ and __enter__, "
        "python/nvfuser_direct/__init__.py:135-177 @ 81c4b22fd): building the tensor or scalar stops with "
        "\"Need an active container to build IR.\" (csrc/fusion.h:699 @ 81c4b22fd)");
  } else {
    // The first check each call reaches (python/python_frontend/python_bindings.cpp @ 3925c6fd2^):
    // define_tensor and from_pytorch define a tensor, define_scalar / define_constant /
    // define_vector a scalar first, add_output only a record.
    std::string check = "define_scalar()";
    int line = 614;
    if (name == "define_tensor" || name == "from_pytorch") check = "define_tensor()", line = 639;
    if (name == "add_output") check = "defineRecord()", line = 661;
    d->note("nvFuser stops with \"" + check +
            " must be called from an initialized definition via a python context manager or a child class' "
            "definition() method.\" (python/python_frontend/fusion_definition.cpp:" +
            std::to_string(line) + "-" + std::to_string(line + 3) + " @ 3925c6fd2^)");
    d->note(
        "the check came with #2442 (fd2586911, 2024-06-25); before it the call crashed the Python process (a "
        "segmentation fault, issue #2430)");
  }
  d->note(
      "define the fusion inside `with FusionDefinition() as fd:` or a FusionDefinition subclass's "
      "definition()");
  // nvFuser raises there: the script stops, as it would.
  throw PyError{DiagCode::FrontendRejects, std::string(), args.off, false, true, true};
}

Ref Interpreter::fdCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& name, Args& args) {
  if (!pending_definitions_.empty()) runPendingDefinitions(rec.get());
  Fusion& f = rec->f;
  ImportBuilder& b = rec->b;
  rec->recorded = true;
  if (name == "__enter__" || name == "_setup_definition") rec->opened = true;
  if (!rec->opened && (name == "define_tensor" || name == "define_scalar" || name == "define_constant" ||
                       name == "define_vector" || name == "from_pytorch" || name == "add_output"))
    refuseUnentered(*rec, name, args);
  auto dtypeOf = [&](const Ref& v, uint32_t off, const char* what) -> std::optional<DType> {
    if (!v || v->k == VK::None) return std::nullopt;
    if (v->k == VK::DType || v->k == VK::TorchDType) return v->dtype;
    fail(std::string(what) + " must be a DataType, not a " + typeName(*v), off);
  };
  if (name == "define_tensor") {
    // The 2022 form define_tensor(ndims[, dtype]), positional or by keyword.
    Ref ndims =
        !args.pos.empty() && args.pos[0]->k == VK::Int && args.pos.size() <= 2 ? args.pos[0] : nullptr;
    Ref dtype = ndims && args.pos.size() == 2 ? args.pos[1] : nullptr;
    uint32_t dtype_off = dtype ? args.pos_off[1] : 0;
    bool other_kw = false;
    for (size_t k = 0; k < args.kw.size(); ++k) {
      const auto& [kw, v] = args.kw[k];
      if (kw == "ndims" && v->k == VK::Int && args.pos.empty())
        ndims = v;
      else if (kw == "dtype" && !dtype)
        dtype = v, dtype_off = args.kw_off[k];
      else
        other_kw = true;
    }
    if (ndims && !other_kw) {
      Args a2 = args;
      std::vector<Ref> shape(static_cast<size_t>(std::clamp<int64_t>(ndims->i, 0, 64)), mkInt(-1));
      a2.pos = {mkSeq(VK::List, shape)};
      a2.pos_off = {args.off};
      a2.kw.clear();
      a2.kw_off.clear();
      if (dtype) a2.kw.emplace_back("dtype", dtype), a2.kw_off.push_back(dtype_off);
      return fdCall(rec, name, a2);
    }
    bool sizes_form = false;
    for (const auto& [k, v] : args.kw) sizes_form = sizes_form || k == "sizes" || k == "strides";
    std::vector<int64_t> shape, order;
    std::vector<std::optional<bool>> contig;
    std::optional<DType> dt;
    uint32_t shape_off = 0, order_off = args.off;
    bool is_cpu = false;
    uint32_t cpu_off = 0;
    if (sizes_form) {
      Bound a =
          bind(*this, args, "fd.define_tensor", {"sizes", "strides", "dtype", "static_sizes", "is_cpu"});
      if (!a.has(0) || !a.has(1))
        fail("define_tensor needs sizes and strides", args.off, DiagCode::ImportSyntax);
      std::vector<int64_t> sizes, strides;
      for (const Ref& x : asList(a[0], a.off[0], "sizes")) sizes.push_back(asInt(x, a.off[0], "sizes"));
      for (const Ref& x : asList(a[1], a.off[1], "strides")) strides.push_back(asInt(x, a.off[1], "strides"));
      if (sizes.size() != strides.size()) fail("define_tensor: sizes and strides differ in length", a.off[1]);
      for (int64_t st : strides)
        if (st < 0) fail("define_tensor: a negative stride", a.off[1]);
      dt = dtypeOf(a[2], a.off[2], "dtype");
      bool static_sizes = a.has(3) && truthy(a[3], a.off[3]);
      is_cpu = a.has(4) && truthy(a[4], a.off[4]);
      cpu_off = a.off[4];
      tensorDescriptor(sizes, strides, contig, order);
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0) fail("define_tensor: a negative size", a.off[0]);
        shape.push_back(static_sizes ? sizes[d] : sizes[d] == 1 ? 1 : -1);
      }
      shape_off = a.off[0];
    } else {
      Bound a =
          bind(*this, args, "fd.define_tensor", {"shape", "contiguity", "dtype", "is_cpu", "stride_order"},
               {{"symbolic_sizes", "shape"}, {"contiguous", "contiguity"}}, rec.get());
      if (!a.has(0)) fail("define_tensor needs a shape", args.off, DiagCode::ImportSyntax);
      shape_off = a.off[0];
      for (const Ref& x : asList(a[0], a.off[0], "shape")) {
        int64_t n = asInt(x, a.off[0], "define_tensor shape");
        if (n < -1)
          fail("define_tensor: shape entry " + std::to_string(n) + " is not -1 or a size", a.off[0]);
        shape.push_back(n);
      }
      dt = dtypeOf(a[2], a.off[2], "dtype");
      is_cpu = a.has(3) && truthy(a[3], a.off[3]);
      cpu_off = a.off[3];
      if (a.has(4)) {
        order_off = a.off[4];
        for (const Ref& x : asList(a[4], a.off[4], "stride_order"))
          order.push_back(asInt(x, a.off[4], "stride_order"));
        if (!order.empty() && order.size() != shape.size())
          fail("define_tensor: stride_order length differs from the rank", a.off[4]);
        std::vector<bool> seen(shape.size(), false);
        for (int64_t r : order) {
          if (r < 0 || static_cast<size_t>(r) >= shape.size() || seen[static_cast<size_t>(r)])
            fail("define_tensor: stride_order is not a permutation", a.off[4]);
          seen[static_cast<size_t>(r)] = true;
        }
      }
      if (!a.v[1] || a[1]->k == VK::Bool || a[1]->k == VK::Int) {
        // getContiguityVec: one flag for every non-broadcast dim, in allocation order; without a
        // contiguity argument the overload taking a bool gives False (python_direct/ir.cpp:701 and
        // the legacy python_bindings.cpp:1311 @ fe9addc91).
        const bool all = a.v[1] && a[1]->i != 0;
        contig.assign(shape.size(), std::nullopt);
        for (size_t d = 0; d < shape.size(); ++d) {
          size_t at = order.empty() ? d : shape.size() - 1 - static_cast<size_t>(order[d]);
          if (shape[d] != 1) contig[at] = all;
        }
      } else if (a.v[1] && a[1]->k != VK::None) {
        for (const Ref& x : asList(a[1], a.off[1], "contiguity")) {
          if (x->k == VK::None)
            contig.push_back(std::nullopt);
          else if (x->k == VK::Bool || x->k == VK::Int)
            contig.push_back(x->i != 0);
          else
            fail("contiguity entries must be True, False or None", a.off[1]);
        }
        if (!contig.empty() && contig.size() != shape.size())
          fail("define_tensor: contiguity has " + std::to_string(contig.size()) + " entries for a rank-" +
                   std::to_string(shape.size()) + " shape",
               a.off[1]);
      }
    }
    if (is_cpu) fail("CPU scalar tensors (is_cpu=True) are not modeled", cpu_off);
    // Axis i of the allocation order: contiguity is stored there.
    std::vector<size_t> alloc_of(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      alloc_of[d] = order.empty() ? d : shape.size() - 1 - static_cast<size_t>(order[d]);
    std::vector<AxisId> logical;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t n = shape[d];
      bool none = alloc_of[d] < contig.size() && !contig[alloc_of[d]].has_value();
      if (n == 1)
        logical.push_back(b.axis(IterType::Broadcast, b.constInt(1)));
      else if (none)
        logical.push_back(
            b.axis(IterType::Broadcast, b.constInt(1), n == -1 ? b.freshSymbol() : b.constInt(n)));
      else
        logical.push_back(b.axis(IterType::Iteration, n == -1 ? b.freshSymbol() : b.constInt(n)));
    }
    (void)shape_off;
    (void)order_off;
    TensorId t = b.tensor(dt.value_or(DType::Float), logical);
    Tensor& tv = f.tensors[t];
    bool identity = true;
    for (size_t d = 0; d < shape.size(); ++d) identity = identity && alloc_of[d] == d;
    if (!identity) {
      tv.allocation.assign(shape.size(), kNone);
      for (size_t d = 0; d < shape.size(); ++d) tv.allocation[alloc_of[d]] = logical[d];
    }
    tv.contiguity = contig;
    f.inputs.push_back(ValueRef::tensor(t));
    rec->noteTensor(t, args.off);
    return tensorValue(rec, t);
  }
  if (name == "from_pytorch") {
    Bound a = bind(*this, args, "fd.from_pytorch", {"tensor", "static_sizes"});
    if (!a.has(0) || a[0]->k != VK::Torch) fail("from_pytorch takes a torch tensor", args.off);
    Args d;
    d.off = args.off;
    std::vector<Ref> sizes, strides;
    for (int64_t s : a[0]->sizes) sizes.push_back(mkInt(s));
    for (int64_t s : a[0]->strides) strides.push_back(mkInt(s));
    d.kw = {{"sizes", mkSeq(VK::List, sizes)}, {"strides", mkSeq(VK::List, strides)}};
    Ref dt = mk(VK::DType);
    dt->dtype = a[0]->dtype;
    d.kw.emplace_back("dtype", dt);
    if (a.has(1)) d.kw.emplace_back("static_sizes", a[1]);
    d.kw_off.assign(d.kw.size(), args.off);
    return fdCall(rec, "define_tensor", d);
  }
  if (name == "define_scalar" || name == "define_constant") {
    if (!args.pos.empty() && args.pos[0]->k == VK::DType && args.pos.size() == 1) {  // define_scalar(dtype)
      Args a2 = args;
      a2.pos = {mkNone()};
      a2.kw.emplace_back("dtype", args.pos[0]);
      a2.kw_off.push_back(args.pos_off[0]);
      return fdCall(rec, name, a2);
    }
    Bound a = bind(*this, args, "fd." + name, {"value", "dtype"});
    std::optional<DType> dt = dtypeOf(a[1], a.off[1], "dtype");
    const Ref& v = a[0];
    ScalarId s;
    if (!v || v->k == VK::None) {
      if (name == "define_constant") fail("define_constant needs a value", args.off);
      s = b.scalarInput(dt.value_or(DType::Double));
      f.inputs.push_back(ValueRef::scalar(s));
    } else if (v->k == VK::Complex || (dt && isComplex(*dt) && (v->k == VK::Int || v->k == VK::Float))) {
      // A Python complex is a ComplexDouble (csrc/python_frontend/python_bindings.cpp define_scalar's
      // value types); a number given a complex dtype is that complex with no imaginary part.
      if (dt && !isComplex(*dt))
        fail("a complex value for a scalar of dtype " + std::string(dtypeName(*dt)), a.off[0]);
      const double re = v->k == VK::Int ? static_cast<double>(v->i) : v->f;
      s = b.constComplex(re, v->k == VK::Complex ? v->im : 0.0, dt.value_or(DType::ComplexDouble));
    } else if (v->k == VK::Bool) {
      s = dt && *dt != DType::Bool
              ? (isFloatingPoint(*dt) ? b.constFloat(static_cast<double>(v->i), *dt) : b.constInt(v->i, *dt))
              : b.constBool(v->i != 0);
    } else if (v->k == VK::Int && (!dt || !isFloatingPoint(*dt))) {
      s = b.constInt(v->i, dt.value_or(DType::Int));
    } else if (v->k == VK::Int || v->k == VK::Float) {
      if (dt && !isFloatingPoint(*dt) && *dt != DType::Bool) {
        if (v->k == VK::Float && !checkedTruncToInt64(v->f))
          fail("a float that is no integer (" + pyFloatRepr(v->f) + ") for a scalar of an integer dtype",
               a.off[0]);
        s = b.constInt(v->k == VK::Int ? v->i : *checkedTruncToInt64(v->f), *dt);
      } else
        s = b.constFloat(v->k == VK::Int ? static_cast<double>(v->i) : v->f, dt.value_or(DType::Double));
    } else if (v->k == VK::Scalar) {
      s = v->id;
    } else {
      fail("define_scalar value must be None or a number, not a " + typeName(*v), a.off[0]);
    }
    rec->noteScalar(s, args.off);
    return scalarValue(rec, s);
  }
  if (name == "define_vector") {
    Bound a = bind(*this, args, "fd.define_vector", {"values", "dtype"}, {{"size", "values"}});
    std::optional<DType> dt = dtypeOf(a[1], a.off[1], "dtype");
    Ref v = mk(VK::Vector);
    v->rec = rec;
    if (a.v[0] && a[0]->k == VK::Int) {
      if (a[0]->i < 0 || a[0]->i > 64) fail("define_vector: size out of range", a.off[0]);
      for (int64_t i = 0; i < a[0]->i; ++i) {
        ScalarId s = b.scalarInput(dt.value_or(DType::Int));
        f.inputs.push_back(ValueRef::scalar(s));
        v->ids.push_back(s);
      }
      return v;
    }
    if (!a.v[0]) fail("define_vector needs values or a size", args.off, DiagCode::ImportSyntax);
    for (const Ref& x : asList(a[0], a.off[0], "define_vector values")) {
      if (x->k == VK::Scalar)
        v->ids.push_back(x->id);
      else
        v->ids.push_back(b.constInt(asInt(x, a.off[0], "define_vector values"), DType::Index));
    }
    return v;
  }
  if (name == "add_output") {
    Bound a = bind(*this, args, "fd.add_output", {"output", "alias_input", "stride_order"});
    if (!a.has(0)) fail("add_output needs an output", args.off, DiagCode::ImportSyntax);
    if (a[0]->k == VK::Scalar) {
      report(Severity::Warning, DiagCode::ImportUnsupported,
             "a scalar output is not modelled; it is left out", args.off);
      return mkNone();
    }
    if (a[0]->k != VK::Tensor || a[0]->rec != rec)
      fail("add_output: the output must be a tensor of this definition", a.off[0]);
    TensorId t = a[0]->id;
    if (a.has(1) && (a[1]->k == VK::List || a[1]->k == VK::Tuple)) {  // add_output(T, stride_order)
      a.v[2] = a.v[1];
      a.off[2] = a.off[1];
      a.v[1] = nullptr;
    }
    if (a.has(1)) {
      if (a[1]->k != VK::Tensor) fail("alias_input must be a tensor", a.off[1]);
      f.provenance.emplace_back("alias:" + std::string(f.tensorName(t)), std::string(f.tensorName(a[1]->id)));
      // The output as the script spells it (`T4`), and fusecheck's name when the two differ.
      std::string spelled = identifierAt(a.off[0]);
      std::string name(f.tensorName(t));
      std::string shown = spelled.empty() || spelled == name ? name : spelled + " (fusecheck's " + name + ")";
      report(Severity::Warning, DiagCode::ImportUnsupported,
             "output aliasing is not modeled: " + shown +
                 " is kept as an ordinary output (the alias is recorded in provenance)",
             a.off[1]);
    }
    if (a.has(2)) {
      std::string s;
      for (const Ref& x : asList(a[2], a.off[2], "stride_order"))
        s += (s.empty() ? "" : ",") + std::to_string(asInt(x, a.off[2], "stride_order"));
      f.provenance.emplace_back("output_stride_order:" + std::string(f.tensorName(t)), s);
    }
    f.outputs.push_back(t);
    return mkNone();
  }
  if (name == "execute" || name == "validate" || name == "manual_execute") {
    if (!args.pos.empty()) {
      rec->inputs = iterate(args.pos[0], args.pos_off[0]);
      rec->inputs_off = args.pos_off[0];
      rec->executed = true;
    } else {
      for (size_t k = 0; k < args.kw.size(); ++k)
        if (args.kw[k].first == "inputs") {
          rec->inputs = iterate(args.kw[k].second, args.kw_off[k]);
          rec->inputs_off = args.kw_off[k];
          rec->executed = true;
        }
    }
    // execute returns one torch tensor per fusion output (`(out,) = fd.execute(inputs)`), which
    // the import does not look into.
    if (name == "validate" || f.outputs.empty()) return mkOpaque("fd." + name + "(...)");
    std::vector<Ref> outs;
    for (size_t i = 0; i < f.outputs.size(); ++i)
      outs.push_back(mkOpaque("fd." + name + "(...)[" + std::to_string(i) + "]"));
    return mkSeq(VK::List, outs);
  }
  if (name == "fusion_inputs" || name == "fusion_outputs") {  // fd.fusion.inputs(), as recorded so far
    std::vector<Ref> items;
    if (name == "fusion_inputs")
      for (const ValueRef& v : f.inputs)
        items.push_back(v.isTensor() ? tensorValue(rec, v.id) : scalarValue(rec, v.id));
    else
      for (TensorId t : f.outputs) items.push_back(tensorValue(rec, t));
    return mkSeq(VK::List, items);
  }
  if (name == "add_input") {
    // PyTorch's tree (2022): define_tensor / define_scalar made a value and add_input made it the
    // next fusion input. Here defining made it an input: move it to the next place.
    rec->markPreRepo("`fd.add_input`", args.off);
    if (args.pos.size() != 1 || (args.pos[0]->k != VK::Tensor && args.pos[0]->k != VK::Scalar) ||
        args.pos[0]->rec != rec)
      fail("fd.add_input takes one tensor or scalar of this FusionDefinition", args.off);
    const ValueRef v =
        args.pos[0]->k == VK::Tensor ? ValueRef::tensor(args.pos[0]->id) : ValueRef::scalar(args.pos[0]->id);
    auto it = std::find(f.inputs.begin(), f.inputs.end(), v);
    if (it == f.inputs.end())
      fail("fd.add_input: the value is not one define_tensor or define_scalar made", args.off);
    const auto at = static_cast<std::ptrdiff_t>(rec->added_inputs);
    if (it - f.inputs.begin() < at) fail("fd.add_input: the value is an input already", args.off);
    std::rotate(f.inputs.begin() + at, it, it + 1);
    ++rec->added_inputs;
    return mkNone();
  }
  if (name == "definition" || name == "schedule" || name == "multidevice_schedule" || name == "__enter__" ||
      name == "__exit__" || name == "_setup_definition" || name == "_finalize_definition")
    return mkNone();
  skip("`fd." + name + "` is not about the fusion", args.off);
}

Ref Interpreter::makeMesh(Args& args) {
  if (args.pos.empty()) fail("DeviceMesh takes a list of devices", args.off);
  const Ref& arg = args.pos[0];
  uint32_t off = args.pos_off[0];
  std::vector<int64_t> shape, devices;
  if (arg->k == VK::Torch) {  // DeviceMesh(torch.arange(d).reshape(...)): devices in order
    int64_t n = 1;
    for (int64_t s : arg->sizes) n *= s;
    if (n > 4096) fail("a device mesh of more than 4096 devices", off);
    for (int64_t i = 0; i < n; ++i) devices.push_back(i);
    shape = arg->sizes.empty() ? std::vector<int64_t>{n} : arg->sizes;
  } else {
    std::vector<Ref> items = asList(arg, off, "DeviceMesh devices");
    if (!items.empty() && (items[0]->k == VK::List || items[0]->k == VK::Tuple)) {
      for (const Ref& row : items)
        for (const Ref& d : asList(row, off, "device mesh row")) devices.push_back(asInt(d, off, "a device"));
      shape = {static_cast<int64_t>(items.size()), static_cast<int64_t>(devices.size() / items.size())};
    } else {
      for (const Ref& d : items) devices.push_back(asInt(d, off, "a device"));
      shape = {static_cast<int64_t>(devices.size())};
    }
  }
  DiagCode code{};
  std::string why = importedMeshProblem(devices, code);
  if (!why.empty()) fail(why, off, code);
  Ref m = mk(VK::Mesh);
  m->sizes = shape;
  m->strides = devices;
  return m;
}

}  // namespace fc::py
