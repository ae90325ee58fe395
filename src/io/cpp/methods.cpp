// Members in a C++ test (see reader.h): Fusion (addInput, addOutput, zeroVal, oneVal),
// TensorView (axis, split, outer_split, inner_split, merge, reorder, setDeviceMesh, nDims; the
// rest of scheduling is skipped), IterDomain (parallelize, extent), TensorViewBuilder (ndims,
// shape, contiguity, dtype, expanded, build), at::TensorOptions and at::Tensor (sizes, views and
// conversions of inputs), the executors (the run's inputs) and their params.
#include <algorithm>
#include <numeric>

#include "io/cpp/reader.h"
#include "io/packed_fp4.h"

namespace fc::cpp_text {
namespace {

Value boolean(bool b) {
  Value v;
  v.k = Value::K::Bool;
  v.i = b;
  return v;
}

}  // namespace

void Reader::recordExecutor(const std::string& cls, const std::vector<Value>& args, size_t at) {
  (void)at;
  if (cls == "FusionExecutorCache") {
    executor_ = "fec";
    executor_detail_ = "FusionExecutorCache";
  } else if (cls == "MultiDeviceExecutor") {
    executor_ = "mde";
    std::string params;
    for (const Value& a : args)
      if (a.k == Value::K::Params)
        for (const auto& [n, v] : a.fields) {
          std::string val = v.k == Value::K::Bool || v.k == Value::K::Int ? (v.i ? "true" : "false") : "?";
          if (v.k == Value::K::Int && v.i > 1) val = std::to_string(v.i);
          params += (params.empty() ? "" : ", ") + n + "=" + val;
          if ((n == "use_fusion_executor_cache" || n == "executor.use_fusion_executor_cache") && v.i)
            executor_ = "mde-fec";
        }
    executor_detail_ = "MultiDeviceExecutor" + (params.empty() ? std::string() : "(params: " + params + ")");
  } else if (cls == "HostIrExecutor" || cls == "HostIrEvaluator") {
    executor_ = "hostir";
    executor_detail_ = cls;
  } else {
    executor_ = "";
    executor_detail_ = cls + " (one kernel, scheduled by the test)";
  }
}

// `fec.runFusionWithInputs({t0, t1})`: the concrete inputs, when every one is known.
void Reader::recordRun(const Value& inputs, size_t at) {
  if (ran_ || inputs.k != Value::K::List) return;
  ran_ = true;
  if (inputs.items.size() != f_.inputs.size()) {
    note("the run passes " + std::to_string(inputs.items.size()) + " input(s) to a fusion of " +
             std::to_string(f_.inputs.size()) + "; the inputs' sizes are not recorded",
         at);
    return;
  }
  std::vector<ConcreteInput> out;
  for (size_t i = 0; i < inputs.items.size(); ++i) {
    const Value& v = inputs.items[i];
    ConcreteInput ci;
    ci.value = f_.inputs[i];
    if (ci.value.isTensor()) {
      if (v.k != Value::K::Aten || v.shape.size() != b_.nonReduction(ci.value.id).size()) {
        note("input " + std::to_string(i) +
                 " of the run is not an at::Tensor of the fusion input's rank the import "
                 "can follow; the inputs' sizes are not recorded",
             at);
        return;
      }
      ci.shape = v.shape;
      ci.strides = v.strides;
      // A packed FP4 tensor binds with nvFuser's sizes and strides (packed_fp4.h).
      if (v.dtype == DType::Float4_e2m1fn_x2 && f_.tensors[ci.value.id].dtype == DType::Float4_e2m1fn) {
        SizesAndStrides bound = unpackFp4(f_, ci.value.id, {ci.shape, ci.strides});
        ci.shape = std::move(bound.sizes);
        ci.strides = std::move(bound.strides);
      }
    } else {
      ConstValue c;
      if (v.k == Value::K::Int || v.k == Value::K::Bool) {
        c.kind = v.k == Value::K::Bool ? ConstValue::Kind::Bool : ConstValue::Kind::Int;
        c.i = v.i;
      } else if (v.k == Value::K::Float) {
        c.kind = ConstValue::Kind::Float;
        c.f = v.f;
      } else {
        note("input " + std::to_string(i) +
                 " of the run is not a scalar the import can follow; the inputs' sizes "
                 "are not recorded",
             at);
        return;
      }
      ci.scalar = c;
    }
    out.push_back(ci);
  }
  f_.concrete_inputs = std::move(out);
}

std::optional<Value> Reader::member(Value& obj, const std::string& name, size_t at) {
  if (const Value* v = obj.field(name)) return *v;
  if (obj.k == Value::K::Struct && (name == "avg" || name == "mean")) {
    if (const Value* v = obj.field("mean")) return *v;
  }
  // SdpfaFwdResult's field was `log_sumexp` until #5849 (af00238ed, 2026-01-20) renamed it.
  if (obj.k == Value::K::Struct && name == "log_sumexp")
    if (const Value* v = obj.field("logsumexp")) return *v;
  return Value::opaque((obj.k == Value::K::Opaque ? obj.s + "." : std::string()) + name, at);
}

std::optional<Value> Reader::method(Value& obj, const std::string& name, std::vector<Value>& args, size_t at,
                                    const std::string& target) {
  using K = Value::K;
  switch (obj.k) {
    case K::Fusion: {
      if (name == "addInput" || name == "addOutput") {
        if (args.size() != 1)
          return error(DiagCode::ImportSyntax, name + " takes one value", at), std::nullopt;
        const Value& v = args[0];
        if (name == "addInput") {
          ValueRef r;
          if (v.k == K::Tensor) {
            r = ValueRef::tensor(v.tensor);
          } else if (v.k == K::Scalar && f_.scalars[v.scalar].kind == ScalarKind::Symbol) {
            f_.scalars[v.scalar].kind = ScalarKind::Input;
            r = ValueRef::scalar(v.scalar);
          } else {
            return opaqueUse(v, at, "a fusion input"), std::nullopt;
          }
          if (r.isTensor() && f_.tensors[r.id].definition != kNone)
            return error(
                       DiagCode::ImportUnsupported,
                       std::string(f_.tensorName(r.id)) +
                           " is added as an input but an op defines it: nvFuser then takes it as an input "
                           "whose logical domain that op's transforms make from its root (Fusion::addInput, "
                           "csrc/fusion.cpp:344-368 @ 81c4b22fd, does not refuse a defined tensor), which "
                           "fusecheck does not model",
                       at),
                   std::nullopt;
          if (std::find(f_.inputs.begin(), f_.inputs.end(), r) == f_.inputs.end()) f_.inputs.push_back(r);
          return Value();
        }
        TensorId t = kNone;
        if (!toTensor(v, t, at, "a fusion output")) return std::nullopt;
        if (std::find(f_.outputs.begin(), f_.outputs.end(), t) == f_.outputs.end()) f_.outputs.push_back(t);
        return Value();
      }
      if (name == "zeroVal" || name == "oneVal") {
        Value v;
        v.k = K::Scalar;
        v.scalar = b_.constInt(name == "zeroVal" ? 0 : 1);
        return v;
      }
      if (name == "falseVal" || name == "trueVal") {
        Value v;
        v.k = K::Scalar;
        v.scalar = b_.constBool(name == "trueVal");
        return v;
      }
      if (name == "get" || name == "release") return obj;
      return Value::opaque("fusion->" + name + "()", at);
    }
    case K::Tensor: return tensorMethod(obj, name, args, at);
    case K::Axis: {
      Tensor& tv = f_.tensors[obj.tensor];
      // A logical axis (from getLogicalDomain()) is read, never transformed here.
      const bool logical = obj.s == "logical";
      if (logical && name != "extent" && name != "getMaybeExpandedExtent" && name != "isBroadcast" &&
          name != "isReduction")
        return Value::opaque("a logical IterDomain's " + name + "()", at);
      const auto& loop = logical ? tv.logical : tv.loopDomain();
      if (obj.i < 0 || static_cast<size_t>(obj.i) >= loop.size())
        return error(DiagCode::ImportSyntax, "axis " + std::to_string(obj.i) + " is out of range", at),
               std::nullopt;
      AxisId a = loop[static_cast<size_t>(obj.i)];
      if (name == "parallelize") {
        if (args.size() != 1 || args[0].k != K::Parallel)
          return opaqueUse(args.empty() ? Value() : args[0], at, "the parallel type"), std::nullopt;
        f_.axes[a].parallel = args[0].parallel;
        if (tv.mesh_set_at == kMeshSetAfterDefinition)
          tv.mesh_set_at = static_cast<uint32_t>(f_.exprs.size());
        return Value();
      }
      if (name == "extent" || name == "getMaybeExpandedExtent") {
        Value v;
        v.k = K::Scalar;
        v.scalar = name == "extent" || f_.axes[a].expanded == kNone ? f_.axes[a].extent : f_.axes[a].expanded;
        return v;
      }
      if (name == "isBroadcast") return boolean(f_.axes[a].iter == IterType::Broadcast);
      if (name == "isReduction") return boolean(f_.axes[a].iter == IterType::Reduction);
      return Value::opaque("an IterDomain's " + name + "()", at);
    }
    case K::Builder: {
      auto set = [&](const std::string& key, Value v) {
        for (auto& [n, x] : obj.fields)
          if (n == key) {
            x = std::move(v);
            return;
          }
        obj.fields.push_back(Field{key, std::move(v)});
      };
      if (name == "ndims" || name == "shape" || name == "contiguity" || name == "dtype" ||
          name == "expanded" || name == "strideOrder") {
        if (args.size() != 1)
          return error(DiagCode::ImportSyntax, "TensorViewBuilder::" + name + " takes one value", at),
                 std::nullopt;
        set(name, args[0]);
        return obj;
      }
      if (name != "build") return Value::opaque("TensorViewBuilder::" + name, at);
      std::vector<int64_t> shape;
      if (const Value* s = obj.field("shape")) {
        if (!toInts(*s, shape, at, "the builder's shape")) return std::nullopt;
      } else if (const Value* n = obj.field("ndims")) {
        int64_t r = 0;
        if (!toInt(*n, r, at, "the builder's ndims")) return std::nullopt;
        if (r < 0 || r > 64)
          return error(DiagCode::ImportSyntax, "a rank of " + std::to_string(r), at), std::nullopt;
        shape.assign(static_cast<size_t>(r), -1);
      }
      DType dt = DType::Float;
      if (const Value* d = obj.field("dtype"); d && !toDType(*d, dt, at, "the builder's dtype"))
        return std::nullopt;
      std::vector<int64_t> expanded_flags;
      if (const Value* e = obj.field("expanded");
          e && !toInts(*e, expanded_flags, at, "the builder's expanded flags"))
        return std::nullopt;
      std::vector<AxisId> axes;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t s = shape[i];
        bool expanded = i < expanded_flags.size() && expanded_flags[i];
        if (s < -1) return error(DiagCode::ImportSyntax, "a size of " + std::to_string(s), at), std::nullopt;
        if (expanded)
          axes.push_back(
              b_.axis(IterType::Broadcast, b_.constInt(1), s == -1 ? b_.freshSymbol() : b_.constInt(s)));
        else if (s == 1)
          axes.push_back(b_.axis(IterType::Broadcast, b_.constInt(1)));
        else
          axes.push_back(b_.axis(IterType::Iteration, s == -1 ? b_.freshSymbol() : b_.constInt(s)));
      }
      // strideOrder: logical axis i is allocation axis rank - 1 - order[i], and contiguity is given
      // in allocation order (TensorDomain's constructor, csrc/ir/internal_base_nodes.cpp:1154-1186
      // @ 81c4b22fd).
      std::vector<int64_t> order;
      if (const Value* o = obj.field("strideOrder")) {
        const size_t where = o->tok ? o->tok : at;
        if (!toInts(*o, order, where, "the builder's stride order")) return std::nullopt;
        if (!order.empty() && order.size() != axes.size())
          return error(DiagCode::ImportSyntax,
                       "Invalid size of stride_order vector: " + std::to_string(order.size()) +
                           " entries for rank " + std::to_string(axes.size()),
                       where),
                 std::nullopt;
        std::vector<bool> seen(axes.size(), false);
        for (int64_t r : order) {
          if (r < 0 || static_cast<size_t>(r) >= axes.size() || seen[static_cast<size_t>(r)])
            return error(DiagCode::ImportSyntax,
                         "stride_order is not a valid permutation of 0.." + std::to_string(axes.size() - 1),
                         where),
                   std::nullopt;
          seen[static_cast<size_t>(r)] = true;
        }
      }
      std::vector<AxisId> alloc = axes;
      for (size_t i = 0; i < order.size(); ++i)
        alloc[axes.size() - 1 - static_cast<size_t>(order[i])] = axes[i];
      TensorId t = b_.tensor(dt, axes);
      for (AxisId a : axes) f_.axes[a].owner = t;
      if (alloc != axes) f_.tensors[t].allocation = alloc;
      // Contiguity: true/false for every axis, or one entry per axis (in allocation order).
      std::vector<std::optional<bool>> contig;
      bool any = false;
      if (const Value* c = obj.field("contiguity")) {
        if (c->k == K::Bool || c->k == K::Int) {
          for (AxisId a : alloc)
            contig.push_back(f_.axes[a].iter == IterType::Broadcast ? std::optional<bool>()
                                                                    : std::optional<bool>(c->i != 0));
          any = c->i != 0;
        } else if (c->k == K::List && c->items.size() == axes.size()) {
          for (size_t i = 0; i < axes.size(); ++i) {
            const Value& x = c->items[i];
            if (f_.axes[alloc[i]].iter == IterType::Broadcast || x.k == K::None)
              contig.push_back(std::nullopt);
            else
              contig.push_back(x.i != 0);
            any = any || (x.k != K::None && x.i == 0);
          }
          any = true;
        }
      }
      if (contig.empty() || !any) {  // nvFuser's default: not contiguous
        contig.clear();
        for (AxisId a : alloc)
          contig.push_back(f_.axes[a].iter == IterType::Broadcast ? std::optional<bool>()
                                                                  : std::optional<bool>(false));
      }
      bool all_true = true;
      for (const auto& c : contig) all_true = all_true && (!c || *c);
      if (!all_true) f_.tensors[t].contiguity = contig;
      Value v;
      v.k = K::Tensor;
      v.tensor = t;
      return v;
    }
    case K::Options: {
      if (name == "dtype" && !args.empty() && args[0].k == K::DType) obj.dtype = args[0].dtype;
      return obj;
    }
    case K::Aten: return atenMethod(obj, name, args, at);
    case K::Executor: {
      if (name == "runFusionWithInputs" || name == "runWithInput" || name == "runFusion" || name == "run") {
        if (!args.empty()) recordRun(args[0], at);
        return Value::opaque(obj.s + "::" + name, at);
      }
      if (name == "fusion" || name == "completeFusion") {
        Value v;
        v.k = K::Fusion;
        return v;
      }
      return Value::opaque(obj.s + "::" + name, at);
    }
    case K::List: {
      if (name == "size") return Value::integer(static_cast<int64_t>(obj.items.size()));
      if ((name == "at" || name == "operator[]") && !args.empty() && args[0].k == K::Int && args[0].i >= 0 &&
          static_cast<size_t>(args[0].i) < obj.items.size())
        return obj.items[static_cast<size_t>(args[0].i)];
      if ((name == "push_back" || name == "emplace_back") && args.size() == 1 && !target.empty()) {
        auto it = vars_.find(target);
        if (it != vars_.end() && it->second.k == K::List) it->second.items.push_back(args[0]);
        return Value();
      }
      if (name == "begin" || name == "end") return Value::opaque("an iterator", at);
      return Value::opaque("a list's " + name + "()", at);
    }
    case K::Mesh: {
      if (name == "size") return Value::integer(f_.meshes[obj.mesh].size());
      return Value::opaque("DeviceMesh::" + name, at);
    }
    case K::Opaque: {
      if (obj.s == "communicator_" && name == "size") return Value::integer(numDevices(at));
      if (obj.s == "communicator_" && (name == "deviceId" || name == "local_rank" || name == "rank"))
        return Value::integer(0);
      return Value::opaque(obj.s + "." + name + "()", at);
    }
    default: return Value::opaque(name + "()", at);
  }
}

