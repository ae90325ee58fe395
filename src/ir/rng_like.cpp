#include "ir/rng_like.h"

namespace fc {

std::optional<std::vector<bool>> likeFlags(const Fusion& f, std::span<const AxisId> axes) {
  std::vector<bool> flags;
  flags.reserve(axes.size());
  for (AxisId a : axes) {
    const Axis& ax = f.axes[a];
    const bool broadcast = ax.iter == IterType::Broadcast;
    if (ax.expanded != kNone || ax.extent >= f.scalars.size() ||
        !(ax.iter == IterType::Iteration || broadcast) || (broadcast && constIntOf(f, ax.extent) != 1))
      return std::nullopt;
    flags.push_back(broadcast);
  }
  return flags;
}

std::optional<std::string_view> likeCallName(const Expr& e) {
  if (e.attrs.flags.empty()) return std::nullopt;
  if (e.op == OpKind::Uniform) return "rand_like";
  if (e.op == OpKind::Normal) return "randn_like";
  return std::nullopt;
}

}  // namespace fc
