// Helpers for building small fusions in exec tests.
#pragma once

#include <string>
#include <vector>

#include "ir/fusion.h"

namespace fc::exec {

// A tensor with one axis per entry of `shape`: n >= 0 a constant extent,
// -1 a fresh symbol, -2 a Broadcast axis of extent 1, -3 a Reduction axis
// with a fresh symbol. `did_dim` (>= 0) makes that axis DIDx.
inline TensorId addTensor(Fusion& f, const std::string& name, DType dt, const std::vector<int64_t>& shape,
                          MeshId mesh = kNone, int did_dim = -1) {
  std::vector<AxisId> axes;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i];
    IterType it = s == -2 ? IterType::Broadcast : s == -3 ? IterType::Reduction : IterType::Iteration;
    ScalarId ext = s >= 0    ? f.addConstInt(s)
                   : s == -2 ? f.addConstInt(1)
                             : f.addSymbol("i" + std::to_string(f.scalars.size()));
    ParallelType pt = static_cast<int>(i) == did_dim ? ParallelType::DIDx : ParallelType::Serial;
    axes.push_back(f.addAxis(static_cast<uint32_t>(f.axes.size()), it, pt, ext));
  }
  return f.addTensor(name, dt, MemoryType::Global, axes, mesh);
}

}  // namespace fc::exec
