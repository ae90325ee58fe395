// The failure of what multi-process runs do not perform yet: an ExecError
// (FC0502 execution-failed) "<what> is not supported in multi-process runs
// yet", at `where`. Shared by the multi-process communicators and the rank
// session.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "exec/exec_error.h"

namespace fc::exec::multirank {

[[noreturn]] inline void failUnsupportedInMultiProcess(std::string_view what, const Place& where = {}) {
  fail(std::string(what) + " is not supported in multi-process runs yet", where, DiagCode::ExecutionFailed);
}

}  // namespace fc::exec::multirank
