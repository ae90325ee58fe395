// An external command as the minimizer's property (`reduce --oracle CMD`):
// each candidate is written to a file in a private temporary directory and
// the command runs through /bin/sh -c with the file's path (shell-quoted)
// substituted for every `{}`, or appended when there is none. Exit status 0
// means "still interesting"; anything else (a signal, a timeout, a command
// that cannot start) means "not interesting". stdout / stderr of the
// command are discarded unless `passthrough`.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "reduce/reduce.h"

namespace fc {

struct OracleOptions {
  std::string command;
  double timeout_s = 0;                          // 0: none; killed (SIGKILL) beyond it
  bool passthrough = false;                      // let the command write to our stdout/stderr
  const std::atomic<bool>* interrupt = nullptr;  // a running command is killed when set
};

// Runs the command on the file at `path`; returns its exit status, or -1
// when it died of a signal, timed out, or could not start.
int runOracleCommand(const OracleOptions& o, const std::string& path);

class Oracle {
 public:
  // Creates the temporary directory (removed by the destructor).
  explicit Oracle(OracleOptions o);
  ~Oracle();
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  // Writes `f` to the candidate file and runs the command on it.
  bool interesting(const Fusion& f);
  // The same, for file text already serialized.
  bool interestingText(const std::string& json_text);
  // Runs the command `repeats` times on `f`; returns how many said 0.
  int countInteresting(const Fusion& f, int repeats);

  uint64_t calls() const { return calls_; }
  const std::string& candidatePath() const { return path_; }
  // A property that calls interesting() (the Oracle must outlive it).
  ReduceProperty property();

 private:
  OracleOptions opts_;
  std::string dir_, path_;
  uint64_t calls_ = 0;
};

}  // namespace fc
