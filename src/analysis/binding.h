// Binding (DESIGN §2 step 4, reference §3): inputs of a view (the whole
// fusion, or one segment fusion) bind the extents of their non-Reduction
// logical axes -- concretely from per-rank sizes, or symbolically (the
// symbol is known, its value not). DID axes bind per era: 2024, local size
// 1 and extent = mesh size; head, extent = local size x mesh.sizeFor(pt).
// Expanded broadcasts bind their expanded extent; scalar inputs bind their
// value. Exact-map propagation then copies known extents to every axis
// exact-mapped to a known one (reference §3.5). Every bound value keeps its
// Origin. O(axes + exprs) plus the propagation fixpoint.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/scalar_eval.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

struct BoundInput {
  TensorId tensor = kNone;
  std::vector<AxisId> domain;  // as the view sees it (after the input rewrite)
  // Per-rank local sizes of the non-Reduction axes of `domain`, when known.
  std::optional<std::vector<int64_t>> sizes;
  bool fresh_rfactor = false;  // segment input: rfactor-product extents are fresh
};

struct BindRequest {
  Era era = Era::E2024_06;
  std::vector<BoundInput> tensors;
  std::vector<std::pair<ScalarId, std::optional<int64_t>>> scalars;  // scalar inputs
  std::vector<std::pair<ScalarId, std::optional<int64_t>>> forwarded;
  std::map<std::string, int64_t> user_binds;
  std::vector<ExprId> exprs;  // the view's exprs, for exact-map propagation
  std::string file;
};

// Binds into `ev`. Conflicts (a symbol bound twice to different values, a
// constant extent that disagrees with a size, a DID size that is not 1 in
// the 2024 eras) are reported to `sink`.
void bindView(const Fusion& f, const BindRequest& req, ScalarEval& ev, DiagnosticSink& sink);

}  // namespace fc
