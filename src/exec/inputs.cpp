// Input generation and binding (see inputs.h).
#include "exec/inputs.h"

#include <algorithm>
#include <cmath>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/rng.h"
#include "support/checked.h"
#include "support/internal_error.h"

namespace fc::exec {
namespace {

Place inputPlace(size_t p) { return Place::input(p); }

const ConcreteInput* concreteFor(const Fusion& f, ValueRef v, size_t* index) {
  for (size_t i = 0; i < f.concrete_inputs.size(); ++i)
    if (f.concrete_inputs[i].value == v) {
      *index = i;
      return &f.concrete_inputs[i];
    }
  return nullptr;
}

// The local shape of an input without a concrete description.
Shape defaultLocalShape(const Fusion& f, TensorId t, const std::vector<ShardDim>& shards, ScalarValues& sv,
                        int64_t default_extent) {
  std::vector<AxisId> axes = materializedAxes(f, t);
  Shape local(axes.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    const Axis& ax = f.axes[axes[k]];
    int64_t parts = 1;
    for (const ShardDim& sd : shards)
      if (sd.dim == static_cast<int64_t>(k)) parts = sd.parts;
    if (ax.iter == IterType::Broadcast && ax.expanded == kNone) {
      local[k] = 1;
      continue;
    }
    auto v = sv.axisSize(axes[k]);
    if (v) {
      if (*v < 0 || *v % parts != 0)
        fail(std::string(f.tensorName(t)) + " axis " + std::to_string(k) + " has extent " +
                 std::to_string(*v) + ", not a multiple of its mesh size " + std::to_string(parts),
             Place::tensor(t), DiagCode::BadConcreteInput);
      local[k] = *v / parts;
    } else {
      local[k] = parts > 1 ? 1 : default_extent;
    }
  }
  return local;
}

// Linear index of the shard held by the `pos`-th device of the tensor's mesh.
uint32_t shardIndex(const Mesh* mesh, const std::vector<ShardDim>& shards, int64_t pos) {
  uint64_t c = 0;
  for (const ShardDim& sd : shards) c = c * sd.parts + (mesh ? meshCoordinate(*mesh, pos, sd.pt) : 0);
  return static_cast<uint32_t>(c);
}

// One generated value: the generator's default for `dt`, else uniform in
// the repro's [low, high) (integers: floor), else its fill value.
double generatedValue(SplitMix64& rng, DType dt, const ConcreteInput* ci) {
  if (ci && ci->fill) return roundTo(dt, *ci->fill);
  if (!ci || !ci->range) return rng.value(dt);
  double lo = ci->range->first, hi = ci->range->second;
  double x = lo + (hi - lo) * rng.uniform01();
  if (!isFloatingPoint(dt)) return roundTo(dt, std::min(std::floor(x), std::ceil(hi) - 1));
  double v = roundTo(dt, x);
  return v >= hi ? roundTo(dt, lo) : v;  // rounding up to `high` leaves the range
}

HostTensor generateShard(DType dt, const Shape& shape, const std::vector<int64_t>& strides, uint64_t seed,
                         uint32_t p, uint32_t c, MemoryBudget* budget, const Place& where,
                         const ConcreteInput* ci) {
  HostTensor out(dt, shape, budget);
  if (out.numel() == 0) return out;
  int64_t span = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] < 0) fail("negative strides are not supported", where, DiagCode::BadConcreteInput);
    auto m = checkedMul(shape[d] - 1, strides[d]);
    auto a = m ? checkedAdd(span, *m) : std::nullopt;
    if (!a) fail("the storage span overflows", where, DiagCode::BadConcreteInput);
    span = *a;
  }
  SplitMix64 rng = SplitMix64::forInput(seed, p, c);
  if (strides == contiguousStrides(shape)) {  // the storage is the tensor: no second copy
    for (int64_t i = 0; i < out.numel(); ++i) out[i] = generatedValue(rng, dt, ci);
    return out;
  }
  HostTensor storage(dt, {span}, budget);
  for (int64_t i = 0; i < span; ++i) storage[i] = generatedValue(rng, dt, ci);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); ++d) o += idx[d] * strides[d];
    out[i] = storage[o];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

