// The indexing ops fusecheck imports as opaque ops (index_select, gather, take_along_axis) in
// concretization. Each output axis copies one operand axis (csrc/ops/indexing.cpp @ 81c4b22fd),
// and the index is broadcast to the lookup's rank, so concretization's root-domain map pairs the
// index with every output axis by position; the lookup maps every axis but `dim` (index_select,
// take_along_axis) or none (gather, whose sizes need not match: condition 2 of
// PairwiseRootDomainMap::map, csrc/root_domain_map.cpp:74-97,152-160 @ d0ab4a5bd^;
// csrc/logical_domain_map.cpp:81-103,590-598 @ 81c4b22fd).
//
// DynamicTransformConcretizer gives a Symbolic output axis the IterType of the producer axes
// mapped to it. Before #1194 (d0ab4a5bd, 2023-10-31) it asserted that every tensor producer maps
// it ("No input ID found to map with output ID"), so an index whose axis is Symbolic (made by a
// dynamic reshape) failed; from #1194 one mapped producer suffices (nvFuser #1192).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// An opaque expr fusecheck knows as an indexing op, with its `dim` (attrs.dims) in range.
struct IndexingOp {
  enum class Kind : uint8_t { IndexSelect, Gather, TakeAlongAxis };
  Kind kind = Kind::IndexSelect;
  size_t dim = 0;
  TensorId lookup = kNone, index = kNone;
  // Whether the lookup's root-domain map pairs it with output axis `pos`.
  bool lookupMaps(size_t pos) const { return kind != Kind::Gather && pos != dim; }
  // Whether a Symbolic output axis `pos` concretizes as its extent says (Broadcast for 1, else
  // Iteration). Concretization promotes the IterTypes of the mapped producer axes: one axis
  // (gather; `dim`), or a lookup axis and a Broadcast index axis (index_select), give the type
  // of the axis the output copies. take_along_axis pairs a lookup axis with an index axis that
  // need not be Broadcast, and a lookup axis of extent 1 then concretizes Iteration: not modelled.
  bool followsSymbolic(size_t pos) const { return kind != Kind::TakeAlongAxis || pos == dim; }
};

// Recognizes `x` by its name (the frontends' and the printed IR's spellings); nothing when it is
// another op, when its dim is not recorded or is out of range, or when its operands are not a
// lookup and an index tensor of one rank with the output.
std::optional<IndexingOp> indexingOp(const Fusion& f, const Expr& x);

// Reports FC0321 into `sink` for the first indexing op among `exprs` (topological) with a Symbolic
// output axis that the lookup does not map, at a point of `p` before #1194; false (nothing
// reported) otherwise. O(1) from #1194, else O(opaque exprs' output axes).
bool unmappedSymbolicFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink);

}  // namespace fc
