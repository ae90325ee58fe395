// DeviceInputs (see device_inputs.h).
#include "exec/cuda/device_inputs.h"

#include <vector>

namespace fc::exec::cuda {

ShardSink DeviceInputs::sink() {
  return [this](size_t p, const std::vector<int64_t>& ranks, HostTensor&& shard) {
    auto d = std::make_shared<DeviceTensor>(DeviceTensor::upload(shard, budget_));
    shard = HostTensor();  // the host copy goes before the next shard is made
    for (int64_t r : ranks) shards_[{p, r}] = d;
  };
}

std::shared_ptr<DeviceTensor> DeviceInputs::shard(size_t p, int64_t rank) const {
  auto it = shards_.find({p, rank});
  return it == shards_.end() ? nullptr : it->second;
}

}  // namespace fc::exec::cuda