void bindTensorShape(const Fusion& f, TensorId t, const Shape& global, ScalarValues& sv, const Place& where,
                     DiagCode code) {
  std::vector<AxisId> axes = materializedAxes(f, t);
  if (axes.size() != global.size())
    fail(std::string(f.tensorName(t)) + " has " + std::to_string(axes.size()) +
             " non-Reduction axes but its data has rank " + std::to_string(global.size()),
         where, code);
  for (size_t k = 0; k < axes.size(); ++k) {
    const Axis& ax = f.axes[axes[k]];
    ScalarId s = ax.expanded != kNone ? ax.expanded : ax.extent;
    if (ax.iter == IterType::Broadcast && ax.expanded == kNone) {
      if (global[k] != 1)
        fail(std::string(f.tensorName(t)) + " axis " + std::to_string(k) +
                 " is a Broadcast axis but the data has size " + std::to_string(global[k]),
             where, code);
      continue;
    }
    const Scalar& sc = f.scalars[s];
    if ((sc.kind == ScalarKind::Symbol || sc.kind == ScalarKind::Input) && !sv.isBound(s)) {
      sv.bind(s, ScalarValue::ofInt(global[k]));
      continue;
    }
    std::string why;
    auto v = sv.evalInt(s, &why);
    if (!v) continue;  // derived from symbols bound later; checked by the ops that use it
    if (*v != global[k])
      fail(std::string(f.tensorName(t)) + " axis " + std::to_string(k) + ": extent " + scalarLabel(f, s) +
               " = " + std::to_string(*v) + " but the data has global size " + std::to_string(global[k]),
           where, code);
  }
}

void generateScalarInputs(const Fusion& f, ScalarValues& sv, uint64_t seed, int64_t default_extent,
                          RunInputs& in, const std::vector<bool>* provided) {
  in.values.resize(f.inputs.size());
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    ValueRef v = f.inputs[p];
    if (!v.isScalar()) continue;
    InputValue& iv = in.values[p];
    iv.is_tensor = false;
    iv.dtype = f.scalars[v.id].dtype;
    if (provided && (*provided)[p]) continue;
    size_t ci_index = 0;
    const ConcreteInput* ci = concreteFor(f, v, &ci_index);
    if (sv.isBound(v.id)) {  // --bind names this scalar input
      iv.scalar = *sv.eval(v.id);
      if (ci && ci->scalar && ci->scalar->kind != ConstValue::Kind::Float && ci->scalar->i != iv.scalar.i)
        fail("scalar input " + scalarLabel(f, v.id) + " is " + std::to_string(ci->scalar->i) +
                 " in concrete_inputs but --bind gives " + std::to_string(iv.scalar.i),
             Place::concreteInput(ci_index), DiagCode::BadConcreteInput);
      continue;
    }
    if (ci && ci->scalar) {
      iv.scalar = ci->scalar->kind == ConstValue::Kind::Float ? ScalarValue::ofFloat(ci->scalar->f)
                                                              : ScalarValue::ofInt(ci->scalar->i);
    } else if (isFloatingPoint(iv.dtype)) {
      iv.scalar =
          ScalarValue::ofFloat(SplitMix64::forInput(seed, static_cast<uint32_t>(p), 0).value(iv.dtype));
    } else if (iv.dtype == DType::Bool) {
      iv.scalar = ScalarValue::ofInt(1);
    } else {
      iv.scalar = ScalarValue::ofInt(default_extent);
    }
    if (!sv.bind(v.id, iv.scalar))
      fail("scalar input " + scalarLabel(f, v.id) + " is bound twice to different values", inputPlace(p),
           DiagCode::BadConcreteInput);
  }
}

