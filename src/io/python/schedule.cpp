// Multi-device scheduling as repros write it (see interpreter.h): the legacy fd.sched calls
// (_create_device_mesh, _set_device_mesh, parallelize / _parallelize, split,
// set_allocation_as_loop) and the direct TensorView methods (set_device_mesh, axis(i).parallelize,
// split / outer_split / inner_split, set_allocation_domain), plus the attributes and methods of
// fusion tensors and scalars (ndim, dtype, shape(), size(d)). Scheduling calls that do not
// change what the fusion computes (inlining, caching, vectorization) are skipped with a note.
#include <algorithm>

#include "io/python/interpreter.h"

namespace fc::py {
namespace {

// The mesh's id in `rec`'s fusion, added on first use there.
MeshId meshIn(const std::shared_ptr<FusionRecorder>& rec, const Ref& m) {
  if (m->rec != rec || m->id == kNone) {
    m->id = rec->f.addMesh(m->sizes, m->strides);
    m->rec = rec;
  }
  return m->id;
}

}  // namespace

Ref Interpreter::schedCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& name, Args& args) {
  auto tensorAt = [&](size_t i) -> TensorId {
    if (args.pos.size() <= i)
      fail("fd.sched." + name + " is missing arguments", args.off, DiagCode::ImportSyntax);
    if (args.pos[i]->k != VK::Tensor)
      fail("fd.sched." + name + ": argument " + std::to_string(i + 1) + " must be a tensor", args.pos_off[i]);
    return args.pos[i]->id;
  };
  auto kwOr = [&](size_t i, const char* k) -> Ref {
    if (args.pos.size() > i) return args.pos[i];
    for (size_t j = 0; j < args.kw.size(); ++j)
      if (args.kw[j].first == k) return args.kw[j].second;
    return nullptr;
  };
  if (name == "_create_device_mesh") return makeMesh(args);
  // In a subclass's `schedule()`, a call that neither places a tensor on a mesh nor shards it
  // schedules the kernel (a user schedule): it is left out, and what it returns (a cached tensor,
  // an rfactor) is an opaque value whose later uses are left out too.
  if (kernel_schedule_) {
    bool device = name == "_set_device_mesh" || name == "set_device_mesh";
    if ((name == "parallelize" || name == "_parallelize") && kwOr(2, "parallel_type") &&
        kwOr(2, "parallel_type")->k == VK::Parallel) {
      const std::string& pt = kwOr(2, "parallel_type")->s;
      device = pt.starts_with("mesh_") || pt.starts_with("DID") || pt == "stream";
    }
    if (!args.pos.empty() && args.pos[0]->k == VK::Tensor && args.pos[0]->rec == rec)
      device |= rec->f.tensors[args.pos[0]->id].mesh != kNone;
    kernel_schedule_device_ |= device;
    if (!device) {
      if (!kernel_schedule_noted_) {
        kernel_schedule_noted_ = true;
        report(
            Severity::Note, DiagCode::ImportUnsupported,
            "`fd.sched." + name +
                "` and the other calls of this user schedule (`schedule()`) schedule the kernel: fusecheck "
                "models the fusion, not its kernels, and leaves them out",
            args.off);
      }
      return mkOpaque("fd.sched." + name + "(...)");
    }
  }
  Args as_method = args;
  if (!as_method.pos.empty()) {
    Ref t = as_method.pos[0];
    as_method.pos.erase(as_method.pos.begin());
    as_method.pos_off.erase(as_method.pos_off.begin());
    if (name == "_set_device_mesh" || name == "set_device_mesh") {
      tensorAt(0);
      return tensorMethod(t, "set_device_mesh", as_method);
    }
    if (name == "parallelize" || name == "_parallelize") {
      tensorAt(0);
      Ref ax = kwOr(1, "axis");
      Ref pt = kwOr(2, "parallel_type");
      if (!ax || !pt) fail("fd.sched.parallelize takes a tensor, an axis and a parallel type", args.off);
      Args a;
      a.off = args.off;
      Args p;
      p.off = args.off;
      p.pos = {pt};
      p.pos_off = {args.off};
      a.pos = {ax};
      a.pos_off = {args.off};
      Ref axis = tensorMethod(t, "axis", a);
      return tensorMethod(axis, "parallelize", p);
    }
    if (name == "split" || name == "set_allocation_as_loop" || name == "merge" || name == "reorder") {
      tensorAt(0);
      return tensorMethod(t, name, as_method);
    }
  }
  // rfactor makes a new fusion tensor; in a multi-device schedule it splits a reduction into a
  // local one and the one a communication computes (tests/python/multidevice/test_matmul.py:317
  // @ 7b310fe61), which changes what the fusion is.
  if (name == "rfactor" && !args.pos.empty() && args.pos[0]->k == VK::Tensor) {
    const Tensor& tv = rec->f.tensors[args.pos[0]->id];
    bool device = tv.mesh != kNone;
    for (AxisId a : tv.loopDomain()) device |= isDeviceDim(rec->f.axes[a].parallel);
    if (device)
      fail(
          "`fd.sched.rfactor` of a tensor on a device mesh makes a new tensor, a local reduction whose "
          "results a communication combines; fusecheck does not model rfactor",
          args.off);
  }
  static const char* no_effect[] = {"inline_most",
                                    "inline_at",
                                    "cache_after",
                                    "cache_before",
                                    "cache_fork",
                                    "set_memory_type",
                                    "transform_like",
                                    "parallelize_like",
                                    "schedule",
                                    "bounded_transform_backward",
                                    "rfactor",
                                    "warp_specialize",
                                    "tensors",
                                    "can_schedule",
                                    "find_compatible_schedulers",
                                    "compute_heuristics",
                                    "compute_pointwise_heuristics",
                                    "compute_reduction_heuristics",
                                    "compute_matmul_heuristics",
                                    "schedule_hyperparameters",
                                    "to_string",
                                    "user_schedule_ir",
                                    "is_reduction",
                                    "reduction_factor"};
  for (const char* n : no_effect)
    if (name == n)
      skip("`fd.sched." + name + "` schedules kernels; fusecheck models the fusion, not its kernels",
           args.off);
  fail("unsupported schedule call `fd.sched." + name + "`", args.off);
}

