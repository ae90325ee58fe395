// The rules of each op category, checked for one expr: the ranks, iter
// types and dtypes of its operands and outputs and the attributes they
// depend on (elementwise ops, shape ops, reductions, factories, matmul and
// linear). Self-contained: a fusion and an expr in, findings out through a
// Reporter. Which exprs are checked, in which order, on which threads, and
// which findings a consumer of an already reported tensor leaves out, is
// the verifier's business (verifier.cpp), not this file's.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ir/fusion.h"
#include "ir/verifier_report.h"

namespace fc::verify {

// Checks expr `e` of `f` against the rules of its op. `e` must be usable:
// its references resolve, its arity and operand kinds are right, and every
// tensor it names has a well-formed domain (the checks before the op
// checks). `constants` holds, per scalar, the integer it folds to (nullopt
// when it is not a constant), as the scalar checks computed it.
void checkOp(const Fusion& f, ExprId e, std::span<const std::optional<int64_t>> constants, Reporter& r);

}  // namespace fc::verify
