#include "analysis/view_analysis.h"

namespace fc {

std::optional<std::vector<bool>> viewSqueezes(const std::vector<int64_t>& in_sizes,
                                              const std::vector<int64_t>& new_sizes,
                                              const std::vector<bool>& implicit_broadcast) {
  const size_t n = in_sizes.size(), m = new_sizes.size();
  if (n == 0 || m == 0 || implicit_broadcast.size() != n) return std::nullopt;
  int64_t in_numel = 1, out_numel = 1;
  for (int64_t s : in_sizes) {
    if (s <= 0 || __builtin_mul_overflow(in_numel, s, &in_numel)) return std::nullopt;
  }
  for (int64_t s : new_sizes) {
    if (s <= 0 || __builtin_mul_overflow(out_numel, s, &out_numel)) return std::nullopt;
  }
  if (in_numel != out_numel) return std::nullopt;

  std::vector<bool> squeezed(n, false);
  size_t i = 0, j = 0;         // the input axis the walk holds, the new size it builds
  int64_t size = in_sizes[0];  // what is left of the held input axes
  auto next = [&] { size = ++i < n ? in_sizes[i] : 0; };
  auto implicitAt = [&](size_t k) { return k < n && implicit_broadcast[k]; };
  // Each step consumes an input axis or a new size; the bound stops a walk
  // on sizes the analysis would reject.
  for (size_t steps = 0; (i < n || j < m) && steps <= 4 * (n + m); ++steps) {
    // A size-1 input axis that is no implicit broadcast merges into the held
    // axes, unless the next new size is 1 too.
    if ((j + 1 >= m || new_sizes[j + 1] != 1) && i + 1 < n && in_sizes[i + 1] == 1 && !implicitAt(i + 1)) {
      ++i;
      continue;
    }
    if (j < m && size == new_sizes[j]) {  // the held axes make this new size
      ++j;
      next();
      continue;
    }
    if (j < m && new_sizes[j] == 1) {  // a new broadcast axis
      ++j;
      continue;
    }
    if (size == 0) return std::nullopt;
    if (size == 1 && implicitAt(i)) {  // an implicit broadcast no new size takes
      squeezed[i] = true;
      next();
      continue;
    }
    if (implicitAt(i + 1)) {  // an implicit broadcast in the way of a merge
      squeezed[++i] = true;
      continue;
    }
    if (j < m && size % new_sizes[j] == 0) {  // split the held axes
      size /= new_sizes[j];
      ++j;
      continue;
    }
    if (i + 1 >= n) return std::nullopt;
    size *= in_sizes[++i];  // merge the next input axis in
  }
  if (i < n || j < m) return std::nullopt;
  return squeezed;
}

}  // namespace fc