Ref Interpreter::tensorAttr(const Ref& t, const std::string& name, uint32_t off) {
  if (t->k == VK::Mesh) {
    if (name == "size") {
      int64_t n = 1;
      for (int64_t s : t->sizes) n *= s;
      return mkInt(n);
    }
    if (name == "shape") {
      std::vector<Ref> r;
      for (int64_t s : t->sizes) r.push_back(mkInt(s));
      return mkSeq(VK::Tuple, r);
    }
    if (name == "shard_tensor") return mkBuiltin("tensor.shard_tensor", t);
    fail("DeviceMesh has no attribute `" + name + "` fusecheck models", off);
  }
  if (t->k == VK::Tensor) {
    Fusion& f = t->rec->f;
    if (name == "ndim") return mkInt(static_cast<int64_t>(t->rec->b.nonReduction(t->id).size()));
    // nvfuser_direct's TensorView.dtype() is a method (python/python_direct/ir.cpp:235-245 @
    // 81c4b22fd); the legacy Tensor's dtype a value.
    if (name == "dtype" && t->rec->frontend != Frontend::Direct) {
      Ref d = mk(VK::DType);
      d->dtype = f.tensors[t->id].dtype;
      return d;
    }
  }
  if (t->k == VK::Scalar && name == "dtype") {
    Ref d = mk(VK::DType);
    d->dtype = t->rec->f.scalars[t->id].dtype;
    return d;
  }
  return mkBuiltin("tensor." + name, t);
}

