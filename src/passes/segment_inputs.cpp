#include "passes/segment_inputs.h"

namespace fc {

std::vector<AxisId> segmentInputDomain(const Fusion& f, TensorId t, InputRewrite rw) {
  std::vector<AxisId> out;
  for (AxisId a : f.tensors[t].logical)
    if (rw == InputRewrite::KeepReductions || f.axes[a].iter != IterType::Reduction) out.push_back(a);
  return out;
}

}  // namespace fc
