// This process as one rank of a multi-process run (`run --ranks N`,
// docs/multigpu.md; launched by launchLocal, torchrun, or mpirun with
// MASTER_ADDR / MASTER_PORT): open() checks the world against the fusion's
// meshes, bootstraps over TCP and makes the rank's communicator (host hub for
// --device cpu; NCCL on GPU LOCAL_RANK % GPUs for --device cuda). run()
// executes the rank's share of a segmented program with it and gathers the
// outputs to rank 0, which compares them with the reference; it has the
// signature of the run's executor hook (RunOptions::execute, driver/run.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "exec/multirank/transport.h"
#include "exec/segmented_executor.h"

namespace fc::exec::multirank {

// Why open() refused: the diagnostic's code and message, and the exit code
// of the run (2 bad input or usage, 3 environment).
struct RankFailure {
  DiagCode code = DiagCode::RankFailed;
  std::string message;
  int exit_code = 3;
};

class RankSession {
 public:
  // Null, with `*failure` set, when the world does not match the fusion's
  // meshes, FC_FAULT_INJECT is malformed, no CUDA device or NCCL is
  // available for `cuda`, or the bootstrap fails.
  static std::unique_ptr<RankSession> open(const Fusion& f, bool cuda, const RankEnv& env, double timeout_s,
                                           RankFailure* failure);
  ~RankSession();
  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;

  // This rank's share of `sf`, its outputs gathered to rank 0. Throws
  // ExecError (after telling rank 0 that this rank failed).
  SegmentedRun run(const SegmentedFusion& sf, const World& world, const RunInputs& in, ScalarValues& sv,
                   MemoryBudget* budget, std::optional<uint32_t> stop_at, std::vector<SegmentRun>* progress);

  // Rank 0 compares the outputs with the reference; the others do not.
  bool isRoot() const;
  // "host-tcp, 2 processes (fusecheck)", "nccl, 2 processes (torchrun)".
  std::string communicatorName() const;

 private:
  struct State;
  explicit RankSession(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace fc::exec::multirank
