// Concretization analysis for one view, as nvFuser's
// DynamicTransform analysis does (csrc/dynamic_transform.cpp): the whole fusion, or one segment fusion.
// Collects, for every tensor the view holds (inputs with their rewritten domains, outputs of its exprs), each
// logical axis's maybe-expanded extent that is non-constant or the constant 0 -- Reduction axes included --
// and every scalar an expr uses as a value; evaluates each after binding. What cannot be evaluated is
// returned as data (UnboundUse), never asserted. Dynamic reshapes, expands, zero extents and DID extents are
// checked here too. O(axes + exprs of the view).
#pragma once

#include <string>
#include <vector>

#include "analysis/binding.h"
#include "analysis/scalar_eval.h"
#include "analysis/unbound_use.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "support/epoch_marks.h"

namespace fc {

struct ViewSpec {
  int segment = -1;  // -1: the whole fusion
  std::vector<ExprId> exprs;
  std::vector<BoundInput> inputs;  // tensor inputs with the domains the view sees
};

struct ConcretizationInfo {
  std::vector<UnboundUse> unbound;         // in discovery order
  std::vector<std::string> empty_extents;  // "T3 axis 1 (iS5{i2}) = 0"
  std::vector<std::string> decisions;      // "T4 axis 0: Symbolic -> Iteration (extent 6)"
  size_t checked_extents = 0;
};

// `scratch`: a caller that analyzes many views of one fusion (one per compute
// segment) passes the same marks each time, so that they are not allocated and
// cleared per view (O(segments x tensors)); null: local marks.
// `threads` > 1: the view's exprs are analyzed in chunks on that many threads
// (the pipeline does so for a large whole fusion), with the same result and
// diagnostics; `ev` then has every scalar evaluated first. Only for a
// verified fusion (each tensor the output of one expr).
ConcretizationInfo analyzeConcretization(const Fusion& f, const ViewSpec& view, ScalarEval& ev,
                                         DidBindingRule did, DiagnosticSink& sink, const std::string& file,
                                         EpochMarks* scratch = nullptr, unsigned threads = 1);

}  // namespace fc
