// `fusecheck test DIR|FILE...`: repros as regression tests. Each repro is
// run against the expectation beside it (X.expect.json, the format
// fusecheck.expect/1 of docs/fixtures.md, read by driver/expect.h): every
// invocation the sidecar asks for runs as a user would run it (this
// executable, or --cli, in the sidecar's folder, 20 s timeout, CPU time
// and peak memory of that child) and must give the verdict, diagnostics,
// output and limits expected. What this fusecheck cannot run yet is
// skipped and said so, never passed (--strict: a failure).
//
// Output: one line per sidecar (text), the same as JSON, and FC0701 /
// FC0702 / FC0703 diagnostics located in the sidecars (which the CLI turns
// into SARIF or GitHub annotations); --junit FILE writes JUnit XML beside.
// --update rewrites the expectations from what the CLI does now, keeping
// what was written by hand (review the diff).
//
// Exit: 0 every sidecar passed (skips allowed without --strict), 1 one
// failed, 2 usage (a path that is neither a folder nor a sidecar / repro),
// 3 --junit cannot be written.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "driver/common.h"

namespace fc::driver {

struct TestArgs {
  std::vector<std::string> paths;     // folders (searched recursively for *.expect.json), sidecars, repros
  bool update = false;                // rewrite the expectations
  std::vector<std::string> new_args;  // --update of a repro without a sidecar: the run to record
  bool strict = false;                // a skip fails
  std::string junit;                  // also write JUnit XML here
  std::string cli;                    // the fusecheck to test ("": this executable)
  unsigned jobs = 0;                  // sidecars at once (0: the default thread count)
  OutputFormat format = OutputFormat::Text;
};

int test(const TestArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
