// Binding: inputs of a view (the whole
// fusion, or one segment fusion) bind the extents of their non-Reduction
// logical axes -- concretely from per-rank sizes, or symbolically (the
// symbol is known, its value not). DID axes bind by the rule of the point
// replayed (DidBindingRule).
// Expanded broadcasts bind their expanded extent; scalar inputs bind their
// value. Exact-map propagation then copies known extents to every axis
// exact-mapped to a known one. Every bound value keeps its
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

// How a DID-parallel logical axis of an input binds its extent.
enum class DidBindingRule : uint8_t {
  TensorSize,        // like any axis: the tensor's (local) size
  MeshSizeLocalOne,  // the local size must be 1; the extent is the mesh size
  Unsharded,         // local size x the mesh's size along the DID type
};

struct BindRequest {
  DidBindingRule did = DidBindingRule::Unsharded;
  std::vector<BoundInput> tensors;
  std::vector<std::pair<ScalarId, std::optional<int64_t>>> scalars;  // scalar inputs
  std::vector<std::pair<ScalarId, std::optional<int64_t>>> forwarded;
  std::map<std::string, int64_t> user_binds;
  std::vector<ExprId> exprs;  // the view's exprs, for exact-map propagation
  std::string file;
};

// Binds into `ev`. Conflicts (a symbol bound twice to different values, a
// constant extent that disagrees with a size, a DID size that is not 1
// under MeshSizeLocalOne) are reported to `sink`.
void bindView(const Fusion& f, const BindRequest& req, ScalarEval& ev, DiagnosticSink& sink);

}  // namespace fc