Ref Interpreter::tensorMethod(const Ref& t, const std::string& m, Args& args) {
  if (t->k == VK::Axis) {
    if (m != "parallelize") fail("IterDomain." + m + " is not modelled", args.off);
    if (args.pos.empty() || args.pos[0]->k != VK::Parallel)
      fail("parallelize takes a ParallelType", args.off);
    const std::string& leaf = args.pos[0]->s;
    std::optional<ParallelType> p;
    if (leaf == "mesh_x" || leaf == "DIDx")
      p = ParallelType::DIDx;
    else if (leaf == "mesh_y" || leaf == "DIDy")
      p = ParallelType::DIDy;
    else if (leaf == "mesh_z" || leaf == "DIDz")
      p = ParallelType::DIDz;
    else if (leaf == "stream")
      p = ParallelType::Stream;
    else if (leaf == "serial")
      p = ParallelType::Serial;
    if (!p)
      skip("ParallelType." + leaf + " schedules kernels; fusecheck models device and stream parallelism only",
           args.off);
    Tensor& tv = t->rec->f.tensors[t->id];
    t->rec->f.axes[tv.loopDomain()[static_cast<size_t>(t->i)]].parallel = *p;
    return mkNone();
  }
  if (t->k == VK::Mesh && m == "shard_tensor") return shardTensor("mesh.shard_tensor", t, args);
  if (t->k != VK::Tensor && t->k != VK::Scalar)
    fail("a " + typeName(*t) + " has no method `" + m + "`", args.off);
  FusionRecorder& rec = *t->rec;
  Fusion& f = rec.f;
  if (m == "dtype" && t->k == VK::Tensor && args.pos.empty() && args.kw.empty()) {
    Ref d = mk(VK::DType);
    d->dtype = f.tensors[t->id].dtype;
    return d;
  }
  auto intArg = [&](size_t i, const char* what) {
    if (args.pos.size() <= i) fail(m + " is missing its " + what, args.off, DiagCode::ImportSyntax);
    return asInt(args.pos[i], args.pos_off[i], what);
  };
  auto opsWith = [&](const char* op, std::vector<Ref> extra) {
    Args a = args;
    a.pos.insert(a.pos.begin(), t);
    a.pos_off.insert(a.pos_off.begin(), args.off);
    (void)extra;
    return opsCall(t->rec, op, a);
  };
  // Val.is_tensor() (python/python_direct/ir.cpp:53 @ 81c4b22fd).
  if (m == "is_tensor") return mkBool(t->k == VK::Tensor);
  if (m == "shape") return opsWith("shape", {});
  if (m == "size") return opsWith("size", {});
  if (t->k == VK::Scalar) fail("a fusion scalar has no method `" + m + "`", args.off);
  Tensor& tv = f.tensors[t->id];
  auto loopIndex = [&](int64_t ax) {
    auto n = static_cast<int64_t>(tv.loopDomain().size());
    int64_t i = ax < 0 ? ax + n : ax;
    if (i < 0 || i >= n) fail(m + ": axis " + std::to_string(ax) + " is out of range", args.off);
    return static_cast<size_t>(i);
  };
  if (m == "set_device_mesh") {
    if (args.pos.empty() || args.pos[0]->k != VK::Mesh)
      fail("set_device_mesh takes a DeviceMesh", args.pos.empty() ? args.off : args.pos_off[0],
           DiagCode::ImportUnresolved);
    tv.mesh = meshIn(t->rec, args.pos[0]);
    return mkNone();
  }
  if (m == "axis") {
    Ref a = mk(VK::Axis);
    a->rec = t->rec;
    a->id = t->id;
    a->i = static_cast<int64_t>(loopIndex(intArg(0, "axis")));
    return a;
  }
  if (m == "split" || m == "outer_split" || m == "inner_split") {
    int64_t ax = intArg(0, "axis");
    int64_t factor = intArg(1, "factor");
    bool inner = m != "outer_split";
    if (m == "split" && args.pos.size() > 2) inner = truthy(args.pos[2], args.pos_off[2]);
    for (size_t k = 0; k < args.kw.size(); ++k)
      if (args.kw[k].first == "inner_split")
        inner = truthy(args.kw[k].second, args.kw_off[k]);
      else
        fail("unsupported argument `" + args.kw[k].first + "` of " + m, args.kw_off[k]);
    size_t i = loopIndex(ax);
    if (factor <= 0) fail("split: factor not positive", args.off);
    rec.b.splitLoop(t->id, i, rec.b.constInt(factor), inner);
    return mkNone();
  }
  if (m == "set_allocation_as_loop" || m == "set_allocation_domain") {
    tv.allocation = tv.loopDomain();
    tv.contiguity.clear();
    return mkNone();
  }
  if (m == "get_loop_domain" || m == "get_logical_domain" || m == "get_allocation_domain" || m == "domain")
    return mkOpaque("tensor." + m + "()");
  if (m == "reorder") {
    // nvfuser_direct's TensorView.reorder(old2new: dict) (python/python_direct/ir.cpp @ 81c4b22fd);
    // the legacy fd.sched.reorder(tensor, dict) comes here too.
    if (args.pos.size() != 1 || args.pos[0]->k != VK::Dict)
      fail("reorder takes a dict of old to new loop positions", args.off, DiagCode::ImportSyntax);
    std::vector<std::pair<int64_t, int64_t>> old2new;
    for (size_t k = 0; k < args.pos[0]->keys.size(); ++k)
      old2new.emplace_back(asInt(args.pos[0]->keys[k], args.off, "a reorder position"),
                           asInt(args.pos[0]->items[k], args.off, "a reorder position"));
    std::string why;
    if (!rec.b.reorderLoop(t->id, old2new, why)) fail(why, args.off, DiagCode::ImportSyntax);
    return mkNone();
  }
  if (m == "merge") {  // merge(axis_o, axis_i = axis_o + 1) of the loop domain
    const size_t a = loopIndex(intArg(0, "axis"));
    const size_t b = args.pos.size() > 1 ? loopIndex(intArg(1, "second axis")) : a + 1;
    if (b >= tv.loopDomain().size() || a == b) fail("merge: the axes are out of range", args.off);
    rec.b.mergeLoop(t->id, a, b);
    return mkNone();
  }
  if (m == "swizzle" || m == "swizzle1d" || m == "rfactor")
    fail("`" + m + "` on a fusion tensor is not modelled (fusecheck models splits of device and stream axes)",
         args.off);
  if (m == "cache_after" || m == "cache_before" || m == "set_memory_type" || m == "inline_at")
    skip("`" + m + "` schedules kernels; fusecheck models the fusion, not its kernels", args.off);
  // The legacy frontend's Tensor class bound some ops as methods: `t0.pad([1, 1])` is
  // `fd.ops.pad(t0, [1, 1])` (csrc/python_frontend/python_bindings.cpp @ 967b49d, tensor_class).
  static constexpr std::string_view kOpMethods[] = {"broadcast", "broadcast_in_dim", "gather",      "pad",
                                                    "permute",   "reshape",          "slice",       "squeeze",
                                                    "var",       "var_mean",         "tensor_sizes"};
  if (std::find(std::begin(kOpMethods), std::end(kOpMethods), m) != std::end(kOpMethods)) {
    Args op_args = args;
    op_args.pos.insert(op_args.pos.begin(), t);
    op_args.pos_off.insert(op_args.pos_off.begin(), args.off);
    return opsCall(t->rec, m, op_args);
  }
  fail("a fusion tensor has no method `" + m + "` fusecheck models", args.off);
}

}  // namespace fc::py
