// explain for a tensor (T5), an axis (rS14, as nvFuser prints it, with or
// without its {extent}) or an expr (e3): what it is, where the era's
// segmentation puts it, how it enters the segments that use it, and every
// diagnostic located on it. The symbol case is in explain.cpp.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "driver/analysis_commands.h"

namespace fc::driver {

struct EntityRef {
  enum class Kind { Tensor, Axis, Expr } kind = Kind::Tensor;
  uint32_t id = 0;
};

// The tensor, axis or expr `name` denotes in `f`, or nullopt.
std::optional<EntityRef> findEntity(const Fusion& f, const std::string& name);
// Every name explain takes for `f` (scalars, tensors, axes, exprs), for suggestions.
std::vector<std::string> explainableNames(const Fusion& f);

int explainEntity(const ExplainArgs& a, const Loaded& loaded, EntityRef ref, std::ostream& out,
                  std::ostream& err);

}  // namespace fc::driver
