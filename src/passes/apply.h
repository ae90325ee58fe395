// The apply pass: materializes the concretization of one
// view as a Fusion -- every extent of the view's tensors that evaluates
// becomes a constant, Symbolic axes become Iteration or Broadcast (extent
// 1) -- and prints the view's exprs in nvFuser's style. The concretized
// fusion is verified like any input (the pass manager's check around a
// pass that changes the IR). Runs only when a trace is asked for: it copies
// the fusion, O(size of the fusion) per view.
#pragma once

#include <string>
#include <vector>

#include "analysis/scalar_eval.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

struct ApplyResult {
  Fusion concretized;
  std::string printed;   // the view's exprs, concretized
  size_t replaced = 0;   // extents replaced by constants
  bool verified = true;  // the concretized fusion passed the verifier
  std::vector<Diagnostic> verifier_diagnostics;
};

ApplyResult applyConcretization(const Fusion& f, const std::vector<ExprId>& exprs, ScalarEval& ev);

}  // namespace fc
