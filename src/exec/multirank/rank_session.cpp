// One rank's bootstrap, communicator and share of the run (see
// rank_session.h).
#include "exec/multirank/rank_session.h"

#include "exec/exec_error.h"
#include "exec/multirank/rank_run.h"
#if FC_HAVE_NCCL
#include <cuda_runtime_api.h>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/nccl_rank_communicator.h"
#endif

namespace fc::exec::multirank {

// Destroyed in reverse order: the communicator factory, the links, then the
// NCCL communicator.
struct RankSession::State {
  RankEnv env;
  double timeout_s = 0;
  bool cuda = false;
  Fault fault;
#if FC_HAVE_NCCL
  std::unique_ptr<cuda::NcclRankCommunicator> nccl;
#endif
  Links links;
  TeamCommFactory make_comm;
};

RankSession::RankSession(std::unique_ptr<State> s) : s_(std::move(s)) {}
RankSession::~RankSession() = default;

std::unique_ptr<RankSession> RankSession::open(const Fusion& f, bool cuda, const RankEnv& env,
                                               double timeout_s, RankFailure* failure) {
  auto refuse = [&](DiagCode code, std::string msg, int exit_code) {
    *failure = RankFailure{code, std::move(msg), exit_code};
    return std::unique_ptr<RankSession>();
  };
  World world(f);
  std::string who = "rank " + std::to_string(env.rank) + " of " + std::to_string(env.world);
  if (world.size() != env.world)
    return refuse(DiagCode::RanksMismatch,
                  "the fusion's meshes cover " + std::to_string(world.size()) + " devices but the run has " +
                      std::to_string(env.world) + " ranks (" + env.source + ")",
                  2);
  auto s = std::make_unique<State>();
  s->env = env;
  s->timeout_s = timeout_s;
  s->cuda = cuda;
  std::string bad;
  s->fault = faultFromEnvironment(&bad);
  if (!bad.empty()) return refuse(DiagCode::Usage, bad, 2);
  std::string blob;
#if FC_HAVE_NCCL
  if (cuda) {
    std::string why;
    int n = cuda::deviceCount(&why);
    if (n <= 0) return refuse(DiagCode::NoDevice, who + ": no CUDA device is available (" + why + ")", 3);
    try {
      cuda::setDevice(static_cast<int>(env.local_rank % n));
      if (env.rank == 0) blob = cuda::NcclRankCommunicator::newUniqueId();
    } catch (const ExecError& e) {
      return refuse(e.code, who + ": " + e.message, 3);
    }
  }
#else
  if (cuda)
    return refuse(DiagCode::NoDevice,
                  "this fusecheck is built without NCCL; multi-process --device cuda runs need it", 3);
#endif
  try {
    WatchdogScope watch(timeout_s, who + ": the bootstrap");
    s->links = bootstrap(env, blob, timeout_s);
#if FC_HAVE_NCCL
    if (cuda)
      s->nccl = std::make_unique<cuda::NcclRankCommunicator>(
          s->links.blob, env.rank, env.world, timeout_s,
          s->fault.rank == env.rank && s->fault.kind == Fault::CommError);
#endif
  } catch (const ExecError& e) {
    return refuse(e.code, who + ": " + e.message, 3);
  }

  State* st = s.get();
  s->make_comm = [st](const std::vector<int64_t>& team) -> std::unique_ptr<Communicator> {
#if FC_HAVE_NCCL
    if (st->cuda) {
      for (size_t q = 0; q < team.size(); ++q)
        if (team[q] != static_cast<int64_t>(q) || static_cast<int64_t>(team.size()) != st->env.world)
          fail("NCCL multi-process runs need each collective over all ranks in device order", {},
               DiagCode::ExecutionFailed);
      return std::make_unique<cuda::HostStagedCommunicator>(*st->nccl, nullptr);
    }
#endif
    return std::make_unique<HubCommunicator>(
        st->links, team, st->timeout_s, st->fault.rank == st->env.rank && st->fault.kind == Fault::CommError);
  };
  return std::unique_ptr<RankSession>(new RankSession(std::move(s)));
}

SegmentedRun RankSession::run(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                              ScalarValues& sv, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                              std::vector<SegmentRun>* progress) {
  State& st = *s_;
  const int64_t me = st.env.rank;
  try {
    SegmentedRun run;
#if FC_HAVE_NCCL
    if (st.cuda)
      run = cuda::runRankOnCuda(sf, world, in, sv, budget, stop_at, progress, me, st.make_comm, st.fault);
    else
#endif
      run = runRankOnHost(sf, world, in, sv, budget, stop_at, progress, me, st.make_comm, st.fault);
    gatherOutputs(st.links, *sf.fusion, run, budget, st.timeout_s);
    return run;
  } catch (const ExecError& e) {
    reportFailure(st.links, e.message);
    throw;
  }
}

bool RankSession::isRoot() const { return s_->env.rank == 0; }

std::string RankSession::communicatorName() const {
  return std::string(s_->cuda ? "nccl" : "host-tcp") + ", " + std::to_string(s_->env.world) + " processes (" +
         s_->env.source + ")";
}

}  // namespace fc::exec::multirank
