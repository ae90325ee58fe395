// One rank of a multi-process run (`run --ranks N`, docs/multigpu.md): the
// process runs only its own rank's share of the segmented program — the
// compute exprs whose outputs live on its device, and its side of every
// communication segment through a Communicator that drives exactly one
// buffer (its own) — then sends its output shards to rank 0, which
// assembles and compares them as the simulated run does (driver/run.h).
//
// --device cpu: HubCommunicator, the host collectives over the bootstrap's
// TCP links: rank 0 gathers every rank's buffer, applies the simulated
// ring (exec/communicator.h, so results are bit-identical to the one-process
// simulation) and sends each rank its result. --device cuda: NCCL, one GPU
// per process (exec/cuda/nccl_rank_communicator.h).
//
// Supported collectives: Allreduce, Reduce, ReduceScatter, Allgather over
// all ranks of the world (other kinds or sub-teams are FC0502 for now).
// Failures: a peer that dies, errs or stops answering is FC0907 within
// --rank-timeout (transport.h); FC_FAULT_INJECT=rank:R:die|hang|nccl-error
// makes rank R fail at its first collective (tests only).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/communicator.h"
#include "exec/multirank/transport.h"
#include "exec/segmented_executor.h"

namespace fc::exec::multirank {

struct Fault {
  enum Kind : uint8_t { None, Die, Hang, CommError } kind = None;
  int64_t rank = -1;
};
// FC_FAULT_INJECT=rank:R:die|hang|nccl-error; None when unset. A malformed
// value is described in `*error`.
Fault faultFromEnvironment(std::string* error);

// A communicator over the given team (world ranks, team order), for one
// collective, driving this process's one buffer.
using TeamCommFactory = std::function<std::unique_ptr<Communicator>(const std::vector<int64_t>& team)>;

// Host collectives through rank 0 over `links` (see the header comment).
// Buffers are host fp64 values (as SimulatedCommunicator's); spans hold
// exactly one buffer, this rank's.
class HubCommunicator final : public Communicator {
 public:
  HubCommunicator(Links& links, std::vector<int64_t> team, double timeout_s, bool inject_error);
  std::string_view name() const override { return "host-tcp"; }
  int64_t size() const override { return static_cast<int64_t>(team_.size()); }
  FC_COMMUNICATOR_COLLECTIVES

 private:
  using Apply =
      std::function<void(Communicator& sim, std::vector<CommBuffer>& send, std::vector<CommBuffer>& recv)>;
  void exchange(const CommBuffer& send, CommBuffer& recv, const Apply& apply);
  Links& links_;
  std::vector<int64_t> team_;
  double timeout_s_;
  bool inject_error_;
};

// This rank's side of communication segment `s`. `input`: the rank's
// local input tensor (null when its input mesh excludes it). Returns its
// output tensor, rounded to the output dtype (nullopt when the output mesh
// excludes it). Throws ExecError.
std::optional<HostTensor> communicateOnRank(const Fusion& f, const World& world, const Segment& s, int64_t me,
                                            const HostTensor* input, ScalarValues& sv, MemoryBudget* budget,
                                            const TeamCommFactory& make_comm, const Fault& fault,
                                            SegmentRun& rec);

// Runs rank `me`'s share on the host (the CPU executor's evaluation, one
// rank). The result holds only rank `me`'s tensors.
SegmentedRun runRankOnHost(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                           ScalarValues& sv, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                           std::vector<SegmentRun>* progress, int64_t me, const TeamCommFactory& make_comm,
                           const Fault& fault);

// After the run: every rank but 0 sends its output shards to rank 0, which
// adds them to `run` (its own are there already).
void gatherOutputs(Links& links, const Fusion& f, SegmentedRun& run, MemoryBudget* budget, double timeout_s);
// Best effort: tells rank 0 that this rank failed (rank 0 reports it).
void reportFailure(Links& links, const std::string& message);

// A watchdog thread for this process: while armed, a wait that outlives
// its deadline by `grace_s` (a collective or abort that never returns)
// prints `what` and ends the process with exit 3.
void armWatchdog(double seconds, std::string what);
void disarmWatchdog();
// After a failure that may leave the device stuck (an aborted NCCL
// communicator): the process ends with exit 3 if it is still alive
// `seconds` from now (cleanup that blocks); nothing disarms it.
void armFinalWatchdog(double seconds, std::string what);
// Armed for its lifetime (exceptions included).
class WatchdogScope {
 public:
  WatchdogScope(double seconds, std::string what) { armWatchdog(seconds, std::move(what)); }
  ~WatchdogScope() { disarmWatchdog(); }
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;
};

}  // namespace fc::exec::multirank