RunInputs generateInputs(const Fusion& f, const World& world, ScalarValues& sv, uint64_t seed,
                         int64_t default_extent, MemoryBudget* budget, HeldInputs held,
                         const ShardSink* sink) {
  FC_CHECK(held != HeldInputs::None || sink, "inputs held nowhere");
  RunInputs in;
  // Scalar inputs first (they may size tensors), then tensors in order.
  generateScalarInputs(f, sv, seed, default_extent, in, nullptr);
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    ValueRef v = f.inputs[p];
    if (!v.isTensor()) continue;
    TensorId t = v.id;
    InputValue& iv = in.values[p];
    iv.dtype = f.tensors[t].dtype;
    std::vector<ShardDim> shards = shardDims(f, t);
    const Mesh* mesh = meshOf(f, t);
    size_t ci_index = 0;
    const ConcreteInput* ci = concreteFor(f, v, &ci_index);
    Place where = ci ? Place::concreteInput(ci_index) : inputPlace(p);
    Shape local = ci ? ci->shape : defaultLocalShape(f, t, shards, sv, default_extent);
    std::vector<int64_t> strides = (ci && !ci->strides.empty()) ? ci->strides : contiguousStrides(local);
    if (strides.size() != local.size())
      fail("strides and shape differ in length", where, DiagCode::BadConcreteInput);
    for (int64_t s : local)
      if (s < 0) fail("negative size " + std::to_string(s), where, DiagCode::BadConcreteInput);
    Shape global = local;
    for (const ShardDim& sd : shards) {
      if (sd.dim >= static_cast<int64_t>(global.size()))
        fail("shape rank does not fit the tensor", where, DiagCode::BadConcreteInput);
      auto m = checkedMul(global[sd.dim], sd.parts);
      if (!m) fail("global size overflows", where, DiagCode::BadConcreteInput);
      global[sd.dim] = *m;
    }
    bindTensorShape(f, t, global, sv, where, DiagCode::BadConcreteInput);
    // One generated shard per distinct shard index, held by every rank of
    // that index (replicas: copies of it).
    std::vector<int64_t> ranks = world.ranksOf(t);
    iv.local.resize(world.size());
    std::vector<std::vector<int64_t>> holders;  // per shard index: its world ranks
    for (size_t pos = 0; pos < ranks.size(); ++pos) {
      FC_CHECK(ranks[pos] >= 0, "a mesh device outside the run's world");
      uint32_t c = shardIndex(mesh, shards, static_cast<int64_t>(pos));
      if (c >= holders.size()) holders.resize(c + 1);
      if (std::find(holders[c].begin(), holders[c].end(), ranks[pos]) == holders[c].end())
        holders[c].push_back(ranks[pos]);
    }
    for (uint32_t c = 0; c < holders.size(); ++c) {
      if (holders[c].empty()) continue;
      HostTensor shard =
          generateShard(iv.dtype, local, strides, seed, static_cast<uint32_t>(p), c, budget, where, ci);
      if (held == HeldInputs::None) {
        (*sink)(p, holders[c], std::move(shard));
        continue;
      }
      for (size_t k = 1; k < holders[c].size(); ++k) iv.local[holders[c][k]] = shard;
      iv.local[holders[c][0]] = std::move(shard);
    }
    iv.layout.global = global;
    iv.layout.dims = shards;
    if (mesh) iv.layout.mesh = *mesh;
    iv.layout.ranks = ranks;
    if (held != HeldInputs::ShardsAndGlobal) {
      iv.shards_only = true;
      iv.shards_in_sink = held == HeldInputs::None;
      continue;
    }
    std::vector<const HostTensor*> by_pos;
    for (size_t pos = 0; pos < ranks.size(); ++pos) by_pos.push_back(&*iv.local[ranks[pos]]);
    iv.global = assemble(by_pos, shards, mesh, budget, nullptr);
  }
  return in;
}

const Shape& globalShape(const InputValue& v) { return v.shards_only ? v.layout.global : v.global.shape(); }

