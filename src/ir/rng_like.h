// rand_like / randn_like: nvFuser's uniform / normal RNGOp whose output copies its operand's axes
// (csrc/ops/arith.cpp:276-321 @ 81c4b22fd), held as uniform / normal with `flags` (ops.def). The
// facts the importers, the exporters and `run` share about that form.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/fusion.h"

namespace fc {

// The flags of `axes` (true = Broadcast) when each is Iteration, or a Broadcast of the constant
// extent 1, and none is expanded: the IterTypes the flags can say. Nothing otherwise.
std::optional<std::vector<bool>> likeFlags(const Fusion& f, std::span<const AxisId> axes);

// "rand_like" / "randn_like" for a uniform / normal expr with flags; nothing for another expr.
std::optional<std::string_view> likeCallName(const Expr& e);

}  // namespace fc
