// A Communicator (exec/communicator.h) over NCCL for N GPUs in this process:
// rank r is GPU devices[r] (ncclCommInitAll), one CUDA stream per rank, and
// every collective is issued as one NCCL group (ncclGroupStart, one call
// per rank on its device, ncclGroupEnd) followed by a synchronization of
// the ranks' streams. Buffers are device pointers in the native dtype
// (exec/cuda/device_tensor.h). NCCL refuses two ranks of a communicator on
// one GPU, so this needs as many GPUs as ranks; NVLink multicast is kept
// off (NCCL_NVLS_ENABLE=0 is set before the communicator is created).
// Every NCCL / CUDA status is checked (FC0903). Reduction order and
// precision are NCCL's own (docs/numerics.md), not the simulated ring's.
// Built only with NCCL (FC_HAVE_NCCL).
#pragma once

#include <memory>
#include <vector>

#include "exec/communicator.h"

namespace fc::exec::cuda {

// NCCL's datatype (ncclDataType_t) and reduction (ncclRedOp_t) for
// fusecheck's; Bool and fp8 travel as bytes and cannot be reduced
// (requireNcclReducible throws ExecError FC0903).
int ncclDataTypeOf(DType t);
int ncclRedOpOf(ReduceOp op);
void requireNcclReducible(DType t);

class NcclCommunicator final : public Communicator {
 public:
  // devices: the CUDA device of each rank (distinct). Throws ExecError
  // (NoDevice when there are fewer GPUs than ranks, CudaError on NCCL
  // failures).
  explicit NcclCommunicator(std::vector<int> devices);
  ~NcclCommunicator() override;
  std::string_view name() const override { return "nccl"; }
  int64_t size() const override { return static_cast<int64_t>(devices_.size()); }
  FC_COMMUNICATOR_COLLECTIVES

 private:
  void sync();
  std::vector<int> devices_;
  std::vector<void*> comms_;    // ncclComm_t
  std::vector<void*> streams_;  // cudaStream_t
};

}  // namespace fc::exec::cuda
