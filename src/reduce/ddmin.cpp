#include "reduce/ddmin.h"

#include <algorithm>

namespace fc {

namespace {

std::vector<std::vector<size_t>> split(const std::vector<size_t>& units, size_t parts) {
  std::vector<std::vector<size_t>> out;
  size_t start = 0;
  for (size_t i = 0; i < parts; ++i) {
    size_t end = start + (units.size() - start) / (parts - i);
    out.emplace_back(units.begin() + static_cast<std::ptrdiff_t>(start),
                     units.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return out;
}

std::vector<size_t> without(const std::vector<size_t>& units, const std::vector<size_t>& chunk) {
  std::vector<size_t> out;
  out.reserve(units.size() - chunk.size());
  std::set_difference(units.begin(), units.end(), chunk.begin(), chunk.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::vector<size_t> ddmin(size_t n, const std::function<bool(const std::vector<size_t>& keep)>& test,
                          const std::function<bool()>& stop) {
  std::vector<size_t> units(n);
  for (size_t i = 0; i < n; ++i) units[i] = i;
  if (n == 0) return units;
  // The empty set first: often nothing in this phase matters.
  if (!stop() && test({})) return {};
  size_t parts = 2;
  while (units.size() >= 2) {
    parts = std::min(parts, units.size());
    std::vector<std::vector<size_t>> chunks = split(units, parts);
    bool reduced = false;
    for (const auto& c : chunks) {  // reduce to a subset
      if (stop()) return units;
      if (c.size() < units.size() && test(c)) {
        units = c;
        parts = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && parts > 2) {
      for (const auto& c : chunks) {  // reduce to a complement
        if (stop()) return units;
        std::vector<size_t> rest = without(units, c);
        if (test(rest)) {
          units = std::move(rest);
          parts = std::max<size_t>(parts - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (parts >= units.size()) break;
    parts = std::min(units.size(), parts * 2);
  }
  return units;
}

}  // namespace fc
