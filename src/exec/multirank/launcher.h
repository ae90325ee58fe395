// Multi-process runs (`run --ranks N`, docs/multigpu.md), the launcher's
// half: this process opens a loopback listener for rank 0, spawns N workers
// (this binary, same arguments, with RANK / WORLD_SIZE / LOCAL_RANK /
// MASTER_ADDR / MASTER_PORT set as torchrun does, and FC_MASTER_FD: the
// listener, for rank 0) and watches them: a worker killed by a signal or
// exiting with 3 or more while rank 0 still runs gets every other worker
// killed (SIGKILL, by pid) and the launch fails with FC0907 (exit 3);
// otherwise the launch exits with rank 0's code (rank 0 printed the report).
// Workers still running `timeout_s` after rank 0 finished are killed
// (FC0907). Each worker's half is exec/multirank/rank_session.h.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "diag/diagnostic.h"

namespace fc::exec::multirank {

struct LaunchResult {
  int exit_code = 0;
  std::vector<Diagnostic> diagnostics;  // FC0907 when a rank failed
};

// This process's arguments, from /proc/self/cmdline.
std::vector<std::string> selfArguments();

// `argv[0]` is ignored (the workers run /proc/self/exe). Progress lines
// ("rank 1 was killed by signal 9") go to `err`.
LaunchResult launchLocal(int64_t ranks, double timeout_s, const std::vector<std::string>& argv,
                         std::ostream& err);

}  // namespace fc::exec::multirank
