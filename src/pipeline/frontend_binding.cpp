#include "pipeline/frontend_binding.h"

#include <vector>

#include "analysis/axis_map.h"
#include "support/step_counters.h"

namespace fc {

bool preScheduleBinding(const Fusion& f, const std::string& file, DiagnosticSink& sink) {
  bool failed = false;
  // The sizes the repro gives each tensor (the last entry when it names one twice); one pass, so
  // that the walk over the inputs stays linear.
  std::vector<const ConcreteInput*> given_for(f.tensors.size(), nullptr);
  for (const ConcreteInput& c : f.concrete_inputs)
    if (c.value.isTensor() && c.value.id < given_for.size()) given_for[c.value.id] = &c;
  steps::counters.binding_steps += f.concrete_inputs.size();
  for (const ValueRef& in : f.inputs) {
    if (!in.isTensor()) continue;
    const TensorId t = in.id;
    const Tensor& tv = f.tensors[t];
    if (tv.mesh == kNone) continue;
    const ConcreteInput* given = given_for[t];
    const Mesh& mesh = f.meshes[tv.mesh];
    size_t k = 0;  // index into the given sizes (non-Reduction axes)
    steps::counters.binding_steps += tv.logical.size();
    for (size_t pos = 0; pos < tv.logical.size(); ++pos) {
      const Axis& ax = f.axes[tv.logical[pos]];
      if (ax.iter == IterType::Reduction) continue;
      const size_t idx = k++;
      const bool logical_did = isDeviceDim(ax.parallel);
      const ParallelType pt = logical_did ? ax.parallel : shardingOf(f, t, pos);
      const Scalar& sc = f.scalars[ax.extent];
      const int64_t devices = mesh.sizeFor(pt);
      if (!isDeviceDim(pt) || sc.kind != ScalarKind::Constant || sc.value.kind != ConstValue::Kind::Int ||
          devices <= 1)
        continue;
      // A rank holds a size-1 slice of a logical DID axis and the global size
      // over the mesh of a DID loop split, unless the repro gives its sizes.
      int64_t local = logical_did ? 1 : sc.value.i / devices;
      if (given && idx < given->shape.size()) local = given->shape[idx];
      if (local == sc.value.i) continue;
      auto& d = sink.error(DiagCode::BadBinding,
                           "input " + std::string(f.tensorName(t)) + " axis " + std::to_string(pos) +
                               " has local size " + std::to_string(local) +
                               " but its extent is the constant " + std::to_string(sc.value.i),
                           Location::at(file, Place::tensor(t).at(PlaceField::Logical, pos)));
      d.note(
          "the legacy Python frontend binds the whole fusion with each rank's local inputs before schedule() "
          "sets the meshes and DID axes");
      d.check = CheckRef{"BindConstant",
                         {{"constant", std::to_string(sc.value.i)}, {"value", std::to_string(local)}}};
      failed = true;
    }
  }
  return failed;
}

}  // namespace fc
