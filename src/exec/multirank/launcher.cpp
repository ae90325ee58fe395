// The local launcher (see launcher.h).
#include "exec/multirank/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

#include "exec/exec_error.h"
#include "exec/multirank/transport.h"

namespace fc::exec::multirank {
namespace {

Diagnostic error(DiagCode code, std::string msg) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = code;
  d.message = std::move(msg);
  return d;
}

bool rankVariable(const std::string& kv) {
  static const char* names[] = {"RANK=",
                                "WORLD_SIZE=",
                                "LOCAL_RANK=",
                                "LOCAL_WORLD_SIZE=",
                                "MASTER_ADDR=",
                                "MASTER_PORT=",
                                "FC_MASTER_FD=",
                                "FC_RANK_LAUNCHER=",
                                "OMPI_COMM_WORLD_RANK=",
                                "OMPI_COMM_WORLD_SIZE=",
                                "OMPI_COMM_WORLD_LOCAL_RANK=",
                                "NCCL_NVLS_ENABLE="};
  for (const char* n : names)
    if (kv.rfind(n, 0) == 0) return true;
  return false;
}

std::string describeStatus(int status) {
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    const char* n = strsignal(s);
    return "was killed by signal " + std::to_string(s) + (n ? std::string(" (") + n + ")" : std::string());
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

bool abnormal(int status) { return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) >= 3); }

}  // namespace

std::vector<std::string> selfArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  size_t at = 0;
  while (at < all.size()) {
    size_t z = all.find('\0', at);
    if (z == std::string::npos) z = all.size();
    out.push_back(all.substr(at, z - at));
    at = z + 1;
  }
  return out;
}

LaunchResult launchLocal(int64_t ranks, double timeout_s, const std::vector<std::string>& argv,
                         std::ostream& err) {
  LaunchResult res;
  int port = 0;
  int lfd = -1;
  try {
    lfd = listenLoopback(&port);
  } catch (const ExecError& e) {
    res.diagnostics.push_back(error(e.code, e.message));
    res.exit_code = 3;
    return res;
  }
  std::vector<std::string> base;
  for (char** e = environ; *e; ++e)
    if (!rankVariable(*e)) base.emplace_back(*e);
  base.push_back("WORLD_SIZE=" + std::to_string(ranks));
  base.push_back("LOCAL_WORLD_SIZE=" + std::to_string(ranks));
  base.push_back("MASTER_ADDR=127.0.0.1");
  base.push_back("MASTER_PORT=" + std::to_string(port));
  base.push_back("FC_RANK_LAUNCHER=1");
  base.push_back("NCCL_NVLS_ENABLE=0");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  std::vector<pid_t> pids(ranks, -1);
  std::vector<int> status(ranks, 0);
  std::vector<bool> done(ranks, false);
  auto killAll = [&](const std::string& why) {
    for (int64_t r = 0; r < ranks; ++r)
      if (pids[r] > 0 && !done[r]) {
        err << "fusecheck: stopping rank " << r << " (pid " << pids[r] << "): " << why << "\n";
        ::kill(pids[r], SIGKILL);
      }
    for (int64_t r = 0; r < ranks; ++r)
      if (pids[r] > 0 && !done[r]) {
        ::waitpid(pids[r], &status[r], 0);
        done[r] = true;
      }
  };
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<std::string> env = base;
    env.push_back("RANK=" + std::to_string(r));
    env.push_back("LOCAL_RANK=" + std::to_string(r));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (r == 0) {
      env.push_back("FC_MASTER_FD=" + std::to_string(lfd));
      ::fcntl(lfd, F_SETFD, 0);  // rank 0 inherits the listener
    } else {
      ::fcntl(lfd, F_SETFD, FD_CLOEXEC);
    }
    std::vector<char*> envp;
    for (std::string& kv : env) envp.push_back(kv.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      killAll("the launch failed");
      ::close(lfd);
      res.diagnostics.push_back(
          error(DiagCode::RankFailed, "cannot start rank " + std::to_string(r) + ": " + std::strerror(rc)));
      res.exit_code = 3;
      return res;
    }
    pids[r] = pid;
  }
  ::close(lfd);

  // Watch the workers.
  std::vector<std::string> failures;
  Clock::time_point rank0_done{};
  for (;;) {
    bool any_left = false;
    for (int64_t r = 0; r < ranks; ++r) {
      if (done[r]) continue;
      pid_t w = ::waitpid(pids[r], &status[r], WNOHANG);
      if (w == 0) {
        any_left = true;
        continue;
      }
      done[r] = true;
      if (r == 0) rank0_done = Clock::now();
      if (abnormal(status[r])) {
        failures.push_back("rank " + std::to_string(r) + " " + describeStatus(status[r]));
        err << "fusecheck: rank " << r << " " << describeStatus(status[r]) << "\n";
      }
    }
    if (!any_left) break;
    bool rank0_running = !done[0];
    if (!failures.empty() && (rank0_running || abnormal(status[0]))) {
      killAll("another rank failed");
      break;
    }
    if (!rank0_running &&
        Clock::now() - rank0_done > std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000))) {
      killAll("still running --rank-timeout after rank 0 finished");
      failures.push_back("a rank did not finish after rank 0 had");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (failures.empty() && WIFEXITED(status[0])) {
    res.exit_code = WEXITSTATUS(status[0]);
    return res;
  }
  std::string msg = "the " + std::to_string(ranks) + "-process run failed: ";
  for (size_t k = 0; k < failures.size(); ++k) msg += (k ? "; " : "") + failures[k];
  Diagnostic d = error(DiagCode::RankFailed, msg);
  for (int64_t r = 0; r < ranks; ++r) d.note("rank " + std::to_string(r) + " " + describeStatus(status[r]));
  res.diagnostics.push_back(std::move(d));
  bool internal = false;
  for (int64_t r = 0; r < ranks; ++r) internal |= WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 4;
  res.exit_code = internal ? 4 : 3;
  return res;
}

}  // namespace fc::exec::multirank
