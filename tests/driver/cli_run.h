// Runs the fusecheck CLI as a user would: argv without a shell, stdout and
// stderr kept apart (pipes), or both on one pseudo-terminal (what a user's
// terminal sees: colour and progress lines appear only there).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace fc::testing {

struct CliResult {
  int rc = -1;
  std::string out, err;
};

inline std::string readAll(int fd) {
  std::string s;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    s.append(buf, static_cast<size_t>(n));
  }
  return s;
}

inline std::vector<char*> argvOf(std::vector<std::string>& args) {
  std::vector<char*> v;
  for (std::string& a : args) v.push_back(a.data());
  v.push_back(nullptr);
  return v;
}

// `env` entries are NAME=VALUE set in the child ("NAME=" unsets NAME).
inline void applyEnv(const std::vector<std::string>& env) {
  for (const std::string& e : env) {
    size_t eq = e.find('=');
    std::string name = e.substr(0, eq), value = e.substr(eq + 1);
    if (value.empty())
      unsetenv(name.c_str());
    else
      setenv(name.c_str(), value.c_str(), 1);
  }
}

inline CliResult runCli(std::vector<std::string> args, const std::vector<std::string>& env = {},
                        const std::string& cwd = "") {
  args.insert(args.begin(), FC_CLI_PATH);
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(err[0]);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    applyEnv(env);
    auto argv = argvOf(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  CliResult r;
  // Read both pipes without blocking on either.
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return r;
}

// stdout and stderr both on a pseudo-terminal (80 columns); `out` holds what it showed.
inline CliResult runCliOnTerminal(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), FC_CLI_PATH);
  int master = -1;
  winsize ws{};
  ws.ws_col = 80;
  ws.ws_row = 24;
  pid_t pid = forkpty(&master, nullptr, nullptr, &ws);
  if (pid == 0) {
    applyEnv(env);
    if (!getenv("TERM")) setenv("TERM", "xterm", 1);
    auto argv = argvOf(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  CliResult r;
  r.out = readAll(master);  // ends with EIO when the child has exited
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return r;
}

inline std::string sourcePath(const std::string& rel) { return std::string(FC_SOURCE_DIR) + "/" + rel; }

}  // namespace fc::testing
