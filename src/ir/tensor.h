// TensorViews: name, dtype, memory type, domains (root / logical /
// allocation + contiguity / loop with the transforms relating them) and the
// device mesh.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/axis.h"
#include "ir/ids.h"
#include "ir/types.h"
#include "support/interner.h"

namespace fc {

inline constexpr uint32_t kMeshSetAfterDefinition = UINT32_MAX;

struct Tensor {
  NameId name = kNoName;  // "T4"
  DType dtype = DType::Float;
  MemoryType memory = MemoryType::Local;
  MeshId mesh = kNone;
  // How many exprs the fusion had when the repro first set this tensor's mesh or an axis's
  // parallel type: an op built after that saw them (nvFuser's op builders copy them from some
  // points on). kMeshSetAfterDefinition: set after the whole definition, as Python schedules
  // and JSON repros do.
  uint32_t mesh_set_at = kMeshSetAfterDefinition;

  std::vector<AxisId> root;        // empty: no distinct root
  std::vector<AxisId> logical;     // semantic shape, Reduction axes included
  std::vector<AxisId> allocation;  // empty: allocation = logical
  // Aligned with allocation (or logical when there is none); nullopt for
  // broadcast axes. Empty: contiguous everywhere (nvFuser's default).
  std::vector<std::optional<bool>> contiguity;
  std::vector<AxisId> loop;               // empty: loop = logical
  std::vector<AxisTransform> transforms;  // root->logical and logical->loop/allocation

  ExprId definition = kNone;  // producing expr; kNone for fusion inputs

  const std::vector<AxisId>& loopDomain() const { return loop.empty() ? logical : loop; }
  const std::vector<AxisId>& allocationDomain() const { return allocation.empty() ? logical : allocation; }
};

}  // namespace fc
