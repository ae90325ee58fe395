// One rank per process over NCCL (`run --ranks N --device cuda`,
// docs/multigpu.md): NcclRankCommunicator is a Communicator
// (exec/communicator.h) whose spans hold exactly one device buffer — this
// process's rank — created with ncclCommInitRankConfig from the unique id
// rank 0 shares over the TCP bootstrap (exec/multirank/transport.h).
//
// The communicator is non-blocking (config.blocking = 0): every call is
// followed by polling ncclCommGetAsyncError and cudaStreamQuery until the
// collective completes, an error shows up (a peer's failure arrives as
// ncclRemoteError / ncclSystemError) or --rank-timeout passes; then the
// communicator is aborted (ncclCommAbort) and the call throws ExecError
// (FC0903 for an NCCL error, FC0907 for a timeout). NVLink multicast stays
// off (NCCL_NVLS_ENABLE=0). Built only with NCCL (FC_HAVE_NCCL).
//
// runRankOnCuda runs one rank's share of a segmented program on this
// process's GPU: CudaProgram restricted to the rank, each communication
// segment through exec/multirank's communicateOnRank with the buffers
// staged between host and device (HostStagedCommunicator).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/communicator.h"
#include "exec/multirank/rank_run.h"
#include "exec/segmented_executor.h"

namespace fc::exec::cuda {

class NcclRankCommunicator final : public Communicator {
 public:
  // A new ncclUniqueId as bytes (rank 0, before the bootstrap).
  static std::string newUniqueId();
  // On the current CUDA device. `inject_error`: the first collective fails
  // with an NCCL error (FC_FAULT_INJECT=rank:R:nccl-error, tests only).
  NcclRankCommunicator(const std::string& unique_id, int64_t rank, int64_t world, double timeout_s,
                       bool inject_error);
  ~NcclRankCommunicator() override;
  NcclRankCommunicator(const NcclRankCommunicator&) = delete;
  NcclRankCommunicator& operator=(const NcclRankCommunicator&) = delete;

  std::string_view name() const override { return "nccl"; }
  int64_t size() const override { return world_; }
  int64_t rank() const { return rank_; }
  FC_COMMUNICATOR_COLLECTIVES
  // Aborts the communicator (idempotent); later calls throw.
  void abort();

 private:
  // Checks an NCCL return (ncclInProgress is fine), then polls until the
  // enqueued work is done; aborts and throws on an error or the timeout.
  void complete(int result, const char* what);
  int typeFor(DType t);     // ncclDataType_t
  void* comm_ = nullptr;    // ncclComm_t
  void* stream_ = nullptr;  // cudaStream_t
  int64_t rank_ = 0, world_ = 1;
  int device_ = 0;
  double timeout_s_ = 300;
  bool inject_error_ = false;
  bool aborted_ = false;
};

// Host fp64 buffers (as the host executors hold them) in front of a device
// communicator: each call uploads the buffers in their native dtype, runs
// the collective on the device, and downloads the results.
class HostStagedCommunicator final : public Communicator {
 public:
  HostStagedCommunicator(Communicator& device, MemoryBudget* budget) : dev_(device), budget_(budget) {}
  std::string_view name() const override { return dev_.name(); }
  int64_t size() const override { return dev_.size(); }
  FC_COMMUNICATOR_COLLECTIVES

 private:
  Communicator& dev_;
  MemoryBudget* budget_;
};

// See the header comment; `make_comm` hands out host-buffer communicators
// (HostStagedCommunicator over the process's NcclRankCommunicator).
SegmentedRun runRankOnCuda(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                           ScalarValues& sv, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                           std::vector<SegmentRun>* progress, int64_t me,
                           const multirank::TeamCommFactory& make_comm, const multirank::Fault& fault);

}  // namespace fc::exec::cuda
