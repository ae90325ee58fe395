// Which logical axis of a tensor a device-parallel type shards: the axis itself parallelized on
// it, or the logical input of a split whose output is (the loop-split sharding of nvFuser's
// multi-device schedules). Used by binding, the sharding passes and the Python import's
// `shard_tensor`, which slices a torch tensor as nvFuser's test fixtures do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/fusion.h"

namespace fc {

// The logical position of the axis sharded on `pt` (through a chain of splits), or -1.
int shardedLogicalPos(const Fusion& f, TensorId t, ParallelType pt);
// Into how many shards the DID types that shard logical axis `pos` of `t` cut it on `mesh` (the
// product of their mesh axes' sizes; 1 when none does, -1 when the mesh lacks one of them).
int64_t shardCount(const Fusion& f, TensorId t, size_t pos, const Mesh& mesh);
// The DID type sharding logical axis `pos` of `t`, or Serial.
ParallelType shardingOf(const Fusion& f, TensorId t, size_t pos);

}  // namespace fc
