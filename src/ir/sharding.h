// Which logical axis of a tensor a device-parallel type shards: the axis itself parallelized on
// it, or the logical input of a split whose output is (the loop-split sharding of nvFuser's
// multi-device schedules). Used by binding, the sharding passes and the Python import's
// `shard_tensor`, which slices a torch tensor as nvFuser's test fixtures do.
#pragma once

#include <cstddef>

#include "ir/fusion.h"

namespace fc {

// The logical position of the axis sharded on `pt`, or -1.
int shardedLogicalPos(const Fusion& f, TensorId t, ParallelType pt);
// The DID type sharding logical axis `pos` of `t`, or Serial.
ParallelType shardingOf(const Fusion& f, TensorId t, size_t pos);

}  // namespace fc
