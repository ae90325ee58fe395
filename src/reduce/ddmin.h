// Zeller's ddmin over n units (indices 0..n-1): finds a 1-minimal subset
// of units to KEEP such that `test(keep)` holds, trying subsets first, then
// complements, doubling the granularity when neither helps. `test` is
// called with sorted index lists and is assumed true for all n units.
// `stop()` is polled before every test; when it is true the current set
// is returned as is. At most O(n^2) tests, typically O(k log n) when k
// units matter.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace fc {

std::vector<size_t> ddmin(size_t n, const std::function<bool(const std::vector<size_t>& keep)>& test,
                          const std::function<bool()>& stop);

}  // namespace fc
