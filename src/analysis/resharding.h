// Resharding detection and lowering to communications, by era (reference
// §5.2-5.3). An expr is resharding when an input and an output tensor have
// different meshes, or a mapped axis pair differs in DID parallelization.
// O(rank) per expr.
#pragma once

#include <string>

#include "analysis/segmented_fusion.h"
#include "ir/fusion.h"

namespace fc {

bool isResharding(const Fusion& f, ExprId e);

struct Lowering {
  CommKind kind = CommKind::None;
  std::string error;  // non-empty: cannot be lowered (why)
};

// The collective a resharding expr lowers to in `era`, or why it cannot be.
Lowering lowerToCommunication(const Fusion& f, ExprId e, Era era);

}  // namespace fc
