// Resharding detection and lowering to communications,
// by the lowering rules of the point replayed. An expr is resharding when an input and an output tensor have
// different meshes, or a mapped axis pair differs in DID parallelization.
// O(rank) per expr.
#pragma once

#include <string>

#include "analysis/segmented_fusion.h"
#include "ir/fusion.h"

namespace fc {

bool isResharding(const Fusion& f, ExprId e);
// The DID type sharding axis `a` of `t` (on the axis, or on a split of it), or Serial.
ParallelType axisSharding(const Fusion& f, TensorId t, AxisId a);
// Whether tensor operand `i` of `e` is sharded differently from an output.
bool reshardsInput(const Fusion& f, ExprId e, size_t i);
// A non-Reduction logical axis of a meshed input that no output axis maps to
// (squeeze, select), on the same mesh: nvFuser's haveDifferentShardings once
// failed on it. Sets *axis to it.
bool unmappedProducerAxis(const Fusion& f, ExprId e, AxisId* axis);

// What nvFuser's lowering of a resharding expr accepts at a point.
struct LoweringRules {
  bool squeeze = false;             // a resharding squeeze lowers like a reduction
  bool segment_set_is_set = false;  // segment_set lowers like set
  // A set between two shardings on different axes: rejected by the
  // one-axis check (false), an AllToAll (true); `swap_unknown`: not modelled.
  bool all_to_all = false;
  bool swap_unknown = false;
  bool multi_dim_mesh = false;  // mesh sizes per DID type (n-D meshes)
  // How a set or reduction picks its collective: one sharded-or-not flag per side (GlobalFlag),
  // each DID type sharded on a side classified alone (PerDid), or each DID type whose sharding
  // the expr changes (PerChangedDid); more than one result fails.
  enum class Classification : uint8_t { GlobalFlag, PerDid, PerChangedDid };
  Classification classification = Classification::GlobalFlag;
};

struct Lowering {
  CommKind kind = CommKind::None;
  std::string error;         // non-empty: cannot be lowered (why)
  std::string check;         // the nvFuser check that rejects it ("" : none named)
  bool not_decided = false;  // the rules at this point are not modelled for this expr
};

// Whether nvFuser's isLowerableToCommunication accepts `e` (a set, or a
// reduction of exactly one axis that is device-sharded on the producer),
// resharding or not.
bool isLowerable(const Fusion& f, ExprId e, const LoweringRules& rules);

// The collective a resharding expr lowers to under `rules`, or why it cannot be.
Lowering lowerToCommunication(const Fusion& f, ExprId e, const LoweringRules& rules);

}  // namespace fc
