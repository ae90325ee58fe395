#include "reduce/oracle.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "io/writer.h"

namespace fc {

namespace {

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string commandFor(const std::string& cmd, const std::string& path) {
  const std::string quoted = shellQuote(path);
  std::string out;
  bool substituted = false;
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (cmd.compare(i, 2, "{}") == 0) {
      out += quoted;
      substituted = true;
      ++i;
    } else {
      out += cmd[i];
    }
  }
  if (!substituted) out += " " + quoted;
  return out;
}

}  // namespace

int runOracleCommand(const OracleOptions& o, const std::string& path) {
  const std::string cmd = commandFor(o.command, path);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // Own process group: a terminal's SIGINT reaches the reducer only, which
    // then kills this group; a timeout kills the whole pipeline the shell ran.
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
      if (!o.passthrough) {
        dup2(null_fd, STDOUT_FILENO);
        dup2(null_fd, STDERR_FILENO);
      }
    }
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with the kill below
  const auto start = std::chrono::steady_clock::now();
  auto nap = std::chrono::microseconds(50);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    bool cancel = o.interrupt && o.interrupt->load();
    bool late = o.timeout_s > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.timeout_s;
    if (cancel || late) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return -1;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(5000));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return -1;
}

Oracle::Oracle(OracleOptions o) : opts_(std::move(o)) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/fusecheck-reduce-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) != nullptr) dir_ = buf.data();
  path_ = (dir_.empty() ? std::string("/tmp") : dir_) + "/candidate.json";
}

Oracle::~Oracle() {
  std::remove(path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

bool Oracle::interestingText(const std::string& json_text) {
  {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << json_text;
    if (!out) return false;
  }
  ++calls_;
  return runOracleCommand(opts_, path_) == 0;
}

bool Oracle::interesting(const Fusion& f) { return interestingText(writeFusion(f)); }

int Oracle::countInteresting(const Fusion& f, int repeats) {
  const std::string text = writeFusion(f);
  int yes = 0;
  for (int i = 0; i < repeats; ++i) {
    if (opts_.interrupt && opts_.interrupt->load()) break;
    yes += interestingText(text) ? 1 : 0;
  }
  return yes;
}

ReduceProperty Oracle::property() {
  return [this](const Fusion& f) { return interesting(f); };
}

}  // namespace fc
