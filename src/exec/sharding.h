// How tensors are laid out over the ranks of a mesh, as nvFuser shards them.
//
// The world is the sorted union of the fusion's mesh devices (one rank, the
// device -1, when the fusion has no mesh). A tensor lives on the devices of
// its mesh (all devices when it has none) and is sharded on each
// materialized dim whose logical axis is DID-parallel (2024: local size 1,
// global extent = mesh size) or is split by a DID-parallel outer split on the
// loop domain (head "DID loop split"). Global extent = local x the mesh's
// size along the DID's mesh axis (DIDx = innermost mesh axis). Devices that
// differ only on mesh axes a tensor is not sharded on hold replicas.
// shardOf / assemble are O(numel).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/fusion.h"

namespace fc::exec {

struct ShardDim {
  int64_t dim = 0;  // materialized dim (index among non-Reduction logical axes)
  ParallelType pt = ParallelType::DIDx;
  int64_t parts = 1;  // mesh size along pt's mesh axis
};

class World {
 public:
  explicit World(const Fusion& f);
  const std::vector<int64_t>& devices() const { return devices_; }
  int64_t size() const { return static_cast<int64_t>(devices_.size()); }
  // World rank of a device id, or -1.
  int64_t rankOf(int64_t device) const;
  // World ranks where tensor `t` lives, in mesh order (row-major).
  std::vector<int64_t> ranksOf(TensorId t) const;

 private:
  const Fusion& f_;
  std::vector<int64_t> devices_;
};

// Index of the materialized dim of logical axis position `pos`, or -1 for a
// Reduction axis.
int64_t materializedDim(const Fusion& f, TensorId t, size_t pos);
// The non-Reduction logical axes of `t`, in order.
std::vector<AxisId> materializedAxes(const Fusion& f, TensorId t);

// The sharded dims of `t`. Unsupported layouts (a DID axis not reachable by
// one outer split from logical) are ExecErrors.
std::vector<ShardDim> shardDims(const Fusion& f, TensorId t);
// The mesh of `t`, or null when it has none.
const Mesh* meshOf(const Fusion& f, TensorId t);

// Coordinate of the `pos`-th device of `mesh` along the mesh axis of `pt`.
int64_t meshCoordinate(const Mesh& mesh, int64_t pos, ParallelType pt);

// Per-rank shape of a global shape (sharded dims divided; ExecError when a
// sharded extent is not divisible).
Shape localShape(const Shape& global, const std::vector<ShardDim>& shards, const std::string& what);

// Where the shard of the `pos`-th device of `mesh` starts in the global
// tensor, per dim (`local`: the shard's shape).
std::vector<int64_t> shardOffsets(const Shape& local, const std::vector<ShardDim>& shards, const Mesh* mesh,
                                  int64_t pos);

// The shard of `global` held by the `pos`-th device of `mesh`.
HostTensor shardOf(const HostTensor& global, const std::vector<ShardDim>& shards, const Mesh* mesh,
                   int64_t pos);

// Rebuilds the global tensor from per-device shards (`locals[pos]` for the
// pos-th device of `mesh`). Replicas must agree bit for bit; the first
// disagreement is returned in `replica_mismatch` (flat global index).
HostTensor assemble(const std::vector<const HostTensor*>& locals, const std::vector<ShardDim>& shards,
                    const Mesh* mesh, MemoryBudget* budget, std::optional<int64_t>* replica_mismatch);

}  // namespace fc::exec
