// Running a program to completion and keeping what it did: its exit status
// (or the signal that killed it), stdout and stderr kept apart, the CPU time
// and peak memory of that one child (wait4), killed after a timeout. stdin
// is /dev/null. Used by `fusecheck test` to run each expectation's
// invocation as a user would.
#pragma once

#include <string>
#include <vector>

namespace fc {

struct ChildResult {
  bool started = false;    // false: fork / exec failed (`error` says why)
  bool timed_out = false;  // killed after the timeout
  int exit_code = 0;       // the exit status, or -signal when a signal ended it
  std::string out, err;
  double cpu_seconds = 0;  // user + system
  double max_rss_mb = 0;   // peak resident set
  std::string error;
};

// Runs argv[0] (a path) with argv in `cwd` ("" : this process's).
ChildResult runChild(const std::vector<std::string>& argv, const std::string& cwd, double timeout_seconds);

// The path of this process's executable (/proc/self/exe), or "" when unknown.
std::string selfExecutable();

}  // namespace fc
