// Runs the fusecheck CLI (and other programs) in a child process for the
// multi-process tests: environment additions, captured stdout / stderr,
// exit status and wall time.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace fc::test {

struct Proc {
  pid_t pid = -1;
  std::string out_path, err_path;
};

struct Finished {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
  std::string out, err;
  double seconds = 0;
};

inline std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string scratch(const std::string& tag) {
  static int n = 0;
  return ::testing::TempDir() + "/fc_multirank_" + std::to_string(::getpid()) + "_" + std::to_string(n++) +
         "_" + tag;
}

// Starts `args` with `env` added to (and overriding) this environment;
// names in `unset` are removed.
inline Proc start(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                  const std::vector<std::string>& unset = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                           "MASTER_PORT", "OMPI_COMM_WORLD_RANK",
                                                           "OMPI_COMM_WORLD_SIZE", "FC_FAULT_INJECT"}) {
  Proc p;
  p.out_path = scratch("out");
  p.err_path = scratch("err");
  std::vector<std::string> e;
  for (char** v = environ; *v; ++v) {
    std::string kv(*v);
    std::string name = kv.substr(0, kv.find('='));
    bool drop = false;
    for (const auto& u : unset) drop |= name == u;
    for (const auto& a : env) drop |= a.substr(0, a.find('=')) == name;
    if (!drop) e.push_back(kv);
  }
  for (const auto& a : env) e.push_back(a);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& kv : e) envp.push_back(kv.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (posix_spawn(&p.pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) p.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return p;
}

// Waits at most `limit_s` (then kills the child: the test fails on the
// time, never hangs).
inline Finished finish(const Proc& p, double limit_s = 120) {
  Finished f;
  auto t0 = std::chrono::steady_clock::now();
  int st = 0;
  for (;;) {
    pid_t w = ::waitpid(p.pid, &st, WNOHANG);
    if (w == p.pid) break;
    if (w < 0) return f;
    if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(limit_s)) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &st, 0);
      break;
    }
    ::usleep(20000);
  }
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(st)) f.exit_code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) f.signal = WTERMSIG(st);
  f.out = slurp(p.out_path);
  f.err = slurp(p.err_path);
  std::remove(p.out_path.c_str());
  std::remove(p.err_path.c_str());
  return f;
}

// The CLI under test: $FC_CLI when set (binaries carried to another
// machine), else the one built beside the tests.
inline std::string cliPath() {
  const char* p = std::getenv("FC_CLI");
  return p && *p ? p : FC_CLI_PATH;
}

inline Finished runCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                       double limit_s = 120) {
  std::vector<std::string> all{cliPath()};
  all.insert(all.end(), args.begin(), args.end());
  return finish(start(all, env), limit_s);
}

// A file of the source tree ($FC_SOURCE_DIR when set).
inline std::string source(const std::string& rel) {
  const char* p = std::getenv("FC_SOURCE_DIR");
  return std::string(p && *p ? p : FC_SOURCE_DIR) + "/" + rel;
}

}  // namespace fc::test
