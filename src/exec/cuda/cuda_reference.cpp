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

}  // namespace

ReferenceResult runExactReferenceCuda(const Fusion& f, const RunInputs& in, MemoryBudget* budget) {
  Fusion g = globalDoubleFusion(f);
  World world(g);  // one device
  // The generated global tensors go to the device as they are (their
  // values are exact in Double): no host copy of the inputs.
  ScalarValues sv(g);
  bindGlobalShapes(g, in, sv);
  SegmentedFusion sf = oneSegment(g);
  CudaProgram prog(sf, world, sv, budget);
  for (size_t p = 0; p < in.values.size(); ++p) {
    if (!g.inputs[p].isTensor()) continue;
    const HostTensor& h = in.values[p].global;
    DType as = isFloatingPoint(h.dtype()) ? DType::Double : h.dtype();
    prog.setTensor(g.inputs[p].id, 0, DeviceTensor::upload(h, budget, as));
  }
  prog.run(std::nullopt, nullptr);

  ReferenceResult r;
  r.values.resize(f.tensors.size());
  for (TensorId t : g.outputs)
    if (const DeviceTensor* d = prog.tensor(t, 0)) r.values[t] = d->download(budget);
  // Global shapes for the path metadata: the materialized device tensor's,
  // else the axes' evaluated extents.
  std::vector<std::optional<Shape>> shapes(f.tensors.size());
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    if (const DeviceTensor* d = prog.tensor(t, 0)) {
      shapes[t] = d->shape();
      continue;
    }
    Shape s;
    bool ok = true;
    for (AxisId a : materializedAxes(g, t)) {
      std::optional<int64_t> n = sv.axisSize(a);
      if (!n) {
        ok = false;
        break;
      }
      s.push_back(*n);
    }
    if (ok) shapes[t] = std::move(s);
  }
  computePaths(
      f, [&](TensorId t) { return shapes[t] ? &*shapes[t] : nullptr; }, r);
  return r;
}

}  // namespace fc::exec::cuda
