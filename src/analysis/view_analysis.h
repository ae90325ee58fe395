// Which input axes a reshape squeezes, as nvFuser's view analysis decides it
// (AnalyzeViewTransformation::findTransformation, csrc/transform_view.cpp).
// The analysis walks the input sizes and the new sizes together, keeping
// matching runs, splitting and merging the rest; an input axis of extent 1
// that is an implicit broadcast (a Broadcast axis that is not expanded, or a
// Symbolic axis whose extent is 1 at run time) and that lines up with no
// size-1 entry of the new sizes is squeezed, while a size-1 axis that is not
// an implicit broadcast is merged into its neighbour instead.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fc {

// One flag per input axis: true when the reshape squeezes it. nullopt when
// the sizes do not describe a reshape the analysis completes (an empty input
// or output, a zero or negative size, element counts that differ).
// O(inputs + outputs).
std::optional<std::vector<bool>> viewSqueezes(const std::vector<int64_t>& in_sizes,
                                              const std::vector<int64_t>& new_sizes,
                                              const std::vector<bool>& implicit_broadcast);

}  // namespace fc
