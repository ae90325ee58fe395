// The error channel of the CPU evaluators: a user-facing failure found while
// evaluating (a shape that does not fit an op, an unevaluable size, an
// integer division by zero, ...). It carries the diagnostic code and the
// place in the repro; run.cpp turns it into a Diagnostic. Internal
// invariant breaks use FC_CHECK instead.
#pragma once

#include <string>

#include "diag/diagnostic.h"

namespace fc::exec {

struct ExecError {
  DiagCode code = DiagCode::EvaluationFailed;
  std::string message;
  Place where;  // e.g. Place::expr(3); empty: the whole document
};

[[noreturn]] inline void fail(std::string message, const Place& where = {},
                              DiagCode code = DiagCode::EvaluationFailed) {
  throw ExecError{code, std::move(message), where};
}

}  // namespace fc::exec