HostTensor assembleGlobal(const InputValue& v, MemoryBudget* budget) {
  if (!v.shards_only) {
    HostTensor c(v.global.dtype(), v.global.shape(), budget);
    std::copy(v.global.data(), v.global.data() + v.global.numel(), c.data());
    return c;
  }
  std::vector<const HostTensor*> by_pos;
  for (int64_t r : v.layout.ranks) {
    FC_CHECK(r >= 0 && r < static_cast<int64_t>(v.local.size()) && v.local[r],
             "a shard of an input is missing");
    by_pos.push_back(&*v.local[r]);
  }
  return assemble(by_pos, v.layout.dims, v.layout.mesh ? &*v.layout.mesh : nullptr, budget, nullptr);
}

namespace {

// Checks `in` against the fusion's inputs (count, tensor or scalar), binds
// the scalar inputs and hands each tensor input to `tensor(p, t, value)`;
// `others` names where `in` came from in the messages.
template <typename F>
void bindEachInput(const Fusion& f, const RunInputs& in, ScalarValues& sv, const char* others, F tensor) {
  if (in.values.size() != f.inputs.size())
    fail("the fusion has " + std::to_string(f.inputs.size()) + " inputs, " + others + " " +
             std::to_string(in.values.size()),
         Place::member(PlaceField::Inputs), DiagCode::AgainstMismatch);
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    ValueRef v = f.inputs[p];
    const InputValue& iv = in.values[p];
    if (v.isTensor() != iv.is_tensor)
      fail("input " + std::to_string(p) + " is a tensor in one fusion and a scalar in the other",
           inputPlace(p), DiagCode::AgainstMismatch);
    if (!v.isTensor()) {
      if (!sv.bind(v.id, iv.scalar))
        fail("scalar input " + scalarLabel(f, v.id) + " is bound twice", inputPlace(p),
             DiagCode::AgainstMismatch);
      continue;
    }
    tensor(p, v.id, iv);
  }
}

}  // namespace

void bindInputs(const Fusion& f, const World& world, const RunInputs& in, ScalarValues& sv) {
  bindEachInput(f, in, sv, "the reference fusion", [&](size_t p, TensorId t, const InputValue& iv) {
    if (f.tensors[t].dtype != iv.dtype)
      fail("input " + std::string(f.tensorName(t)) + " is " + std::string(dtypeName(f.tensors[t].dtype)) +
               " but the reference fusion's input " + std::to_string(p) + " is " +
               std::string(dtypeName(iv.dtype)),
           inputPlace(p), DiagCode::AgainstMismatch);
    bindTensorShape(f, t, globalShape(iv), sv, inputPlace(p), DiagCode::AgainstMismatch);
    std::vector<ShardDim> shards = shardDims(f, t);
    Shape local = localShape(globalShape(iv), shards, std::string(f.tensorName(t)));
    // Shards given to a sink: the layout they were made with says where they are.
    const bool sink_local_fits = iv.shards_in_sink && localShape(iv.layout.global, iv.layout.dims,
                                                                 std::string(f.tensorName(t))) == local;
    auto held = [&](int64_t r) {
      if (!iv.shards_in_sink) return iv.local[r] && iv.local[r]->shape() == local;
      return sink_local_fits &&
             std::find(iv.layout.ranks.begin(), iv.layout.ranks.end(), r) != iv.layout.ranks.end();
    };
    for (int64_t r : world.ranksOf(t)) {
      if (r < 0 || r >= static_cast<int64_t>(iv.local.size()) || !held(r))
        fail("input " + std::string(f.tensorName(t)) +
                 " is laid out over the ranks differently from the reference "
                 "fusion's input " +
                 std::to_string(p),
             inputPlace(p), DiagCode::AgainstMismatch);
    }
  });
}

void bindGlobalShapes(const Fusion& f, const RunInputs& in, ScalarValues& sv) {
  bindEachInput(f, in, sv, "the inputs", [&](size_t p, TensorId t, const InputValue& iv) {
    bindTensorShape(f, t, globalShape(iv), sv, inputPlace(p), DiagCode::AgainstMismatch);
  });
}

}  // namespace fc::exec
