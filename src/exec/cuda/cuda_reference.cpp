// The exact reference on the GPU (see cuda_reference.h).
#include "exec/cuda/cuda_reference.h"

#include "exec/cuda/cuda_executor.h"
#include "exec/sharding.h"

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

DeviceReference::DeviceReference(const Fusion& f, const RunInputs& in, MemoryBudget* budget)
    : state_(std::make_unique<State>(f, in, budget)) {
  const Fusion& g = state_->g;
  CudaProgram& prog = state_->prog;
  // The generated global tensors go to the device as they are (their
  // values are exact in Double): no host copy of the inputs.
  for (size_t p = 0; p < in.values.size(); ++p) {
    if (!g.inputs[p].isTensor()) continue;
    const HostTensor& h = in.values[p].global;
    DType as = isFloatingPoint(h.dtype()) ? DType::Double : h.dtype();
    prog.setTensor(g.inputs[p].id, 0, DeviceTensor::upload(h, budget, as));
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
