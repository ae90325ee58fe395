// The speculative chunked pass of a large fusion: the verifier's checks
// run in chunks on several threads, each chunk with a SpeculativeReporter,
// only to learn whether they find anything. Nothing is reported from here.
// The answer is "clean", or "run the sequential checks", which then report
// every finding in the sequential order (verifier.cpp). Each chunk runs the
// same check functions as the sequential pass (verifier_checks.h,
// verifier_ops.h), on its range of elements.
#pragma once

#include <cstddef>

#include "ir/verifier_checks.h"
#include "ir/verifier_state.h"

namespace fc::verify {

// The checks before the op checks: scalars, axis owners, names, axis
// numbers and extents, tensor domains and sizes, expr references,
// definitions and uses, cycles. Sizes all the state they build. True when
// none of them finds anything; then that state is the one the sequential
// checks would leave, because each shared slot is claimed by exactly one
// element (claim()).
bool checksBeforeOpsClean(Checks& checks, size_t threads);

// The op checks of every usable expr, on `threads` threads. Any order will
// do when nothing is found: st.order when it is built, id order otherwise.
bool opChecksClean(const VerifyState& st, size_t threads);

// The concrete inputs (a million-expr repro has ~300k of them).
bool concreteInputsClean(Checks& checks, size_t threads);

}  // namespace fc::verify
