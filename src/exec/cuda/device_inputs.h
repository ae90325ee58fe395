// The generated inputs of a GPU run held on the device only. generateInputs
// (HeldInputs::None) hands each distinct shard to sink() as it makes it; the
// sink uploads it in the input's dtype, once for all the ranks that hold it,
// and the host copy goes: the host holds one shard at a time. The exact
// reference assembles its global tensors from these buffers on the device
// (DeviceReference) and the program takes them as its inputs
// (CudaProgram::uploadInputs). Device memory is charged to the run's
// MemoryBudget. O(numel) per shard.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "exec/cuda/device_tensor.h"
#include "exec/inputs.h"

namespace fc::exec::cuda {

class DeviceInputs {
 public:
  explicit DeviceInputs(MemoryBudget* budget) : budget_(budget) {}
  // A sink for generateInputs; valid while this object lives.
  ShardSink sink();
  // The buffer of input position `p` on world rank `rank`, or null.
  std::shared_ptr<DeviceTensor> shard(size_t p, int64_t rank) const;

 private:
  MemoryBudget* budget_;
  std::map<std::pair<size_t, int64_t>, std::shared_ptr<DeviceTensor>> shards_;
};

}  // namespace fc::exec::cuda
