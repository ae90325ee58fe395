#include "passes/segment_inputs.h"

namespace fc {

InputRewrite eraInputRewrite(Era era) {
  return era == Era::E2024_06 ? InputRewrite::KeepReductions : InputRewrite::StripReductions;
}

std::vector<AxisId> segmentInputDomain(const Fusion& f, TensorId t, InputRewrite rw) {
  std::vector<AxisId> out;
  for (AxisId a : f.tensors[t].logical)
    if (rw == InputRewrite::KeepReductions || f.axes[a].iter != IterType::Reduction) out.push_back(a);
  return out;
}

}  // namespace fc