// Members of a TensorView. Transforms of the loop domain (split, merge, reorder) are kept as
// the fusion's loop domain with its transforms; other scheduling is skipped.
// csrc/multidevice/utils.cpp:221-277 @ 81c4b22fd: the loop domain's parallelized axes, stably sorted
// Stream < DIDz < DIDy < DIDx, move to the front; Serial axes keep their order behind them; any
// other parallel type makes nvFuser throw.
std::optional<Value> Reader::reorderParallelizedToFront(std::vector<Value>& args, size_t at) {
  if (args.size() != 1 || args[0].k != Value::K::Tensor)
    return error(DiagCode::ImportSyntax, "reorderParallelizedToFront(...) takes one tensor", at),
           std::nullopt;
  const Tensor& tv = f_.tensors[args[0].tensor];
  std::vector<std::pair<int, int64_t>> rank_to_axis;
  for (size_t i = 0; i < tv.loopDomain().size(); ++i) {
    const ParallelType pt = f_.axes[tv.loopDomain()[i]].parallel;
    int rank = 0;
    switch (pt) {
      case ParallelType::Serial: continue;
      case ParallelType::Stream: rank = 0; break;
      case ParallelType::DIDz: rank = 1; break;
      case ParallelType::DIDy: rank = 2; break;
      case ParallelType::DIDx: rank = 3; break;
      default:
        return error(DiagCode::ImportSyntax,
                     "reorderParallelizedToFront(...): nvFuser throws on the loop axis parallelized on " +
                         std::string(parallelTypeName(pt)) + " (it expects only Stream and DID axes)",
                     at),
               std::nullopt;
    }
    rank_to_axis.emplace_back(rank, static_cast<int64_t>(i));
  }
  std::stable_sort(rank_to_axis.begin(), rank_to_axis.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Value pairs;
  pairs.k = Value::K::List;
  for (size_t to = 0; to < rank_to_axis.size(); ++to) {
    Value pr;
    pr.k = Value::K::List;
    pr.items = {Value::integer(rank_to_axis[to].second), Value::integer(static_cast<int64_t>(to))};
    pairs.items.push_back(pr);
  }
  if (pairs.items.empty()) return Value();
  std::vector<Value> reorder_args{pairs};
  if (!tensorMethod(args[0], "reorder", reorder_args, at)) return std::nullopt;
  return Value();  // the map from old to new positions: no value of the fusion
}

std::optional<Value> Reader::tensorMethod(Value& obj, const std::string& name, std::vector<Value>& args,
                                          size_t at) {
  using K = Value::K;
  const TensorId t = obj.tensor;
  Tensor& tv = f_.tensors[t];
  auto loopIndex = [&](const Value& v, int64_t& out, size_t extra) {
    int64_t i = 0;
    if (!toInt(v, i, at, "an axis of " + std::string(f_.tensorName(t)))) return false;
    int64_t n = static_cast<int64_t>(tv.loopDomain().size() + extra);
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      return error(DiagCode::ImportSyntax,
                   "axis " + std::to_string(i) + " is out of range for " + std::string(f_.tensorName(t)) +
                       "'s loop domain",
                   at);
    out = i;
    return true;
  };
  if (name == "axis") {
    int64_t i = 0;
    if (args.size() != 1)
      return error(DiagCode::ImportSyntax,
                   std::string(f_.tensorName(t)) + "->axis(...) takes one axis index, got " +
                       std::to_string(args.size()),
                   at),
             std::nullopt;
    if (!loopIndex(args[0], i, 0)) return std::nullopt;
    Value v;
    v.k = K::Axis;
    v.tensor = t;
    v.i = i;
    return v;
  }
  if (name == "nDims") return Value::integer(static_cast<int64_t>(tv.loopDomain().size()));
  if (name == "dtype" || name == "getDataType") {
    Value v;
    v.k = K::DType;
    v.dtype = tv.dtype;
    return v;
  }
  if (name == "setDeviceMesh") {
    if (args.size() != 1)
      return error(DiagCode::ImportSyntax, "setDeviceMesh takes a mesh", at), std::nullopt;
    auto m = meshOf(args[0], at);
    if (!m) return std::nullopt;
    f_.tensors[t].mesh = m->mesh;
    if (f_.tensors[t].mesh_set_at == kMeshSetAfterDefinition)
      f_.tensors[t].mesh_set_at = static_cast<uint32_t>(f_.exprs.size());
    return Value();
  }
  if (name == "split" || name == "outer_split" || name == "inner_split") {
    int64_t i = 0;
    if (args.size() < 2 || !loopIndex(args[0], i, 0))
      return args.size() < 2
                 ? (error(DiagCode::ImportSyntax, name + " takes an axis and a factor", at), std::nullopt)
                 : std::nullopt;
    ScalarId fac = kNone;
    if (!toScalar(args[1], fac, at, "the factor of " + name)) return std::nullopt;
    bool inner = name != "outer_split";
    if (name == "split" && args.size() > 2) {
      int64_t b = 1;
      if (!toInt(args[2], b, at, "inner_split")) return std::nullopt;
      inner = b != 0;
    }
    b_.splitLoop(t, static_cast<size_t>(i), fac, inner);
    return obj;
  }
  if (name == "merge") {
    int64_t a = 0, b = 0;
    if (args.empty())
      return error(DiagCode::ImportSyntax, "merge(...) takes the axis to merge", at), std::nullopt;
    if (!loopIndex(args[0], a, 0)) return std::nullopt;
    b = a + 1;
    if (args.size() > 1 && !loopIndex(args[1], b, 0)) return std::nullopt;
    if (b >= static_cast<int64_t>(tv.loopDomain().size()) || a == b)
      return error(DiagCode::ImportSyntax, "merge: the axes are out of range", at), std::nullopt;
    b_.mergeLoop(t, static_cast<size_t>(a), static_cast<size_t>(b));
    return obj;
  }
  if (name == "reorder") {
    // reorder({{from, to}, ...}) or reorder({new order}) on the loop domain.
    if (args.size() != 1 || args[0].k != K::List)
      return error(DiagCode::ImportSyntax, "reorder takes a list", at), std::nullopt;
    const auto& items = args[0].items;
    std::vector<std::pair<int64_t, int64_t>> old2new;
    if (!items.empty() && items[0].k == K::List) {
      for (const Value& pr : items) {
        std::vector<int64_t> v;
        if (!toInts(pr, v, at, "a reorder pair")) return std::nullopt;
        if (v.size() != 2)
          return error(DiagCode::ImportSyntax, "a reorder pair is {from, to}", at), std::nullopt;
        old2new.emplace_back(v[0], v[1]);
      }
    } else {
      std::vector<int64_t> order;
      if (!toInts(args[0], order, at, "the order of reorder")) return std::nullopt;
      if (order.size() != tv.loopDomain().size())
        return error(DiagCode::ImportSyntax,
                     "reorder: the order names " + std::to_string(order.size()) + " axes", at),
               std::nullopt;
      for (size_t j = 0; j < order.size(); ++j) old2new.emplace_back(order[j], static_cast<int64_t>(j));
    }
    std::string why;
    if (!b_.reorderLoop(t, old2new, why)) return error(DiagCode::ImportSyntax, why, at), std::nullopt;
    return obj;
  }
  if (name == "setAllocationDomain") {
    skippedStatement(at, "the allocation domain is not modelled here");
    return Value();
  }
  // tv->getLogicalDomain(): its axes, each read for its extent or IterType
  // (`tv->getLogicalDomain().at(0)->extent()`).
  if (name == "getLogicalDomain" && args.empty()) {
    Value list;
    list.k = Value::K::List;
    for (size_t i = 0; i < tv.logical.size(); ++i) {
      Value a;
      a.k = Value::K::Axis;
      a.tensor = t;
      a.i = static_cast<int64_t>(i);
      a.s = "logical";
      list.items.push_back(a);
    }
    return list;
  }
  if (name == "getLoopDomain" || name == "getLogicalDomain" || name == "getRootDomain" ||
      name == "getMaybeRootDomain" || name == "getAllocationDomain" || name == "domain")
    return Value::opaque(std::string(f_.tensorName(t)) + "->" + name + "()", at);
  return Value::opaque("TensorView::" + name, at);
}

// Members of an at::Tensor used to build inputs.
std::optional<Value> Reader::atenMethod(Value& obj, const std::string& name, std::vector<Value>& args,
                                        size_t at) {
  using K = Value::K;
  if (name == "cuda" || name == "to" || name == "contiguous" || name == "clone" || name == "cpu" ||
      name == "detach" || name == "requires_grad_" || name == "set_requires_grad") {
    for (const Value& a : args)
      if (a.k == K::DType || a.k == K::Options) obj.dtype = a.dtype;
    return obj;
  }
  if (name == "view" || name == "reshape") {
    std::vector<int64_t> shape;
    if (args.size() == 1 && args[0].k == K::List) {
      if (!toInts(args[0], shape, at, "the sizes of a view")) return std::nullopt;
    } else {
      for (const Value& a : args) {
        int64_t s = 0;
        if (!toInt(a, s, at, "a size of a view")) return std::nullopt;
        shape.push_back(s);
      }
    }
    int64_t numel = std::accumulate(obj.shape.begin(), obj.shape.end(), int64_t{1}, std::multiplies<>());
    int64_t known = 1;
    int minus = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1)
        minus = static_cast<int>(i);
      else
        known *= shape[i];
    }
    if (minus >= 0 && known > 0) shape[static_cast<size_t>(minus)] = numel / known;
    obj.shape = shape;
    obj.strides.clear();
    return obj;
  }
  if (name == "sizes" || name == "shape") {
    Value l;
    l.k = K::List;
    for (int64_t s : obj.shape) l.items.push_back(Value::integer(s));
    return l;
  }
  if (name == "size" && args.size() == 1 && args[0].k == K::Int) {
    int64_t i = args[0].i < 0 ? args[0].i + static_cast<int64_t>(obj.shape.size()) : args[0].i;
    if (i >= 0 && static_cast<size_t>(i) < obj.shape.size())
      return Value::integer(obj.shape[static_cast<size_t>(i)]);
  }
  if (name == "dim" || name == "ndimension") return Value::integer(static_cast<int64_t>(obj.shape.size()));
  if ((name == "t" || name == "transpose") && obj.shape.size() >= 2) {
    size_t a = obj.shape.size() - 2, b = obj.shape.size() - 1;
    if (name == "transpose" && args.size() == 2 && args[0].k == K::Int && args[1].k == K::Int) {
      int64_t x = args[0].i < 0 ? args[0].i + static_cast<int64_t>(obj.shape.size()) : args[0].i;
      int64_t y = args[1].i < 0 ? args[1].i + static_cast<int64_t>(obj.shape.size()) : args[1].i;
      if (x < 0 || y < 0 || static_cast<size_t>(x) >= obj.shape.size() ||
          static_cast<size_t>(y) >= obj.shape.size())
        return Value::opaque("a transposed at::Tensor", at);
      a = static_cast<size_t>(x);
      b = static_cast<size_t>(y);
    }
    std::vector<int64_t> strides = obj.strides;
    if (strides.empty()) {
      strides.assign(obj.shape.size(), 1);
      for (size_t i = obj.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * obj.shape[i];
    }
    std::swap(obj.shape[a], obj.shape[b]);
    std::swap(strides[a], strides[b]);
    obj.strides = strides;
    return obj;
  }
  if (name == "as_strided" && args.size() >= 2) {
    std::vector<int64_t> sizes, strides;
    if (!toInts(args[0], sizes, at, "the sizes of as_strided") ||
        !toInts(args[1], strides, at, "the strides of as_strided"))
      return std::nullopt;
    if (sizes.size() != strides.size())
      return Value::opaque("an at::Tensor::as_strided of mismatched lists", at);
    obj.shape = std::move(sizes);
    obj.strides = std::move(strides);
    return obj;
  }
  return Value::opaque("at::Tensor::" + name, at);
}

}  // namespace fc::cpp_text
