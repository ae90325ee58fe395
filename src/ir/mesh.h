// Device meshes: n-D arrays of device ids (1-D in 2024 nvFuser).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/types.h"

namespace fc {

struct Mesh {
  std::vector<int64_t> shape;    // e.g. {2} or {2, 2}
  std::vector<int64_t> devices;  // row-major, product(shape) entries

  int64_t size() const { return static_cast<int64_t>(devices.size()); }
  // Size along the mesh axis a DID type maps to. nvFuser maps DIDx to the
  // innermost mesh axis (DeviceMesh::parallelTypeToAxis). Returns -1 when the
  // mesh has no such axis.
  int64_t sizeFor(ParallelType pt) const;
  // nvFuser's print: 2024 `DeviceMesh{0 1}`; head nests one brace level per
  // mesh axis for n-D meshes: `DeviceMesh{{0 1}{2 3}}`.
  std::string toString(bool head_style) const;
};

}  // namespace fc
