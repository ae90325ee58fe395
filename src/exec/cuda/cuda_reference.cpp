// The exact reference on the GPU (see cuda_reference.h).
#include "exec/cuda/cuda_reference.h"

#include <memory>
#include <set>
#include <vector>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/kernels.h"
#include "exec/sharding.h"
#include "support/internal_error.h"

namespace fc::exec::cuda {
namespace {

// f on one device in fp64: floating tensors Double, axes Serial, no mesh.
Fusion globalDoubleFusion(const Fusion& f) {
  Fusion g = f;
  for (Tensor& t : g.tensors) {
    if (isFloatingPoint(t.dtype)) t.dtype = DType::Double;
    t.mesh = kNone;
  }
  for (Axis& a : g.axes) a.parallel = ParallelType::Serial;
  g.meshes.clear();
  return g;
}

// All exprs the outputs need as one compute segment.
SegmentedFusion oneSegment(const Fusion& g) {
  SegmentedFusion sf;
  sf.fusion = &g;
  Segment s;
  s.id = 0;
  s.kind = SegmentKind::Compute;
  s.exprs = neededExprs(g);
  s.inputs = g.inputs;
  s.outputs = g.outputs;
  s.scheduler = "reference";
  s.reason = "the exact reference: the whole fusion in fp64";
  sf.producer_of.assign(g.tensors.size(), kNone);
  for (ExprId e : s.exprs)
    for (TensorId t : g.exprs[e].outputs) sf.producer_of[t] = 0;
  sf.segments.push_back(std::move(s));
  return sf;
}

// The global tensor of an input held as shards, assembled on the device in
// `as`: each distinct shard (`shardAt(pos)`, on the device in its own dtype)
// converted into its block by one view copy (kernels.h launchCopyView);
// beyond the view kernels' rank, through the host one shard at a time.
// O(numel).
template <typename ShardAt>
DeviceTensor assembleOnDevice(const InputValue& iv, DType as, MemoryBudget* budget, ShardAt shardAt) {
  const ShardLayout& l = iv.layout;
  const Mesh* mesh = l.mesh ? &*l.mesh : nullptr;
  DeviceTensor g(as, l.global, budget);
  Shape local = localShape(l.global, l.dims, "an input");
  const int rank = static_cast<int>(local.size());
  std::vector<int64_t> src_st = contiguousStrides(local), dst_st = contiguousStrides(l.global);
  std::set<std::vector<int64_t>> placed;  // replicas share a block
  for (size_t pos = 0; pos < l.ranks.size(); ++pos) {
    std::vector<int64_t> off = shardOffsets(local, l.dims, mesh, static_cast<int64_t>(pos));
    if (!placed.insert(off).second) continue;
    std::shared_ptr<const DeviceTensor> d = shardAt(l.ranks[pos]);
    FC_CHECK(d && d->shape() == local, "a shard of an input is missing");
    if (rank > kMaxRank) {
      g.copyBlockFrom(DeviceTensor::upload(d->download(budget), budget, as), off);
      continue;
    }
    int64_t at = 0;
    for (int k = 0; k < rank; ++k) at += off[static_cast<size_t>(k)] * dst_st[static_cast<size_t>(k)];
    launchCopyView(d->data(), d->dtype(), 0, src_st.data(), g.data(), as, at, dst_st.data(), local.data(),
                   rank);
  }
  return g;
}

// Binds g's symbols from the inputs' global shapes, then oneSegment(g).
SegmentedFusion boundSegment(const Fusion& g, const RunInputs& in, ScalarValues& sv) {
  bindGlobalShapes(g, in, sv);
  return oneSegment(g);
}

}  // namespace

// What the reference's program refers to, kept together for its lifetime.
struct DeviceReference::State {
  State(const Fusion& f, const RunInputs& in, MemoryBudget* budget)
      : g(globalDoubleFusion(f)), world(g), sv(g), sf(boundSegment(g, in, sv)), prog(sf, world, sv, budget) {}
  Fusion g;
  World world;  // one device
  ScalarValues sv;
  SegmentedFusion sf;
  CudaProgram prog;
};

DeviceReference::DeviceReference(const Fusion& f, const RunInputs& in, MemoryBudget* budget,
                                 const DeviceInputs* device_inputs)
    : state_(std::make_unique<State>(f, in, budget)) {
  const Fusion& g = state_->g;
  CudaProgram& prog = state_->prog;
  // The inputs go to the device as they are (their values are exact in
  // Double): a held global tensor whole, else its shards, assembled there.
  for (size_t p = 0; p < in.values.size(); ++p) {
    if (!g.inputs[p].isTensor()) continue;
    const InputValue& iv = in.values[p];
    DType as = isFloatingPoint(iv.dtype) ? DType::Double : iv.dtype;
    if (!iv.shards_only) {
      prog.setTensor(g.inputs[p].id, 0, DeviceTensor::upload(iv.global, budget, as));
    } else if (iv.shards_in_sink) {
      FC_CHECK(device_inputs != nullptr, "inputs held on the device without their buffers");
      prog.setTensor(g.inputs[p].id, 0, assembleOnDevice(iv, as, budget, [&](int64_t r) {
                       return std::shared_ptr<const DeviceTensor>(device_inputs->shard(p, r));
                     }));
    } else {
      prog.setTensor(g.inputs[p].id, 0, assembleOnDevice(iv, as, budget, [&](int64_t r) {
                       std::shared_ptr<const DeviceTensor> d;
                       if (r >= 0 && r < static_cast<int64_t>(iv.local.size()) && iv.local[r])
                         d = std::make_shared<const DeviceTensor>(DeviceTensor::upload(*iv.local[r], budget));
                       return d;
                     }));
    }
  }
  prog.run(std::nullopt, nullptr);

  // Global shapes for the path metadata: the materialized device tensor's,
  // else the axes' evaluated extents.
  std::vector<std::optional<Shape>> shapes(f.tensors.size());
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    if (const DeviceTensor* d = prog.tensor(t, 0)) {
      shapes[t] = d->shape();
      continue;
    }
    Shape sh;
    bool ok = true;
    for (AxisId a : materializedAxes(g, t)) {
      std::optional<int64_t> n = state_->sv.axisSize(a);
      if (!n) {
        ok = false;
        break;
      }
      sh.push_back(*n);
    }
    if (ok) shapes[t] = std::move(sh);
  }
  meta_.values.resize(f.tensors.size());
  computePaths(
      f, [&](TensorId t) { return shapes[t] ? &*shapes[t] : nullptr; }, meta_);
}

DeviceReference::~DeviceReference() = default;

const DeviceTensor* DeviceReference::value(TensorId t) const {
  for (TensorId o : state_->g.outputs)
    if (o == t) return state_->prog.tensor(t, 0);
  return nullptr;
}

ReferenceResult runExactReferenceCuda(const Fusion& f, const RunInputs& in, MemoryBudget* budget) {
  DeviceReference dr(f, in, budget);
  ReferenceResult r = dr.paths();
  for (TensorId t : f.outputs)
    if (const DeviceTensor* d = dr.value(t)) r.values[t] = d->download(budget);
  return r;
}

}  // namespace fc::exec::cuda
